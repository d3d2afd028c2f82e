/**
 * POST /v1/affiliate/revokeCode — retire the caller's referral code for good (Scheme 2, body
 * `{address}`). Reply 202 `{status: "submitted"}`; 404 without a code. Unredeemed invites die
 * with it; bound referees stay bound, commissions keep accruing; a new code may be created.
 * Route and choices: docs/decisions.md "Fidelity to the live venue", "Affiliate program".
 */
import { Type } from 'typebox';
import type { Operation } from '../../contract/operation.ts';
import type { Refusal, ReferralState } from '../../services/referral.ts';
import { ADDRESS_PATTERN } from '../support/common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';
import { SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';

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
