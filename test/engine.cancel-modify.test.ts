import { describe, expect, it } from 'vitest';
import { ALICE, BOB, DAY_US, harness, idOf, orderUpdates, testMarket } from './support/engine-fixture.ts';
import type { EngineEvent, RejectedEvent } from '../engine/index.ts';

function rejections(events: EngineEvent[]): [string, string][] {
  return events.filter((e): e is RejectedEvent => e.type === 'rejected').map((e) => [e.command, e.rejectionReason]);
}

describe('cancel by orderId or clientId (exactly one)', () => {
  it('cancels by orderId', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.take();
    expect(h.cancel({ orderId: id })).toMatchObject({ kind: 'order', orderId: id, status: 'CANCELED' });
    expect(orderUpdates(h.take())).toEqual([{ orderId: id, status: 'CANCELED', remaining: 1000, filled: 0, price: 1000 }]);
  });

  it('cancels by clientId', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, clientId: 'mine' }));
    expect(h.cancel({ clientId: 'mine' })).toMatchObject({ kind: 'order', orderId: id, status: 'CANCELED' });
  });

  it('refuses both or neither with a validation error', () => {
    const h = harness();
    expect(h.cancel({})).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest' });
    expect(h.cancel({ orderId: 1, clientId: 'x' })).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest' });
  });

  it('answers ORDER_NOT_FOUND for an unknown, ended, foreign or other-market order', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    expect(h.cancel({ orderId: id, address: BOB })).toMatchObject({ kind: 'rejected', rejectionReason: 'ORDER_NOT_FOUND' });
    expect(h.cancel({ orderId: 999 })).toMatchObject({ kind: 'rejected', rejectionReason: 'ORDER_NOT_FOUND' });
    h.cancel({ orderId: id });
    h.take();
    expect(h.cancel({ orderId: id })).toMatchObject({ kind: 'rejected', rejectionReason: 'ORDER_NOT_FOUND' });
    expect(rejections(h.take())).toEqual([['cancelOrder', 'ORDER_NOT_FOUND']]);
  });
});

describe('cancel-all for an account or one market', () => {
  it('cancels every live order in scope, each with its own CANCELED update', () => {
    const markets = [1, 2].map((id) => testMarket({ id, displayName: `M${id}-USD` }));
    const h = harness({ markets });
    const a = idOf(h.place({ marketId: 1, side: 0, price: 1000, size: 1000 }));
    const b = idOf(h.place({ marketId: 2, side: 0, price: 1000, size: 1000 }));
    const c = idOf(h.place({ marketId: 2, side: 1, price: 1010, size: 1000 }));
    const other = idOf(h.place({ address: BOB, marketId: 2, side: 0, price: 1000, size: 1000 }));
    h.take();
    expect(h.run({ type: 'cancelAll', address: ALICE, accountIndex: 0, marketId: 2 })).toEqual({ kind: 'cancelAll', canceled: 2 });
    expect(orderUpdates(h.take()).map((u) => [u.orderId, u.status])).toEqual([[b, 'CANCELED'], [c, 'CANCELED']]);
    expect(h.run({ type: 'cancelAll', address: ALICE, accountIndex: 0 })).toEqual({ kind: 'cancelAll', canceled: 1 });
    expect(orderUpdates(h.take()).map((u) => [u.orderId, u.status])).toEqual([[a, 'CANCELED']]);
    expect(h.engine.orders.has(other)).toBe(true);
  });
});

describe('modifyOrder, non-crossing, no cancel-replace: the same order is updated (a single orders update)', () => {
  it('keeps queue priority for a smaller size at the same price', () => {
    const h = harness();
    const first = idOf(h.place({ side: 1, price: 1000, size: 1000 }));
    const second = idOf(h.place({ address: BOB, side: 1, price: 1000, size: 1000 }));
    h.take();
    expect(h.modify({ orderId: first, price: 1000, size: 600 })).toMatchObject({ status: 'OPEN' });
    expect(orderUpdates(h.take())).toEqual([{ orderId: first, status: 'OPEN', remaining: 600, filled: 0, price: 1000 }]);
    h.place({ address: '0x' + 'd'.repeat(40), side: 0, price: 1000, size: 600, tif: 2 });
    expect(h.engine.orders.has(first)).toBe(false);
    expect(h.engine.orders.get(second)?.remaining).toBe(1000);
  });

  it('loses priority for a larger size at the same price ("same price + larger size loses queue priority")', () => {
    const h = harness();
    const first = idOf(h.place({ side: 1, price: 1000, size: 1000 }));
    const second = idOf(h.place({ address: BOB, side: 1, price: 1000, size: 1000 }));
    h.modify({ orderId: first, price: 1000, size: 1200 });
    h.place({ address: '0x' + 'd'.repeat(40), side: 0, price: 1000, size: 1000, tif: 2 });
    expect(h.engine.orders.has(second)).toBe(false);
    expect(h.engine.orders.get(first)?.remaining).toBe(1200);
  });

  it('moves to a new price level with the book delta of both levels', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.take();
    h.modify({ orderId: id, price: 990, size: 1000 });
    const events = h.take();
    expect(orderUpdates(events)).toEqual([{ orderId: id, status: 'OPEN', remaining: 1000, filled: 0, price: 990 }]);
    expect(events.find((e) => e.type === 'book')).toMatchObject({ bids: [1000, 0, 990, 1000] });
  });

  it('treats quantity as the new total size, filled part included', () => {
    const h = harness();
    const id = idOf(h.place({ side: 1, price: 1000, size: 1000 }));
    h.place({ address: BOB, side: 0, price: 1000, size: 400, tif: 2 });
    h.take();
    h.modify({ orderId: id, price: 1000, size: 800 });
    expect(orderUpdates(h.take())).toEqual([{ orderId: id, status: 'PARTIALLY_FILLED', remaining: 400, filled: 400, price: 1000 }]);
  });
});

