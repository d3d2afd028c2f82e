/**
 * POST /v1/affiliate/claim — pay the caller's claimable rewards (commissions and kickbacks), all
 * or `amountQuantums`, into one of its subaccounts (Scheme 2). Reply 202 `{status: "submitted",
 * claimId}`; the engine moves the money from the fees collected (a REFERRAL_CLAIM row on
 * accountTransferUpdates) and GET claimStatus reads COMPLETED or REJECTED. 400 when nothing is
 * claimable or the amount is not within (0, claimable].
 * Choices: docs/decisions.md "Affiliate program".
 */
import { Type } from 'typebox';
import { fail, ok } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { claimableOf, openClaim, settleClaim } from '../../services/referral.ts';
import { parseQuantums, QUANTUMS, SUBACCOUNT } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { admitWalletPost, isRefusal, refused, walletContext } from '../support/wallet-signed.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';

export const ClaimBody = Type.Object(
  { address: Type.String({ pattern: ADDRESS_PATTERN }), accountIndex: Type.Optional(SUBACCOUNT), amountQuantums: Type.Optional(QUANTUMS) },
  { additionalProperties: true },
);

export const AFFILIATE_CLAIM_RESPONSES = { 202: Type.Object({ status: Type.Literal('submitted'), claimId: Type.String() }), ...REFUSALS } as const;

export const affiliateClaim: Operation<typeof AFFILIATE_CLAIM_RESPONSES> = {
  name: 'affiliateClaim',
  method: 'POST',
  path: '/v1/affiliate/claim',
  auth: 'signed',
  description: 'claim accrued referral rewards into a subaccount',
  schema: { body: ClaimBody },
  response: AFFILIATE_CLAIM_RESPONSES,
  errorSource: null,
  weight: 'affiliateClaim',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as { accountIndex?: number; amountQuantums?: string | number };
    const ctx = walletContext(state, request);
    if (isReply(ctx)) return ctx;
    const rs = state.referral;
    const amount = body.amountQuantums === undefined ? claimableOf(rs, ctx.address) : parseQuantums(body.amountQuantums);
    if (amount === null) return fail(400, 'amountQuantums must be a whole number of quote quantums');
    return admitWalletPost(state, request, ctx, 'affiliateClaim', () => {
      const accountIndex = body.accountIndex ?? 0;
      const claim = openClaim(rs, ctx.address, accountIndex, amount, state.exchange.clock());
      if (isRefusal(claim)) return refused(claim);
      const result = state.exchange.submit({ type: 'creditCommission', address: ctx.address, accountIndex, amount });
      if (result.kind === 'invalid') {
        settleClaim(rs, claim, undefined, 'REJECTED', result.error);
      } else {
        settleClaim(rs, claim, result.operationId, result.transferStatus, result.rejectReason);
      }
      return ok({ status: 'submitted', claimId: claim.claimId }, 202);
    });
  },
};
