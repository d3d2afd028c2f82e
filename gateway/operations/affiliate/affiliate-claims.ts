/**
 * GET /v1/affiliate/claims — the address's reward claims, newest first (public, by address):
 * `{claims: [claim record], total}` (affiliate-common.ts). Query: address, from / to (epoch µs on
 * createdAt), limit (1-1000).
 */
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { claimsOf } from '../../services/referral.ts';
import { accountOf } from '../support/common.ts';
import { AffiliateListQuery, claimRecord, ClaimRecordSchema } from '../support/affiliate-common.ts';
import { isFilterReply, limitOf, windowOf } from '../support/read-filters.ts';
import { inWindow, newestFirst } from '../../shared/window.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const AFFILIATE_CLAIMS_RESPONSES = okReplies(Type.Object({ claims: Type.Array(ClaimRecordSchema), total: Type.Integer() }));

export const affiliateClaims: Operation<typeof AFFILIATE_CLAIMS_RESPONSES> = {
  name: 'affiliateClaims',
  method: 'GET',
  path: '/v1/affiliate/claims',
  auth: 'public',
  description: 'referral reward claims',
  schema: { querystring: AffiliateListQuery },
  response: AFFILIATE_CLAIMS_RESPONSES,
  errorSource: null,
  weight: 'affiliateClaims',
  mutates: false,
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    const window = windowOf(request.query, state.exchange.clock());
    if (isFilterReply(window)) return window;
    const page = newestFirst(claimsOf(state.referral, address), (c) => inWindow(c.createdAt, window), limitOf(request.query));
    return ok({ claims: page.rows.map(claimRecord), total: page.total });
  },
};
