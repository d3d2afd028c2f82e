import { describe, expect, it } from 'vitest';
import { positionOf } from '../engine/account.ts';
import { ALICE, BOB, CAROL, harness, idOf, orderUpdates, type Harness } from './support/engine-fixture.ts';
import type { BatchOrder, CommandResult, OrderEvent } from '../engine/index.ts';
import { levelCount } from '../engine/book.ts';

const IOC = 2;

/** Alice long 1.000 at 100.0 (Bob sold it to her); a bid from Carol at 95.0 to sell into. */
function longAlice(): Harness {
  const h = harness();
  h.place({ address: BOB, side: 1, price: 1000, size: 1000 });
  h.place({ address: ALICE, side: 0, price: 1000, size: 1000 });
  h.place({ address: CAROL, side: 0, price: 950, size: 5000 });
  h.take();
  return h;
}

function stopLoss(h: Harness, extra: Partial<Parameters<Harness['place']>[0]> = {}): CommandResult {
  return h.place({ address: ALICE, side: 1, orderType: 1, tif: IOC, price: 900, size: 1000, reduceOnly: true, tpslType: 'STOP_LOSS', stopPrice: 960, ...extra });
}

function orderEvents(h: Harness, orderId: number): OrderEvent[] {
  return h.take().filter((e): e is OrderEvent => e.type === 'order' && e.orderId === orderId);
}

describe('STOP_LOSS / TAKE_PROFIT orders wait untriggered until the mark crosses stopPrice', () => {
  it('reports TPSL_PLACED, rests off the book, and counts as a live order', () => {
    const h = longAlice();
    const id = idOf(stopLoss(h));
    expect(orderEvents(h, id).map((e) => e.status)).toEqual(['TPSL_PLACED']);
    expect(h.engine.orders.get(id)?.status).toBe('UNTRIGGERED');
    expect(levelCount(h.engine.bySlot[0]!.book.asks)).toBe(0);
  });

  it('fires when the mark reaches the stop: TPSL_TRIGGERED, then placed as MARKET IOC', () => {
    const h = longAlice();
    const id = idOf(stopLoss(h));
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 970 });
    expect(orderEvents(h, id)).toEqual([]);
    h.run({ type: 'setOraclePrice', marketId: 1, price: 960 });
    const events = orderEvents(h, id);
    expect(events.map((e) => e.status)).toEqual(['TPSL_TRIGGERED', 'FILLED']);
    expect(events[1]).toMatchObject({ tpslType: 'STOP_LOSS', triggerPrice: 960, filled: 1000 });
    expect(positionOf(h.engine.accounts.get(ALICE + '/0')!, 0)).toBe(0);
  });

  it('a LIMIT TPSL leg is placed GTT and rests when it does not cross', () => {
    const h = longAlice();
    const id = idOf(h.place({ address: ALICE, side: 1, orderType: 0, tif: 0, price: 1200, size: 1000, reduceOnly: true, tpslType: 'TAKE_PROFIT', stopPrice: 1100 }));
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1100 });
    expect(orderEvents(h, id).map((e) => e.status)).toEqual(['TPSL_TRIGGERED', 'OPEN']);
  });

  it('keeps its trigger metadata on its terminal cancel', () => {
    const h = longAlice();
    const id = idOf(h.place({ address: ALICE, side: 1, orderType: 0, tif: 0, price: 1200, size: 1000, reduceOnly: true, tpslType: 'TAKE_PROFIT', stopPrice: 1100 }));
    h.run({ type: 'setOraclePrice', marketId: 1, price: 1100 });
    h.take();
    h.cancel({ address: ALICE, orderId: id });
    expect(orderEvents(h, id)).toMatchObject([{ status: 'CANCELED', tpslType: 'TAKE_PROFIT', triggerPrice: 1100 }]);
  });
});

describe('TPSL validation (errorType InvalidRequest)', () => {
  it.each([
    ['stopPrice required when tpslType set', { stopPrice: undefined }, 'stopPrice'],
    ['reduceOnly must be true for TPSL', { reduceOnly: false }, 'reduceOnly'],
    ['trigger on the wrong side of the oracle (would fire immediately)', { stopPrice: 1010, price: 1000 }, 'stopPrice'],
    ['MARKET TPSL legs must use IOC', { tif: 0 }, 'timeInForce'],
  ])('%s', (_rule, patch, field) => {
    const h = longAlice();
    expect(stopLoss(h, patch as object)).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest', field });
  });

  it('LIMIT TPSL legs must use GTT', () => {
    const h = longAlice();
    expect(stopLoss(h, { orderType: 0, tif: IOC })).toMatchObject({ kind: 'invalid', field: 'timeInForce' });
  });

  it('a MARKET TPSL price must be within 10 % of the trigger price', () => {
    const h = longAlice();
    expect(stopLoss(h, { price: 860 })).toMatchObject({ kind: 'invalid', errorType: 'OracleDeviation' });
  });

  it('an untriggered TPSL cannot be modified (MODIFY_TPSL_NOT_SUPPORTED)', () => {
    const h = longAlice();
    const id = idOf(stopLoss(h));
    expect(h.modify({ address: ALICE, orderId: id, price: 910, size: 1000 })).toMatchObject({ kind: 'rejected', rejectionReason: 'MODIFY_TPSL_NOT_SUPPORTED' });
  });
});

