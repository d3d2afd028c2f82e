/**
 * POST /v1/affiliate/createCode — the caller's first referral code (signed, Scheme 2).
 *
 * Body: `address` (must match the key), `code` (1-32 of A-Z 0-9 _ -), optional `kickbackBps`
 * (0 to the first level's T1 rate, default 0): the discount, in bps of their fees, that wallets
 * binding with this code get back, fixed for each when it binds. Reply 202
 * `{status: "submitted"}`; the code is live at once. 409 when the caller already holds a code
 * (modifyCode renames it) or the code is taken or retired; 400 on a malformed code or kickback.
 * The affiliate also receives its invite codes (GET inviteCodes).
 */
import { Type } from 'typebox';
import type { Operation } from '../contract/operation.ts';
import { createCode } from '../services/referral.ts';
import { AddressCodeBody, codeOf, SUBMITTED_RESPONSES } from './affiliate-common.ts';
import { submitWalletWrite } from './wallet-signed.ts';

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
