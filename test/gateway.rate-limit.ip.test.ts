/**
 * The per-IP weight bucket and the weight table (gateway/rate-limit/ip-bucket.ts, weights.ts,
 * gate.ts `admitRequest` / `settleResponse`), one describe per rule of interface.md "Limits",
 * "Per-IP weight bucket". The clock is a plain millisecond counter.
 */
import { describe, expect, it } from 'vitest';
import {
  admitRequest,
  admitWeight,
  DEFAULT_IP_BUCKET,
  ipBucketLevel,
  ipScope,
  IP_WEIGHTS,
  postCharge,
  postChargeWeight,
  rateLimitConfig,
  requestWeight,
  resolveOperation,
  settleResponse,
  type IpBucket,
  type WeightedOperation,
} from '../gateway/rate-limit/index.ts';

const T0 = 1_700_000_000_000;
const IP = '203.0.113.9';
const rule = DEFAULT_IP_BUCKET;
const config = rateLimitConfig();

/** Admits `weight` and returns the bucket, failing the test if refused. */
function spend(bucket: IpBucket | undefined, weight: number, nowMs: number): IpBucket {
  const result = admitWeight(bucket, weight, nowMs, rule);
  if (!result.admitted) throw new Error(`refused at ${nowMs}`);
  return result.bucket;
}

/** A bucket drained to exactly 0 at T0. */
function drained(): IpBucket {
  return spend(undefined, 1500, T0);
}

describe('Bucket capacity 1,500 weight, refilling continuously at 1,500 per minute (25 per second)', () => {
  it('a new IP starts with 1,500 and 75 standard reads of weight 20 use it up', () => {
    expect(ipBucketLevel(undefined, T0, rule)).toBe(1500);
    let bucket: IpBucket | undefined;
    for (let i = 0; i < 75; i++) bucket = spend(bucket, 20, T0);
    expect(ipBucketLevel(bucket, T0, rule)).toBe(0);
    expect(admitWeight(bucket, 20, T0, rule)).toMatchObject({ admitted: false, retryAfterMs: 800 });
  });

  it('refills continuously: 1 weight per 40 ms, 25 per second, 1,500 per minute', () => {
    const bucket = drained();
    expect(ipBucketLevel(bucket, T0 + 1, rule)).toBe(0.025);
    expect(ipBucketLevel(bucket, T0 + 40, rule)).toBe(1);
    expect(ipBucketLevel(bucket, T0 + 1000, rule)).toBe(25);
    expect(ipBucketLevel(bucket, T0 + 60_000, rule)).toBe(1500);
  });

  it('never refills above the capacity', () => {
    const bucket = spend(undefined, 20, T0);
    expect(ipBucketLevel(bucket, T0 + 3_600_000, rule)).toBe(1500);
  });

  it('refilling in 1 ms steps gives exactly what one long step gives', () => {
    let bucket = drained();
    for (let t = 1; t <= 1234; t++) bucket = spend(bucket, 0, T0 + t);
    expect(bucket).toEqual(spend(drained(), 0, T0 + 1234));
    expect(ipBucketLevel(bucket, T0 + 1234, rule)).toBe(30.85);
  });

  it('a clock reading earlier than the bucket adds nothing, and the retry hint counts from that reading', () => {
    const bucket = spend(undefined, 100, T0);
    expect(ipBucketLevel(bucket, T0 - 5000, rule)).toBe(1400);
    const empty = spend(drained(), 0, T0 + 1000); // 25 at T0 + 1 s
    expect(admitWeight(empty, 125, T0, rule)).toMatchObject({ admitted: false, retryAfterMs: 5000 });
  });
});

