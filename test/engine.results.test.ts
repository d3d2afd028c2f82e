/**
 * One result type per command: `apply` returns the command's own result type (checked by the
 * typechecker through expectTypeOf), and a refusal is reported as a refusal.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apply } from '../engine/index.ts';
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
});
