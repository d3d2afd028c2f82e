/**
 * The gateway's rate-limit decisions: the per-IP bucket and the per-subaccount pools, with the
 * master switch, the IP allowlist and the account-layer mode applied.
 *
 * Order of a request (interface.md "Limits"):
 *   1. `admitRequest` before the handler: deducts the operation's weight from the client IP's
 *      bucket, or refuses with reason `ip`.
 *   2. For order writes, cancel-all and scheduleCancel arm/refresh, `admitAccount`: charges the
 *      subaccount's pool, or refuses with `account_empty` / `account_partial`; its `rateLimit`
 *      goes on the reply (absent when limits are off).
 *   3. `settleResponse` after the reply: the post-charge (rows returned, batch elements),
 *      which may take the bucket negative.
 *   4. If an accepted order then fails to publish downstream, `refundCharge` with the receipt.
 *
 * Modes: limits disabled → every function is a no-op and replies carry no `rateLimit`; an
 * allowlisted IP → nothing is checked or charged and `remaining` is -1; account layer `off`
 * (IP-only) → pools untouched, `remaining` -1; `shadow` → pools charged but never refusing,
 * `remaining` -1 (the interface's list of -1 cases).
 *
 * The caller keeps the state (buckets by normalized IP, pools by `accountKey`) and the clock;
 * these functions take the current values and return the next ones.
 */
import type { RateLimitPool } from '../../engine/spec.ts';
import {
  chargeOf,
  chargePools,
  recordCharge,
  unenforcedRateLimit,
  type AccountPools,
  type AccountRejectReason,
  type ChargeReceipt,
  type OrderWriteRateLimit,
  type PooledOperation,
} from './account-pools.ts';
import { ipScope, type RateLimitConfig } from './config.ts';
import { admitWeight, postCharge, type IpBucket } from './ip-bucket.ts';
import { postChargeWeight, requestWeight, type PostChargeCounts, type WeightedOperation, type WeightParams } from './weights.ts';

// ---------------------------------------------------------------------------------------------
// Per-IP bucket.

export interface RequestInput {
  readonly ip: string;
  readonly operation: WeightedOperation;
  readonly params?: WeightParams;
  /** The IP's bucket (undefined when first seen: full). */
  readonly bucket: IpBucket | undefined;
  readonly nowMs: number;
}

export type RequestAdmission =
  /** Limits disabled or IP allowlisted: nothing charged. */
  | { readonly kind: 'unlimited' }
  | { readonly kind: 'admitted'; readonly bucket: IpBucket; readonly weight: number }
  | { readonly kind: 'limited'; readonly reason: 'ip'; readonly bucket: IpBucket; readonly weight: number; readonly retryAfterMs: number };

/** Before the handler: deduct the weight or refuse (429, reason `ip`). */
export function admitRequest(config: RateLimitConfig, input: RequestInput): RequestAdmission {
  if (ipScope(config, input.ip) !== 'enforce') return { kind: 'unlimited' };
  const weight = requestWeight(input.operation, input.params);
  const result = admitWeight(input.bucket, weight, input.nowMs, config.ipBucket);
  return result.admitted
    ? { kind: 'admitted', bucket: result.bucket, weight }
    : { kind: 'limited', reason: 'ip', bucket: result.bucket, weight, retryAfterMs: result.retryAfterMs };
}

export interface ResponseInput extends PostChargeCounts {
  readonly ip: string;
  readonly operation: WeightedOperation;
  readonly bucket: IpBucket | undefined;
  readonly nowMs: number;
}

/** After the response: the post-charge (may take the bucket negative). Returns the bucket to keep. */
export function settleResponse(config: RateLimitConfig, input: ResponseInput): IpBucket | undefined {
  if (ipScope(config, input.ip) !== 'enforce') return input.bucket;
  const weight = postChargeWeight(input.operation, input);
  return weight === 0 ? input.bucket : postCharge(input.bucket, weight, input.nowMs, config.ipBucket);
}

// ---------------------------------------------------------------------------------------------
// Per-subaccount pools.

export interface AccountInput {
  readonly ip: string;
  readonly operation: PooledOperation;
  /** Elements submitted, for batches. */
  readonly elements?: number;
  /** The subaccount's pools (undefined when never charged). */
  readonly pools: AccountPools | undefined;
  /** Lifetime realized fill notional, quote quantums (1e9 = 1 USD). */
  readonly lifetimeNotional: bigint;
  readonly nowMs: number;
}

export type AccountAdmission =
  /** Limits disabled: reply without `rateLimit`. */
  | { readonly kind: 'unlimited' }
  /** Allowlisted IP, IP-only or shadow: accepted, `remaining` -1; shadow still records a charge (refundable). */
  | {
      readonly kind: 'unenforced';
      readonly pools: AccountPools | undefined;
      readonly receipt: ChargeReceipt | undefined;
      readonly rateLimit: OrderWriteRateLimit;
    }
  | { readonly kind: 'charged'; readonly pools: AccountPools; readonly receipt: ChargeReceipt; readonly rateLimit: OrderWriteRateLimit }
  | {
      readonly kind: 'limited';
      readonly pool: RateLimitPool;
      readonly reason: AccountRejectReason;
      readonly pools: AccountPools | undefined;
      readonly retryAfterMs: number;
    };

/** Charge the subaccount's pool for an order write, or refuse (429, `account_empty` / `account_partial`). */
export function admitAccount(config: RateLimitConfig, input: AccountInput): AccountAdmission {
  const scope = ipScope(config, input.ip);
  if (scope === 'off') return { kind: 'unlimited' };
  const charge = chargeOf(input.operation, input.elements ?? 0, config.pools);
  if (scope === 'bypass' || config.accountLayer === 'off') {
    return { kind: 'unenforced', pools: input.pools, receipt: undefined, rateLimit: unenforcedRateLimit(charge.pool) };
  }
  if (config.accountLayer === 'shadow') {
    const recorded = recordCharge(input.pools, charge);
    return { kind: 'unenforced', pools: recorded.pools, receipt: recorded.receipt, rateLimit: unenforcedRateLimit(charge.pool) };
  }
  const decision = chargePools(input.pools, charge, input.lifetimeNotional, input.nowMs, config.pools);
  if (!decision.accepted) {
    return { kind: 'limited', pool: charge.pool, reason: decision.reason, pools: input.pools, retryAfterMs: decision.retryAfterMs };
  }
  return {
    kind: 'charged',
    pools: decision.pools,
    receipt: decision.receipt,
    rateLimit: { pool: charge.pool, remaining: decision.remaining },
  };
}
