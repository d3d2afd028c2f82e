/**
 * Per-subaccount action pools: `order` and `cancel`.
 *
 * Contract (interface.md "Limits", "Per-subaccount pools"): pools are keyed by (address,
 * accountIndex), with no per-market component, and are shared by REST and WebSocket.
 *
 * | pool   | starting cap | charged by                                                              |
 * |--------|--------------|-------------------------------------------------------------------------|
 * | order  | 20,000       | placeOrder, modifyOrder: 1; a batch of N: N                             |
 * | cancel | 40,000       | cancelOrder: 1; a batch of N: N; each scheduleCancel arm or refresh: 1; |
 * |        |              | cancelAllOrders: 1,000 (supplement §12; configurable)                   |
 *
 * Effective cap = starting cap + floor(lifetime notional / 0.10 USD). The lifetime notional
 * (realized fill notional, bigint quote quantums, 1e9 = 1 USD) is supplied by the caller and
 * never decreases.
 *
 * `used` is a lifetime count of charged units and never decays; remaining = cap − used (why a
 * lifetime budget: docs/decisions.md "Rate limits").
 *
 * The drip: once a charge does not fit in what is left (cap − used, never below 0), one more
 * unit per pool may come from the drip, which holds at most one unit and refills 10 s after it
 * was last used (it is full on a pool that never used it). A unit taken from the drip still
 * counts in `used`, so `remaining` goes to 0 and below while the account lives on the drip (the
 * interface: "remaining can be 0 or negative while the request still succeeds"). The drip
 * never banks more than one unit, so a batch larger than what is left plus one, or a
 * cancel-all (1,000 units) once the cancel pool is used up, is refused until trading raises the
 * cap.
 *
 * Refusals: `account_empty` when nothing is left (no pool units and the drip not ready);
 * `account_partial` when something is left but the charge asks for more (a batch, or a
 * cancel-all). retryAfterMs is the time until the request as sent can be served when waiting
 * can serve it (the drip slot coming back), otherwise the time until the pool can serve
 * anything at all (0 when a smaller batch would pass now).
 *
 * Refunds: a charge returns a receipt; refunding it (an accepted order failed to publish
 * downstream; engine rejections are not refunded) gives the units back, and gives the drip
 * slot back if the charge used it and nothing used it since. Each receipt is refunded at most
 * once; that is the caller's book-keeping.
 *
 * Time: `nowMs` is passed in; nothing here reads a clock. Pools are plain readonly data and
 * every function returns new values.
 */
import type { RateLimitPool } from '../../engine/spec.ts';

export interface PoolsConfig {
  readonly startingCap: Readonly<Record<RateLimitPool, number>>;
  /** Lifetime notional, in quote quantums, that adds one unit to each cap (0.10 USD = 1e8). */
  readonly notionalPerUnit: bigint;
  /** Past the cap, one unit per this many milliseconds per pool. */
  readonly dripIntervalMs: number;
  /** Units cancelAllOrders takes from the cancel pool. */
  readonly cancelAllCost: number;
}

export interface PoolState {
  /** Units charged over the account's lifetime, less refunds. */
  readonly used: number;
  /** Clock reading (ms) from which the drip slot is available again. */
  readonly dripReadyAtMs: number;
}

export type AccountPools = Readonly<Record<RateLimitPool, PoolState>>;

/** Pools of a subaccount that has never been charged. */
export const FRESH_POOLS: AccountPools = {
  order: { used: 0, dripReadyAtMs: 0 },
  cancel: { used: 0, dripReadyAtMs: 0 },
};

/** Key of a subaccount's pools: lowercase address (prefix dropped) and index. */
export function accountKey(address: string, accountIndex: number): string {
  return address.toLowerCase().replace(/^0x/, '') + '/' + accountIndex;
}

// ---------------------------------------------------------------------------------------------
// What each operation charges.

export interface PoolChargeRule {
  readonly pool: RateLimitPool;
  /** `one`: 1 per request; `perElement`: N for a batch of N; `cancelAll`: the configured cost. */
  readonly units: 'one' | 'perElement' | 'cancelAll';
}

