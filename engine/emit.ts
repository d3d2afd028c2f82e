/**
 * The event translator: the only place public event shapes are built.
 *
 * Contract: every function here turns engine state into one event (or, for `flush`, the book
 * delta / trades / bbo of the command that just ran) and hands it to the sink, stamping the
 * sequence numbers its channel needs (sequence.ts). Book changes are collected per command
 * (`touch` / `markDirty`) and leave as one delta per market with absolute level sizes.
 */
import { quoteOf, type Account } from './account.ts';
import { bestPrice, bestSize, levelSizeAt, type BookSide } from './book.ts';
import type { Order } from './order.ts';
import { closedPnlOf, settledFee, type AccountMarket, type Settled } from './position.ts';
import { COST_F, costAt, isExact, ISOLATED, LEVERAGE, REALIZED_F, realizedPnlAt, SIZE, SLOT, W, type RiskTable } from './risk-table.ts';
import { nextGlobal } from './sequence.ts';
import { EV_BBO, EV_BOOK, EV_FILL, EV_ORDER, EV_POSITION, EV_TRADES, nextRecord, NUM, REF, reserveLevels, reserveTrades, tradeEntry, TRADE_NUM, TRADE_REF, type EventRecords } from './event-records.ts';
import type { LeverageRejectReason, OrderStatus, RejectionReason } from './spec.ts';
import type { EngineEvent, RejectedResult, SideCode, TradeEntry, TransferEvent } from './types.ts';
import type { Engine, MarketState } from './state.ts';

export function markDirty(engine: Engine, ms: MarketState, side: SideCode, price: number): void {
  const mw = engine.scratch.markets[ms.slot]!;
  if (side === 0) mw.dirtyBids[mw.dirtyBidCount++] = price;
  else mw.dirtyAsks[mw.dirtyAskCount++] = price;
}

export function touch(engine: Engine, ms: MarketState): void {
  const mw = engine.scratch.markets[ms.slot]!;
  if (mw.touched) return;
  mw.touched = true;
  ms.seq++;
  const bids = ms.book.bids;
  const asks = ms.book.asks;
  const before = mw.bboBefore;
  before[0] = bestPrice(bids);
  before[1] = bestSize(bids);
  before[2] = bestPrice(asks);
  before[3] = bestSize(asks);
  const scratch = engine.scratch;
  scratch.touchedMarkets[scratch.touchedCount++] = ms;
}

export function flush(engine: Engine): void {
  const scratch = engine.scratch;
  const touched = scratch.touchedMarkets;
  for (let i = 0; i < scratch.touchedCount; i++) {
    const ms = touched[i]!;
    const mw = scratch.markets[ms.slot]!;
    if (mw.tradeCount > 0) emitTrades(engine, ms);
    mw.tradesTaker = null;
    const records = engine.wiring.records;
    if (records !== undefined) {
      recordBook(engine, records, ms);
      continue;
    }
    const bids = levelSizes(ms.book.bids, mw.dirtyBids, mw.dirtyBidCount);
    const asks = levelSizes(ms.book.asks, mw.dirtyAsks, mw.dirtyAskCount);
    mw.dirtyBidCount = 0;
    mw.dirtyAskCount = 0;
    const time = engine.time;
    engine.wiring.sink({ type: 'book', globalSeq: nextGlobal(engine.seq), time, marketSeq: ms.seq, marketId: ms.spec.id, bids, asks });
    const bidPrice = bestPrice(ms.book.bids);
    const bidSize = bestSize(ms.book.bids);
    const askPrice = bestPrice(ms.book.asks);
    const askSize = bestSize(ms.book.asks);
    const b = mw.bboBefore;
    if (b[0] !== bidPrice || b[1] !== bidSize || b[2] !== askPrice || b[3] !== askSize) {
      engine.wiring.sink({ type: 'bbo', globalSeq: nextGlobal(engine.seq), time, marketSeq: ms.seq, marketId: ms.spec.id, bidPrice, bidSize, askPrice, askSize });
    }
    mw.touched = false;
  }
  scratch.touchedCount = 0;
}

/**
 * Starts a record of an account's event: global and account sequence (stamped in the order the
 * object literals stamp them), time, address and subaccount in the first slots. Returns its index.
 */
function accountRecord(engine: Engine, r: EventRecords, kind: number, account: Account): number {
  const i = nextRecord(r, kind);
  const n = r.num;
  const p = i * NUM;
  n[p] = nextGlobal(engine.seq);
  n[p + 1] = ++account.seq;
  n[p + 2] = engine.time;
  n[p + 3] = account.index;
  r.ref[i * REF] = account.address;
  return i;
}