describe('Each request deducts its weight before its handler runs; if the bucket cannot cover it, the request is rejected with 429', () => {
  it('a refused request charges nothing and says when the weight will be covered', () => {
    const bucket = spend(drained(), 0, T0 + 400); // 10 weight back
    const refused = admitWeight(bucket, 20, T0 + 400, rule);
    expect(refused).toEqual({ admitted: false, bucket, retryAfterMs: 400 });
    expect(admitWeight(refused.bucket, 20, T0 + 799, rule)).toMatchObject({ admitted: false, retryAfterMs: 1 });
    const admitted = admitWeight(refused.bucket, 20, T0 + 800, rule);
    expect(admitted.admitted).toBe(true);
    expect(ipBucketLevel(admitted.bucket, T0 + 800, rule)).toBe(0);
  });

  it('retryAfterMs rounds up to the next whole millisecond', () => {
    // 0.025 weight short of 125 needs 1 ms; 124.975 short needs 4,999 ms.
    const bucket = spend(drained(), 0, T0 + 4999);
    expect(ipBucketLevel(bucket, T0 + 4999, rule)).toBe(124.975);
    expect(admitWeight(bucket, 125, T0 + 4999, rule)).toMatchObject({ admitted: false, retryAfterMs: 1 });
    expect(admitWeight(drained(), 125, T0, rule)).toMatchObject({ admitted: false, retryAfterMs: 5000 });
  });

  it('admitRequest deducts the operation weight, then refuses with reason ip', () => {
    let bucket: IpBucket | undefined;
    for (let i = 0; i < 12; i++) {
      const result = admitRequest(config, { ip: IP, operation: 'setLeverage', bucket, nowMs: T0 });
      expect(result).toMatchObject({ kind: 'admitted', weight: 125 });
      if (result.kind === 'admitted') bucket = result.bucket;
    }
    expect(ipBucketLevel(bucket, T0, rule)).toBe(0);
    expect(admitRequest(config, { ip: IP, operation: 'setLeverage', bucket, nowMs: T0 })).toMatchObject({
      kind: 'limited',
      reason: 'ip',
      weight: 125,
      retryAfterMs: 5000,
    });
    expect(admitRequest(config, { ip: IP, operation: 'l2OrderBook', params: { nLevels: '100' }, bucket, nowMs: T0 + 279 })).toMatchObject({
      kind: 'limited',
      weight: 7,
      retryAfterMs: 1,
    });
  });
});

describe('List reads add floor(items / N) after the response ... The bucket may go briefly negative', () => {
  it('a post-charge takes the bucket negative; nothing is admitted until it refills, not even weight 0', () => {
    const bucket = spend(drained(), 0, T0 + 400); // 10
    const after = settleResponse(config, { ip: IP, operation: 'candles', rows: 1500, bucket, nowMs: T0 + 400 });
    expect(ipBucketLevel(after, T0 + 400, rule)).toBe(-15);
    expect(admitWeight(after, 2, T0 + 400, rule)).toMatchObject({ admitted: false, retryAfterMs: 680 });
    expect(admitWeight(after, 0, T0 + 400, rule)).toMatchObject({ admitted: false, retryAfterMs: 600 });
    expect(admitWeight(after, 0, T0 + 1000, rule).admitted).toBe(true);
    expect(admitRequest(config, { ip: IP, operation: 'placeOrder', bucket: after, nowMs: T0 + 999 })).toMatchObject({
      kind: 'limited',
      reason: 'ip',
      retryAfterMs: 1,
    });
  });

  it('a batch order write is admitted at weight 0 and charged floor(N / 40) after the call', () => {
    const admitted = admitRequest(config, { ip: IP, operation: 'batchPlaceOrders', bucket: drained(), nowMs: T0 });
    expect(admitted).toMatchObject({ kind: 'admitted', weight: 0 });
    if (admitted.kind !== 'admitted') return;
    const after = settleResponse(config, { ip: IP, operation: 'batchPlaceOrders', elements: 100, bucket: admitted.bucket, nowMs: T0 });
    expect(ipBucketLevel(after, T0, rule)).toBe(-2);
  });

  it('operations without a post-charge rule leave the bucket as it was', () => {
    const bucket = spend(undefined, 20, T0);
    expect(settleResponse(config, { ip: IP, operation: 'markets', rows: 66, bucket, nowMs: T0 + 5 })).toBe(bucket);
  });

  it('postCharge deducts unconditionally at the given time', () => {
    expect(ipBucketLevel(postCharge(undefined, 2000, T0, rule), T0, rule)).toBe(-500);
  });
});

