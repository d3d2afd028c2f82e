import { describe, expect, it } from 'vitest';
import { positionOf } from '../engine/account.ts';
import { ALICE, BOB, CAROL, DAY_US, harness, idOf, orderUpdates } from './support/engine-fixture.ts';
import type { EngineEvent, FillEvent, TradesEvent } from '../engine/index.ts';

const IOC = 2;
const FOK = 1;
const ALO = 3;

function fills(events: EngineEvent[]): FillEvent[] {
  return events.filter((e): e is FillEvent => e.type === 'fill');
}

describe('price-level books, price-time priority', () => {
  it('fills the better price first, then earlier orders at the same price', () => {
    const h = harness();
    const a1 = idOf(h.place({ address: ALICE, side: 1, price: 1002, size: 1000 }));
    const b1 = idOf(h.place({ address: BOB, side: 1, price: 1001, size: 1000 }));
    const a2 = idOf(h.place({ address: ALICE, side: 1, price: 1001, size: 1000 }));
    h.take();
    h.place({ address: CAROL, side: 0, price: 1002, size: 2500, tif: IOC });
    const makers = fills(h.take()).filter((f) => f.role === 'MAKER').map((f) => [f.orderId, f.price, f.size]);
    expect(makers).toEqual([
      [b1, 1001, 1000],
      [a2, 1001, 1000],
      [a1, 1002, 500],
    ]);
  });

  it('fills at the maker\'s price, not the taker\'s limit', () => {
    const h = harness();
    h.place({ address: ALICE, side: 0, price: 998, size: 1000 });
    h.take();
    h.place({ address: BOB, side: 1, price: 990, size: 1000 });
    expect(fills(h.take()).map((f) => f.price)).toEqual([998, 998]);
  });
});

describe('LIMIT GTT orders rest; GTC is accepted as GTT', () => {
  it('rests an unmatched GTT order as OPEN and its remainder as PARTIALLY_FILLED', () => {
    const h = harness();
    h.place({ address: ALICE, side: 1, price: 1001, size: 400 });
    h.take();
    const id = idOf(h.place({ address: BOB, side: 0, price: 1001, size: 1000 }));
    const updates = orderUpdates(h.take()).filter((u) => u.orderId === id);
    expect(updates).toEqual([{ orderId: id, status: 'PARTIALLY_FILLED', remaining: 600, filled: 400, price: 1001 }]);
    expect(h.engine.orders.get(id)?.remaining).toBe(600);
  });
});

describe('IOC: an order that produces zero fills is rejected with IOC_CANCELED', () => {
  it('rejects an IOC with no liquidity', () => {
    const h = harness();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, tif: IOC }));
    expect(orderUpdates(h.take())).toEqual([{ orderId: id, status: 'REJECTED', reason: 'IOC_CANCELED', remaining: 1000, filled: 0, price: 1000 }]);
  });

  it('cancels the remainder of a partly filled IOC (CANCELED with filledSize above zero)', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 300 });
    h.take();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, tif: IOC }));
    const mine = orderUpdates(h.take()).filter((u) => u.orderId === id);
    expect(mine).toEqual([{ orderId: id, status: 'CANCELED', remaining: 700, filled: 300, price: 1000 }]);
    expect(h.engine.orders.has(id)).toBe(false);
  });
});

describe('FOK: an order that could not fill fully is rejected with FOK_FAILED', () => {
  it('rejects without touching the book when liquidity is short', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 300 });
    h.take();
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, tif: FOK }));
    const events = h.take();
    expect(fills(events)).toHaveLength(0);
    expect(orderUpdates(events)).toEqual([{ orderId: id, status: 'REJECTED', reason: 'FOK_FAILED', remaining: 1000, filled: 0, price: 1000 }]);
  });

  it('fills completely when it can', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 600 });
    h.place({ address: CAROL, side: 1, price: 1001, size: 600 });
    h.take();
    expect(h.place({ side: 0, price: 1001, size: 1000, tif: FOK })).toMatchObject({ status: 'FILLED' });
  });

  it('counts only liquidity in front of its own orders', () => {
    const h = harness();
    h.place({ address: ALICE, side: 1, price: 1000, size: 600 });
    h.place({ address: BOB, side: 1, price: 1000, size: 600 });
    h.take();
    expect(h.place({ address: ALICE, side: 0, price: 1000, size: 500, tif: FOK })).toMatchObject({ status: 'REJECTED', rejectionReason: 'FOK_FAILED' });
  });
});

