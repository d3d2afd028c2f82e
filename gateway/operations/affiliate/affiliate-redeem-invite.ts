/**
 * POST /v1/affiliate/redeemInvite — binds the caller, as a referee, to the affiliate that issued
 * an invite code (signed, Scheme 2). Invite codes are bearer secrets (GET inviteCodes); each
 * binds one wallet.
 *
 * Body: `address`, `inviteCode`. Reply 202 `{status: "submitted"}`. 404 unknown invite; 409 an
 * invite already redeemed, and the binding refusals of registerAffiliate.
 */
import { Type } from 'typebox';
import type { Operation } from '../../contract/operation.ts';
import { redeemInvite } from '../../services/referral.ts';
import { ADDRESS_PATTERN } from '../support/common.ts';
import { hasTraded, SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';

export const RedeemInviteBody = Type.Object(
  { address: Type.String({ pattern: ADDRESS_PATTERN }), inviteCode: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: true },
);

export const affiliateRedeemInvite: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateRedeemInvite',
  method: 'POST',
  path: '/v1/affiliate/redeemInvite',
  auth: 'signed',
  description: 'bind the caller to a referrer by an invite code',
  schema: { body: RedeemInviteBody },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateRedeemInvite',
  mutates: true,
  handle: (state, request) =>
    submitWalletWrite(state, request, 'affiliateRedeemInvite', () => (request.body as { inviteCode: string }).inviteCode.toLowerCase(), (ctx, secret) =>
      redeemInvite(state.referral, ctx.address, secret, state.exchange.clock(), hasTraded(state, ctx.address)),
    ),
};