/** Starts a record of a market's event: global sequence, time, market sequence and id. */
function marketRecord(engine: Engine, r: EventRecords, kind: number, ms: MarketState): number {
  const i = nextRecord(r, kind);
  const n = r.num;
  const p = i * NUM;
  n[p] = nextGlobal(engine.seq);
  n[p + 1] = engine.time;
  n[p + 2] = ms.seq;
  n[p + 3] = ms.spec.id;
  return i;
}

/** flush's book delta and bbo of one market, as records. */
function recordBook(engine: Engine, r: EventRecords, ms: MarketState): void {
  const mw = engine.scratch.markets[ms.slot]!;
  const o = marketRecord(engine, r, EV_BOOK, ms) * NUM;
  r.num[o + 4] = r.levelCount;
  r.num[o + 5] = recordLevels(r, ms.book.bids, mw.dirtyBids, mw.dirtyBidCount);
  r.num[o + 6] = r.levelCount;
  r.num[o + 7] = recordLevels(r, ms.book.asks, mw.dirtyAsks, mw.dirtyAskCount);
  mw.dirtyBidCount = 0;
  mw.dirtyAskCount = 0;
  const bidPrice = bestPrice(ms.book.bids);
  const bidSize = bestSize(ms.book.bids);
  const askPrice = bestPrice(ms.book.asks);
  const askSize = bestSize(ms.book.asks);
  const b = mw.bboBefore;
  if (b[0] !== bidPrice || b[1] !== bidSize || b[2] !== askPrice || b[3] !== askSize) {
    const p = marketRecord(engine, r, EV_BBO, ms) * NUM;
    const n = r.num;
    n[p + 4] = bidPrice;
    n[p + 5] = bidSize;
    n[p + 6] = askPrice;
    n[p + 7] = askSize;
  }
  mw.touched = false;
}

/** levelSizes into the records' level pool; returns the number of doubles written. */
function recordLevels(r: EventRecords, bookSide: BookSide, dirty: number[], count: number): number {
  const start = reserveLevels(r, count * 2);
  const levels = r.levels;
  let end = start;
  for (let i = 0; i < count; i++) {
    const price = dirty[i]!;
    let seen = false;
    for (let j = start; j < end; j += 2) {
      if (levels[j] === price) {
        seen = true;
        break;
      }
    }
    if (seen) continue;
    levels[end] = price;
    levels[end + 1] = levelSizeAt(bookSide, price);
    end += 2;
  }
  r.levelCount = end;
  return end - start;
}

/** Absolute sizes of the levels a command touched, each price once, as flat pairs. */
export function levelSizes(bookSide: BookSide, dirty: number[], count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const price = dirty[i]!;
    let seen = false;
    for (let j = 0; j < out.length; j += 2) {
      if (out[j] === price) {
        seen = true;
        break;
      }
    }
    if (seen) continue;
    out.push(price, levelSizeAt(bookSide, price));
  }
  return out;
}

/** `status` overrides what is reported (an untriggered TPSL is stored UNTRIGGERED, reported TPSL_PLACED). */
export function emitOrder(engine: Engine, o: Order, status: OrderStatus = o.status): void {
  const account = o.account;
  const records = engine.wiring.records;
  if (records !== undefined) return recordOrder(engine, records, o, status);
  engine.wiring.sink({
    type: 'order',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    orderId: o.id,
    address: account.address,
    accountIndex: account.index,
    marketId: o.marketId,
    clientId: o.clientId,
    side: o.side,
    orderType: o.orderType,
    tif: o.tif,
    reduceOnly: o.reduceOnly,
    price: o.price,
    size: o.size,
    remaining: o.remaining,
    filled: o.filled,
    filledValue: o.filledValue,
    goodTilTime: o.goodTilTime,
    createdAt: o.createdAt,
    status,
    rejectionReason: o.rejectionReason,
    cancelReason: o.cancelReason,
    origin: o.origin,
    tpslType: o.tpslType,
    triggerPrice: o.triggerPrice,
    isPositionTpsl: o.isPositionTpsl,
    parentOrderId: o.parentOrderId,
  } satisfies EngineEvent);
}

function recordOrder(engine: Engine, r: EventRecords, o: Order, status: OrderStatus): void {
  const i = accountRecord(engine, r, EV_ORDER, o.account);
  const n = r.num;
  const f = r.ref;
  const p = i * NUM;
  const x = i * REF;
  n[p + 4] = o.id;
  n[p + 5] = o.marketId;
  f[x + 1] = o.clientId;
  n[p + 6] = o.side;
  n[p + 7] = o.orderType;
  n[p + 8] = o.tif;
  n[p + 9] = o.reduceOnly ? 1 : 0;
  n[p + 10] = o.price;
  n[p + 11] = o.size;
  n[p + 12] = o.remaining;
  n[p + 13] = o.filled;
  n[p + 14] = o.filledValue;
  n[p + 15] = o.goodTilTime;
  n[p + 16] = o.createdAt;
  f[x + 2] = status;
  f[x + 3] = o.rejectionReason;
  f[x + 4] = o.cancelReason;
  f[x + 5] = o.origin;
  f[x + 6] = o.tpslType;
  f[x + 7] = o.triggerPrice;
  n[p + 17] = o.isPositionTpsl ? 1 : 0;
  f[x + 8] = o.parentOrderId;
}