export const POOL_CHARGES = {
  placeOrder: { pool: 'order', units: 'one' },
  modifyOrder: { pool: 'order', units: 'one' },
  batchPlaceOrders: { pool: 'order', units: 'perElement' },
  batchModifyOrders: { pool: 'order', units: 'perElement' },
  cancelOrder: { pool: 'cancel', units: 'one' },
  batchCancelOrders: { pool: 'cancel', units: 'perElement' },
  /** Arm or refresh only; a disarm is not charged (do not call for it). */
  scheduleCancel: { pool: 'cancel', units: 'one' },
  cancelAllOrders: { pool: 'cancel', units: 'cancelAll' },
} as const satisfies Readonly<Record<string, PoolChargeRule>>;

export type PooledOperation = keyof typeof POOL_CHARGES;

export interface Charge {
  readonly pool: RateLimitPool;
  readonly units: number;
}

/**
 * The pool and units an operation charges; `elements` is the batch's submitted element count.
 *
 * @example chargeOf('batchCancelOrders', 7, config) // { pool: 'cancel', units: 7 }
 */
export function chargeOf(operation: PooledOperation, elements: number, config: PoolsConfig): Charge {
  const rule: PoolChargeRule = POOL_CHARGES[operation];
  const units = rule.units === 'one' ? 1 : rule.units === 'perElement' ? Math.max(0, elements) : config.cancelAllCost;
  return { pool: rule.pool, units };
}

// ---------------------------------------------------------------------------------------------
// Caps and what is left.

/** Starting cap + floor(lifetime notional / 0.10 USD); a negative notional counts as none. */
export function effectiveCap(pool: RateLimitPool, lifetimeNotional: bigint, config: PoolsConfig): number {
  const earned = lifetimeNotional > 0n ? lifetimeNotional / config.notionalPerUnit : 0n;
  return config.startingCap[pool] + Number(earned);
}

/** cap − used; 0 or negative once the account is on the drip. */
export function poolRemaining(pools: AccountPools, pool: RateLimitPool, lifetimeNotional: bigint, config: PoolsConfig): number {
  return effectiveCap(pool, lifetimeNotional, config) - pools[pool].used;
}

function dripReady(state: PoolState, nowMs: number): boolean {
  return nowMs >= state.dripReadyAtMs;
}

// ---------------------------------------------------------------------------------------------
// Charging and refunds.

export interface ChargeReceipt {
  readonly pool: RateLimitPool;
  readonly units: number;
  /** Present when the charge used the drip slot: its ready time before and after. */
  readonly drip?: { readonly before: number; readonly after: number };
}

export type AccountRejectReason = 'account_empty' | 'account_partial';

export type PoolDecision =
  | { readonly accepted: true; readonly pools: AccountPools; readonly receipt: ChargeReceipt; readonly remaining: number }
  | { readonly accepted: false; readonly pools: AccountPools; readonly reason: AccountRejectReason; readonly retryAfterMs: number };

/**
 * Charges `charge` to the pools if what is left plus the drip covers it.
 *
 * @example chargePools(FRESH_POOLS, { pool: 'order', units: 1 }, 0n, nowMs, config) // accepted, remaining 19,999
 */
export function chargePools(
  pools: AccountPools | undefined,
  charge: Charge,
  lifetimeNotional: bigint,
  nowMs: number,
  config: PoolsConfig,
): PoolDecision {
  const current = pools ?? FRESH_POOLS;
  const state = current[charge.pool];
  const cap = effectiveCap(charge.pool, lifetimeNotional, config);
  const left = Math.max(0, cap - state.used);
  const used = state.used + charge.units;
  if (charge.units <= left) {
    const next = { ...current, [charge.pool]: { used, dripReadyAtMs: state.dripReadyAtMs } };
    return { accepted: true, pools: next, receipt: { pool: charge.pool, units: charge.units }, remaining: cap - used };
  }
  const ready = dripReady(state, nowMs);
  if (ready && charge.units <= left + 1) {
    const after = nowMs + config.dripIntervalMs;
    const next = { ...current, [charge.pool]: { used, dripReadyAtMs: after } };
    const receipt = { pool: charge.pool, units: charge.units, drip: { before: state.dripReadyAtMs, after } };
    return { accepted: true, pools: next, receipt, remaining: cap - used };
  }
  const dripWaitMs = ready ? 0 : state.dripReadyAtMs - nowMs;
  const servedByWaiting = charge.units <= left + 1;
  return {
    accepted: false,
    pools: current,
    reason: left === 0 && !ready ? 'account_empty' : 'account_partial',
    retryAfterMs: servedByWaiting || left === 0 ? dripWaitMs : 0,
  };
}

