/**
 * POST /v1/affiliate/modifyCode — renames the caller's code (signed, Scheme 2).
 *
 * Body: `address` (must match the signer), `code` (1-32 of A-Z 0-9 _ -). Reply 202
 * `{status: "submitted"}`. 404 when the caller holds no code (createCode first); 409 when the new
 * code equals the current one, is owned by another affiliate, or is retired. The old string is
 * retired for good; referees stay bound (by account) with their discount, and the kickback is
 * kept (interface.md "States and transitions", referral code).
 */
import type { Operation } from '../../contract/operation.ts';
import { modifyCode } from '../../services/referral.ts';
import { AddressCodeBody, codeOf, SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';

export const affiliateModifyCode: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateModifyCode',
  method: 'POST',
  path: '/v1/affiliate/modifyCode',
  auth: 'signed',
  description: 'rename the caller\'s referral code',
  schema: { body: AddressCodeBody },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateModifyCode',
  mutates: true,
  handle: (state, request) =>
    submitWalletWrite(state, request, 'affiliateModifyCode', () => codeOf((request.body as { code: string }).code), (ctx, code) =>
      modifyCode(state.referral, ctx.address, code, state.exchange.clock()),
    ),
};
