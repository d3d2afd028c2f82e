/**
 * Per-subaccount order and cancel pools (gateway/rate-limit/account-pools.ts and gate.ts
 * `admitAccount`), one describe per rule of interface.md "Limits", "Per-subaccount pools", plus
 * the order-write `rateLimit` field and the GET /v1/rateLimit snapshot.
 */
import { describe, expect, it } from 'vitest';
import {
  accountKey,
  admitAccount,
  chargeOf,
  chargePools,
  DEFAULT_POOLS,
  effectiveCap,
  FRESH_POOLS,
  orderWriteRateLimit,
  POOL_CHARGES,
  rateLimitConfig,
  rateLimitSnapshot,
  refundCharge,
  unenforcedRateLimit,
  type AccountPools,
  type Charge,
  type PoolDecision,
} from '../gateway/rate-limit/index.ts';

const T0 = 1_700_000_000_000;
const IP = '203.0.113.9';
const USD = 1_000_000_000n;
const config = rateLimitConfig();
const pools = DEFAULT_POOLS;

const ONE_ORDER: Charge = { pool: 'order', units: 1 };
const ONE_CANCEL: Charge = { pool: 'cancel', units: 1 };

/** Pools with `left` units left under the starting caps (no notional) and the drip untouched. */
function withLeft(left: { order?: number; cancel?: number }): AccountPools {
  return {
    order: { used: 20_000 - (left.order ?? 20_000), dripReadyAtMs: 0 },
    cancel: { used: 40_000 - (left.cancel ?? 40_000), dripReadyAtMs: 0 },
  };
}

function accepted(decision: PoolDecision): Extract<PoolDecision, { accepted: true }> {
  if (!decision.accepted) throw new Error(`refused: ${decision.reason}`);
  return decision;
}

describe('Effective cap = starting cap + lifetime_notional_usd / 0.10 (each 0.10 USD of realized fill notional adds 1 unit)', () => {
  it('starts at 20,000 (order) and 40,000 (cancel)', () => {
    expect(effectiveCap('order', 0n, pools)).toBe(20_000);
    expect(effectiveCap('cancel', 0n, pools)).toBe(40_000);
  });

  it('adds one unit per whole 0.10 USD, rounding down', () => {
    expect(effectiveCap('order', USD / 10n - 1n, pools)).toBe(20_000);
    expect(effectiveCap('order', USD / 10n, pools)).toBe(20_001);
    expect(effectiveCap('order', (USD * 19n) / 100n, pools)).toBe(20_001);
    expect(effectiveCap('order', USD, pools)).toBe(20_010);
    expect(effectiveCap('order', 1000n * USD, pools)).toBe(30_000);
    expect(effectiveCap('cancel', 1000n * USD, pools)).toBe(50_000);
    expect(effectiveCap('order', -5n * USD, pools)).toBe(20_000);
  });

  it('a pool at its cap accepts again, without the drip, once the notional grows', () => {
    const full = withLeft({ order: 0 });
    const later = accepted(chargePools(full, ONE_ORDER, USD / 10n, T0, pools));
    expect(later.receipt.drip).toBeUndefined();
    expect(later.remaining).toBe(0);
  });
});

