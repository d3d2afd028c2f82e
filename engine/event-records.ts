/**
 * Events as plain numeric records in a reusable buffer (the record mode of the event sink).
 *
 * Contract: with a record consumer wired (`useEventRecords`), the engine writes each command's
 * events here instead of building objects, and hands the buffer to the consumer at the end of
 * the command (then empties it). The hot events (order, fill, position, book, bbo, trades) are
 * numeric records: `num` holds NUM doubles per record, `ref` REF references (strings, bigints
 * and arrays the engine already holds: no allocation per event); every other event is stored as
 * the object the sink would have had (OBJECT). An account's event starts with global sequence,
 * account sequence, time and subaccount (address in `ref`), a market's with global sequence,
 * time, market sequence and market id. `eventAt` turns record i into exactly the object
 * the object sink receives (same keys, same order, same values: test/engine.event-records.test.ts
 * runs the differential stream both ways), so a consumer that needs objects makes them, and one
 * that does not (the engine benchmark) reads the numbers.
 *
 * Fields that may be undefined, strings and bigints go to `ref`; a position's cost and realized
 * PnL and a fill's fee and closed PnL are stored as their double when it is exact (below 2^52,
 * risk-table.ts, money.ts), with the bigint beside it only beyond. A trades event's entries sit
 * in a pool of their own (`trades`, `tradeRefs`; the record names the first and the count).
 */
import type { EngineEvent, FillEvent, OrderEvent, TradeEntry } from './types.ts';
import { plainRecord } from './plain-record.ts';

export const EV_OBJECT = 0;
export const EV_ORDER = 1;
export const EV_FILL = 2;
export const EV_POSITION = 3;
export const EV_BOOK = 4;
export const EV_BBO = 5;
export const EV_TRADES = 6;

/** The event `type` of each record kind but OBJECT. */
export const EVENT_TYPE_OF_KIND = ['', 'order', 'fill', 'position', 'book', 'bbo', 'trades'] as const;

export const NUM = 18;
export const REF = 9;

export interface EventRecords {
  /** Records written so far in this command. */
  count: number;
  kind: Uint8Array;
  num: Float64Array;
  ref: unknown[];
  /** Book deltas' flat [price, size] pairs, `levelCount` doubles in use. */
  levels: Float64Array;
  levelCount: number;
  /** Trades events' entries: TRADE_NUM numbers and TRADE_REF references each, `tradeCount` in use. */
  trades: Float64Array;
  tradeRefs: unknown[];
  tradeCount: number;
}

const buildEventRecords = plainRecord<EventRecords>();

/** Numbers and references per trade entry, here and in the engine's per-market scratch (state.ts). */
export const TRADE_NUM = 6;
export const TRADE_REF = 2;

export function createEventRecords(capacity = 64): EventRecords {
  return buildEventRecords({
    count: 0,
    kind: new Uint8Array(capacity),
    num: new Float64Array(capacity * NUM),
    ref: new Array<unknown>(capacity * REF).fill(undefined),
    levels: new Float64Array(256),
    levelCount: 0,
    trades: new Float64Array(16 * TRADE_NUM),
    tradeRefs: new Array<unknown>(16 * TRADE_REF).fill(undefined),
    tradeCount: 0,
  });
}

/** Starts record `count` of `kind`, growing the buffer when full; returns its index. */
export function nextRecord(r: EventRecords, kind: number): number {
  const i = r.count;
  if (i === r.kind.length) grow(r);
  r.kind[i] = kind;
  r.count = i + 1;
  return i;
}

function grow(r: EventRecords): void {
  const capacity = r.kind.length * 2;
  const kind = new Uint8Array(capacity);
  kind.set(r.kind);
  const num = new Float64Array(capacity * NUM);
  num.set(r.num);
  r.kind = kind;
  r.num = num;
  for (let i = r.ref.length; i < capacity * REF; i++) r.ref.push(undefined);
}

