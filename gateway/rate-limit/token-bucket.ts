/**
 * A token bucket with continuous refill, in exact integer arithmetic.
 *
 * Contract: a bucket holds at most `capacity` tokens and gains `refill` tokens every `perMs`
 * milliseconds, continuously (a share of a token accrues every millisecond). A bucket that has
 * never been seen is full.
 *
 * Layout: the level is kept scaled by `perMs` (`scaled` = tokens × perMs). With integer rules and
 * integer clock readings every operation is exact: one millisecond adds exactly `refill` scaled
 * units and one token is `perMs` units, so refilling over one long interval or many short ones
 * gives the same level (no floating-point drift). 25 per second is `{ refill: 25, perMs: 1000 }`,
 * 50 per minute `{ refill: 50, perMs: 60_000 }`.
 *
 * Charging: `takeFromBucket` charges only when the bucket covers the cost; `deductFromBucket`
 * charges unconditionally, so the level may go negative (post-charges). A cost above the capacity is
 * covered by a full bucket (it could never be covered otherwise) and takes it negative.
 *
 * Time: callers pass the clock in milliseconds; nothing here reads a clock. A reading earlier
 * than the bucket's own time adds nothing and leaves the bucket's time where it is.
 *
 * Data: buckets are plain readonly objects; every function returns a new one.
 */

/** `refill` tokens every `perMs` milliseconds, up to `capacity`. */
export interface TokenBucketRule {
  readonly capacity: number;
  readonly refill: number;
  readonly perMs: number;
}

export interface TokenBucket {
  /** Level × `perMs` of the rule; may be negative. */
  readonly scaled: number;
  /** Clock reading (ms) the level was last brought up to date at. */
  readonly atMs: number;
}

export type TakeResult =
  | { readonly ok: true; readonly bucket: TokenBucket }
  | { readonly ok: false; readonly bucket: TokenBucket; readonly retryAfterMs: number };

/** A full bucket at `nowMs`. */
export function fullBucket(nowMs: number, rule: TokenBucketRule): TokenBucket {
  return { scaled: rule.capacity * rule.perMs, atMs: nowMs };
}

/** The bucket brought up to `nowMs`: refilled, never above capacity (a missing bucket is full). */
export function refillBucket(bucket: TokenBucket | undefined, nowMs: number, rule: TokenBucketRule): TokenBucket {
  if (bucket === undefined) return fullBucket(nowMs, rule);
  if (nowMs <= bucket.atMs) return bucket;
  const max = rule.capacity * rule.perMs;
  const grown = Math.min(max, bucket.scaled + (nowMs - bucket.atMs) * rule.refill);
  return { scaled: Math.max(bucket.scaled, grown), atMs: nowMs };
}

/** Tokens in the bucket at `nowMs` (fractional while a token is accruing; may be negative). */
export function bucketTokens(bucket: TokenBucket | undefined, nowMs: number, rule: TokenBucketRule): number {
  return refillBucket(bucket, nowMs, rule).scaled / rule.perMs;
}

/** Milliseconds from `nowMs` until the bucket covers `cost` (0 when it already does). */
export function msUntilCovered(bucket: TokenBucket | undefined, cost: number, nowMs: number, rule: TokenBucketRule): number {
  const current = refillBucket(bucket, nowMs, rule);
  const deficit = Math.min(cost, rule.capacity) * rule.perMs - current.scaled;
  // Refill resumes from the bucket's own time if the clock reads earlier than it.
  return deficit <= 0 ? 0 : Math.max(0, current.atMs - nowMs) + Math.ceil(deficit / rule.refill);
}

/** Charges `cost` if the bucket covers it at `nowMs`; otherwise charges nothing and says how long to wait. */
export function takeFromBucket(bucket: TokenBucket | undefined, cost: number, nowMs: number, rule: TokenBucketRule): TakeResult {
  const current = refillBucket(bucket, nowMs, rule);
  if (current.scaled >= Math.min(cost, rule.capacity) * rule.perMs) {
    return { ok: true, bucket: { scaled: current.scaled - cost * rule.perMs, atMs: current.atMs } };
  }
  return { ok: false, bucket: current, retryAfterMs: msUntilCovered(current, cost, nowMs, rule) };
}

/** Charges `cost` unconditionally; the level may go negative. */
export function deductFromBucket(bucket: TokenBucket | undefined, cost: number, nowMs: number, rule: TokenBucketRule): TokenBucket {
  const current = refillBucket(bucket, nowMs, rule);
  return { scaled: current.scaled - cost * rule.perMs, atMs: current.atMs };
}

/** Whether the bucket is full at `nowMs`: the same as a missing bucket, so its holder may forget it. */
export function bucketIsFull(bucket: TokenBucket | undefined, nowMs: number, rule: TokenBucketRule): boolean {
  return refillBucket(bucket, nowMs, rule).scaled >= rule.capacity * rule.perMs;
}

/**
 * Per-key state (buckets by IP) is swept of entries equal to the default at most once per this
 * many clock milliseconds, from the path that updates it: the maps hold the IPs of about the
 * last minute, not every IP ever seen, at a cost of one pass per sweep.
 */
export const PRUNE_EVERY_MS = 10_000;