describe('ALO: a post-only order that would take liquidity is rejected with POST_ONLY_WOULD_CROSS', () => {
  it('rejects a crossing ALO order and rests a passive one', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1001, size: 1000 });
    h.take();
    expect(h.place({ side: 0, price: 1001, size: 1000, tif: ALO })).toMatchObject({ status: 'REJECTED', rejectionReason: 'POST_ONLY_WOULD_CROSS' });
    expect(fills(h.take())).toHaveLength(0);
    expect(h.place({ side: 0, price: 1000, size: 1000, tif: ALO })).toMatchObject({ status: 'OPEN' });
  });
});

describe('MARKET orders must be IOC and within 10 % of the mark price', () => {
  it('rejects a MARKET order that is not IOC (InvalidRequest)', () => {
    const h = harness();
    expect(h.place({ side: 0, orderType: 1, price: 1050, size: 1000, tif: 0 })).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest', error: 'MARKET orders must use IOC' });
  });

  it('rejects a price more than 10 % from mark (OracleDeviation), accepts exactly 10 %', () => {
    const h = harness({ mark: 1000 });
    h.place({ address: BOB, side: 1, price: 1050, size: 1000 });
    expect(h.place({ side: 0, orderType: 1, tif: IOC, price: 1101, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'OracleDeviation' });
    expect(h.place({ side: 1, orderType: 1, tif: IOC, price: 899, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'OracleDeviation' });
    expect(h.place({ side: 0, orderType: 1, tif: IOC, price: 1100, size: 1000 })).toMatchObject({ kind: 'order', status: 'FILLED' });
  });

  it('refuses a MARKET order while the mark price is unavailable ("0")', () => {
    const h = harness();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 0 });
    expect(h.place({ side: 0, orderType: 1, tif: IOC, price: 1000, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'OracleDeviation' });
  });
});

describe('goodTilTime at least one month ahead at processing', () => {
  it('rejects a nearer goodTilTime with a validation error on field goodTilTime', () => {
    const h = harness();
    expect(h.place({ side: 0, price: 1000, size: 1000, goodTilTime: h.time + 29 * DAY_US })).toMatchObject({
      kind: 'invalid',
      errorType: 'InvalidRequest',
      field: 'goodTilTime',
    });
    expect(h.place({ side: 0, price: 1000, size: 1000, goodTilTime: h.time + 31 * DAY_US, tif: IOC })).toMatchObject({ kind: 'order' });
  });
});

describe('resting orders expire at goodTilTime (REJECTED with EXPIRED)', () => {
  it('expires at the first command whose time reaches goodTilTime', () => {
    const h = harness();
    const gtt = h.time + 31 * DAY_US;
    const id = idOf(h.place({ side: 0, price: 1000, size: 1000, goodTilTime: gtt }));
    const later = idOf(h.place({ side: 0, price: 999, size: 1000, goodTilTime: gtt + 5 }));
    h.take();
    h.run({ type: 'advanceTime', time: gtt - 1 });
    expect(orderUpdates(h.take())).toEqual([]);
    h.run({ type: 'advanceTime', time: gtt });
    const events = h.take();
    expect(orderUpdates(events)).toEqual([{ orderId: id, status: 'REJECTED', reason: 'EXPIRED', remaining: 1000, filled: 0, price: 1000 }]);
    expect(events.find((e) => e.type === 'book')).toMatchObject({ bids: [1000, 0] });
    h.run({ type: 'advanceTime', time: gtt + 5 });
    expect(orderUpdates(h.take()).map((u) => [u.orderId, u.reason])).toEqual([[later, 'EXPIRED']]);
    expect(h.engine.orders.size).toBe(0);
  });
});

describe('minimum notional of position-opening orders is 5 USD; reduce-only orders are exempt', () => {
  it('rejects 4.99 USD and accepts 5 USD', () => {
    const h = harness();
    // 100.0 USD × 0.049 = 4.9 USD; × 0.05 = 5 USD.
    expect(h.place({ side: 0, price: 1000, size: 49 })).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest', error: 'order notional below minimum' });
    expect(h.place({ side: 0, price: 1000, size: 50 })).toMatchObject({ kind: 'order', status: 'OPEN' });
  });

  it('exempts reduce-only orders', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
    expect(h.place({ address: ALICE, side: 1, price: 1000, size: 10, reduceOnly: true })).toMatchObject({ kind: 'order', status: 'OPEN' });
  });
});

