/**
 * Property tests of the rate-limit arithmetic over random request streams: the token bucket
 * (exact refill, honest retry hints) and the account pools (lifetime accounting, the drip's
 * 1 per 10 s, honest refusals and refunds). One describe per rule.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bucketTokens,
  chargePools,
  DEFAULT_IP_BUCKET,
  DEFAULT_POOLS,
  effectiveCap,
  refillBucket,
  refundCharge,
  takeFromBucket,
  type AccountPools,
  type ChargeReceipt,
  type TokenBucket,
} from '../gateway/rate-limit/index.ts';

const T0 = 1_700_000_000_000;
const rule = DEFAULT_IP_BUCKET;

const bucketSteps = fc.array(fc.record({ dt: fc.integer({ min: 0, max: 5000 }), cost: fc.integer({ min: 0, max: 200 }) }), { maxLength: 200 });

describe('Bucket ... refilling continuously: exact and never above capacity', () => {
  it('refilling through any intermediate times gives the level of a single refill', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_500_000, max: 1_500_000 }), fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 50 }), (start, dts) => {
        const bucket: TokenBucket = { scaled: start, atMs: T0 };
        let stepped = bucket;
        let now = T0;
        for (const dt of dts) {
          now += dt;
          stepped = refillBucket(stepped, now, rule);
        }
        expect(stepped).toEqual(refillBucket(bucket, now, rule));
      }),
    );
  });

  it('admits exactly when the level covers the cost; the retry hint is the first millisecond that does', () => {
    fc.assert(
      fc.property(bucketSteps, (steps) => {
        let bucket: TokenBucket | undefined;
        let now = T0;
        for (const { dt, cost } of steps) {
          now += dt;
          const level = bucketTokens(bucket, now, rule);
          expect(level).toBeLessThanOrEqual(rule.capacity);
          const result = takeFromBucket(bucket, cost, now, rule);
          expect(result.ok).toBe(level >= cost);
          if (result.ok) {
            expect(result.bucket.scaled).toBe(refillBucket(bucket, now, rule).scaled - cost * rule.perMs);
          } else {
            const wait = result.retryAfterMs;
            expect(wait).toBeGreaterThan(0);
            expect(takeFromBucket(result.bucket, cost, now + wait, rule).ok).toBe(true);
            expect(takeFromBucket(result.bucket, cost, now + wait - 1, rule).ok).toBe(false);
          }
          bucket = result.bucket;
        }
      }),
    );
  });
});

const poolSteps = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('charge' as const), dt: fc.integer({ min: 0, max: 15_000 }), units: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('refund' as const), dt: fc.integer({ min: 0, max: 15_000 }), pick: fc.nat(), units: fc.integer({ min: 0, max: 6 }) }) },
  ),
  { maxLength: 120 },
);

describe('Past the cap a drip gives 1 action per 10 seconds per pool; charges beyond the remaining pool are rejected with a retry hint', () => {
  it('used is the lifetime sum of accepted units less refunds; drip units still charged are at least 10 s apart; refusals are honest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.bigInt({ min: 0n, max: 2_000_000_000n }), poolSteps, (startLeft, notional, steps) => {
        const cap = effectiveCap('order', notional, DEFAULT_POOLS);
        let pools: AccountPools = { order: { used: cap - startLeft, dripReadyAtMs: 0 }, cancel: { used: 0, dripReadyAtMs: 0 } };
        let expectedUsed = cap - startLeft;
        let now = T0;
        // Times of drip units still charged; a refund that gives the slot back removes its use.
        const dripTimes: number[] = [];
        const receipts: { receipt: ChargeReceipt; refunded: boolean }[] = [];
        for (const step of steps) {
          now += step.dt;
          if (step.kind === 'refund') {
            const entry = receipts[step.pick % Math.max(1, receipts.length)];
            if (entry === undefined || entry.refunded) continue;
            entry.refunded = true;
            const drip = entry.receipt.drip;
            if (step.units > 0 && drip !== undefined && pools.order.dripReadyAtMs === drip.after) dripTimes.pop();
            pools = refundCharge(pools, entry.receipt, step.units);
            expectedUsed -= Math.min(step.units, entry.receipt.units);
            continue;
          }
          const charge = { pool: 'order' as const, units: step.units };
          const left = Math.max(0, cap - pools.order.used);
          const dripReady = now >= pools.order.dripReadyAtMs;
          const decision = chargePools(pools, charge, notional, now, DEFAULT_POOLS);
          expect(decision.accepted).toBe(step.units <= left + (dripReady ? 1 : 0));
          if (decision.accepted) {
            expectedUsed += step.units;
            expect(decision.remaining).toBe(cap - expectedUsed);
            if (decision.receipt.drip !== undefined) {
              expect(now - (dripTimes.at(-1) ?? -Infinity)).toBeGreaterThanOrEqual(DEFAULT_POOLS.dripIntervalMs);
              dripTimes.push(now);
            }
            receipts.push({ receipt: decision.receipt, refunded: false });
            pools = decision.pools;
          } else {
            expect(decision.pools).toBe(pools);
            expect(decision.reason).toBe(left === 0 && !dripReady ? 'account_empty' : 'account_partial');
            if (step.units <= left + 1) {
              // Waiting serves it: at the hint it passes, a millisecond before it does not.
              expect(chargePools(pools, charge, notional, now + decision.retryAfterMs, DEFAULT_POOLS).accepted).toBe(true);
              expect(chargePools(pools, charge, notional, now + decision.retryAfterMs - 1, DEFAULT_POOLS).accepted).toBe(false);
            } else {
              // Waiting never serves it; at the hint the pool takes a single unit.
              expect(chargePools(pools, { pool: 'order', units: 1 }, notional, now + decision.retryAfterMs, DEFAULT_POOLS).accepted).toBe(true);
            }
          }
          expect(pools.order.used).toBe(expectedUsed);
          expect(pools.cancel).toEqual({ used: 0, dripReadyAtMs: 0 });
        }
      }),
    );
  });
});