describe('order pool: placeOrder and modifyOrder 1 each, batch of N: N; cancel pool: cancelOrder 1, batch of N: N, each scheduleCancel arm or refresh, cancelAllOrders', () => {
  it('charges each operation to its pool', () => {
    expect(chargeOf('placeOrder', 0, pools)).toEqual({ pool: 'order', units: 1 });
    expect(chargeOf('modifyOrder', 0, pools)).toEqual({ pool: 'order', units: 1 });
    expect(chargeOf('batchPlaceOrders', 37, pools)).toEqual({ pool: 'order', units: 37 });
    expect(chargeOf('batchModifyOrders', 100, pools)).toEqual({ pool: 'order', units: 100 });
    expect(chargeOf('cancelOrder', 0, pools)).toEqual({ pool: 'cancel', units: 1 });
    expect(chargeOf('batchCancelOrders', 7, pools)).toEqual({ pool: 'cancel', units: 7 });
    expect(chargeOf('scheduleCancel', 0, pools)).toEqual({ pool: 'cancel', units: 1 });
    expect(Object.keys(POOL_CHARGES).sort()).toEqual(
      ['batchCancelOrders', 'batchModifyOrders', 'batchPlaceOrders', 'cancelAllOrders', 'cancelOrder', 'modifyOrder', 'placeOrder', 'scheduleCancel'],
    );
  });

  it('cancelAllOrders costs a flat 1,000 (supplement §12), configurable', () => {
    expect(chargeOf('cancelAllOrders', 0, pools)).toEqual({ pool: 'cancel', units: 1000 });
    expect(chargeOf('cancelAllOrders', 0, rateLimitConfig({ pools: { cancelAllCost: 1 } }).pools)).toEqual({ pool: 'cancel', units: 1 });
  });

  it('the pools are separate: an order charge leaves the cancel pool alone', () => {
    const after = accepted(chargePools(undefined, { pool: 'order', units: 100 }, 0n, T0, pools));
    expect(after.pools).toEqual({ order: { used: 100, dripReadyAtMs: 0 }, cancel: { used: 0, dripReadyAtMs: 0 } });
    expect(after.remaining).toBe(19_900);
  });

  it('keys pools by (address, accountIndex), address case and prefix ignored', () => {
    expect(accountKey('0xAbCd', 3)).toBe(accountKey('abcd', 3));
    expect(accountKey('0XABCD', 3)).toBe('abcd/3');
    expect(accountKey('0xabcd', 4)).not.toBe(accountKey('0xabcd', 3));
  });
});

describe('the counter never decays', () => {
  it('used stays charged however much time passes', () => {
    const after = accepted(chargePools(undefined, { pool: 'order', units: 500 }, 0n, T0, pools));
    const dayLater = accepted(chargePools(after.pools, ONE_ORDER, 0n, T0 + 86_400_000 * 30, pools));
    expect(dayLater.pools.order.used).toBe(501);
    expect(dayLater.remaining).toBe(19_499);
  });
});

describe('Past the cap a drip gives 1 action per 10 seconds per pool', () => {
  it('the last unit under the cap leaves remaining 0; then one action per 10 s with remaining going negative', () => {
    const last = accepted(chargePools(withLeft({ order: 1 }), ONE_ORDER, 0n, T0, pools));
    expect(last.remaining).toBe(0);
    const drip1 = accepted(chargePools(last.pools, ONE_ORDER, 0n, T0, pools));
    expect(drip1.remaining).toBe(-1);
    expect(drip1.receipt.drip).toEqual({ before: 0, after: T0 + 10_000 });
    expect(chargePools(drip1.pools, ONE_ORDER, 0n, T0 + 1, pools)).toEqual({
      accepted: false,
      pools: drip1.pools,
      reason: 'account_empty',
      retryAfterMs: 9_999,
    });
    expect(chargePools(drip1.pools, ONE_ORDER, 0n, T0 + 9_999, pools)).toMatchObject({ accepted: false, retryAfterMs: 1 });
    const drip2 = accepted(chargePools(drip1.pools, ONE_ORDER, 0n, T0 + 10_000, pools));
    expect(drip2.remaining).toBe(-2);
    expect(drip2.pools.order.used).toBe(20_002);
  });

  it('the drip does not bank: after a long wait there is still one action, then 10 s', () => {
    const onDrip = accepted(chargePools(withLeft({ order: 0 }), ONE_ORDER, 0n, T0, pools));
    const hourLater = T0 + 3_600_000;
    const next = accepted(chargePools(onDrip.pools, ONE_ORDER, 0n, hourLater, pools));
    expect(chargePools(next.pools, ONE_ORDER, 0n, hourLater, pools)).toMatchObject({ accepted: false, reason: 'account_empty', retryAfterMs: 10_000 });
  });

  it('each pool has its own drip', () => {
    const bothFull = withLeft({ order: 0, cancel: 0 });
    const order = accepted(chargePools(bothFull, ONE_ORDER, 0n, T0, pools));
    expect(chargePools(order.pools, ONE_ORDER, 0n, T0, pools).accepted).toBe(false);
    const cancel = accepted(chargePools(order.pools, ONE_CANCEL, 0n, T0, pools));
    expect(cancel.remaining).toBe(-1);
    expect(cancel.pools.order).toEqual(order.pools.order);
  });

  it('the drip interval is configurable', () => {
    const fast = rateLimitConfig({ pools: { dripIntervalMs: 1000 } }).pools;
    const onDrip = accepted(chargePools(withLeft({ order: 0 }), ONE_ORDER, 0n, T0, fast));
    expect(chargePools(onDrip.pools, ONE_ORDER, 0n, T0, fast)).toMatchObject({ retryAfterMs: 1000 });
  });
});

