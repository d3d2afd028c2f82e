/**
 * The per-IP weight bucket.
 *
 * Contract (interface.md "Limits", "Per-IP weight bucket"): capacity 1,500 weight, refilling
 * continuously at 25 per second. A request deducts its weight (weights.ts) before its handler
 * runs and is rejected (429, reason `ip`) if the bucket cannot cover it; post-charges after the
 * response are deducted unconditionally and may take the bucket negative.
 *
 * "Cannot cover": a request is admitted when the bucket holds at least its weight, so a
 * weight-0 request (health, single order writes, cancelAllOrders, batch bases) is admitted
 * while the bucket is not negative and rejected while post-charges keep it below zero. That is
 * what keeps the bucket only "briefly" negative: if free requests always passed, a stream of
 * free batch writes could post-charge it without bound. A rejected request charges nothing.
 *
 * retryAfterMs is the time until the bucket covers the weight at the refill rate.
 *
 * Exactness: the level is kept in thousandths of a weight unit (token-bucket.ts), so with
 * integer millisecond clock readings the refill is exact.
 */
import { bucketIsFull, bucketTokens, deductFromBucket, fullBucket, msUntilCovered, takeFromBucket, type TokenBucket, type TokenBucketRule } from './token-bucket.ts';

const MS_PER_SECOND = 1000;

export type IpBucket = TokenBucket;

export type IpAdmission =
  | { readonly admitted: true; readonly bucket: IpBucket }
  | { readonly admitted: false; readonly bucket: IpBucket; readonly retryAfterMs: number };

/** The bucket rule for `capacity` weight refilling at `refillPerSecond`. */
export function ipBucketRule(capacity: number, refillPerSecond: number): TokenBucketRule {
  return { capacity, refill: refillPerSecond, perMs: MS_PER_SECOND };
}

/** A full bucket for an IP first seen at `nowMs`. */
export function newIpBucket(nowMs: number, rule: TokenBucketRule): IpBucket {
  return fullBucket(nowMs, rule);
}

/** Weight available at `nowMs` (fractional while refilling; negative after post-charges). */
export function ipBucketLevel(bucket: IpBucket | undefined, nowMs: number, rule: TokenBucketRule): number {
  return bucketTokens(bucket, nowMs, rule);
}

/** Deducts `weight` before the handler runs, or refuses with the time until it would be covered. */
export function admitWeight(bucket: IpBucket | undefined, weight: number, nowMs: number, rule: TokenBucketRule): IpAdmission {
  const result = takeFromBucket(bucket, weight, nowMs, rule);
  return result.ok
    ? { admitted: true, bucket: result.bucket }
    : { admitted: false, bucket: result.bucket, retryAfterMs: result.retryAfterMs };
}

/** Deducts a post-charge after the response; the bucket may go negative. */
export function postCharge(bucket: IpBucket | undefined, weight: number, nowMs: number, rule: TokenBucketRule): IpBucket {
  return deductFromBucket(bucket, weight, nowMs, rule);
}

/** Milliseconds from `nowMs` until the bucket covers `weight` (0 when it does). */
export function ipRetryAfterMs(bucket: IpBucket | undefined, weight: number, nowMs: number, rule: TokenBucketRule): number {
  return msUntilCovered(bucket, weight, nowMs, rule);
}

/** Drops the buckets that are full at `nowMs` (a full bucket and a missing one mean the same). */
export function pruneFullBuckets(buckets: Map<string, IpBucket>, nowMs: number, rule: TokenBucketRule): void {
  for (const [ip, bucket] of buckets) if (bucketIsFull(bucket, nowMs, rule)) buckets.delete(ip);
}