/** Makes room for `n` more level doubles; returns where they start. */
export function reserveLevels(r: EventRecords, n: number): number {
  const at = r.levelCount;
  if (at + n > r.levels.length) {
    let capacity = r.levels.length * 2;
    while (capacity < at + n) capacity *= 2;
    const levels = new Float64Array(capacity);
    levels.set(r.levels.subarray(0, at));
    r.levels = levels;
  }
  return at;
}

/** Makes room for `n` more trade entries; returns the index of the first. */
export function reserveTrades(r: EventRecords, n: number): number {
  const at = r.tradeCount;
  if ((at + n) * TRADE_NUM > r.trades.length) {
    let capacity = r.trades.length / TRADE_NUM;
    while (capacity < at + n) capacity *= 2;
    const trades = new Float64Array(capacity * TRADE_NUM);
    trades.set(r.trades.subarray(0, at * TRADE_NUM));
    r.trades = trades;
    for (let i = r.tradeRefs.length; i < capacity * TRADE_REF; i++) r.tradeRefs.push(undefined);
  }
  r.tradeCount = at + n;
  return at;
}

/** Trade entry `k` of numbers and references laid out TRADE_NUM / TRADE_REF per entry. */
export function tradeEntry(nums: ArrayLike<number>, refs: ArrayLike<unknown>, k: number): TradeEntry {
  const n = k * TRADE_NUM;
  const x = k * TRADE_REF;
  return {
    tradeId: nums[n]!,
    price: nums[n + 1]!,
    size: nums[n + 2]!,
    makerOrderId: nums[n + 3]!,
    makerAddress: refs[x] as string,
    makerAccountIndex: nums[n + 4]!,
    takerAddress: refs[x + 1] as string,
    takerAccountIndex: nums[n + 5]!,
  };
}

/** An event the record mode keeps as an object (the cold kinds). */
export function pushObject(r: EventRecords, event: EngineEvent): void {
  const i = nextRecord(r, EV_OBJECT);
  r.ref[i * REF] = event;
}

/**
 * Empties the buffer after the consumer has read it. The references stay until overwritten:
 * clearing them cost 3 % of the engine benchmark, and what they keep alive is bounded by the
 * buffer's size (strings, bigints and trade lists of recent events).
 */
export function clearRecords(r: EventRecords): void {
  r.count = 0;
  r.levelCount = 0;
  r.tradeCount = 0;
}

/** The `type` of record i without building it. */
export function eventTypeAt(r: EventRecords, i: number): EngineEvent['type'] {
  const kind = r.kind[i]!;
  return kind === EV_OBJECT ? (r.ref[i * REF] as EngineEvent).type : (EVENT_TYPE_OF_KIND[kind] as EngineEvent['type']);
}

const EXACT = 2 ** 52;

