/**
 * One result type per command: `apply` returns the command's own result type (checked by the
 * typechecker through expectTypeOf), and a refusal is reported as a refusal.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apply, reuseResults } from '../engine/index.ts';
import type {
  BufferedModifyResult,
  CancelAllResult,
  ConflictResult,
  InvalidResult,
  LeverageResult,
  LimitedResult,
  MarginResult,
  OrderResult,
  RejectedResult,
  ScheduleCancelResult,
  TransferResult,
} from '../engine/index.ts';
import { ALICE, harness, T0 } from './support/engine-fixture.ts';

const USD = 1_000_000_000n;

describe('each command has its own result type', () => {
  it('apply returns the precise type of the command it was given', () => {
    const h = harness();
    const at = { address: ALICE, accountIndex: 0, time: T0 + 10 };
    const cancelAll = apply(h.engine, { type: 'cancelAll', ...at });
    expectTypeOf(cancelAll).toEqualTypeOf<InvalidResult | CancelAllResult>();
    expect(cancelAll).toEqual({ kind: 'cancelAll', canceled: 0 });
    const deposit = apply(h.engine, { type: 'deposit', ...at, amount: USD });
    expectTypeOf(deposit).toEqualTypeOf<InvalidResult | TransferResult>();
    expect(deposit.kind).toBe('transfer');
    const withdraw = apply(h.engine, { type: 'withdraw', ...at, amount: USD, nonce: 'w' });
    expectTypeOf(withdraw).toEqualTypeOf<InvalidResult | ConflictResult | TransferResult>();
    expect(withdraw).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    const leverage = apply(h.engine, { type: 'setLeverage', ...at, marketId: 1, leverage: 5, isolated: true });
    expectTypeOf(leverage).toEqualTypeOf<InvalidResult | LeverageResult>();
    expect(leverage).toEqual({ kind: 'leverage', leverageStatus: 'APPLIED', leverage: 5 });
    const margin = apply(h.engine, { type: 'adjustIsolatedMargin', ...at, marketId: 1, amount: USD });
    expectTypeOf(margin).toEqualTypeOf<InvalidResult | MarginResult | RejectedResult>();
    expect(margin).toEqual({ kind: 'margin' });
    const modify = apply(h.engine, { type: 'modifyOrder', ...at, marketId: 1, clientId: 'later', price: 1000, size: 100 });
    expectTypeOf(modify).toEqualTypeOf<InvalidResult | OrderResult | RejectedResult | BufferedModifyResult>();
    expect(modify).toEqual({ kind: 'buffered' });
    const arm = apply(h.engine, { type: 'scheduleCancel', ...at, deadline: T0 + 60_000_000 });
    expectTypeOf(arm).toEqualTypeOf<InvalidResult | LimitedResult | ScheduleCancelResult>();
    expect(arm).toEqual({ kind: 'scheduleCancel', switchState: 'scheduled' });
  });

  it('an isolated-margin move the pool cannot cover is a rejected result, and changes nothing', () => {
    const h = harness();
    h.run({ type: 'setLeverage', address: ALICE, accountIndex: 0, marketId: 1, leverage: 5, isolated: true });
    h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: 10n * USD });
    h.take();
    const r = h.run({ type: 'adjustIsolatedMargin', address: ALICE, accountIndex: 0, marketId: 1, amount: -11n * USD });
    expect(r).toEqual({ kind: 'rejected', rejectionReason: 'UNDERCOLLATERALIZED' });
    expect(h.take()).toEqual([]);
  });

  it('in result-reuse mode an accepted order command answers with one record per engine, rewritten by the next; a batch still answers with its own objects', () => {
    const fresh = harness();
    const reused = harness();
    reuseResults(reused.engine);
    const a = reused.place({ side: 0, price: 1000, size: 100 });
    const aCopy = { ...a };
    expect(aCopy).toEqual(fresh.place({ side: 0, price: 1000, size: 100 }));
    const b = reused.place({ side: 0, price: 990, size: 100 });
    expect(b).toBe(a);
    expect(b).toEqual(fresh.place({ side: 0, price: 990, size: 100 }));
    expect(b).not.toEqual(aCopy);
    expect(reused.cancel({ orderId: aCopy.kind === 'order' ? aCopy.orderId : -1 })).toBe(a);
    expect(a).toEqual({ kind: 'order', orderId: aCopy.kind === 'order' ? aCopy.orderId : -1, status: 'CANCELED', rejectionReason: undefined });
    // A refusal is still an object of its own.
    expect(reused.cancel({ orderId: 999 })).not.toBe(a);
    const element = { address: ALICE, accountIndex: 0, side: 0, orderType: 0, tif: 0, price: 980, size: 100, reduceOnly: false, goodTilTime: reused.time + 40 * 86_400_000_000 } as const;
    const batch = reused.run({ type: 'batchPlace', orders: [{ marketId: 1, ...element }, { marketId: 1, ...element, price: 970 }] });
    expect(batch.kind).toBe('batch');
    if (batch.kind !== 'batch') return;
    expect(batch.results[0]).not.toBe(batch.results[1]);
    expect(batch.results[0]).not.toBe(a);
    expect(batch.results.map((r) => r.kind === 'order' && r.status)).toEqual(['OPEN', 'OPEN']);
  });
});