describe('Weight table: 0 / 1 / 2 / 20 / 125', () => {
  const tiers: ReadonlyArray<readonly [number, readonly WeightedOperation[]]> = [
    [0, ['health', 'placeOrder', 'modifyOrder', 'cancelOrder', 'cancelAllOrders']],
    [1, ['root']],
    [2, ['bbo', 'mids', 'account', 'positions', 'order', 'feeTiers', 'leverages', 'accountStats', 'rateLimit']],
    [
      20,
      [
        'prices', 'markets', 'trade', 'trades', 'candles', 'portfolio', 'openOrders', 'orders', 'fills', 'funding',
        'fundingRates', 'accountTransferUpdates', 'apiKeys', 'createApiKey', 'revokeApiKey', 'userPreferences',
        'affiliateCreateCode', 'affiliateModifyCode', 'affiliateInviteCodes', 'affiliateInfo', 'affiliateCode',
        'affiliateReferees', 'affiliateCommissions', 'affiliateMyReferrer', 'affiliateClaims', 'affiliateClaimStatus',
        'affiliateCodeAvailable',
      ],
    ],
    [125, ['setLeverage', 'withdraw']],
  ];
  for (const [weight, operations] of tiers) {
    it(`weight ${weight}: ${operations.join(', ')}`, () => {
      for (const operation of operations) expect([operation, requestWeight(operation)]).toEqual([operation, weight]);
    });
  }

  it('every row is data: a base weight and optional parameter and post-charge rules', () => {
    for (const rule of Object.values(IP_WEIGHTS)) {
      expect(Number.isInteger(rule.weight)).toBe(true);
      expect(rule.weight).toBeGreaterThanOrEqual(0);
    }
  });

  it('WebSocket `cancel` and /v1/fundingPayments resolve to their operations; unknown names to nothing', () => {
    expect(resolveOperation('cancel')).toBe('cancelOrder');
    expect(resolveOperation('fundingPayments')).toBe('funding');
    expect(resolveOperation('candles')).toBe('candles');
    expect(resolveOperation('toString')).toBeUndefined();
    expect(resolveOperation('nope')).toBeUndefined();
  });
});

describe('l2OrderBook weight is 2 + floor(nLevels / 20), up to 7 at 100 levels, based on requested depth', () => {
  it('follows the requested depth, default 20 levels', () => {
    expect(requestWeight('l2OrderBook')).toBe(3);
    expect(requestWeight('l2OrderBook', { nLevels: 1 })).toBe(2);
    expect(requestWeight('l2OrderBook', { nLevels: 19 })).toBe(2);
    expect(requestWeight('l2OrderBook', { nLevels: 20 })).toBe(3);
    expect(requestWeight('l2OrderBook', { nLevels: '40' })).toBe(4);
    expect(requestWeight('l2OrderBook', { nLevels: 100 })).toBe(7);
  });

  it('clamps out-of-range depths to 1-100 and weighs an unparsable one like the default', () => {
    expect(requestWeight('l2OrderBook', { nLevels: 100_000 })).toBe(7);
    expect(requestWeight('l2OrderBook', { nLevels: -5 })).toBe(2);
    expect(requestWeight('l2OrderBook', { nLevels: 'deep' })).toBe(3);
    expect(requestWeight('l2OrderBook', { nLevels: '' })).toBe(3);
  });
});

