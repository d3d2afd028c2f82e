/**
 * GET /v1/affiliate/codeAvailable?code= — whether a code can be created: `{available}` only
 * (never its owner). Live and retired codes are unavailable; a malformed code is 400.
 */
import { Type } from 'typebox';
import { ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { isCodeTaken } from '../../services/referral.ts';
import { AFFILIATE_CODE, codeOf } from '../support/affiliate-common.ts';
import { okReplies } from '../../contract/reply-schema.ts';

export const CodeAvailableQuery = Type.Object({ code: AFFILIATE_CODE }, { additionalProperties: true });

export const CODE_AVAILABLE_RESPONSES = okReplies(Type.Object({ available: Type.Boolean() }));

export const affiliateCodeAvailable: Operation<typeof CODE_AVAILABLE_RESPONSES> = {
  name: 'affiliateCodeAvailable',
  method: 'GET',
  path: '/v1/affiliate/codeAvailable',
  auth: 'public',
  description: 'whether a referral code is free',
  schema: { querystring: CodeAvailableQuery },
  response: CODE_AVAILABLE_RESPONSES,
  errorSource: null,
  weight: 'affiliateCodeAvailable',
  mutates: false,
  handle: (state, request) => {
    const code = codeOf(request.query.code);
    if (typeof code !== 'string') return code;
    return ok({ available: !isCodeTaken(state.referral, code) });
  },
};
