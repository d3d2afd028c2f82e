/**
 * GET /v1/affiliate/myReferrer — the caller's binding (public, by address): `{address, code,
 * discountBps, boundAt, via}`, never the referrer's address. `code` is the referrer's current
 * code (the binding is by account, so a renamed code shows its new string; null if the referrer
 * bound it by invite and holds no code). 404 when the address has no referrer.
 */
import { notFound, ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { Type } from 'typebox';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

export const MY_REFERRER_RESPONSES = okReplies(
  Type.Object({ address: Type.String(), code: nullable(Type.String()), discountBps: Type.Number(), boundAt: Type.Number(), via: Type.String() }),
);

export const affiliateMyReferrer: Operation<typeof MY_REFERRER_RESPONSES> = {
  name: 'affiliateMyReferrer',
  method: 'GET',
  path: '/v1/affiliate/myReferrer',
  auth: 'public',
  description: 'the code and discount the address was referred with',
  schema: { querystring: AccountQuery },
  response: MY_REFERRER_RESPONSES,
  errorSource: null,
  weight: 'affiliateMyReferrer',
  mutates: false,
  handle: (state, request) => {
    const { address } = accountOf(request.query);
    const rs = state.referral;
    const binding = rs.bindings.get(address);
    if (binding === undefined) return notFound('this address has no referrer');
    return ok({ address, code: rs.affiliates.get(binding.referrer)?.code ?? null, discountBps: binding.discountBps, boundAt: binding.boundAt, via: binding.via });
  },
};
