/**
 * POST /v1/affiliate/registerAffiliate — binds the caller, as a referee, to the owner of a code
 * (signed, Scheme 2; the venue's "register as referee").
 *
 * Body: `address`, `code`. Reply 202 `{status: "submitted"}`. 404 unknown code; 400 the caller's
 * own code; 409 when the caller already has a referrer, has already traded (a wallet binds only
 * before its first fill), or the code's owner is referred, directly or not, by the caller. The
 * discount is the code's kickback now, fixed for good.
 */
import type { Operation } from '../../contract/operation.ts';
import { bindReferee } from '../../services/referral.ts';
import { AddressCodeBody, codeOf, hasTraded, SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';

export const affiliateRegisterAffiliate: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateRegisterAffiliate',
  method: 'POST',
  path: '/v1/affiliate/registerAffiliate',
  auth: 'signed',
  description: 'bind the caller to a referrer by its code',
  schema: { body: AddressCodeBody },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateRegisterAffiliate',
  mutates: true,
  handle: (state, request) =>
    submitWalletWrite(state, request, 'affiliateRegisterAffiliate', () => codeOf((request.body as { code: string }).code), (ctx, code) =>
      bindReferee(state.referral, ctx.address, code, state.exchange.clock(), hasTraded(state, ctx.address)),
    ),
};
