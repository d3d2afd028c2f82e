/**
 * GET /v1/affiliate/code — the caller's referral code (signed GET, own data):
 * `{address, code, kickbackBps, createdAt, updatedAt}`; 404 when it holds none.
 */
import { notFound, ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, isReply } from '../support/common.ts';
import { walletGet } from '../support/wallet-signed.ts';
import { Type } from 'typebox';
import { okReplies } from '../../contract/reply-schema.ts';

export const AFFILIATE_CODE_RESPONSES = okReplies(
  Type.Object({ address: Type.String(), code: Type.String(), kickbackBps: Type.Integer(), createdAt: Type.Number(), updatedAt: Type.Number() }),
);

export const affiliateCode: Operation<typeof AFFILIATE_CODE_RESPONSES> = {
  name: 'affiliateCode',
  method: 'GET',
  path: '/v1/affiliate/code',
  auth: 'signed',
  description: 'the caller\'s referral code',
  schema: { querystring: AccountQuery },
  response: AFFILIATE_CODE_RESPONSES,
  errorSource: null,
  weight: 'affiliateCode',
  mutates: false,
  handle: (state, request) => {
    const ctx = walletGet(state, request);
    if (isReply(ctx)) return ctx;
    const affiliate = state.referral.affiliates.get(ctx.address);
    if (affiliate === undefined) return notFound('this address has no referral code');
    return ok({ address: ctx.address, code: affiliate.code, kickbackBps: affiliate.kickbackBps, createdAt: affiliate.createdAt, updatedAt: affiliate.updatedAt });
  },
};
