/**
 * POST /v1/affiliate/kickback — sets the discount the caller's code gives wallets that bind from
 * now on (signed, Scheme 2). Body: `address`, `kickbackBps` (0 to the first level's T1 rate).
 * Reply 202 `{status: "submitted"}`; 404 without a code; 400 out of range. Referees already
 * bound keep the discount they bound with.
 */
import { Type } from 'typebox';
import type { Operation } from '../../contract/operation.ts';
import { setKickback } from '../../services/referral.ts';
import { ADDRESS_PATTERN } from '../support/common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';
import { SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';

export const KickbackBody = Type.Object({ address: Type.String({ pattern: ADDRESS_PATTERN }), kickbackBps: Type.Integer() }, { additionalProperties: true });

export const affiliateKickback: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateKickback',
  method: 'POST',
  path: '/v1/affiliate/kickback',
  auth: 'signed',
  description: 'set the discount of the caller\'s referral code',
  schema: { body: KickbackBody },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateKickback',
  mutates: true,
  handle: (state, request) =>
    submitWalletWrite(state, request, 'affiliateKickback', () => (request.body as { kickbackBps: number }).kickbackBps, (ctx, bps) =>
      setKickback(state.referral, ctx.address, bps, state.exchange.clock()),
    ),
};
