/**
 * The benchmark workload: a seeded, fully materialised operation stream over several markets,
 * generated before any timing starts.
 *
 * Like exchange-core's TestOrdersGenerator, the generator drives a reference book (the bare
 * book) while it generates, so every cancel and modify names an order that is live at that
 * point, makers never cross (no self-trade, no post-only rejections), IOC takers are priced
 * off the real top of book, and the book is held near a target size. The stream has two
 * parts: a prefill that builds the steady-state book (not timed) and the benchmark ops.
 *
 * Layout is struct-of-arrays so the stream itself costs the runners next to nothing to read.
 */
import {
  BareBook,
  PLACED_FILLED,
  PLACED_IOC_CANCELED,
  PLACED_OPEN,
  PLACED_PARTIAL,
  PLACED_POST_ONLY_REJECTED,
  SIDE_BUY,
  SIDE_SELL,
  TIF_ALO,
  TIF_GTT,
  TIF_IOC,
} from './bare-book.ts';
import { createPrng } from '../sim/prng.ts';
import { MAKER_ACCOUNTS, MARKETS, PRICE_SPAN, START_MID, TAKER_ACCOUNTS } from './setup.ts';

export const OP_GTT = 0;
export const OP_ALO = 1;
export const OP_IOC = 2;
export const OP_MARKET = 3;
export const OP_CANCEL = 4;
export const OP_MODIFY = 5;
export const OP_NAMES = ['GTT', 'ALO', 'IOC', 'MARKET IOC', 'cancel', 'modify'] as const;

/** Shares of the benchmark ops, in percent; they need not sum to exactly 100. */
export interface Mix {
  name: string;
  gtt: number;
  alo: number;
  ioc: number;
  market: number;
  cancel: number;
  modify: number;
  /** Fraction of modifies that change size in place instead of moving the price. */
  resize: number;
}

/**
 * The default: place-heavy, as the brief for this bench asks (mostly passive adds near the
 * mid, a third cancels, a tenth modifies, about a tenth IOC takers).
 */
export const MIX_PLACE_HEAVY: Mix = {
  name: 'place-heavy',
  gtt: 40, alo: 5, ioc: 8, market: 3, cancel: 34, modify: 10, resize: 0.3,
};

/**
 * exchange-core's published benchmark message mix (its README): 9 % GTC, 3 % IOC,
 * 6 % cancel, 82 % move. Its IOCs are priced at the band edge, i.e. market-like.
 */
export const MIX_EXCHANGE_CORE: Mix = {
  name: 'exchange-core',
  gtt: 9, alo: 0, ioc: 1.5, market: 1.5, cancel: 6, modify: 82, resize: 0,
};

export interface StreamOptions {
  ops: number;
  seed: number;
  mix: Mix;
  /** Resting orders per market the generator steers towards. */
  targetPerMarket: number;
  /**
   * Accounts that rest orders, and accounts that only take (numbered after the makers); the
   * defaults are the bench world of setup.ts. Fewer accounts shrink the engine's working set
   * (bench/engine-floor.ts).
   */
  makerAccounts?: number;
  takerAccounts?: number;
}

export interface Expected {
  /** Place outcomes by bare-book code (PLACED_*). */
  placed: number[];
  cancels: number;
  modifies: number;
  trades: number;
  tradedQty: number;
  restingAtEnd: number;
}

export interface Stream {
  /** Ops in total; [0, prefill) build the book, [prefill, length) are the benchmark. */
  length: number;
  prefill: number;
  /** Order refs handed out (every place takes the next one). */
  refs: number;
  kind: Uint8Array;
  market: Uint8Array;
  side: Uint8Array;
  /** Ticks; for a MARKET IOC the worst acceptable price. */
  price: Int32Array;
  /** Quantums: the order size, or a modify's new remaining size. */
  size: Int32Array;
  /** A modify's new total size (filled part included), as the venue's modify wants it. */
  total: Int32Array;
  /** The new order's ref for places; the target's ref for cancels and modifies. */
  ref: Int32Array;
  account: Int32Array;
  /** What the reference book saw, over the whole stream (prefill included). */
  expected: Expected;
  /** Benchmark op counts by OP_* kind, after steering. */
  opCounts: number[];
  /** Resting orders at the end of the prefill and at the end, over all markets. */
  restingAfterPrefill: number;
}

const MID_DRIFT_LIMIT = 200; // ticks either side of START_MID (±2 %)
const PRICE_FLOOR = START_MID - 1_000;
const PRICE_CEIL = START_MID + 1_000;