describe('SELF_TRADE: would match the same account\'s resting order', () => {
  it('rejects a taker whose first match is its own order; the resting order stays', () => {
    const h = harness();
    const mine = idOf(h.place({ address: ALICE, side: 1, price: 1000, size: 1000 }));
    h.take();
    const taker = idOf(h.place({ address: ALICE, side: 0, price: 1000, size: 500 }));
    expect(orderUpdates(h.take())).toEqual([{ orderId: taker, status: 'REJECTED', reason: 'SELF_TRADE', remaining: 500, filled: 0, price: 1000 }]);
    expect(h.engine.orders.get(mine)?.remaining).toBe(1000);
  });

  it('cancels the remainder after fills against others', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 300 });
    h.place({ address: ALICE, side: 1, price: 1000, size: 1000 });
    h.take();
    const taker = idOf(h.place({ address: ALICE, side: 0, price: 1000, size: 500 }));
    expect(orderUpdates(h.take()).filter((u) => u.orderId === taker)).toEqual([
      { orderId: taker, status: 'CANCELED', reason: 'SELF_TRADE', remaining: 200, filled: 300, price: 1000 },
    ]);
  });

  it('lets two subaccounts of one wallet trade with each other', () => {
    const h = harness();
    h.place({ address: ALICE, accountIndex: 1, side: 1, price: 1000, size: 1000 });
    expect(h.place({ address: ALICE, accountIndex: 0, side: 0, price: 1000, size: 1000 })).toMatchObject({ status: 'FILLED' });
  });
});

describe('REDUCE_ONLY_WOULD_INCREASE: reduce-only order would open or increase the position', () => {
  it('rejects reduce-only with no position or on the position\'s side', () => {
    const h = harness();
    expect(h.place({ side: 1, price: 1000, size: 1000, reduceOnly: true })).toMatchObject({ status: 'REJECTED', rejectionReason: 'REDUCE_ONLY_WOULD_INCREASE' });
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
    expect(h.place({ side: 0, price: 999, size: 1000, reduceOnly: true })).toMatchObject({ status: 'REJECTED', rejectionReason: 'REDUCE_ONLY_WOULD_INCREASE' });
  });

  it('fills at most the position and cancels the rest', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 400 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 400 }); // Alice long 0.4
    h.place({ address: CAROL, side: 0, price: 1000, size: 2000 });
    h.take();
    const id = idOf(h.place({ address: ALICE, side: 1, price: 1000, size: 1000, reduceOnly: true }));
    expect(orderUpdates(h.take()).filter((u) => u.orderId === id)).toEqual([
      { orderId: id, status: 'CANCELED', reason: 'REDUCE_ONLY_WOULD_INCREASE', remaining: 600, filled: 400, price: 1000 },
    ]);
    expect(positionOf(h.engine.accounts.get(ALICE + '/0')!, 0)).toBe(0);
  });

  it('cancels a resting reduce-only order whose position is gone when it would fill', () => {
    const h = harness();
    h.place({ address: BOB, side: 1, price: 1000, size: 400 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 400 });
    const ro = idOf(h.place({ address: ALICE, side: 1, price: 1010, size: 400, reduceOnly: true }));
    // Alice closes her long with a plain order, then a buyer reaches her reduce-only ask.
    h.place({ address: CAROL, side: 0, price: 995, size: 400 });
    h.place({ address: ALICE, side: 1, price: 995, size: 400, tif: IOC });
    h.take();
    h.place({ address: BOB, side: 0, price: 1010, size: 400, tif: IOC });
    const updates = orderUpdates(h.take()).filter((u) => u.orderId === ro);
    expect(updates).toEqual([{ orderId: ro, status: 'CANCELED', reason: 'REDUCE_ONLY_WOULD_INCREASE', remaining: 400, filled: 0, price: 1010 }]);
  });
});

