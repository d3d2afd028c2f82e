/**
 * GET /v1/account/stats — the account's trading statistics and fee tier: `{address,
 * accountIndex, rollingVolume, lifetimeVolume, lifetimeFeesPaid, feeTier, makerFeePpm,
 * takerFeePpm}` (USD strings; rollingVolume over the last 30 UTC days; the tier and rates the
 * next fill pays). An address with no activity reads zeros and the first tier (200).
 * Spec: interface.md names the operation and the fee-tier read fields only; the body is
 * perpsim's (docs/decisions.md "Reads").
 */
import { findAccount, lifetimeFeesPaid, lifetimeVolume, rollingVolume, tierFor } from '../../../engine/index.ts';
import type { Account } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type, type Static } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export type AccountStatsReply = Static<typeof AccountStatsReplySchema>;

/**
 * 30-day volume at `time`, read without touching the account: `rollingVolume` memoizes its
 * result per day on the account it is given, and a read must leave engine state as it found it,
 * so it runs on a shallow copy (the per-day arrays are only read).
 */
export function rollingVolumeAt(acct: Account, time: number): bigint {
  return rollingVolume({ ...acct, rollingDay: -1 }, time);
}

export const AccountStatsReplySchema = Type.Object({
  address: Type.String(),
  accountIndex: Type.Integer(),
  rollingVolume: Type.String(),
  lifetimeVolume: Type.String(),
  lifetimeFeesPaid: Type.String(),
  feeTier: Type.String(),
  makerFeePpm: Type.Integer(),
  takerFeePpm: Type.Integer(),
});
export const ACCOUNT_STATS_RESPONSES = okReplies(AccountStatsReplySchema);

export const accountStats: Operation<typeof ACCOUNT_STATS_RESPONSES> = {
  name: 'accountStats',
  method: 'GET',
  path: '/v1/account/stats',
  auth: 'public',
  description: 'trading volume, fees paid and fee tier',
  schema: { querystring: AccountQuery },
  response: ACCOUNT_STATS_RESPONSES,
  errorSource: null,
  weight: 'accountStats',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const engine = state.exchange.engine;
    const acct = findAccount(engine.accounts, ref.address, ref.accountIndex);
    const now = Math.max(state.exchange.clock(), engine.time);
    const rolling = acct === undefined ? 0n : rollingVolumeAt(acct, now);
    const tier = tierFor(engine.risk.feeTiers, rolling);
    const body: AccountStatsReply = {
      address: ref.address,
      accountIndex: ref.accountIndex,
      rollingVolume: usd(rolling),
      lifetimeVolume: usd(acct === undefined ? 0n : lifetimeVolume(acct)),
      lifetimeFeesPaid: usd(acct === undefined ? 0n : lifetimeFeesPaid(acct)),
      feeTier: tier.name,
      makerFeePpm: tier.makerFeePpm,
      takerFeePpm: tier.takerFeePpm,
    };
    return ok(body);
  },
};
