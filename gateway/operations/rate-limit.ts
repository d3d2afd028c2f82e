/**
 * GET /v1/rateLimit — the subaccount's order and cancel pools (interface.md "Rate-limit
 * snapshot", supplement §6): `{address, accountIndex, order: {used, cap, nextAvailableMs},
 * cancel: {…}}`.
 *
 * `accountIndex` is the index actually served: the camelCase parameter only, so a misspelled
 * one (`account_index`, `accountindex`) is ignored and serves 0; above 9 → 400. The cap grows
 * with the account's lifetime notional; `nextAvailableMs` is 0 while the pool (or its drip)
 * accepts a unit now (rate-limit/account-pools.ts). A subaccount never charged reads its
 * starting caps.
 */
import { findAccount, lifetimeVolume } from '../../engine/index.ts';
import { ok } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { accountKey, rateLimitSnapshot } from '../rate-limit/index.ts';
import { AccountQuery, accountOf } from './common.ts';

export const rateLimit: Operation = {
  name: 'rateLimit',
  method: 'GET',
  path: '/v1/rateLimit',
  auth: 'public',
  description: 'order and cancel pool usage',
  schema: { querystring: AccountQuery },
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const acct = findAccount(state.exchange.engine.accounts, ref.address, ref.accountIndex);
    return ok(
      rateLimitSnapshot(
        {
          address: ref.address,
          accountIndex: ref.accountIndex,
          pools: state.pools.get(accountKey(ref.address, ref.accountIndex)),
          lifetimeNotional: acct === undefined ? 0n : lifetimeVolume(acct),
          nowMs: state.nowMs(),
        },
        state.config.rateLimit.pools,
      ),
    );
  },
};