describe('charges beyond the remaining pool are rejected with a retry hint: account_empty, account_partial', () => {
  it('account_empty: nothing left and the drip used', () => {
    const onDrip = accepted(chargePools(withLeft({ order: 0 }), ONE_ORDER, 0n, T0, pools));
    expect(chargePools(onDrip.pools, { pool: 'order', units: 5 }, 0n, T0 + 4000, pools)).toMatchObject({
      accepted: false,
      reason: 'account_empty',
      retryAfterMs: 6000,
    });
  });

  it('account_partial: a batch asked for more than is left; refused whole, nothing charged', () => {
    const three = withLeft({ order: 3 });
    const refused = chargePools(three, { pool: 'order', units: 5 }, 0n, T0, pools);
    // Waiting cannot serve 5 (3 left plus one drip unit); a smaller batch passes now.
    expect(refused).toEqual({ accepted: false, pools: three, reason: 'account_partial', retryAfterMs: 0 });
  });

  it('a batch may take what is left plus the one drip unit', () => {
    const four = accepted(chargePools(withLeft({ order: 4 }), { pool: 'order', units: 5 }, 0n, T0, pools));
    expect(four.remaining).toBe(-1);
    expect(four.receipt.drip).toEqual({ before: 0, after: T0 + 10_000 });
  });

  it('account_partial with the time until the drip can complete the batch', () => {
    const dripUsed: AccountPools = { ...withLeft({ order: 4 }), order: { used: 19_996, dripReadyAtMs: T0 + 2500 } };
    expect(chargePools(dripUsed, { pool: 'order', units: 5 }, 0n, T0, pools)).toMatchObject({
      accepted: false,
      reason: 'account_partial',
      retryAfterMs: 2500,
    });
  });

  it('account_partial for cancel-all (1,000) once fewer than 1,000 cancel units are left', () => {
    const cancelAll = (left: number) =>
      admitAccount(config, { ip: IP, operation: 'cancelAllOrders', pools: withLeft({ cancel: left }), lifetimeNotional: 0n, nowMs: T0 });
    expect(cancelAll(998)).toMatchObject({ kind: 'limited', pool: 'cancel', reason: 'account_partial', retryAfterMs: 0 });
    // 999 left plus the one drip unit covers it.
    expect(cancelAll(999)).toMatchObject({ kind: 'charged', rateLimit: { pool: 'cancel', remaining: -1 } });
    const cheap = rateLimitConfig({ pools: { cancelAllCost: 1 } });
    expect(
      admitAccount(cheap, { ip: IP, operation: 'cancelAllOrders', pools: withLeft({ cancel: 999 }), lifetimeNotional: 0n, nowMs: T0 }),
    ).toMatchObject({ kind: 'charged', rateLimit: { pool: 'cancel', remaining: 998 } });
  });
});