describe('modifyOrder crossing: a fill then PLACED or REJECTED', () => {
  it('fills against the book and rests the remainder', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1005, size: 300 });
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.take();
    h.modify({ orderId: id, price: 1005, size: 1000 });
    const events = h.take();
    expect(events.filter((e) => e.type === 'fill').map((e) => e.type === 'fill' && e.role)).toEqual(['MAKER', 'TAKER']);
    expect(orderUpdates(events).filter((u) => u.orderId === id)).toEqual([{ orderId: id, status: 'PARTIALLY_FILLED', remaining: 700, filled: 300, price: 1005 }]);
  });

  it('rejects a crossing modify of an ALO order with POST_ONLY_WOULD_CROSS', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1005, size: 300 });
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, tif: 3 }));
    h.take();
    expect(h.modify({ orderId: id, price: 1005, size: 1000 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'POST_ONLY_WOULD_CROSS' });
    expect(h.engine.orders.has(id)).toBe(false);
  });
});

describe('modifyOrder with a new goodTilTime: cancel-replace under the same orderId', () => {
  it('emits CANCELED with cancelReason MODIFY_CANCELED, then the replacement, with increasing account sequence', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.take();
    h.modify({ orderId: id, price: 995, size: 800, goodTilTime: h.time + 50 * DAY_US });
    const events = h.take().filter((e) => e.type === 'order');
    expect(orderUpdates(events)).toEqual([
      { orderId: id, status: 'CANCELED', cancelReason: 'MODIFY_CANCELED', remaining: 1000, filled: 0, price: 1000 },
      { orderId: id, status: 'OPEN', remaining: 800, filled: 0, price: 995 },
    ]);
    const seqs = events.map((e) => (e.type === 'order' ? e.accountSeq : 0));
    expect(seqs[1]).toBe(seqs[0]! + 1);
    expect(h.engine.orders.get(id)?.goodTilTime).toBe(h.time - 1 + 50 * DAY_US);
  });
});

