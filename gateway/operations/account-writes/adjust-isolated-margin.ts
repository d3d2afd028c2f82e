/**
 * POST /v1/adjustIsolatedMargin — move collateral between cross margin and one isolated
 * position (Scheme 2). `amount` is a signed USD decimal of at most 9 places, not zero: positive
 * into the pool, negative back to cross. Reply 200 APPLIED or 422 REJECTED (supplement §4's
 * safe fields); the position update on the positions channel carries the same requestId.
 * Spec: interface.md Order management "adjustIsolatedMargin"; supplement §4.
 * Checks run in the order `handle` calls them (400 → 401/403 → 400 market → 401 → 409 → the
 * engine). perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { fail, ok, type Refusal } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { admitScheme2Write, verifiedScheme2Write, parseUsdQuantums, SUBACCOUNT, USD_AMOUNT } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply, signedContext, type SignedContext } from '../support/common.ts';
import type { MarketState } from '../../../engine/index.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import { REFUSALS } from '../../contract/reply-schema.ts';

export const AdjustIsolatedMarginBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Optional(SUBACCOUNT),
    marketId: Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }),
    amount: USD_AMOUNT,
  },
  { additionalProperties: true },
);

export interface AdjustIsolatedMarginBody {
  address?: string;
  accountIndex?: number;
  marketId: number;
  amount: string | number;
}

export type AdjustIsolatedMarginReply = Static<typeof AdjustIsolatedMarginReplySchema>;

/** 200 APPLIED, 422 REJECTED with its rejectReason. */
export const AdjustIsolatedMarginReplySchema = Type.Object({
  requestId: Type.String(),
  address: Type.String(),
  accountIndex: Type.Integer(),
  marketId: Type.Integer(),
  amount: Type.String(),
  status: Type.Union([Type.Literal('APPLIED'), Type.Literal('REJECTED')]),
  rejectReason: Type.Optional(Type.String()),
});
export const ADJUST_ISOLATED_MARGIN_RESPONSES = { 200: AdjustIsolatedMarginReplySchema, 422: AdjustIsolatedMarginReplySchema, ...REFUSALS } as const;

export const adjustIsolatedMargin: Operation<typeof ADJUST_ISOLATED_MARGIN_RESPONSES> = {
  name: 'adjustIsolatedMargin',
  method: 'POST',
  path: '/v1/adjustIsolatedMargin',
  auth: 'signed',
  description: 'move margin between cross collateral and an isolated position',
  schema: { body: AdjustIsolatedMarginBody },
  response: ADJUST_ISOLATED_MARGIN_RESPONSES,
  errorSource: null,
  weight: 'adjustIsolatedMargin',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as AdjustIsolatedMarginBody;
    const accountIndex = body.accountIndex ?? 0;
    const checks = (): { ctx: SignedContext; ms: MarketState; amount: bigint } | Refusal => {
      const amount = parseUsdQuantums(body.amount);
      if (amount === null) return fail(400, 'amount must be a decimal number of dollars with at most 9 decimals');
      if (amount === 0n) return fail(400, 'amount must not be zero');
      const ctx = signedContext(state, request, accountIndex);
      if (isReply(ctx)) return ctx;
      const ms = resolveMarket(state.exchange, body.marketId);
      if (ms === undefined) return fail(400, 'unknown market');
      return { ctx, ms, amount };
    };
    return sequenced(state, walletOf(request.query, body), () => verifiedScheme2Write(state, request, checks), (checked) => {
      if (isReply(checked)) return checked;
      const { ctx, ms, amount } = checked;
      const requestId = admitScheme2Write(state, ctx, 'adjustIsolatedMargin');
      if (typeof requestId !== 'string') return requestId;
      const result = state.exchange.submit({ type: 'adjustIsolatedMargin', address: ctx.address, accountIndex, marketId: ms.spec.id, amount, requestId });
      if (result.kind === 'invalid') return fail(400, result.error);
      const rejected = result.kind === 'rejected';
      const reply: AdjustIsolatedMarginReply = {
        requestId,
        address: ctx.address,
        accountIndex,
        marketId: ms.spec.id,
        amount: String(body.amount),
        status: rejected ? 'REJECTED' : 'APPLIED',
      };
      if (rejected) reply.rejectReason = result.rejectionReason;
      return ok(reply, rejected ? 422 : 200);
    });
  },
};
