/**
 * GET /v1/rateLimit — the subaccount's order and cancel pools: `{address, accountIndex, order:
 * {used, cap, nextAvailableMs}, cancel: {…}}` (rate-limit/account-pools.ts). Only the camelCase
 * `accountIndex` is read (a misspelled one serves 0); a subaccount never charged reads its
 * starting caps.
 * Spec: interface.md "Rate-limit snapshot"; supplement §6.
 */
import { findAccount, lifetimeVolume } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountKey, rateLimitSnapshot } from '../../rate-limit/index.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

const PoolSnapshotSchema = Type.Object({ used: Type.Number(), cap: Type.Number(), nextAvailableMs: Type.Number() });
export const RATE_LIMIT_RESPONSES = okReplies(
  Type.Object({ address: Type.String(), accountIndex: Type.Integer(), order: PoolSnapshotSchema, cancel: PoolSnapshotSchema }),
);

export const rateLimit: Operation<typeof RATE_LIMIT_RESPONSES> = {
  name: 'rateLimit',
  method: 'GET',
  path: '/v1/rateLimit',
  auth: 'public',
  description: 'order and cancel pool usage',
  schema: { querystring: AccountQuery },
  response: RATE_LIMIT_RESPONSES,
  errorSource: null,
  weight: 'rateLimit',
  mutates: false,
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
