/**
 * GET /v1/affiliate/claimStatus — one claim of the address by `id` (the claimId POST claim
 * answered), bare (public, by address); 404 when the address has no such claim.
 */
import { Type } from 'typebox';
import { notFound, ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { claimsOf } from '../../services/referral.ts';
import { accountOf } from '../support/common.ts';
import { claimRecord, CLAIM_STATUS_RESPONSES } from '../support/affiliate-common.ts';
import { accountQueryWith } from '../support/read-filters.ts';

export const ClaimStatusQuery = accountQueryWith({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const affiliateClaimStatus: Operation<typeof CLAIM_STATUS_RESPONSES> = {
  name: 'affiliateClaimStatus',
  method: 'GET',
  path: '/v1/affiliate/claimStatus',
  auth: 'public',
  description: 'one referral reward claim',
  schema: { querystring: ClaimStatusQuery },
  response: CLAIM_STATUS_RESPONSES,
  errorSource: null,
  weight: 'affiliateClaimStatus',
  mutates: false,
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    const id = String(request.query.id);
    const claim = claimsOf(state.referral, address).find((c) => c.claimId === id);
    return claim === undefined ? notFound('claim not found') : ok(claimRecord(claim));
  },
};