describe('A charge is refunded if an accepted order fails to publish downstream', () => {
  it('gives the units back', () => {
    const charged = accepted(chargePools(undefined, { pool: 'order', units: 10 }, 0n, T0, pools));
    expect(refundCharge(charged.pools, charged.receipt)).toEqual(FRESH_POOLS);
    expect(refundCharge(charged.pools, charged.receipt, 3).order.used).toBe(7);
    expect(refundCharge(charged.pools, charged.receipt, 50).order.used).toBe(0);
    expect(refundCharge(charged.pools, charged.receipt, 0)).toBe(charged.pools);
  });

  it('gives the drip slot back when the refunded charge used it', () => {
    const before = withLeft({ order: 0 });
    const onDrip = accepted(chargePools(before, ONE_ORDER, 0n, T0, pools));
    const refunded = refundCharge(onDrip.pools, onDrip.receipt);
    expect(refunded).toEqual(before);
    expect(accepted(chargePools(refunded, ONE_ORDER, 0n, T0 + 1, pools)).remaining).toBe(-1);
  });

  it('a batch that used the drip and lost one element ends as if it had asked for one less', () => {
    const batch = accepted(chargePools(withLeft({ order: 2 }), { pool: 'order', units: 3 }, 0n, T0, pools));
    const refunded = refundCharge(batch.pools, batch.receipt, 1);
    const asIf = accepted(chargePools(withLeft({ order: 2 }), { pool: 'order', units: 2 }, 0n, T0, pools));
    expect(refunded).toEqual(asIf.pools);
  });

  it('does not give back a drip slot that was used again since', () => {
    const first = accepted(chargePools(withLeft({ order: 0 }), ONE_ORDER, 0n, T0, pools));
    const second = accepted(chargePools(first.pools, ONE_ORDER, 0n, T0 + 10_000, pools));
    const refunded = refundCharge(second.pools, first.receipt);
    expect(refunded.order).toEqual({ used: 20_001, dripReadyAtMs: T0 + 20_000 });
  });
});

