/**
 * Rule: an engine image grafts back into a live engine and runs on exactly as the original
 * (engine/restore.ts), including an image written before a layout change: book sides without
 * their level key arrays, accounts with the float margin sums in a `riskSums` record.
 */
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { engineState, graftEngine, lifetimeFeesPaid, lifetimeVolume, quoteOf, type EngineState } from '../engine/index.ts';
import { AW, QUOTE_PENDING } from '../engine/risk-table.ts';
import type { Engine } from '../engine/index.ts';
import { levelCount, type BookSide } from '../engine/book.ts';
import type { Order } from '../engine/order.ts';
import { OrderRecord, ORDER_FIELDS } from '../engine/order-record.ts';
import { createPrng } from '../sim/prng.ts';
import { encodeGraph } from '../gateway/persistence/graph-codec.ts';
import { stateHash } from '../gateway/persistence/state-hash.ts';
import { harness, TEST_ACCOUNTS, type Harness } from './support/engine-fixture.ts';

/** A seeded mix of resting orders, crossing orders and cancels on market 1. */
function trade(h: Harness, seed: number, n: number): void {
  const rng = createPrng(seed);
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const { address, accountIndex } = TEST_ACCOUNTS[rng.int(TEST_ACCOUNTS.length)]!;
    if (ids.length > 0 && rng.next() < 0.3) {
      const orderId = ids.splice(rng.int(ids.length), 1)[0]!;
      h.cancel({ orderId, address, accountIndex });
      continue;
    }
    const side = rng.int(2) as 0 | 1;
    const price = side === 0 ? 990 + rng.int(14) : 1010 - rng.int(14);
    const res = h.place({ address, accountIndex, side, price, size: 100 + rng.int(400), tif: rng.next() < 0.2 ? 2 : 0 });
    if (res.kind === 'order') ids.push(res.orderId);
  }
}

function image(engine: Engine): EngineState {
  // The wiring and per-command scratch are not state: only engineState goes into an image.
  return deserialize(serialize(engineState(engine))) as EngineState;
}

/**
 * Turns an image into what the engine wrote before typed-array levels (linked level records,
 * orders pointing at them), level keys, account-level sums and pending tallies, and before its
 * wiring and scratch had fields of their own (they sat at the root).
 */
function asOldLayout(img: EngineState): void {
  Object.assign(img, { sink: undefined, hooks: undefined, lookup: undefined, onFee: undefined, touchedMarkets: [img.bySlot[0]], touchedCount: 0, taker: null, takerMarket: null, liquidating: undefined, riskQueue: [], ended: [null], endedCount: 0 });
  // Orders with every field their own (before OrderRecord), updatedAt included.
  for (const chunk of img.orders.chunks) for (const order of chunk?.slots ?? []) if (order !== undefined) asPlainOrder(order);
  let resting = 0;
  for (const ms of img.bySlot) {
    // The per-market scratch sat on the market, and the spec reference had only the id.
    Object.assign(ms, { touched: false, dirtyBids: [1], dirtyAsks: [], dirtyBidCount: 0, dirtyAskCount: 0, trades: [], tradesTaker: null, bboBefore: [0, 0, 0, 0], spec: { id: ms.spec.id } });
    resting += levelCount(ms.book.bids) + levelCount(ms.book.asks);
    const book = ms.book as unknown as Record<'bids' | 'asks', unknown>;
    book.bids = linkedSide(ms.book.bids);
    book.asks = linkedSide(ms.book.asks);
  }
  expect(resting).toBeGreaterThan(0);
  for (const chunk of img.orders.chunks) {
    for (const order of chunk?.slots ?? []) if (order !== undefined && typeof order.level === 'number') (order as unknown as { level: null }).level = null;
  }
  for (const account of img.accounts.all) {
    const a = account as unknown as Record<string, unknown>;
    a.riskSums = { epoch: a.sumEpoch, eq: a.sumEq, im: a.sumIm, mm: a.sumMm, changes: a.sumChanges };
    for (const key of ['sumEpoch', 'sumEq', 'sumIm', 'sumMm', 'sumChanges', 'quoteB', 'quoteF']) delete a[key];
    // The old layout had the pending volume in its day's bigint.
    if (account.volumePending !== 0) {
      const i = account.volumePendingDay % 30;
      if (account.volumeDay[i] !== account.volumePendingDay) [account.volumeDay[i], account.volumeByDay[i]] = [account.volumePendingDay, 0n];
      account.volumeByDay[i]! += BigInt(account.volumePending);
    }
    a.lifetimeVolume = lifetimeVolume(account);
    a.lifetimeFeesPaid = lifetimeFeesPaid(account);
    for (const key of ['lifetimeVolumeBase', 'volumePending', 'volumePendingDay', 'lifetimeFeesPaidBase', 'feesPending']) delete a[key];
  }
}

