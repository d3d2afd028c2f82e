/**
 * Hourly settlement on the engine's clock: funding per market, then borrow interest.
 *
 * Funding (funding.ts): at every whole hour each market's rate for the hour closes (a
 * `fundingRate` event) and every position in it pays or receives −size · oracle · rate; the
 * rounding remainder goes to the insurance fund so that one settlement sums to zero exactly.
 * Payments are stamped with the hour itself (a whole millisecond).
 *
 * Interest: an account whose quote balance is negative borrows it; it pays
 * `borrowRatePpmPerYear` on the borrowed amount, accrued per hour and settled to the lending
 * vault (an `interest` event, the interestPayments history). Rounded up.
 */
import { emitFunding, emitFundingRate, emitInterest, emitPosition } from './emit.ts';
import { closeHour, fundingPayment, HOUR_US, nextHour } from './funding.ts';
import { liquidate } from './liquidation.ts';
import { refreshTriggers } from './risk.ts';
import type { Engine } from './state.ts';
import { marketOf, quoteOf, type Account } from './account.ts';

const US_PER_YEAR = 365n * 24n * 3_600_000_000n;

/** Runs every settlement due at or before `time`, hour by hour. */
export function settleDue(engine: Engine, time: number): void {
  while (engine.nextSettlementAt <= time) {
    const at = engine.nextSettlementAt;
    const saved = engine.time;
    engine.time = at;
    settleHour(engine);
    engine.time = saved;
    engine.nextSettlementAt = at + HOUR_US;
  }
}

/** Starts the settlement clock at the first whole hour after `time`. */
export function startSettlementClock(engine: Engine, time: number): void {
  if (engine.nextSettlementAt === 0) engine.nextSettlementAt = nextHour(time);
}

function settleHour(engine: Engine): void {
  const touched = new Set<Account>();
  for (const ms of engine.bySlot) {
    const rate = closeHour(ms.funding, engine.time);
    if (ms.oraclePrice <= 0) continue;
    emitFundingRate(engine, ms, 'fundingRate', rate);
    if (rate === 0n) continue;
    let sum = 0n;
    for (const account of ms.holders) {
      const am = marketOf(account, ms.slot)!;
      const payment = fundingPayment(am.size, ms.oraclePrice, ms.spec.valueMul, rate);
      if (payment === 0n) continue;
      sum += payment;
      if (am.isolated) am.isolatedMargin += payment;
      else account.quote += payment;
      am.fundingAllTime += payment;
      am.fundingSinceOpen += payment;
      am.fundingSinceChange += payment;
      emitFunding(engine, account, ms.spec.id, rate, am.size, payment);
      emitPosition(engine, account, am);
      touched.add(account);
    }
    // Payers rounded up and receivers down: what is left over is the fund's.
    engine.insuranceFund -= sum;
  }
  for (const account of engine.accounts.all) {
    const quote = quoteOf(account);
    if (quote >= 0n) continue;
    const payment = (-quote * engine.risk.borrowRatePpmPerYear * BigInt(HOUR_US) + US_PER_YEAR * 1_000_000n - 1n) / (US_PER_YEAR * 1_000_000n);
    if (payment === 0n) continue;
    account.quote -= payment;
    engine.lendingVault += payment;
    emitInterest(engine, account, payment);
    touched.add(account);
  }
  for (const account of touched) if (refreshTriggers(engine, account)) liquidate(engine, account);
}