describe('DUPLICATE_CLIENT_ID and TOO_MANY_CLIENT_IDS (10,000 live)', () => {
  it('rejects a clientId that maps to a live order, and accepts it again once that order ended', () => {
    const h = harness();
    h.place({ side: 0, price: 1000, size: 1000, clientId: 'a-1' });
    expect(h.place({ side: 0, price: 999, size: 1000, clientId: 'a-1' })).toMatchObject({ status: 'REJECTED', rejectionReason: 'DUPLICATE_CLIENT_ID' });
    expect(h.place({ address: BOB, side: 0, price: 999, size: 1000, clientId: 'a-1' })).toMatchObject({ status: 'OPEN' });
    h.cancel({ clientId: 'a-1' });
    expect(h.place({ side: 0, price: 999, size: 1000, clientId: 'a-1' })).toMatchObject({ status: 'OPEN' });
  });

  it('rejects the 10,001st live clientId', () => {
    const h = harness({ limits: { openOrdersPerMarket: 20_000 } });
    for (let i = 0; i < 10_000; i++) h.place({ side: 0, price: 900 + (i % 50), size: 1000, clientId: 'c' + i });
    expect(h.place({ side: 0, price: 900, size: 1000, clientId: 'one-more' })).toMatchObject({ status: 'REJECTED', rejectionReason: 'TOO_MANY_CLIENT_IDS' });
    expect(h.place({ side: 0, price: 900, size: 1000 })).toMatchObject({ status: 'OPEN' });
  });

  it('validates the clientId shape (1-36 of A-Z a-z 0-9 _ -)', () => {
    const h = harness();
    expect(h.place({ side: 0, price: 1000, size: 1000, clientId: 'x'.repeat(37) })).toMatchObject({ kind: 'invalid', field: 'clientId' });
    expect(h.place({ side: 0, price: 1000, size: 1000, clientId: 'has space' })).toMatchObject({ kind: 'invalid', field: 'clientId' });
  });
});

