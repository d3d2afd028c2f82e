/**
 * The event translator: the only place public event shapes are built.
 *
 * Contract: every function here turns engine state into one event (or, for `flush`, the book
 * delta / trades / bbo of the command that just ran) and hands it to the sink, stamping the
 * sequence numbers its channel needs (sequence.ts). Book changes are collected per command
 * (`touch` / `markDirty`) and leave as one delta per market with absolute level sizes.
 */
import type { Account } from './account.ts';
import { bestPrice, bestSize, levelSizeAt, type BookSide } from './book.ts';
import type { Order } from './order.ts';
import type { AccountMarket } from './position.ts';
import { nextGlobal } from './sequence.ts';
import type { LeverageRejectReason, OrderStatus, PositionEffect, RejectionReason } from './spec.ts';
import type { EngineEvent, RejectedResult, SideCode, TransferEvent } from './types.ts';
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
    if (mw.trades.length > 0) emitTrades(engine, ms);
    mw.tradesTaker = null;
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

export function emitFill(engine: Engine, ms: MarketState, o: Order, tradeId: number, price: number, qty: number, role: 'MAKER' | 'TAKER', fee: bigint, closedPnl: bigint, positionEffect: PositionEffect): void {
  const account = o.account;
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
    fee,
    closedPnl,
    positionEffect,
    liquidation: engine.scratch.liquidating,
  });
}

export function emitTrades(engine: Engine, ms: MarketState): void {
  const mw = engine.scratch.markets[ms.slot]!;
  const taker = mw.tradesTaker!;
  engine.wiring.sink({
    type: 'trades',
    globalSeq: nextGlobal(engine.seq),
    time: engine.time,
    marketSeq: ms.seq,
    marketId: ms.spec.id,
    takerOrderId: taker.id,
    takerSide: taker.side,
    entries: mw.trades,
  });
  mw.trades = [];
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
    netQuoteBalance: account.quote,
    status,
    rejectReason,
    counterpartyIndex,
  });
}

export function emitPosition(engine: Engine, account: Account, am: AccountMarket, requestId?: string): void {
  engine.wiring.sink({
    type: 'position',
    globalSeq: nextGlobal(engine.seq),
    accountSeq: ++account.seq,
    time: engine.time,
    address: account.address,
    accountIndex: account.index,
    marketId: am.marketId,
    size: am.size,
    cost: am.cost,
    realizedPnl: am.realizedPnl,
    isolated: am.isolated,
    isolatedMargin: am.isolatedMargin,
    leverage: am.leverage,
    fundingAllTime: am.fundingAllTime,
    fundingSinceOpen: am.fundingSinceOpen,
    fundingSinceChange: am.fundingSinceChange,
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
