import { quoteOf } from '../engine/account.ts';
import { describe, expect, it } from 'vitest';
import { touchedMarkets } from '../engine/account.ts';
import type { Engine, TransferEvent } from '../engine/index.ts';
import { ALICE, BOB, CAROL, harness } from './support/engine-fixture.ts';

/** Σ accounts (quote + isolated pools − cost) + the insurance fund's change + fees + lending vault. */
function held(engine: Engine): bigint {
  let total = engine.insuranceFund - engine.risk.insuranceFund + engine.feesCollected + engine.lendingVault;
  for (const account of engine.accounts.values()) {
    total += quoteOf(account);
    for (const am of touchedMarkets(account)) total += am.isolatedMargin - am.cost;
  }
  return total;
}

function trade(h: ReturnType<typeof harness>): void {
  h.place({ address: ALICE, side: 1, price: 1000, size: 10_000 });
  h.place({ address: BOB, side: 0, price: 1000, size: 10_000 });
}

describe('creditCommission moves money from the fees collected to the account, conserving money', () => {
  it('credits the quote balance, lowers feesCollected by the same amount, emits a COMPLETED referralClaim transfer and keeps Σ = deposited − withdrawn', () => {
    const h = harness();
    trade(h);
    const fees = h.engine.feesCollected;
    expect(fees).toBeGreaterThan(0n);
    const before = quoteOf(h.engine.accounts.get(`${CAROL}/0`)!);
    h.take();
    const result = h.run({ type: 'creditCommission', address: CAROL, accountIndex: 0, amount: fees / 2n });
    expect(result).toMatchObject({ kind: 'transfer', transferStatus: 'COMPLETED' });
    expect(h.engine.feesCollected).toBe(fees - fees / 2n);
    expect(quoteOf(h.engine.accounts.get(`${CAROL}/0`)!)).toBe(before + fees / 2n);
    const transfers = h.take().filter((e): e is TransferEvent => e.type === 'transfer');
    expect(transfers).toMatchObject([{ kind: 'referralClaim', status: 'COMPLETED', amount: fees / 2n, address: CAROL, netQuoteBalance: before + fees / 2n }]);
    expect(held(h.engine)).toBe(h.engine.deposited - h.engine.withdrawn);
  });

  it('is REJECTED with INSUFFICIENT_FEE_POOL when the fees collected cannot cover it, changing no balance', () => {
    const h = harness();
    trade(h);
    const fees = h.engine.feesCollected;
    const before = quoteOf(h.engine.accounts.get(`${CAROL}/0`)!);
    h.take();
    const result = h.run({ type: 'creditCommission', address: CAROL, accountIndex: 0, amount: fees + 1n });
    expect(result).toMatchObject({ kind: 'transfer', transferStatus: 'REJECTED', rejectReason: 'INSUFFICIENT_FEE_POOL' });
    expect(h.engine.feesCollected).toBe(fees);
    expect(quoteOf(h.engine.accounts.get(`${CAROL}/0`)!)).toBe(before);
    expect(h.take().filter((e) => e.type === 'transfer')).toMatchObject([{ kind: 'referralClaim', status: 'REJECTED' }]);
  });

  it('refuses a non-positive amount or a bad account as invalid, with no event', () => {
    const h = harness();
    trade(h);
    h.take();
    expect(h.run({ type: 'creditCommission', address: CAROL, accountIndex: 0, amount: 0n })).toMatchObject({ kind: 'invalid' });
    expect(h.run({ type: 'creditCommission', address: CAROL, accountIndex: 10, amount: 1n })).toMatchObject({ kind: 'invalid' });
    expect(h.take().filter((e) => e.type === 'transfer')).toEqual([]);
  });
});