/** Record i as the object the object sink receives. */
export function eventAt(r: EventRecords, i: number): EngineEvent {
  const n = r.num;
  const f = r.ref;
  const o = i * NUM;
  const x = i * REF;
  const kind = r.kind[i]!;
  switch (kind) {
    case EV_OBJECT:
      return f[x] as EngineEvent;
    case EV_ORDER:
      return {
        type: 'order',
        globalSeq: n[o]!,
        accountSeq: n[o + 1]!,
        time: n[o + 2]!,
        orderId: n[o + 4]!,
        address: f[x] as string,
        accountIndex: n[o + 3]!,
        marketId: n[o + 5]!,
        clientId: f[x + 1] as string | undefined,
        side: n[o + 6] as OrderEvent['side'],
        orderType: n[o + 7] as OrderEvent['orderType'],
        tif: n[o + 8] as OrderEvent['tif'],
        reduceOnly: n[o + 9] === 1,
        price: n[o + 10]!,
        size: n[o + 11]!,
        remaining: n[o + 12]!,
        filled: n[o + 13]!,
        filledValue: n[o + 14]!,
        goodTilTime: n[o + 15]!,
        createdAt: n[o + 16]!,
        status: f[x + 2] as OrderEvent['status'],
        rejectionReason: f[x + 3] as OrderEvent['rejectionReason'],
        cancelReason: f[x + 4] as OrderEvent['cancelReason'],
        origin: f[x + 5] as OrderEvent['origin'],
        tpslType: f[x + 6] as OrderEvent['tpslType'],
        triggerPrice: f[x + 7] as number | undefined,
        isPositionTpsl: n[o + 17] === 1,
        parentOrderId: f[x + 8] as number | undefined,
      };
    case EV_FILL:
      return {
        type: 'fill',
        globalSeq: n[o]!,
        accountSeq: n[o + 1]!,
        marketSeq: n[o + 4]!,
        time: n[o + 2]!,
        tradeId: n[o + 5]!,
        orderId: n[o + 6]!,
        address: f[x] as string,
        accountIndex: n[o + 3]!,
        clientId: f[x + 1] as string | undefined,
        marketId: n[o + 7]!,
        side: n[o + 8] as OrderEvent['side'],
        price: n[o + 9]!,
        size: n[o + 10]!,
        role: f[x + 2] as 'MAKER' | 'TAKER',
        orderSize: n[o + 11]!,
        remaining: n[o + 12]!,
        fee: n[o + 14] === n[o + 14] ? BigInt(n[o + 14]!) : (f[x + 3] as bigint),
        closedPnl: n[o + 13] === n[o + 13] ? BigInt(n[o + 13]!) : (f[x + 4] as bigint),
        positionEffect: f[x + 5] as FillEvent['positionEffect'],
        liquidation: f[x + 6] as FillEvent['liquidation'],
      };
    case EV_POSITION: {
      const costF = n[o + 6]!;
      const realizedF = n[o + 7]!;
      return {
        type: 'position',
        globalSeq: n[o]!,
        accountSeq: n[o + 1]!,
        time: n[o + 2]!,
        address: f[x] as string,
        accountIndex: n[o + 3]!,
        marketId: n[o + 4]!,
        size: n[o + 5]!,
        cost: costF < EXACT && costF > -EXACT ? BigInt(costF) : (f[x + 1] as bigint),
        realizedPnl: realizedF < EXACT && realizedF > -EXACT ? BigInt(realizedF) : (f[x + 2] as bigint),
        isolated: n[o + 8] === 1,
        isolatedMargin: f[x + 3] as bigint,
        leverage: n[o + 9]!,
        fundingAllTime: f[x + 4] as bigint,
        fundingSinceOpen: f[x + 5] as bigint,
        fundingSinceChange: f[x + 6] as bigint,
        requestId: f[x + 7] as string | undefined,
      };
    }
    case EV_BOOK:
      return {
        type: 'book',
        globalSeq: n[o]!,
        time: n[o + 1]!,
        marketSeq: n[o + 2]!,
        marketId: n[o + 3]!,
        bids: Array.from(r.levels.subarray(n[o + 4]!, n[o + 4]! + n[o + 5]!)),
        asks: Array.from(r.levels.subarray(n[o + 6]!, n[o + 6]! + n[o + 7]!)),
      };
    case EV_BBO:
      return {
        type: 'bbo',
        globalSeq: n[o]!,
        time: n[o + 1]!,
        marketSeq: n[o + 2]!,
        marketId: n[o + 3]!,
        bidPrice: n[o + 4]!,
        bidSize: n[o + 5]!,
        askPrice: n[o + 6]!,
        askSize: n[o + 7]!,
      };
    case EV_TRADES:
      return {
        type: 'trades',
        globalSeq: n[o]!,
        time: n[o + 1]!,
        marketSeq: n[o + 2]!,
        marketId: n[o + 3]!,
        takerOrderId: n[o + 4]!,
        takerSide: n[o + 5] as OrderEvent['side'],
        entries: tradeEntries(r, n[o + 6]!, n[o + 7]!),
      };
    default:
      throw new Error(`unknown event record kind ${kind}`);
  }
}

function tradeEntries(r: EventRecords, first: number, count: number): TradeEntry[] {
  const out: TradeEntry[] = [];
  for (let k = first; k < first + count; k++) out.push(tradeEntry(r.trades, r.tradeRefs, k));
  return out;
}
