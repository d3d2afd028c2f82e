/**
 * POST /v1/affiliate/revokeCode — withdraws the caller's referral code (signed, Scheme 2; the
 * public clients send `{address}`: docs/decisions.md "Fidelity to the live venue").
 *
 * Body: `address` (must match the signer). Reply 202 `{status: "submitted"}`; 404 when the
 * caller holds no code. The code is retired for good (no one can create or rename to it, as
 * after modifyCode), its unredeemed invites die with it, and the caller may create a new code
 * later. Referees already bound stay bound with their discount, and commissions keep accruing
 * to the caller (bindings are by account, interface.md "States and transitions").
 */
import { Type } from 'typebox';
import type { Operation } from '../contract/operation.ts';
import type { Refusal, ReferralState } from '../services/referral.ts';
import { ADDRESS_PATTERN } from './common.ts';
import { submitWalletWrite } from './wallet-signed.ts';
import { SUBMITTED_RESPONSES } from './affiliate-common.ts';

function revokeCode(rs: ReferralState, address: string): object | Refusal {
  const affiliate = rs.affiliates.get(address);
  if (affiliate === undefined) return { status: 404, error: 'this address has no referral code' };
  rs.codes.delete(affiliate.code);
  rs.retired.add(affiliate.code);
  for (const secret of affiliate.invites) if (rs.invites.get(secret)?.redeemedBy === undefined) rs.invites.delete(secret);
  rs.affiliates.delete(address);
  return { code: affiliate.code };
}

export const affiliateRevokeCode: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateRevokeCode',
  method: 'POST',
  path: '/v1/affiliate/revokeCode',
  auth: 'signed',
  description: 'retire the caller\'s referral code',
  schema: { body: Type.Object({ address: Type.String({ pattern: ADDRESS_PATTERN }) }, { additionalProperties: true }) },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateRevokeCode',
  mutates: true,
  handle: (state, request) => submitWalletWrite(state, request, 'affiliateRevokeCode', () => undefined, (ctx) => revokeCode(state.referral, ctx.address)),
};