describe('OPEN_ORDER_CAP_EXCEEDED: open-order cap exceeded', () => {
  it('rejects a resting order beyond the per-market cap but still takes IOC orders', () => {
    const h = harness({ limits: { openOrdersPerMarket: 3 } });
    for (let i = 0; i < 3; i++) h.place({ side: 0, price: 990 + i, size: 1000 });
    expect(h.place({ side: 0, price: 980, size: 1000 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'OPEN_ORDER_CAP_EXCEEDED' });
    h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
    expect(h.place({ side: 0, price: 1000, size: 1000, tif: IOC })).toMatchObject({ status: 'FILLED' });
  });
});

describe('POSITION_SIZE_CAP_EXCEEDED: the fixed maximum position notional (about 922 million USD)', () => {
  it('rejects an order whose full fill would pass the bound', () => {
    const h = harness();
    // 100,000 units at 9,223.5 USD is 922,350,000 USD > 922,337,203.69 USD; at 9,223.0 it fits.
    expect(h.place({ side: 0, price: 92235, size: 100_000_000 })).toMatchObject({ status: 'REJECTED', rejectionReason: 'POSITION_SIZE_CAP_EXCEEDED' });
    expect(h.place({ side: 0, price: 92230, size: 100_000_000 })).toMatchObject({ status: 'OPEN' });
  });
});

describe('fills: maker and taker rows, tradeId, role; public trades share taker, time and sequence', () => {
  it('reports both sides of each trade and one trades event per taker execution', () => {
    const h = harness();
    const m1 = idOf(h.place({ address: ALICE, side: 1, price: 1000, size: 300 }));
    const m2 = idOf(h.place({ address: BOB, side: 1, price: 1001, size: 300 }));
    h.take();
    const t = idOf(h.place({ address: CAROL, side: 0, price: 1001, size: 500, clientId: 'take-1' }));
    const events = h.take();
    const rows = fills(events).map((f) => [f.tradeId, f.orderId, f.role, f.side, f.price, f.size, f.remaining]);
    expect(rows).toEqual([
      [1, m1, 'MAKER', 1, 1000, 300, 0],
      [1, t, 'TAKER', 0, 1000, 300, 200],
      [2, m2, 'MAKER', 1, 1001, 200, 100],
      [2, t, 'TAKER', 0, 1001, 200, 0],
    ]);
    expect(fills(events).find((f) => f.role === 'TAKER')?.clientId).toBe('take-1');
    const trades = events.filter((e): e is TradesEvent => e.type === 'trades');
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ takerOrderId: t, takerSide: 0, entries: [{ tradeId: 1, price: 1000, size: 300, makerOrderId: m1 }, { tradeId: 2, price: 1001, size: 200, makerOrderId: m2 }] });
    const taker = events.find((e) => e.type === 'order' && e.orderId === t);
    expect(taker).toMatchObject({ status: 'FILLED', filled: 500, filledValue: 300 * 1000 + 200 * 1001 });
  });
});

describe('book level changes carry absolute sizes; bbo follows the top', () => {
  it('reports each touched level once per command with its new size (0 removes)', () => {
    const h = harness();
    h.place({ address: ALICE, side: 1, price: 1000, size: 300 });
    h.place({ address: BOB, side: 1, price: 1000, size: 300 });
    h.place({ address: BOB, side: 1, price: 1001, size: 300 });
    h.take();
    h.place({ address: CAROL, side: 0, price: 1001, size: 700, tif: IOC });
    const events = h.take();
    const book = events.filter((e) => e.type === 'book');
    expect(book).toHaveLength(1);
    expect(book[0]).toMatchObject({ bids: [], asks: [1000, 0, 1001, 200] });
    expect(events.find((e) => e.type === 'bbo')).toMatchObject({ bidPrice: 0, bidSize: 0, askPrice: 1001, askSize: 200 });
  });

  it('sends no bbo when the top did not change', () => {
    const h = harness();
    h.place({ side: 0, price: 1000, size: 300 });
    h.take();
    h.place({ side: 0, price: 990, size: 300 });
    expect(h.take().map((e) => e.type)).toEqual(['order', 'book']);
  });
});

describe('validation errors change nothing and emit nothing', () => {
  it.each([
    ['side', { side: 2 }],
    ['size zero', { size: 0 }],
    ['size fractional', { size: 1.5 }],
    ['size above max', { size: 100_000_001 }],
    ['price negative', { price: -5 }],
    ['tif', { tif: 7 }],
    ['account index', { accountIndex: 10 }],
  ])('%s', (_name, patch) => {
    const h = harness();
    const result = h.place({ side: 0, price: 1000, size: 1000, ...(patch as object) });
    expect(result.kind).toBe('invalid');
    expect(h.take()).toEqual([]);
    expect(h.engine.orders.size).toBe(0);
  });
});
