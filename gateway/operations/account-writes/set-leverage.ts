/**
 * POST /v1/setLeverage — per (account, market) leverage and, with `isolated`, margin mode
 * (Scheme 2). `leverage` is an integer in 1..floor(1/IMF), checked here, so the engine's
 * INVALID_LEVERAGE is never reached over REST. The REST outcome is definitive: 200 APPLIED, or
 * 422 REJECTED with `rejectReason` and the prior leverage kept; the same requestId is on the
 * accountAttributeUpdates entry.
 * Spec: interface.md Order management "setLeverage"; supplement §4, §12 "setLeverage reply".
 * Checks run in the order `handle` calls them (400 → 401/403 → 400 market, leverage → 401 →
 * 409 → the engine). perpsim's choices: docs/decisions.md "Account-write operations".
 */
import { Type, type Static } from 'typebox';
import { findAccount, marketOf } from '../../../engine/index.ts';
import { LIMITS, MARGIN_MODES } from '../../../engine/spec.ts';
import { fail, ok, type Refusal } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { admitScheme2Write, verifiedScheme2Write, SUBACCOUNT } from '../support/account-writes-common.ts';
import { ADDRESS_PATTERN, isReply, signedContext, type SignedContext } from '../support/common.ts';
import type { MarketState } from '../../../engine/index.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import { REFUSALS, stringEnum } from '../../contract/reply-schema.ts';

export const SetLeverageBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Optional(SUBACCOUNT),
    marketId: Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }),
    leverage: Type.Integer(),
    isolated: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export interface SetLeverageBody {
  address?: string;
  accountIndex?: number;
  marketId: number;
  leverage: number;
  isolated?: boolean;
}

export type MarginMode = 'CROSS' | 'ISOLATED';

export type SetLeverageReply = Static<typeof SetLeverageReplySchema>;

/** 200 APPLIED, 422 REJECTED with its rejectReason; marginMode when the request set one. */
export const SetLeverageReplySchema = Type.Object({
  requestId: Type.String(),
  address: Type.String(),
  accountIndex: Type.Integer(),
  marketId: Type.Integer(),
  leverage: Type.Number(),
  status: Type.Union([Type.Literal('APPLIED'), Type.Literal('REJECTED')]),
  marginMode: Type.Optional(stringEnum(MARGIN_MODES)),
  rejectReason: Type.Optional(Type.String()),
});
export const SET_LEVERAGE_RESPONSES = { 200: SetLeverageReplySchema, 422: SetLeverageReplySchema, ...REFUSALS } as const;

export const setLeverage: Operation<typeof SET_LEVERAGE_RESPONSES> = {
  name: 'setLeverage',
  method: 'POST',
  path: '/v1/setLeverage',
  auth: 'signed',
  description: 'set the leverage and margin mode of one market',
  schema: { body: SetLeverageBody },
  response: SET_LEVERAGE_RESPONSES,
  errorSource: null,
  weight: 'setLeverage',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as SetLeverageBody;
    const accountIndex = body.accountIndex ?? 0;
    const checks = (): { ctx: SignedContext; ms: MarketState } | Refusal => {
      const ctx = signedContext(state, request, accountIndex);
      if (isReply(ctx)) return ctx;
      const ms = resolveMarket(state.exchange, body.marketId);
      if (ms === undefined) return fail(400, 'unknown market');
      if (ms.spec.status !== 'ONLINE') return fail(400, 'market is offline');
      const max = ms.spec.maxLeverage;
      if (body.leverage < 1 || body.leverage > max) return fail(400, `leverage must be an integer from 1 to ${max}`);
      return { ctx, ms };
    };
    return sequenced(state, walletOf(request.query, body), () => verifiedScheme2Write(state, request, checks), (checked) => {
      if (isReply(checked)) return checked;
      const { ctx, ms } = checked;
      const requestId = admitScheme2Write(state, ctx, 'setLeverage');
      if (typeof requestId !== 'string') return requestId;
      const result = state.exchange.submit({
        type: 'setLeverage',
        address: ctx.address,
        accountIndex,
        marketId: ms.spec.id,
        leverage: body.leverage,
        isolated: body.isolated,
        requestId,
      });
      if (result.kind === 'invalid') return fail(400, result.error);
      const applied = result.leverageStatus === 'APPLIED';
      const reply: SetLeverageReply = {
        requestId,
        address: ctx.address,
        accountIndex,
        marketId: ms.spec.id,
        leverage: result.leverage,
        status: result.leverageStatus,
      };
      if (body.isolated !== undefined) {
        const holder = findAccount(state.exchange.engine.accounts, ctx.address, accountIndex);
        const isolated = (holder === undefined ? undefined : marketOf(holder, ms.slot))?.isolated ?? false;
        reply.marginMode = isolated ? 'ISOLATED' : 'CROSS';
      }
      if (!applied && result.rejectReason !== undefined) reply.rejectReason = result.rejectReason;
      return ok(reply, applied ? 200 : 422);
    });
  },
};
