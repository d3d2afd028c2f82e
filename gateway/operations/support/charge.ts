/**
 * Charging a subaccount's order or cancel pool for a write (interface.md "Per-subaccount pools"):
 * the pool's snapshot goes on the reply as `rateLimit`, a refusal is the 429 body with the
 * request's client id(s).
 */
import { findAccount, lifetimeVolume } from '../../../engine/index.ts';
import type { Refusal } from '../../contract/errors.ts';
import type { GatewayState, OperationRequest } from '../../contract/operation.ts';
import { accountKey, admitAccount, rateLimitedReply, type OrderWriteRateLimit, type PooledOperation, type RateLimitedSubject } from '../../rate-limit/index.ts';

export function chargeOrderWrite(
  state: GatewayState,
  request: OperationRequest,
  operation: PooledOperation,
  address: string,
  accountIndex: number,
  elements: number,
  subject: RateLimitedSubject,
): { rateLimit: OrderWriteRateLimit | undefined } | Refusal {
  // perpsim --no-rate-limits: admitAccount would answer 'unlimited' without reading the pools or
  // the account's lifetime volume; the order path skips looking them up.
  if (!state.config.rateLimit.enabled) return { rateLimit: undefined };
  const key = accountKey(address, accountIndex);
  const account = findAccount(state.exchange.engine.accounts, address, accountIndex);
  const admission = admitAccount(state.config.rateLimit, {
    ip: request.ip,
    operation,
    elements,
    pools: state.pools.get(key),
    lifetimeNotional: account === undefined ? 0n : lifetimeVolume(account),
    nowMs: state.nowMs(),
  });
  switch (admission.kind) {
    case 'unlimited':
      return { rateLimit: undefined };
    case 'limited': {
      if (admission.pools !== undefined) state.pools.set(key, admission.pools);
      const limited = rateLimitedReply(admission.reason, admission.retryAfterMs, subject);
      return { status: limited.statusCode, headers: limited.headers, body: limited.body };
    }
    case 'unenforced':
      if (admission.pools !== undefined) state.pools.set(key, admission.pools);
      return { rateLimit: admission.rateLimit };
    case 'charged':
      state.pools.set(key, admission.pools);
      return { rateLimit: admission.rateLimit };
  }
}
