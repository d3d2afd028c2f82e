/**
 * GET /v1/affiliate/referees — the caller's direct referees (signed GET, own data), newest
 * binding first: `{referees: [{address, boundAt, via (CODE / INVITE), discountBps, feesPaid,
 * commission}], total}`. feesPaid: the referee's fees since binding; commission: the T1 they
 * earned the caller. Query: address, from / to (epoch µs on boundAt), limit (1-1000).
 */
import { ok } from '../../contract/errors.ts';
import { usd } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { refereesOf } from '../../services/referral.ts';
import { isReply } from '../support/common.ts';
import { AffiliateListQuery } from '../support/affiliate-common.ts';
import { walletPage } from '../support/wallet-signed.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const REFEREES_RESPONSES = okReplies(
  Type.Object({
    referees: Type.Array(
      Type.Object({ address: Type.String(), boundAt: Type.Number(), via: Type.String(), discountBps: Type.Number(), feesPaid: Type.String(), commission: Type.String() }),
    ),
    total: Type.Integer(),
  }),
);

export const affiliateReferees: Operation<typeof REFEREES_RESPONSES> = {
  name: 'affiliateReferees',
  method: 'GET',
  path: '/v1/affiliate/referees',
  auth: 'signed',
  description: 'the caller\'s referees',
  schema: { querystring: AffiliateListQuery },
  response: REFEREES_RESPONSES,
  errorSource: null,
  weight: 'affiliateReferees',
  mutates: false,
  handle: (state, request) => {
    const rs = state.referral;
    const read = walletPage(state, request, (address) => refereesOf(rs, address), (referee) => rs.bindings.get(referee)!.boundAt);
    if (isReply(read)) return read;
    const referees = read.page.rows.map((address) => {
      const b = rs.bindings.get(address)!;
      return { address, boundAt: b.boundAt, via: b.via, discountBps: b.discountBps, feesPaid: usd(b.feesPaid), commission: usd(b.commission) };
    });
    return ok({ referees, total: read.page.total });
  },
};
