/**
 * The exact double fast path for fill money (engine/money.ts) against the bigint formulas it
 * stands in for: equal integers wherever it answers, NaN (bigint fallback) elsewhere; and the
 * fee tier kept without bigint comparisons (account.ts `feeTier`) against `tierFor`, the
 * lifetime tallies and the balance kept partly in exact doubles against plain bigint sums, and
 * the balance's double (crossRiskF) against `Number` of the bigint sum.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addFeePaid,
  addQuoteExact,
  addVolume,
  createAccountIndex,
  feeTier,
  getOrCreateAccount,
  lifetimeFeesPaid,
  lifetimeVolume,
  quoteOf,
  rollingVolume,
} from '../engine/account.ts';
import { crossRiskF } from '../engine/margin.ts';
import { AW, QUOTE_F, QUOTE_PENDING } from '../engine/risk-table.ts';
import { fee, feeExact, tierFor } from '../engine/fees.ts';
import { exactNumber, floorDivExact, mulExact } from '../engine/money.ts';
import { applyFill, createAccountMarket, type FillOutcome } from '../engine/position.ts';
import type { FeeTier } from '../engine/types.ts';

const int = fc.oneof(fc.integer({ min: 0, max: 2 ** 20 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));

/**
 * Two positions fed the same fills, one with the exact double of each fill's value (the fast
 * path) and one without (the bigint path); each fill checks they agree exactly.
 */
function bothPaths(): (buy: boolean, qty: number, value: bigint, valueF: number) => void {
  const fast = createAccountMarket(0, 1);
  const slow = createAccountMarket(0, 1);
  const a: FillOutcome = { effect: 'OPEN_LONG', realized: 0n, realizedF: 0, closedQty: 0 };
  const b: FillOutcome = { effect: 'OPEN_LONG', realized: 0n, realizedF: 0, closedQty: 0 };
  return (buy, qty, value, valueF) => {
    applyFill(fast.t, fast.row, buy ? 0 : 1, qty, value, valueF, a);
    applyFill(slow.t, slow.row, buy ? 0 : 1, qty, value, NaN, b);
    expect([fast.size, fast.cost, fast.costF, fast.realizedPnl]).toEqual([slow.size, slow.cost, slow.costF, slow.realizedPnl]);
    const realized = (x: FillOutcome): bigint => (x.realizedF === x.realizedF ? BigInt(x.realizedF) : x.realized);
    expect([a.effect, realized(a), a.closedQty]).toEqual([b.effect, realized(b), b.closedQty]);
    expect(fast.costF).toBe(Number(fast.cost));
  };
}

describe('mulExact and floorDivExact give the bigint result or NaN', () => {
  it('mulExact', () => {
    fc.assert(
      fc.property(int, int, fc.boolean(), (a, b, neg) => {
        const x = neg ? -a : a;
        const p = mulExact(x, b);
        if (p === p) expect(BigInt(p)).toBe(BigInt(x) * BigInt(b));
        else expect(BigInt(a) * BigInt(b) >= 2n ** 52n - 1n).toBe(true);
      }),
    );
  });
  it('floorDivExact', () => {
    fc.assert(
      fc.property(int, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (a, b) => {
        const q = floorDivExact(a, b);
        if (q === q) expect(BigInt(q)).toBe(BigInt(a) / BigInt(b));
        else expect(a >= 2 ** 52 || b >= 2 ** 52).toBe(true);
      }),
    );
  });
  it('floorDivExact at exact multiples near the bound', () => {
    const b = 999_983;
    for (const k of [1, 2 ** 20, Math.floor((2 ** 52 - 1) / b)]) {
      expect(floorDivExact(k * b, b)).toBe(k);
      expect(floorDivExact(k * b - 1, b)).toBe(k - 1);
    }
  });
});

describe('feeExact equals fee', () => {
  it('charges round up and rebates round down, as bigint', () => {
    fc.assert(
      fc.property(int, fc.integer({ min: -1_000_000, max: 1_000_000 }), (value, ppm) => {
        const f = feeExact(value, ppm);
        if (f === f) expect(BigInt(f)).toBe(fee(BigInt(value), ppm));
        else expect(BigInt(value) * BigInt(Math.abs(ppm)) >= 2n ** 52n).toBe(true);
      }),
    );
  });
});

