/**
 * The gateway's rate limits (interface.md "Limits"; supplement §10, §12): pure, deterministic
 * functions on plain data with the clock passed in as milliseconds.
 *
 * - weights.ts: the per-IP weight table, as data.
 * - ip-bucket.ts: the per-IP weight bucket (1,500, 25 per second, post-charges may go negative).
 * - account-pools.ts: per-subaccount order and cancel pools, drip, refunds, snapshots.
 * - ws-limits.ts: WebSocket connection, message, subscription and in-flight limits.
 * - rate-limited.ts: the 429 body and `Retry-After`.
 * - config.ts: defaults from engine/spec.ts, allowlist, account-layer mode, master switch.
 * - gate.ts: the layers combined with the modes, in request order.
 * - token-bucket.ts: the exact continuous-refill bucket underneath.
 */
export * from './account-pools.ts';
export * from './config.ts';
export * from './gate.ts';
export * from './ip-bucket.ts';
export * from './rate-limited.ts';
export * from './token-bucket.ts';
export * from './weights.ts';
export * from './ws-limits.ts';