describe('position TPSL closes the whole position at trigger time', () => {
  it('sizes itself to the position when it fires', () => {
    const h = longAlice();
    const id = idOf(stopLoss(h, { size: 0, isPositionTpsl: true }));
    // The position grows after the TPSL was placed.
    h.place({ address: BOB, side: 1, price: 1000, size: 500 });
    h.place({ address: ALICE, side: 0, price: 1000, size: 500 });
    h.take();
    h.run({ type: 'setOraclePrice', marketId: 1, price: 955 });
    expect(orderEvents(h, id).at(-1)).toMatchObject({ status: 'FILLED', filled: 1500 });
  });

  it('POSITION_TPSL_ALREADY_EXISTS for a second position TPSL of the same type', () => {
    const h = longAlice();
    stopLoss(h, { size: 0, isPositionTpsl: true });
    expect(stopLoss(h, { size: 0, isPositionTpsl: true })).toMatchObject({ status: 'REJECTED', rejectionReason: 'POSITION_TPSL_ALREADY_EXISTS' });
  });
});

describe('cancel and cancel-all reach untriggered TPSL (TPSL_CANCELED)', () => {
  it('cancels by orderId and by cancel-all', () => {
    const h = longAlice();
    const a = idOf(stopLoss(h));
    const b = idOf(h.place({ address: ALICE, side: 1, orderType: 0, tif: 0, price: 1200, size: 1000, reduceOnly: true, tpslType: 'TAKE_PROFIT', stopPrice: 1100 }));
    h.take();
    h.cancel({ address: ALICE, orderId: a });
    h.run({ type: 'cancelAll', address: ALICE, accountIndex: 0 });
    expect(orderUpdates(h.take()).map((u) => [u.orderId, u.status])).toEqual([[a, 'TPSL_CANCELED'], [b, 'TPSL_CANCELED']]);
  });
});

describe('batch groupings entryTpsl, partialTpsl, positionTpsl (supplement §2)', () => {
  const leg = (tpslType: 'STOP_LOSS' | 'TAKE_PROFIT', size: number): BatchOrder => ({
    address: ALICE,
    accountIndex: 0,
    marketId: 1,
    side: 1,
    orderType: 0,
    tif: 0,
    price: tpslType === 'STOP_LOSS' ? 950 : 1100,
    size,
    reduceOnly: true,
    goodTilTime: 0,
    tpslType,
    stopPrice: tpslType === 'STOP_LOSS' ? 950 : 1100,
  });
  const batch = (h: Harness, grouping: 'entryTpsl' | 'partialTpsl' | 'positionTpsl', orders: BatchOrder[]): CommandResult =>
    h.run({ type: 'batchPlace', grouping, orders: orders.map((o) => ({ ...o, goodTilTime: h.time + 40 * 86_400_000_000 })) });

  it('entryTpsl: element 0 is the entry, legs wait on it and are canceled when it ends unfilled', () => {
    const h = harness();
    const entry: BatchOrder = { address: ALICE, accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: 0, price: 990, size: 1000, reduceOnly: false, goodTilTime: 0 };
    const result = batch(h, 'entryTpsl', [entry, leg('STOP_LOSS', 1000), leg('TAKE_PROFIT', 1000)]);
    expect(result.kind).toBe('batch');
    const [e, sl, tp] = (result as { results: CommandResult[] }).results;
    expect([e, sl, tp].map((r) => r!.kind === 'order' && r!.status)).toEqual(['OPEN', 'UNTRIGGERED', 'UNTRIGGERED']);
    h.take();
    h.cancel({ address: ALICE, orderId: idOf(e!) });
    expect(orderUpdates(h.take()).map((u) => u.status)).toEqual(['CANCELED', 'TPSL_CANCELED', 'TPSL_CANCELED']);
  });

  it('ENTRY_TPSL_CANNOT_BE_POSITION_TPSL', () => {
    const h = harness();
    const entry: BatchOrder = { address: ALICE, accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: 0, price: 990, size: 1000, reduceOnly: false, goodTilTime: 0 };
    const result = batch(h, 'entryTpsl', [entry, { ...leg('STOP_LOSS', 0), isPositionTpsl: true }]) as { results: CommandResult[] };
    expect(result.results[1]).toMatchObject({ status: 'REJECTED', rejectionReason: 'ENTRY_TPSL_CANNOT_BE_POSITION_TPSL' });
  });

  it.each([
    ['duplicate legs', 'partialTpsl', [leg('STOP_LOSS', 1000), leg('STOP_LOSS', 1000)]],
    ['too many legs', 'partialTpsl', [leg('STOP_LOSS', 1000), leg('TAKE_PROFIT', 1000), leg('TAKE_PROFIT', 1000)]],
    ['missing tpslType', 'partialTpsl', [{ ...leg('STOP_LOSS', 1000), tpslType: undefined }]],
    ['positionTpsl legs with a quantity', 'positionTpsl', [leg('STOP_LOSS', 1000)]],
    ['entryTpsl without an entry', 'entryTpsl', [leg('STOP_LOSS', 1000)]],
  ] as const)('refuses the whole batch for %s (InvalidRequest)', (_name, grouping, orders) => {
    const h = longAlice();
    expect(batch(h, grouping, [...orders])).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest' });
    expect(h.take()).toEqual([]);
  });

  it('positionTpsl legs become position TPSL', () => {
    const h = longAlice();
    const result = batch(h, 'positionTpsl', [leg('STOP_LOSS', 0), leg('TAKE_PROFIT', 0)]) as { results: CommandResult[] };
    expect(result.results.map((r) => r.kind === 'order' && r.status)).toEqual(['UNTRIGGERED', 'UNTRIGGERED']);
    const ids = result.results.map(idOf);
    expect(ids.map((id) => h.engine.orders.get(id)?.isPositionTpsl)).toEqual([true, true]);
  });
});