function asPlainOrder(order: object): void {
  Object.setPrototypeOf(order, OrderRecord.prototype);
  const values: Record<string, unknown> = {};
  for (const key of ORDER_FIELDS) values[key] = (order as Record<string, unknown>)[key];
  values.updatedAt = values.createdAt;
  for (const key of Object.keys(order)) delete (order as Record<string, unknown>)[key];
  Object.setPrototypeOf(order, Object.prototype);
  Object.assign(order, values);
}

/** A side as linked level records, worst to best, without the later `keys` array; its orders point at their level. */
function linkedSide(side: BookSide): unknown {
  const levels = [];
  for (let i = 0; i < side.length; i++) {
    const h = side.sorted[i]!;
    const level = { price: side.price[h]!, key: side.keys[i]!, side: side.side, size: side.size[h]!, count: side.count[h]!, head: side.head[h] as Order | null, tail: side.tail[h] as Order | null };
    for (let o = level.head; o !== null; o = o.next) (o as unknown as { level: unknown }).level = level;
    levels.push(level);
  }
  return { side: side.side, levels, byPrice: { keys: new Float64Array(64).fill(NaN), values: [], mask: 63, size: 0 } };
}

/** The same further trading on the original and on the engine its image was grafted into gives the same events. */
function runsOnAlike(original: Harness, restored: Harness, seed: number): void {
  restored.time = original.time;
  original.take();
  restored.take();
  trade(original, seed, 400);
  trade(restored, seed, 400);
  const events = original.take();
  expect(events.filter((e) => e.type === 'fill').length).toBeGreaterThan(50);
  expect(restored.take()).toEqual(events);
}

describe('restore: a grafted image runs on as the original', () => {
  for (const old of [false, true]) {
    it(old ? 'an image of the layout before order records, typed-array levels, level keys and account-level margin sums' : 'an image of this layout', () => {
      const original = harness();
      trade(original, 1, 400);
      const img = image(original.engine);
      if (old) asOldLayout(img);
      const restored = harness();
      graftEngine(restored.engine, img);
      const live = [...restored.engine.orders.values()];
      expect(live.length).toBeGreaterThan(0);
      // Every order has its class back, its fields packed as this version keeps them.
      for (const order of live) expect(order instanceof OrderRecord && !Object.hasOwn(order, 'side') && !Object.hasOwn(order, 'updatedAt')).toBe(true);
      runsOnAlike(original, restored, 2);
    });
  }
});

describe('restore: an image whose account sums have 8 doubles per account (before the pending balance)', () => {
  it('re-strides the sums, keeps every balance and runs on as the original', () => {
    const original = harness();
    trade(original, 3, 400);
    const img = image(original.engine);
    // What such an image held: the whole balance in `quote`, sums of 8 doubles, slots 6-7 unused.
    const t = img.accounts.table;
    const sums = new Float64Array(t.accountCapacity * 8);
    let pending = 0;
    for (const account of img.accounts.all) {
      const at = account.id * AW;
      if (t.accountSums[at + QUOTE_PENDING] !== 0) pending++;
      account.quote += BigInt(t.accountSums[at + QUOTE_PENDING]!);
      sums.set(t.accountSums.subarray(at, at + 6), account.id * 8);
    }
    expect(pending).toBeGreaterThan(0);
    t.accountSums = sums;
    const restored = harness();
    graftEngine(restored.engine, img);
    expect(restored.engine.accounts.table.accountSums.length).toBe(t.accountCapacity * AW);
    for (const account of restored.engine.accounts.all) expect(quoteOf(account)).toBe(quoteOf(original.engine.accounts.all[account.id]!));
    runsOnAlike(original, restored, 4);
  });
});

describe('engineState: the durable data as plain data, built without touching the engine', () => {
  it('holds no function, class instance, wiring or scratch, and leaves the engine as it was', () => {
    const h = harness();
    trade(h, 3, 200);
    const before = stateHash(h.engine);
    const state = engineState(h.engine);
    // The persistence codec refuses functions and class instances outright.
    expect(() => encodeGraph(state)).not.toThrow();
    expect(Object.keys(state)).not.toContain('wiring');
    expect(Object.keys(state)).not.toContain('scratch');
    expect(Object.keys(state.accounts)).not.toContain('get');
    expect(Object.keys(state.orders)).not.toContain('values');
    for (const ms of state.bySlot) expect(Object.keys(ms)).not.toContain('dirtyBids');
    expect(stateHash(h.engine)).toBe(before);
    expect(typeof h.engine.accounts.get).toBe('function');
    expect(h.engine.bySlot[0]!.spec.tick).toBeDefined();
  });

  it("a market's status comes back with the image", () => {
    const original = harness();
    trade(original, 4, 50);
    original.run({ type: 'setMarketStatus', marketId: 1, status: 'OFFLINE' });
    const restored = harness();
    graftEngine(restored.engine, image(original.engine));
    expect(restored.engine.bySlot[0]!.spec.status).toBe('OFFLINE');
  });
});