export function emitFill(engine: Engine, ms: MarketState, o: Order, tradeId: number, price: number, qty: number, role: 'MAKER' | 'TAKER', settled: Settled): void {
  const account = o.account;
  const r = engine.wiring.records;
  if (r !== undefined) {
    const i = accountRecord(engine, r, EV_FILL, account);
    const n = r.num;
    const f = r.ref;
    const p = i * NUM;
    const x = i * REF;
    n[p + 4] = ms.seq;
    n[p + 5] = tradeId;
    n[p + 6] = o.id;
    f[x + 1] = o.clientId;
    n[p + 7] = o.marketId;
    n[p + 8] = o.side;
    n[p + 9] = price;
    n[p + 10] = qty;
    f[x + 2] = role;
    n[p + 11] = o.size;
    n[p + 12] = o.remaining;
    // Fee and closed PnL as their exact doubles when there are (eventAt makes the bigints), else the bigints.
    const feeF = settled.feeF;
    n[p + 14] = feeF;
    f[x + 3] = feeF === feeF ? undefined : settled.fee;
    const closedF = settled.closedPnlF;
    n[p + 13] = closedF;
    f[x + 4] = closedF === closedF ? undefined : settled.closedPnl;
    f[x + 5] = settled.effect;
    f[x + 6] = engine.scratch.liquidating;
    return;
  }
  engine.wiring.sink({
    type: 'fill',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    marketSeq: ms.seq,
    time: engine.time,
    tradeId,
    orderId: o.id,
    address: account.address,
    accountIndex: account.index,
    clientId: o.clientId,
    marketId: o.marketId,
    side: o.side,
    price,
    size: qty,
    role,
    orderSize: o.size,
    remaining: o.remaining,
    fee: settledFee(settled),
    closedPnl: closedPnlOf(settled),
    positionEffect: settled.effect,
    liquidation: engine.scratch.liquidating,
  });
}

export function emitTrades(engine: Engine, ms: MarketState): void {
  const mw = engine.scratch.markets[ms.slot]!;
  const taker = mw.tradesTaker!;
  const count = mw.tradeCount;
  mw.tradeCount = 0;
  const r = engine.wiring.records;
  if (r !== undefined) {
    const i = marketRecord(engine, r, EV_TRADES, ms);
    r.num[i * NUM + 4] = taker.id;
    r.num[i * NUM + 5] = taker.side;
    const start = reserveTrades(r, count);
    r.num[i * NUM + 6] = start;
    r.num[i * NUM + 7] = count;
    const nums = mw.tradeNums;
    const refs = mw.tradeRefs;
    for (let k = 0; k < count * TRADE_NUM; k++) r.trades[start * TRADE_NUM + k] = nums[k]!;
    for (let k = 0; k < count * TRADE_REF; k++) r.tradeRefs[start * TRADE_REF + k] = refs[k];
    return;
  }
  const entries: TradeEntry[] = [];
  for (let k = 0; k < count; k++) entries.push(tradeEntry(mw.tradeNums, mw.tradeRefs, k));
  engine.wiring.sink({
    type: 'trades',
    globalSeq: nextGlobal(engine.seq),
    time: engine.time,
    marketSeq: ms.seq,
    marketId: ms.spec.id,
    takerOrderId: taker.id,
    takerSide: taker.side,
    entries,
  });
}

export function rejectCommand(engine: Engine, account: Account, command: 'cancelOrder' | 'modifyOrder', marketId: number, orderId: number | undefined, clientId: string | undefined, reason: RejectionReason): RejectedResult {
  emitRejected(engine, account, command, marketId, orderId, clientId, reason);
  return { kind: 'rejected', orderId, clientId, rejectionReason: reason };
}

export function emitRejected(engine: Engine, account: Account, command: 'cancelOrder' | 'modifyOrder', marketId: number, orderId: number | undefined, clientId: string | undefined, reason: RejectionReason): void {
  engine.wiring.sink({
    type: 'rejected',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    command,
    address: account.address,
    accountIndex: account.index,
    marketId,
    orderId,
    clientId,
    rejectionReason: reason,
  });
}

export function emitSwitch(engine: Engine, account: Account, marketId: number | undefined, action: 'armed' | 'disarmed' | 'fired' | 'capped', deadline: number | undefined): void {
  engine.wiring.sink({
    type: 'switch',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId,
    action,
    deadline,
  });
}

