/**
 * POST /v1/scheduleCancel — arm, refresh or disarm a dead man's switch for a subaccount or one
 * of its markets (Scheme 2). `time` (epoch µs) must be 5 s to 5 min ahead of the exchange clock;
 * omitted or null disarms. Reply 200 `scheduled` / `disarmed`; an arm or refresh charges the
 * cancel pool 1, a disarm nothing. The caps (10 fires a UTC day per subaccount, 50 armed per
 * wallet) answer 429 `{error}`.
 * Spec: interface.md "Order management"; supplement §4. Checks run in the order `handle` calls
 * them. perpsim's choices: docs/decisions.md "Dead man's switch", "Order-write operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { engineInvalid, ERRORS, refuse } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { RateLimitInfo, REFUSALS } from '../../contract/reply-schema.ts';
import { chargeOrderWrite } from '../support/charge.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { chargeOnce, orNull, scheme2Context } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';

export const ScheduleCancelBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })),
    marketId: Type.Optional(orNull(Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }))),
    time: Type.Optional(orNull(Type.Integer({ minimum: 0 }))),
  },
  { additionalProperties: true },
);

export type ScheduleCancelBody = Static<typeof ScheduleCancelBody>;

/** 200: the switch's state after the call; `time` the deadline when armed. Fields in the order written. */
export const ScheduleCancelReply = Type.Object({
  address: Type.String(),
  accountIndex: Type.Integer(),
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('disarmed')]),
  marketId: Type.Optional(Type.Integer()),
  marketDisplayName: Type.Optional(Type.String()),
  time: Type.Optional(Type.Number()),
  rateLimit: Type.Optional(RateLimitInfo),
});
export const SCHEDULE_CANCEL_RESPONSES = { 200: ScheduleCancelReply, ...REFUSALS } as const;

export const scheduleCancel: Operation<typeof SCHEDULE_CANCEL_RESPONSES> = {
  name: 'scheduleCancel',
  method: 'POST',
  path: '/v1/scheduleCancel',
  auth: 'signed',
  description: "arm, refresh or disarm the dead man's switch",
  schema: { body: ScheduleCancelBody },
  response: SCHEDULE_CANCEL_RESPONSES,
  errorSource: 'Cancel',
  weight: 'scheduleCancel',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as ScheduleCancelBody;
    const accountIndex = body.accountIndex ?? 0;
    return sequenced(state, walletOf(request.query, body), () => scheme2Context(state, request, accountIndex), (ctx) => {
      if (isReply(ctx)) return ctx;
      const marketId = body.marketId ?? undefined;
      const ms = marketId === undefined ? undefined : resolveMarket(state.exchange, marketId);
      if (marketId !== undefined && ms === undefined) return refuse(ERRORS.unknownMarket, 'Cancel');
      const deadline = body.time === undefined || body.time === null ? null : Number(body.time);
      if (deadline !== null) {
        const ahead = deadline - state.exchange.clock();
        if (!Number.isSafeInteger(deadline) || ahead < LIMITS.scheduleCancelMinAheadUs || ahead > LIMITS.scheduleCancelMaxAheadUs) {
          return refuse(ERRORS.scheduleTimeOutOfRange, 'Cancel');
        }
      }
      const charge = chargeOnce(state, ctx.headers.signature, () =>
        deadline === null ? { rateLimit: undefined } : chargeOrderWrite(state, request, 'scheduleCancel', ctx.address, accountIndex, 1, { kind: 'other' }),
      );
      if (isReply(charge)) return charge;
      const result = state.exchange.submit({ type: 'scheduleCancel', address: ctx.address, accountIndex, marketId, deadline });
      if (result.kind === 'invalid') return engineInvalid('Cancel', result);
      if (result.kind === 'limited') return refuse(ERRORS.engineLimited, 'Cancel', result.error);
      const market = ms === undefined ? {} : { marketId: ms.spec.id, marketDisplayName: ms.spec.displayName };
      const time = result.switchState === 'scheduled' && deadline !== null ? deadline : undefined;
      return { status: 200, body: { address: ctx.address, accountIndex, status: result.switchState, ...market, time, rateLimit: charge.rateLimit } };
    });
  },
};
