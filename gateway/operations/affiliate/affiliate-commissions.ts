/**
 * GET /v1/affiliate/commissions — the caller's reward entries (signed GET, own data), newest
 * first: `{commissions: [{id, time, kind (T1, T2, T3, KICKBACK), referee, fee, rateBps, amount}],
 * total}`: one entry per fee a referee paid and level it paid (KICKBACK: the caller's own
 * discount back). Query: address, from / to (epoch µs), limit (1-1000). The last 1,000 entries are
 * kept; GET info has the exact totals.
 */
import { ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { rewardsView } from '../../services/referral.ts';
import { isReply } from '../support/common.ts';
import { AffiliateListQuery } from '../support/affiliate-common.ts';
import { walletPage } from '../support/wallet-signed.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const COMMISSIONS_RESPONSES = okReplies(
  Type.Object({
    commissions: Type.Array(
      Type.Object({ id: Type.Integer(), time: Type.Number(), kind: Type.String(), referee: Type.String(), fee: Type.String(), rateBps: Type.Number(), amount: Type.String() }),
    ),
    total: Type.Integer(),
  }),
);

export const affiliateCommissions: Operation<typeof COMMISSIONS_RESPONSES> = {
  name: 'affiliateCommissions',
  method: 'GET',
  path: '/v1/affiliate/commissions',
  auth: 'signed',
  description: 'the caller\'s commission history',
  schema: { querystring: AffiliateListQuery },
  response: COMMISSIONS_RESPONSES,
  errorSource: null,
  weight: 'affiliateCommissions',
  mutates: false,
  handle: (state, request) => {
    const read = walletPage(state, request, (address) => rewardsView(state.referral, address).entries, (e) => e.time);
    if (isReply(read)) return read;
    const commissions = read.page.rows.map((e) => ({ id: e.id, time: e.time, kind: e.kind, referee: e.referee, fee: usd(e.fee), rateBps: e.rateBps, amount: usd(e.amount) }));
    return ok({ commissions, total: read.page.total });
  },
};