describe('applyFill gives the same position and outcome with or without the double path', () => {
  it('random fill sequences', () => {
    const fill = fc.record({ buy: fc.boolean(), qty: fc.integer({ min: 1, max: 10 ** 7 }), price: fc.integer({ min: 1, max: 10 ** 7 }) });
    fc.assert(
      fc.property(fc.array(fill, { minLength: 1, maxLength: 30 }), (fills) => {
        const fillBoth = bothPaths();
        for (const { buy, qty, price } of fills) fillBoth(buy, qty, BigInt(price) * BigInt(qty) * 10_000n, mulExact(mulExact(price, qty), 10_000));
      }),
    );
  });
});

describe('feeTier follows tierFor(rollingVolume) through fills and days', () => {
  const USD = 1_000_000_000n;
  // Thresholds near the volumes traded, so that crossings (exact hits included) happen often.
  const tiers: FeeTier[] = [
    { name: 'T1', minVolume: 0n, makerFeePpm: 150, takerFeePpm: 450 },
    { name: 'T2', minVolume: 1_000n * USD, makerFeePpm: 120, takerFeePpm: 400 },
    { name: 'T3', minVolume: 1_000n * USD + 1n, makerFeePpm: 80, takerFeePpm: 350 },
    { name: 'T4', minVolume: 2n ** 53n, makerFeePpm: 40, takerFeePpm: 300 },
    { name: 'T5', minVolume: 2n ** 60n, makerFeePpm: 0, takerFeePpm: 250 },
  ];
  const DAY = 86_400_000_000;
  const value = fc.oneof(
    fc.bigInt({ min: 0n, max: 2_000n * USD }),
    fc.bigInt({ min: 0n, max: 2n ** 56n }),
    fc.constantFrom(1n, 1_000n * USD, 2n ** 52n, 2n ** 53n),
  );
  it('random fills, day steps and an exact-double or NaN value', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 60 }), (steps) => {
        const account = getOrCreateAccount(createAccountIndex(), '0xa', 0);
        let time = 40 * DAY;
        for (const [v, days, exact] of steps) {
          time += days === 3 ? 31 * DAY : days * DAY;
          const expected = tierFor(tiers, rollingVolume({ ...account, rollingDay: -1 }, time));
          expect(feeTier(tiers, account, time)).toBe(expected);
          addVolume(account, v, exact ? exactNumber(v) : NaN, time);
        }
      }),
    );
  });
});

describe('lifetime tallies with a pending exact double equal plain bigint sums', () => {
  const DAY = 86_400_000_000;
  const amount = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 2n ** 55n }), fc.constantFrom(0n, 2n ** 52n - 1n, 2n ** 52n));
  it('volume by day, rolling volume, lifetime volume and fees paid over random fills and days', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(amount, amount, fc.integer({ min: 0, max: 4 }), fc.boolean()), { maxLength: 80 }), (steps) => {
        const account = getOrCreateAccount(createAccountIndex(), '0xa', 0);
        const byDay = new Map<number, bigint>();
        let volume = 0n;
        let fees = 0n;
        let time = 100 * DAY;
        for (const [v, f, days, exact] of steps) {
          time += days === 4 ? 45 * DAY : days === 3 ? 29 * DAY : days * DAY;
          const day = Math.floor(time / DAY);
          addVolume(account, v, exact ? exactNumber(v) : NaN, time);
          addFeePaid(account, f, exact ? exactNumber(f) : NaN);
          byDay.set(day, (byDay.get(day) ?? 0n) + v);
          volume += v;
          fees += f;
          let rolling = 0n;
          for (const [d, x] of byDay) if (d > day - 30 && d <= day) rolling += x;
          expect(lifetimeVolume(account)).toBe(volume);
          expect(lifetimeFeesPaid(account)).toBe(fees);
          expect(rollingVolume(account, time)).toBe(rolling);
          expect(rollingVolume({ ...account, rollingDay: -1 }, time + 10 * DAY)).toBe([...byDay].filter(([d]) => d > day + 10 - 30).reduce((t, [, x]) => t + x, 0n));
        }
      }),
    );
  });
});

