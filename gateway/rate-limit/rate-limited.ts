/**
 * The 429 reply: body and `Retry-After` header.
 *
 * Contract (interface.md "Rate-limit error body", supplement §10):
 * `{error: "rate limited", reason, retryAfterMs, clientId}`, reason one of `ip`,
 * `account_empty`, `account_partial` (or `unknown`). Batch rejections carry `clientIds` aligned
 * by position with the submitted array, "" for an element without one; a batch 429 rejects every
 * element. `Retry-After` is whole seconds, ceil(retryAfterMs / 1000), at least 1. No
 * X-RateLimit-* headers are sent.
 *
 * Which requests carry a client id: a single order write (placeOrder, modifyOrder,
 * cancelOrder) always carries `clientId`, "" when the request named none, so the field is
 * present on every order-write 429 as in the interface's shape; a batch carries `clientIds`
 * instead; other requests (reads, cancel-all, scheduleCancel, account writes) carry neither.
 * `retryAfterMs` is on every 429 body: it is what the header is computed from.
 */
import type { RATE_LIMIT_REASONS } from '../../engine/spec.ts';

export type RateLimitReason = (typeof RATE_LIMIT_REASONS)[number];

export const RATE_LIMITED_ERROR = 'rate limited';
export const RATE_LIMITED_STATUS = 429;

export interface RateLimitedBody {
  readonly error: typeof RATE_LIMITED_ERROR;
  readonly reason: RateLimitReason;
  readonly retryAfterMs: number;
  readonly clientId?: string;
  readonly clientIds?: readonly string[];
}

/** What was rejected, for the client-id fields. */
export type RateLimitedSubject =
  | { readonly kind: 'order'; readonly clientId?: string | null | undefined }
  | { readonly kind: 'batch'; readonly clientIds: ReadonlyArray<string | null | undefined> }
  | { readonly kind: 'other' };

/**
 * The 429 body.
 *
 * @example rateLimitedBody('account_empty', 850, { kind: 'order', clientId: 'my-order-42' })
 * // {error: 'rate limited', reason: 'account_empty', retryAfterMs: 850, clientId: 'my-order-42'}
 */
export function rateLimitedBody(reason: RateLimitReason, retryAfterMs: number, subject: RateLimitedSubject = { kind: 'other' }): RateLimitedBody {
  const body = { error: RATE_LIMITED_ERROR, reason, retryAfterMs: wholeMs(retryAfterMs) } as const;
  switch (subject.kind) {
    case 'order':
      return { ...body, clientId: subject.clientId ?? '' };
    case 'batch':
      return { ...body, clientIds: subject.clientIds.map((id) => id ?? '') };
    case 'other':
      return body;
    default: {
      const never: never = subject;
      return never;
    }
  }
}

/** `Retry-After` value: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(wholeMs(retryAfterMs) / 1000));
}

export interface RateLimitedReply {
  readonly statusCode: typeof RATE_LIMITED_STATUS;
  /** Only `Retry-After`: no X-RateLimit-* headers. */
  readonly headers: { readonly 'Retry-After': string };
  readonly body: RateLimitedBody;
}

/** Status, headers and body of a 429. */
export function rateLimitedReply(reason: RateLimitReason, retryAfterMs: number, subject?: RateLimitedSubject): RateLimitedReply {
  return {
    statusCode: RATE_LIMITED_STATUS,
    headers: { 'Retry-After': String(retryAfterSeconds(retryAfterMs)) },
    body: rateLimitedBody(reason, retryAfterMs, subject),
  };
}

/** A non-negative whole number of milliseconds (hints are already whole; this guards the wire). */
function wholeMs(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms) : 0;
}