/**
 * Records a charge without checking it (shadow mode: measured, never refused). The drip slot
 * is not touched.
 */
export function recordCharge(pools: AccountPools | undefined, charge: Charge): { readonly pools: AccountPools; readonly receipt: ChargeReceipt } {
  const current = pools ?? FRESH_POOLS;
  const state = current[charge.pool];
  return {
    pools: { ...current, [charge.pool]: { used: state.used + charge.units, dripReadyAtMs: state.dripReadyAtMs } },
    receipt: { pool: charge.pool, units: charge.units },
  };
}

/**
 * Gives back `units` (default: all) of a charge whose order failed to publish downstream.
 * The drip slot comes back too when the charge used it and nothing has used it since.
 */
export function refundCharge(pools: AccountPools, receipt: ChargeReceipt, units: number = receipt.units): AccountPools {
  const n = Math.min(receipt.units, Math.max(0, units));
  if (n === 0) return pools;
  const state = pools[receipt.pool];
  const drip = receipt.drip;
  const dripReadyAtMs = drip !== undefined && state.dripReadyAtMs === drip.after ? drip.before : state.dripReadyAtMs;
  return { ...pools, [receipt.pool]: { used: Math.max(0, state.used - n), dripReadyAtMs } };
}

// ---------------------------------------------------------------------------------------------
// Snapshots.

/** `rateLimit` of an order-write reply (interface.md "Order acknowledgement"). */
export interface OrderWriteRateLimit {
  readonly pool: RateLimitPool;
  /** cap − used after charging; 0 or negative on the drip; -1 when the account layer was not enforced. */
  readonly remaining: number;
}

/** `remaining` when the account layer was not enforced (allowlist bypass, shadow, fail-open, IP-only). */
export const UNENFORCED_REMAINING = -1;

export function unenforcedRateLimit(pool: RateLimitPool): OrderWriteRateLimit {
  return { pool, remaining: UNENFORCED_REMAINING };
}

export function orderWriteRateLimit(pools: AccountPools | undefined, pool: RateLimitPool, lifetimeNotional: bigint, config: PoolsConfig): OrderWriteRateLimit {
  return { pool, remaining: poolRemaining(pools ?? FRESH_POOLS, pool, lifetimeNotional, config) };
}

/** One pool of GET /v1/rateLimit. */
export interface PoolSnapshot {
  readonly used: number;
  readonly cap: number;
  /**
   * Clock reading (ms) from which the pool accepts its next unit; 0 when it accepts one now
   * (units left under the cap, or the drip ready).
   */
  readonly nextAvailableMs: number;
}

/** GET /v1/rateLimit body (interface.md "Rate-limit snapshot", supplement §6). */
export interface RateLimitSnapshot {
  readonly address: string;
  /** The index actually served. */
  readonly accountIndex: number;
  readonly order: PoolSnapshot;
  readonly cancel: PoolSnapshot;
}

export function poolSnapshot(
  pools: AccountPools | undefined,
  pool: RateLimitPool,
  lifetimeNotional: bigint,
  nowMs: number,
  config: PoolsConfig,
): PoolSnapshot {
  const state = (pools ?? FRESH_POOLS)[pool];
  const cap = effectiveCap(pool, lifetimeNotional, config);
  const acceptsNow = cap - state.used > 0 || dripReady(state, nowMs);
  return { used: state.used, cap, nextAvailableMs: acceptsNow ? 0 : state.dripReadyAtMs };
}

export interface RateLimitSnapshotInput {
  readonly address: string;
  readonly accountIndex: number;
  readonly pools: AccountPools | undefined;
  readonly lifetimeNotional: bigint;
  readonly nowMs: number;
}

export function rateLimitSnapshot(input: RateLimitSnapshotInput, config: PoolsConfig): RateLimitSnapshot {
  const { address, accountIndex, pools, lifetimeNotional, nowMs } = input;
  return {
    address,
    accountIndex,
    order: poolSnapshot(pools, 'order', lifetimeNotional, nowMs, config),
    cancel: poolSnapshot(pools, 'cancel', lifetimeNotional, nowMs, config),
  };
}