/**
 * The range checks at their boundary: operands drawn so that products, quotients and cost
 * bases land within a few units of 2^52 (the fast path's bound) and 2^53 (where doubles stop
 * holding every integer). Wherever the double path answers it must give the bigint result bit
 * for bit, and it may decline (NaN) only where the exact result is at or past the bound.
 */
describe('the double fast path and the bigint path agree at the 2^52 / 2^53 boundary', () => {
  const TWO52 = 2 ** 52;
  const near = (bound: number): fc.Arbitrary<[number, number]> =>
    fc.tuple(fc.integer({ min: 1, max: 2 ** 26 }), fc.integer({ min: -4, max: 4 })).map(([b, d]) => [Math.max(1, Math.floor(bound / b) + d), b]);

  it('mulExact: exact below the bound, NaN only at or past it', () => {
    fc.assert(
      fc.property(fc.oneof(near(TWO52), near(2 ** 53)), fc.boolean(), ([a, b], neg) => {
        const x = neg ? -a : a;
        const p = mulExact(x, b);
        const exact = BigInt(x) * BigInt(b);
        if (p === p) expect(BigInt(p)).toBe(exact);
        else expect(exact >= BigInt(TWO52) - 1n || exact <= -BigInt(TWO52) + 1n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('feeExact: the bigint fee wherever it answers, for notionals around 2^52 / ppm', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((p) => p !== 0), fc.integer({ min: -4, max: 4 }), (ppm, d) => {
        const value = Math.floor(TWO52 / Math.abs(ppm)) + d;
        const f = feeExact(value, ppm);
        if (f === f) expect(BigInt(f)).toBe(fee(BigInt(value), ppm));
        else expect(BigInt(value) * BigInt(Math.abs(ppm)) >= BigInt(TWO52) - 1n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('applyFill: positions whose cost basis and fill values straddle 2^52 and 2^53 end alike on both paths', () => {
    const fill = fc.record({ buy: fc.boolean(), qty: fc.integer({ min: 1, max: 2 ** 20 }), bound: fc.constantFrom(TWO52, 2 ** 53, 2 ** 51), d: fc.integer({ min: -3, max: 3 }) });
    fc.assert(
      fc.property(fc.array(fill, { minLength: 1, maxLength: 12 }), (fills) => {
        const fillBoth = bothPaths();
        for (const { buy, qty, bound, d } of fills) {
          // A price that puts this fill's value within a few quantums of the bound.
          const price = Math.max(1, Math.floor(bound / qty) + d);
          fillBoth(buy, qty, BigInt(price) * BigInt(qty), mulExact(price, qty));
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the balance as a double: a bigint part and a pending exact double (account.ts, margin.ts crossRiskF)', () => {
  // Balances from a few quantums to far beyond 2^53 (the bench funds 1e16), pending sums below 2^52.
  const quote = fc.oneof(
    fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
    fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
    fc.bigInt({ min: -(2n ** 110n), max: 2n ** 110n }),
  );
  const pending = fc.oneof(fc.integer({ min: -(2 ** 20), max: 2 ** 20 }), fc.integer({ min: -(2 ** 52) + 1, max: 2 ** 52 - 1 }));

  it('crossRiskF converts quote + pending to the same double as Number(quote + pending), across balance and pending changes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), quote, pending), { minLength: 1, maxLength: 8 }), (steps) => {
        const index = createAccountIndex();
        const account = getOrCreateAccount(index, '0xa', 0);
        const sums = index.table.accountSums;
        for (const [setQuote, q, p] of steps) {
          if (setQuote) account.quote = q;
          sums[account.id * AW + QUOTE_PENDING] = p;
          crossRiskF(account, [], 0);
          expect(sums[account.id * AW + QUOTE_F]).toBe(Number(quoteOf(account)));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('addQuoteExact keeps quoteOf equal to the bigint sum, folding into the bigint at the 2^52 bound', () => {
    fc.assert(
      fc.property(quote, fc.array(pending, { maxLength: 20 }), (start, amounts) => {
        const account = getOrCreateAccount(createAccountIndex(), '0xa', 0);
        account.quote = start;
        let expected = start;
        for (const amount of amounts) {
          addQuoteExact(account, amount);
          expected += BigInt(amount);
          expect(quoteOf(account)).toBe(expected);
          expect(Math.abs(account.table.accountSums[account.id * AW + QUOTE_PENDING]!)).toBeLessThan(2 ** 52);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