describe('rateLimit: pool (order or cancel), remaining; -1 means the account layer was not enforced', () => {
  const input = { ip: IP, pools: undefined, lifetimeNotional: 0n, nowMs: T0 } as const;

  it('enforced: remaining after charging; one snapshot for a whole batch', () => {
    expect(admitAccount(config, { ...input, operation: 'placeOrder' })).toMatchObject({
      kind: 'charged',
      rateLimit: { pool: 'order', remaining: 19_999 },
    });
    expect(admitAccount(config, { ...input, operation: 'batchCancelOrders', elements: 100 })).toMatchObject({
      kind: 'charged',
      rateLimit: { pool: 'cancel', remaining: 39_900 },
    });
    expect(admitAccount(config, { ...input, operation: 'cancelAllOrders' })).toMatchObject({
      kind: 'charged',
      rateLimit: { pool: 'cancel', remaining: 39_000 },
    });
  });

  it('remaining is 0 or negative while the request still succeeds on the drip', () => {
    const onCap = admitAccount(config, { ...input, pools: withLeft({ order: 0 }), operation: 'modifyOrder' });
    expect(onCap).toMatchObject({ kind: 'charged', rateLimit: { pool: 'order', remaining: -1 } });
    const limited = admitAccount(config, { ...input, pools: onCap.kind === 'charged' ? onCap.pools : undefined, operation: 'placeOrder' });
    expect(limited).toMatchObject({ kind: 'limited', pool: 'order', reason: 'account_empty', retryAfterMs: 10_000 });
  });

  it('allowlist bypass: -1 and nothing charged', () => {
    const allow = rateLimitConfig({ ipAllowlist: [IP] });
    const full = withLeft({ order: 0 });
    for (let i = 0; i < 3; i++) {
      expect(admitAccount(allow, { ...input, pools: full, operation: 'placeOrder' })).toEqual({
        kind: 'unenforced',
        pools: full,
        receipt: undefined,
        rateLimit: { pool: 'order', remaining: -1 },
      });
    }
  });

  it('IP-only (account layer off): -1 and nothing charged', () => {
    const ipOnly = rateLimitConfig({ accountLayer: 'off' });
    expect(admitAccount(ipOnly, { ...input, operation: 'cancelOrder' })).toEqual({
      kind: 'unenforced',
      pools: undefined,
      receipt: undefined,
      rateLimit: { pool: 'cancel', remaining: -1 },
    });
  });

  it('shadow mode: -1, never refused, but the charge is recorded (and refundable)', () => {
    const shadow = rateLimitConfig({ accountLayer: 'shadow' });
    const decision = admitAccount(shadow, { ...input, pools: withLeft({ order: 0 }), operation: 'batchPlaceOrders', elements: 50 });
    expect(decision).toMatchObject({ kind: 'unenforced', rateLimit: { pool: 'order', remaining: -1 } });
    if (decision.kind !== 'unenforced' || decision.pools === undefined || decision.receipt === undefined) throw new Error('no charge');
    expect(decision.pools.order.used).toBe(20_050);
    expect(refundCharge(decision.pools, decision.receipt).order.used).toBe(20_000);
  });

  it('fail-open on a store error reports -1 for the pool', () => {
    expect(unenforcedRateLimit('cancel')).toEqual({ pool: 'cancel', remaining: -1 });
  });

  it('omitted when rate limiting is not configured', () => {
    const off = rateLimitConfig({ enabled: false });
    expect(admitAccount(off, { ...input, operation: 'placeOrder' })).toEqual({ kind: 'unlimited' });
  });

  it('orderWriteRateLimit reads the current remaining of a pool', () => {
    expect(orderWriteRateLimit(withLeft({ cancel: 12 }), 'cancel', 0n, pools)).toEqual({ pool: 'cancel', remaining: 12 });
    expect(orderWriteRateLimit(undefined, 'order', USD, pools)).toEqual({ pool: 'order', remaining: 20_010 });
  });
});

describe('Rate-limit snapshot: address, accountIndex (the index actually served), order and cancel each {used, cap, nextAvailableMs}', () => {
  it('a fresh subaccount', () => {
    expect(rateLimitSnapshot({ address: '0xab', accountIndex: 0, pools: undefined, lifetimeNotional: 0n, nowMs: T0 }, pools)).toEqual({
      address: '0xab',
      accountIndex: 0,
      order: { used: 0, cap: 20_000, nextAvailableMs: 0 },
      cancel: { used: 0, cap: 40_000, nextAvailableMs: 0 },
    });
  });

  it('cap grows with notional; nextAvailableMs is when the drip comes back while nothing is left', () => {
    const onDrip = accepted(chargePools(withLeft({ cancel: 0 }), ONE_CANCEL, 0n, T0, pools));
    const snapshot = rateLimitSnapshot({ address: '0xab', accountIndex: 2, pools: onDrip.pools, lifetimeNotional: 0n, nowMs: T0 + 1 }, pools);
    expect(snapshot.cancel).toEqual({ used: 40_001, cap: 40_000, nextAvailableMs: T0 + 10_000 });
    expect(snapshot.order).toEqual({ used: 0, cap: 20_000, nextAvailableMs: 0 });
    const ready = rateLimitSnapshot({ address: '0xab', accountIndex: 2, pools: onDrip.pools, lifetimeNotional: 0n, nowMs: T0 + 10_000 }, pools);
    expect(ready.cancel.nextAvailableMs).toBe(0);
    const traded = rateLimitSnapshot({ address: '0xab', accountIndex: 2, pools: onDrip.pools, lifetimeNotional: USD, nowMs: T0 + 1 }, pools);
    expect(traded.cancel).toEqual({ used: 40_001, cap: 40_010, nextAvailableMs: 0 });
  });
});