export function emitTransfer(
  engine: Engine,
  account: Account,
  operationId: number,
  kind: TransferEvent['kind'],
  amount: bigint,
  status: TransferEvent['status'],
  rejectReason: string | undefined,
  counterpartyIndex: number | undefined,
): void {
  engine.wiring.sink({
    type: 'transfer',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    operationId,
    kind,
    amount,
    netQuoteBalance: quoteOf(account),
    status,
    rejectReason,
    counterpartyIndex,
  });
}

export function emitPosition(engine: Engine, account: Account, am: AccountMarket, requestId?: string): void {
  emitPositionRow(engine, account, am.t, am.row, requestId);
}

/**
 * The position event of row `row` of the risk table, read from the row itself: the fill path
 * makes no view for it, and reads the cost and realized PnL columns only beyond 2^52.
 */
export function emitPositionRow(engine: Engine, account: Account, t: RiskTable, row: number, requestId?: string): void {
  const r = t.rows;
  const o = row * W;
  const records = engine.wiring.records;
  if (records !== undefined) {
    const i = accountRecord(engine, records, EV_POSITION, account);
    const n = records.num;
    const f = records.ref;
    const p = i * NUM;
    const x = i * REF;
    n[p + 4] = t.marketIds[r[o + SLOT]!]!;
    n[p + 5] = r[o + SIZE]!;
    const costF = r[o + COST_F]!;
    const realizedF = r[o + REALIZED_F]!;
    n[p + 6] = costF;
    n[p + 7] = realizedF;
    f[x + 1] = isExact(costF) ? undefined : t.cost[row];
    f[x + 2] = isExact(realizedF) ? undefined : t.realizedPnl[row];
    n[p + 8] = r[o + ISOLATED] === 1 ? 1 : 0;
    f[x + 3] = t.isolatedMargin[row];
    n[p + 9] = r[o + LEVERAGE]!;
    f[x + 4] = t.fundingAllTime[row];
    f[x + 5] = t.fundingSinceOpen[row];
    f[x + 6] = t.fundingSinceChange[row];
    f[x + 7] = requestId;
    return;
  }
  engine.wiring.sink({
    type: 'position',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId: t.marketIds[r[o + SLOT]!]!,
    size: r[o + SIZE]!,
    cost: costAt(t, row),
    realizedPnl: realizedPnlAt(t, row),
    isolated: r[o + ISOLATED] === 1,
    isolatedMargin: t.isolatedMargin[row]!,
    leverage: r[o + LEVERAGE]!,
    fundingAllTime: t.fundingAllTime[row]!,
    fundingSinceOpen: t.fundingSinceOpen[row]!,
    fundingSinceChange: t.fundingSinceChange[row]!,
    requestId,
  });
}

export function emitLeverage(
  engine: Engine,
  account: Account,
  marketId: number,
  leverage: number,
  isolated: boolean,
  rejectReason: LeverageRejectReason | undefined,
  requestId: string | undefined,
): void {
  engine.wiring.sink({
    type: 'leverage',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId,
    leverage,
    isolated,
    status: rejectReason === undefined ? 'APPLIED' : 'REJECTED',
    rejectReason,
    requestId,
  });
}

export function emitFunding(engine: Engine, account: Account, marketId: number, rate: bigint, size: number, payment: bigint): void {
  engine.wiring.sink({
    type: 'funding',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId,
    rate,
    size,
    payment,
  });
}

export function emitInterest(engine: Engine, account: Account, payment: bigint): void {
  engine.wiring.sink({
    type: 'interest',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    payment,
  });
}

export function emitLiquidation(engine: Engine, account: Account, marketId: number | undefined, equity: bigint, maintenance: bigint): void {
  engine.wiring.sink({
    type: 'liquidation',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId,
    equity,
    maintenance,
  });
}

export function emitAdl(engine: Engine, account: Account, marketId: number, size: number, price: number, liquidatedUser: string): void {
  engine.wiring.sink({
    type: 'adl',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId,
    size,
    price,
    liquidatedUser,
  });
}

export function emitPrices(engine: Engine, ms: MarketState): void {
  engine.wiring.sink({ type: 'prices', globalSeq: nextGlobal(engine.seq), time: engine.time, marketId: ms.spec.id, oraclePrice: ms.oraclePrice, markPrice: ms.markPrice });
}

export function emitFundingRate(engine: Engine, ms: MarketState, type: 'fundingRate' | 'predictedFunding', rate: bigint): void {
  engine.wiring.sink({ type, globalSeq: nextGlobal(engine.seq), time: engine.time, marketId: ms.spec.id, rate });
}

export function emitMarket(engine: Engine, ms: MarketState): void {
  engine.wiring.sink({ type: 'market', globalSeq: nextGlobal(engine.seq), time: engine.time, marketId: ms.spec.id, status: ms.spec.status });
}