export function generateStream(opts: StreamOptions): Stream {
  const prefill = opts.targetPerMarket * MARKETS;
  const length = prefill + opts.ops;
  const rng = createPrng(opts.seed);
  const makers = opts.makerAccounts ?? MAKER_ACCOUNTS;
  const takers = opts.takerAccounts ?? TAKER_ACCOUNTS;
  if (makers + takers > MAKER_ACCOUNTS + TAKER_ACCOUNTS) throw new Error('more accounts than the bench world funds');
  // Every op could be a place, so that bounds the refs.
  const book = new BareBook(MARKETS, PRICE_SPAN, length);
  const s: Stream = {
    length,
    prefill,
    refs: 0,
    kind: new Uint8Array(length),
    market: new Uint8Array(length),
    side: new Uint8Array(length),
    price: new Int32Array(length),
    size: new Int32Array(length),
    total: new Int32Array(length),
    ref: new Int32Array(length),
    account: new Int32Array(length),
    expected: { placed: [0, 0, 0, 0, 0], cancels: 0, modifies: 0, trades: 0, tradedQty: 0, restingAtEnd: 0 },
    opCounts: [0, 0, 0, 0, 0, 0],
    restingAfterPrefill: 0,
  };
  const refAccount = new Int32Array(length);
  const mids = new Float64Array(MARKETS).fill(START_MID);
  // Candidates for cancel/modify; entries go stale when filled and are dropped lazily.
  const live: number[][] = Array.from({ length: MARKETS }, () => []);

  const mix = opts.mix;
  const sum = mix.gtt + mix.alo + mix.ioc + mix.market + mix.cancel + mix.modify;
  const cut = [mix.gtt, mix.alo, mix.ioc, mix.market, mix.cancel, mix.modify];
  for (let k = 1; k < cut.length; k++) cut[k]! += cut[k - 1]!;
  for (let k = 0; k < cut.length; k++) cut[k] = cut[k]! / sum;

  const pickLive = (m: number): number => {
    const arr = live[m]!;
    while (arr.length > 0) {
      const j = rng.int(arr.length);
      const ref = arr[j]!;
      if (book.isLive(ref)) return ref;
      arr[j] = arr[arr.length - 1]!;
      arr.pop();
    }
    return -1;
  };

  const makerPrice = (m: number, side: number): number => {
    const r = rng.next();
    const off = 1 + Math.floor(r * r * 150);
    const mid = Math.round(mids[m]!);
    if (side === SIDE_BUY) {
      const ask = book.bestAsk[m]!;
      const p = mid - off;
      return ask >= 0 && p >= ask ? ask - 1 : p;
    }
    const bid = book.bestBid[m]!;
    const p = mid + off;
    return bid >= 0 && p <= bid ? bid + 1 : p;
  };

  const makerSize = (): number => {
    const r = rng.next();
    return 100 + Math.floor(r * r * 1_900); // 0.1 .. 2 units
  };

  const emitPlace = (i: number, kind: number, m: number, side: number, price: number, size: number, account: number): void => {
    const ref = s.refs++;
    s.kind[i] = kind;
    s.market[i] = m;
    s.side[i] = side;
    s.price[i] = price;
    s.size[i] = size;
    s.ref[i] = ref;
    s.account[i] = account;
    refAccount[ref] = account;
    const tif = kind === OP_ALO ? TIF_ALO : kind === OP_GTT ? TIF_GTT : TIF_IOC;
    const outcome = book.place(ref, m, side, price, size, tif);
    s.expected.placed[outcome]!++;
    if (outcome === PLACED_OPEN || outcome === PLACED_PARTIAL) live[m]!.push(ref);
  };

  const emitMaker = (i: number, kind: number, m: number, side: number): void => {
    emitPlace(i, kind, m, side, makerPrice(m, side), makerSize(), rng.int(makers));
  };

  for (let i = 0; i < prefill; i++) {
    const m = i % MARKETS;
    emitMaker(i, OP_GTT, m, Math.floor(i / MARKETS) & 1);
  }
  s.restingAfterPrefill = countResting(book);

  const high = opts.targetPerMarket * 1.2;
  const low = opts.targetPerMarket * 0.8;
  for (let i = prefill; i < length; i++) {
    const m = rng.int(MARKETS);
    // Slow mean-free drift of the mid, reflected at ±2 % so MARKET bands stay valid.
    let mid = mids[m]! + (rng.next() - 0.5) * 0.8;
    if (mid > START_MID + MID_DRIFT_LIMIT) mid = 2 * (START_MID + MID_DRIFT_LIMIT) - mid;
    if (mid < START_MID - MID_DRIFT_LIMIT) mid = 2 * (START_MID - MID_DRIFT_LIMIT) - mid;
    mids[m] = mid;

    const r = rng.next();
    let kind = OP_MODIFY;
    for (let k = 0; k < cut.length; k++) {
      if (r < cut[k]!) {
        kind = k;
        break;
      }
    }
    const bids = book.bidOrders[m]!;
    const asks = book.askOrders[m]!;
    const resting = bids + asks;
    // Steering keeps the book near its target whatever the mix's natural drift.
    if ((kind === OP_GTT || kind === OP_ALO) && resting > high) kind = OP_CANCEL;
    else if ((kind === OP_CANCEL || kind === OP_MODIFY) && resting < low) kind = OP_GTT;

    if (kind === OP_GTT || kind === OP_ALO) {
      // Refill the thinner side more often so neither side drains.
      const side = rng.next() < 0.5 + (0.5 * (asks - bids)) / (resting + 1) ? SIDE_BUY : SIDE_SELL;
      emitMaker(i, kind, m, side);
    } else if (kind === OP_IOC || kind === OP_MARKET) {
      let side = rng.next() < 0.5 ? SIDE_BUY : SIDE_SELL;
      if ((side === SIDE_BUY ? asks : bids) === 0) side = 1 - side;
      const best = side === SIDE_BUY ? book.bestAsk[m]! : book.bestBid[m]!;
      if (best < 0) {
        emitMaker(i, OP_GTT, m, side);
      } else {
        let price: number;
        if (kind === OP_IOC) {
          const k = rng.int(3);
          price = side === SIDE_BUY ? best + k : best - k;
        } else {
          // Worst acceptable price 5 % off the mid: inside the venue's 10 % band around mark.
          price = Math.round(side === SIDE_BUY ? mid * 1.05 : mid * 0.95);
        }
        const size = 100 + rng.int(1_500);
        emitPlace(i, kind, m, side, price, size, makers + rng.int(takers));
      }
    } else {
      const target = pickLive(m);
      if (target < 0) {
        emitMaker(i, OP_GTT, m, rng.next() < 0.5 ? SIDE_BUY : SIDE_SELL);
      } else if (kind === OP_CANCEL) {
        s.kind[i] = OP_CANCEL;
        s.market[i] = m;
        s.side[i] = book.side[target]!;
        s.ref[i] = target;
        s.account[i] = refAccount[target]!;
        if (book.cancel(target)) s.expected.cancels++;
      } else {
        emitModify(i, m, target, mid);
      }
    }
    s.opCounts[s.kind[i]!]!++;
  }

  function emitModify(i: number, m: number, target: number, mid: number): void {
    const side = book.side[target]!;
    const oldPrice = book.price[target]!;
    const oldRemaining = book.remaining[target]!;
    let price = oldPrice;
    let remaining = oldRemaining;
    if (rng.next() < mix.resize) {
      remaining = makerSize();
      if (remaining === oldRemaining) remaining += 1;
    } else {
      // Drift back towards the mid like exchange-core's moves, with some noise.
      const gap = Math.round(mid) - oldPrice;
      const step = 1 + rng.int(3);
      let delta = Math.abs(gap) > 50 ? Math.sign(gap) * step : rng.next() < 0.5 ? -step : step;
      if (delta === 0) delta = 1;
      price = Math.min(PRICE_CEIL, Math.max(PRICE_FLOOR, oldPrice + delta));
      // Never cross: a maker whose move would take liquidity would self-trade or mismatch.
      if (side === SIDE_BUY) {
        const ask = book.bestAsk[m]!;
        if (ask >= 0 && price >= ask) price = ask - 1;
      } else {
        const bid = book.bestBid[m]!;
        if (bid >= 0 && price <= bid) price = bid + 1;
      }
      if (price === oldPrice) price = side === SIDE_BUY ? oldPrice - 1 : oldPrice + 1;
    }
    s.kind[i] = OP_MODIFY;
    s.market[i] = m;
    s.side[i] = side;
    s.price[i] = price;
    s.size[i] = remaining;
    s.total[i] = book.filled[target]! + remaining;
    s.ref[i] = target;
    s.account[i] = refAccount[target]!;
    if (book.modify(target, price, remaining)) s.expected.modifies++;
  }

  s.expected.trades = book.trades;
  s.expected.tradedQty = book.tradedQty;
  s.expected.restingAtEnd = countResting(book);
  return s;
}

export function countResting(book: BareBook): number {
  let n = 0;
  for (let m = 0; m < book.markets; m++) n += book.bidOrders[m]! + book.askOrders[m]!;
  return n;
}

export const PLACED_NAMES: Record<number, string> = {
  [PLACED_OPEN]: 'open',
  [PLACED_PARTIAL]: 'partially filled, resting',
  [PLACED_FILLED]: 'filled',
  [PLACED_IOC_CANCELED]: 'IOC rest canceled',
  [PLACED_POST_ONLY_REJECTED]: 'post-only rejected',
};