describe('List reads add floor(items / N): N = 20 for most lists, 60 for candles, 50 for openOrders', () => {
  it('counts the rows returned', () => {
    expect(postChargeWeight('orders', { rows: 19 })).toBe(0);
    expect(postChargeWeight('orders', { rows: 20 })).toBe(1);
    expect(postChargeWeight('fills', { rows: 1000 })).toBe(50);
    expect(postChargeWeight('trades', { rows: 41 })).toBe(2);
    expect(postChargeWeight('funding', { rows: 100 })).toBe(5);
    expect(postChargeWeight('fundingRates', { rows: 100 })).toBe(5);
    expect(postChargeWeight('accountTransferUpdates', { rows: 100 })).toBe(5);
    expect(postChargeWeight('candles', { rows: 59 })).toBe(0);
    expect(postChargeWeight('candles', { rows: 1500 })).toBe(25);
    expect(postChargeWeight('openOrders', { rows: 49 })).toBe(0);
    expect(postChargeWeight('openOrders', { rows: 1000 })).toBe(20);
  });

  it('single-object reads have no post-charge', () => {
    expect(postChargeWeight('order', { rows: 1000 })).toBe(0);
    expect(postChargeWeight('bbo', {})).toBe(0);
  });
});

describe('Batch order writes are free on the base; after the call they are charged floor(N/40) for N elements (0 for up to 39)', () => {
  it('charges floor(N / 40)', () => {
    for (const operation of ['batchPlaceOrders', 'batchModifyOrders', 'batchCancelOrders'] as const) {
      expect(requestWeight(operation)).toBe(0);
      expect(postChargeWeight(operation, { elements: 39 })).toBe(0);
      expect(postChargeWeight(operation, { elements: 40 })).toBe(1);
      expect(postChargeWeight(operation, { elements: 100 })).toBe(2);
    }
  });
});

describe('Higher limits ... are arranged by IP allowlisting; --no-rate-limits disables limits', () => {
  it('an allowlisted IP is never charged or refused', () => {
    const allow = rateLimitConfig({ ipAllowlist: [IP] });
    expect(ipScope(allow, IP)).toBe('bypass');
    const bucket = drained();
    expect(admitRequest(allow, { ip: IP, operation: 'withdraw', bucket, nowMs: T0 })).toEqual({ kind: 'unlimited' });
    expect(settleResponse(allow, { ip: IP, operation: 'candles', rows: 1500, bucket, nowMs: T0 })).toBe(bucket);
    expect(admitRequest(allow, { ip: '198.51.100.1', operation: 'withdraw', bucket, nowMs: T0 })).toMatchObject({ kind: 'limited' });
  });

  it('matches an IPv4 allowlist entry seen as an IPv4-mapped IPv6 address', () => {
    const allow = rateLimitConfig({ ipAllowlist: ['10.0.0.7', '2001:DB8::1'] });
    expect(ipScope(allow, '::ffff:10.0.0.7')).toBe('bypass');
    expect(ipScope(allow, '2001:db8::1')).toBe('bypass');
    expect(ipScope(allow, '10.0.0.8')).toBe('enforce');
  });

  it('with limits disabled nothing is checked', () => {
    const off = rateLimitConfig({ enabled: false });
    expect(ipScope(off, IP)).toBe('off');
    expect(admitRequest(off, { ip: IP, operation: 'withdraw', bucket: drained(), nowMs: T0 })).toEqual({ kind: 'unlimited' });
  });

  it('the bucket size and rate are configurable', () => {
    const small = rateLimitConfig({ ipBucket: { capacity: 30, refill: 5 } });
    const first = admitRequest(small, { ip: IP, operation: 'prices', bucket: undefined, nowMs: T0 });
    expect(first).toMatchObject({ kind: 'admitted' });
    if (first.kind !== 'admitted') return;
    expect(admitRequest(small, { ip: IP, operation: 'prices', bucket: first.bucket, nowMs: T0 })).toMatchObject({
      kind: 'limited',
      retryAfterMs: 2000,
    });
  });

  it('a weight above the whole capacity is covered by a full bucket and takes it negative', () => {
    const tiny = rateLimitConfig({ ipBucket: { capacity: 10 } });
    const result = admitRequest(tiny, { ip: IP, operation: 'prices', bucket: undefined, nowMs: T0 });
    expect(result).toMatchObject({ kind: 'admitted', weight: 20 });
    if (result.kind === 'admitted') expect(ipBucketLevel(result.bucket, T0, tiny.ipBucket)).toBe(-10);
  });
});
