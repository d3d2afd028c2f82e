import { describe, expect, it } from 'vitest';
import { ALICE, BOB, harness } from './support/engine-fixture.ts';

describe('Sequencing: three counters: global, per-market, per-account', () => {
  it('global: every event takes the next exchange-wide value', () => {
    const h = harness();
    const before = h.engine.seq.global;
    h.place({ address: ALICE, side: 1, price: 1000, size: 500 });
    h.place({ address: BOB, side: 0, price: 1000, size: 500 });
    const seqs = h.take().map((e) => e.globalSeq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => before + 1 + i));
  });

  it('per-market: the book delta, trades, bbo and fills of one command share one value, and deltas are contiguous', () => {
    const h = harness();
    h.place({ address: ALICE, side: 1, price: 1000, size: 500 });
    h.place({ address: ALICE, side: 1, price: 1001, size: 500 });
    h.place({ address: BOB, side: 0, price: 1000, size: 500 });
    const events = h.take();
    const books = events.filter((e) => e.type === 'book').map((e) => (e.type === 'book' ? e.marketSeq : -1));
    expect(books).toEqual([1, 2, 3]);
    const lastCommand = events.filter((e) => e.time === h.time && 'marketSeq' in e).map((e) => ('marketSeq' in e ? e.marketSeq : -1));
    expect(new Set(lastCommand)).toEqual(new Set([3]));
    expect(events.filter((e) => e.time === h.time).map((e) => e.type)).toEqual(['fill', 'fill', 'position', 'position', 'order', 'order', 'trades', 'book', 'bbo']);
  });

  it('per-account: every event of one account takes the next value (lastSequenceId = Order.sequenceNumber)', () => {
    const h = harness({ fund: false });
    h.run({ type: 'deposit', address: ALICE, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
    h.run({ type: 'deposit', address: BOB, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
    h.place({ address: ALICE, side: 1, price: 1000, size: 500 });
    h.place({ address: BOB, side: 0, price: 1000, size: 200 });
    h.cancel({ orderId: 999 });
    const alice = h.take().filter((e) => 'accountSeq' in e && e.address === ALICE);
    // deposit, OPEN, fill, position, PARTIALLY_FILLED, rejected cancel
    expect(alice.map((e) => e.type)).toEqual(['transfer', 'order', 'fill', 'position', 'order', 'rejected']);
    expect(alice.map((e) => ('accountSeq' in e ? e.accountSeq : 0))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(h.engine.accounts.get(ALICE + '/0')?.seq).toBe(6);
  });
});
