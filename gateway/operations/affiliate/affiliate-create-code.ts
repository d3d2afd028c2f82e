/**
 * POST /v1/affiliate/createCode — the caller's first referral code (Scheme 2), live at once,
 * with an optional `kickbackBps` discount for wallets that bind with it; the affiliate also
 * receives its invite codes. Reply 202 `{status: "submitted"}`; 409 when the caller holds a
 * code or the code is taken or retired; 400 on a malformed code or kickback.
 * Code and discount rules: docs/decisions.md "Affiliate program".
 */
import { Type } from 'typebox';
import type { Operation } from '../../contract/operation.ts';
import { createCode } from '../../services/referral.ts';
import { AddressCodeBody, codeOf, SUBMITTED_RESPONSES } from '../support/affiliate-common.ts';
import { submitWalletWrite } from '../support/wallet-signed.ts';

export const CreateCodeBody = Type.Object({ ...AddressCodeBody.properties, kickbackBps: Type.Optional(Type.Integer()) }, { additionalProperties: true });

export const affiliateCreateCode: Operation<typeof SUBMITTED_RESPONSES> = {
  name: 'affiliateCreateCode',
  method: 'POST',
  path: '/v1/affiliate/createCode',
  auth: 'signed',
  description: 'create the caller\'s referral code',
  schema: { body: CreateCodeBody },
  response: SUBMITTED_RESPONSES,
  errorSource: null,
  weight: 'affiliateCreateCode',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as { code: string; kickbackBps?: number };
    return submitWalletWrite(state, request, 'affiliateCreateCode', () => codeOf(body.code), (ctx, code) =>
      createCode(state.referral, ctx.address, code, body.kickbackBps ?? 0, state.exchange.clock()),
    );
  },
};