describe('modify rejections: the original keeps resting unchanged', () => {
  it('MODIFY_CHANGED_IMMUTABLE_FIELD for side, timeInForce or reduceOnly', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.take();
    expect(h.modify({ orderId: id, price: 1000, size: 1000, side: 1 })).toMatchObject({ kind: 'rejected', rejectionReason: 'MODIFY_CHANGED_IMMUTABLE_FIELD' });
    expect(h.modify({ orderId: id, price: 1000, size: 1000, tif: 3 })).toMatchObject({ rejectionReason: 'MODIFY_CHANGED_IMMUTABLE_FIELD' });
    expect(h.modify({ orderId: id, price: 1000, size: 1000, reduceOnly: true })).toMatchObject({ rejectionReason: 'MODIFY_CHANGED_IMMUTABLE_FIELD' });
    expect(h.modify({ orderId: id, price: 1001, size: 1000, side: 0, tif: 0, reduceOnly: false })).toMatchObject({ kind: 'order', status: 'OPEN' });
  });

  it('MODIFY_ZERO_SIZE for quantity 0', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    expect(h.modify({ orderId: id, price: 1000, size: 0 })).toMatchObject({ rejectionReason: 'MODIFY_ZERO_SIZE' });
    expect(h.engine.orders.get(id)?.remaining).toBe(1000);
  });

  it('MODIFY_SIZE_ALREADY_FILLED: quantity at or below the filled size cancels the original', () => {
    const h = harness();
    const id = idOf(h.place({ side: 1, price: 1000, size: 1000 }));
    h.place({ address: BOB, side: 0, price: 1000, size: 400, tif: 2 });
    h.take();
    expect(h.modify({ orderId: id, price: 1000, size: 400 })).toMatchObject({ kind: 'rejected', rejectionReason: 'MODIFY_SIZE_ALREADY_FILLED' });
    const events = h.take();
    expect(orderUpdates(events)).toEqual([{ orderId: id, status: 'CANCELED', remaining: 600, filled: 400, price: 1000 }]);
    expect(rejections(events)).toEqual([['modifyOrder', 'MODIFY_SIZE_ALREADY_FILLED']]);
  });

  it('ORDER_NOT_FOUND_FOR_MODIFY at once for an orderId that has ended', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    h.cancel({ orderId: id });
    h.advance(2_000_000);
    expect(h.modify({ orderId: id, price: 1000, size: 500 })).toMatchObject({ kind: 'rejected', rejectionReason: 'ORDER_NOT_FOUND_FOR_MODIFY' });
  });

  it('takes the resting order\'s own goodTilTime as no change, even once it is less than a month away', () => {
    const h = harness();
    const gtt = h.time + 40 * DAY_US;
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, goodTilTime: gtt }));
    h.advance(11 * DAY_US);
    h.take();
    expect(h.modify({ orderId: id, price: 999, size: 1000, goodTilTime: gtt })).toMatchObject({ kind: 'order', status: 'OPEN' });
    expect(orderUpdates(h.take())).toEqual([{ orderId: id, status: 'OPEN', remaining: 1000, filled: 0, price: 999 }]);
    expect(h.modify({ orderId: id, price: 999, size: 1000, goodTilTime: gtt + 1 })).toMatchObject({ kind: 'invalid', field: 'goodTilTime' });
  });

  it('validates price and size like a placement', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000 }));
    expect(h.modify({ orderId: id, price: 10001, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'Tick' });
    expect(h.modify({ orderId: id, price: 1000, size: 10 })).toMatchObject({ kind: 'invalid', error: 'order notional below minimum' });
    expect(h.modify({ orderId: id, price: 1000, size: 1000, goodTilTime: h.time + DAY_US })).toMatchObject({ kind: 'invalid', field: 'goodTilTime' });
  });
});

describe('a modify that arrives before its target is placed is buffered briefly', () => {
  it('cancels the arriving placement (MODIFY_CANCELED) and replaces it', () => {
    const h = harness();
    expect(h.modify({ clientId: 'early', price: 995, size: 700 })).toEqual({ kind: 'buffered' });
    expect(h.take()).toEqual([]);
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, clientId: 'early' }));
    expect(orderUpdates(h.take())).toEqual([
      { orderId: id, status: 'OPEN', remaining: 1000, filled: 0, price: 1000 },
      { orderId: id, status: 'CANCELED', cancelReason: 'MODIFY_CANCELED', remaining: 1000, filled: 0, price: 1000 },
      { orderId: id, status: 'OPEN', remaining: 700, filled: 0, price: 995 },
    ]);
  });

  it('rejects with ORDER_NOT_FOUND_FOR_MODIFY when the window closes without the placement', () => {
    const h = harness();
    h.modify({ clientId: 'never', price: 995, size: 700 });
    h.advance(999_000);
    expect(rejections(h.take())).toEqual([]);
    h.advance(1_000);
    expect(rejections(h.take())).toEqual([['modifyOrder', 'ORDER_NOT_FOUND_FOR_MODIFY']]);
    // A placement after the window is not touched.
    h.place({ side: 0, price: 1000, size: 1000, clientId: 'never' });
    expect(orderUpdates(h.take()).map((u) => u.status)).toEqual(['OPEN']);
  });
});

describe('cancels dominate modifies: MODIFY_SUPERSEDED_BY_CANCEL', () => {
  it('rejects a modify that follows a cancel of the same order', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, clientId: 'x1' }));
    h.cancel({ orderId: id });
    expect(h.modify({ orderId: id, price: 999, size: 1000 })).toMatchObject({ kind: 'rejected', rejectionReason: 'MODIFY_SUPERSEDED_BY_CANCEL' });
    expect(h.modify({ clientId: 'x1', price: 999, size: 1000 })).toMatchObject({ kind: 'rejected', rejectionReason: 'MODIFY_SUPERSEDED_BY_CANCEL' });
  });

  it('rejects a buffered modify when a cancel for its target arrives', () => {
    const h = harness();
    h.modify({ clientId: 'late', price: 995, size: 700 });
    h.cancel({ clientId: 'late' });
    expect(rejections(h.take())).toEqual([
      ['modifyOrder', 'MODIFY_SUPERSEDED_BY_CANCEL'],
      ['cancelOrder', 'ORDER_NOT_FOUND'],
    ]);
  });
});
