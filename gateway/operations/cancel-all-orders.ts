/**
 * POST /v1/cancelAllOrders — cancel every open and untriggered order of a subaccount, or of one
 * of its markets (Scheme 2: `timestamp + "cancelAllOrders" + canonical_json(body)`).
 *
 * Body (interface.md "Order management", supplement §4): `address` (required), `accountIndex`
 * (0-9; 0 when absent), optional `marketId` (omitted or null: every market), optional
 * `validUntil` (epoch ms; null or 0: no expiry) after which the request must not be processed.
 *
 * Order of checks: body schema (400 Cancel InvalidRequest) → header triple, key, address
 * (401/403) → Scheme 2 signature (401 `invalid signature`) → `validUntil` not passed (400
 * Cancel InvalidRequest `request expired: validUntil has passed`) → market (400) → replay (409)
 * → the cancel pool, the configured cancel-all cost (1,000 by default, supplement §12; 429
 * without client ids) → the engine. Every order's CANCELED follows on the orders channel.
 *
 * Reply 202 (interface.md "Cancel-all response"): address, accountIndex,
 * `status: "CANCEL_ALL_ACKNOWLEDGED"`, updateTime (gateway clock, µs), marketId and
 * marketDisplayName only when scoped to one market, rateLimit (the cancel pool after charging).
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../engine/spec.ts';
import { engineInvalid, ERRORS, refuse } from '../contract/errors.ts';
import { resolveMarket } from '../read-models/markets.ts';
import type { Operation } from '../contract/operation.ts';
import { RateLimitInfo, REFUSALS } from '../contract/reply-schema.ts';
import { chargeOrderWrite } from './charge.ts';
import { ADDRESS_PATTERN, isReply } from './common.ts';
import { chargeOnce, checkValidUntil, orNull, scheme2Context } from './order-write-support.ts';
import { sequenced, walletOf } from '../auth/sequencer.ts';

export const CancelAllOrdersBody = Type.Object(
  {
    address: Type.String({ pattern: ADDRESS_PATTERN }),
    accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })),
    marketId: Type.Optional(orNull(Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }))),
    validUntil: Type.Optional(orNull(Type.Integer({ minimum: 0 }))),
  },
  { additionalProperties: true },
);

export type CancelAllOrdersBody = Static<typeof CancelAllOrdersBody>;

/** 202: the subaccount's open orders (of one market when named) are canceled; fields in the order written. */
export const CancelAllOrdersAccepted = Type.Object({
  address: Type.String(),
  accountIndex: Type.Integer(),
  status: Type.Literal('CANCEL_ALL_ACKNOWLEDGED'),
  updateTime: Type.Number(),
  marketId: Type.Optional(Type.Integer()),
  marketDisplayName: Type.Optional(Type.String()),
  rateLimit: Type.Optional(RateLimitInfo),
});
export const CANCEL_ALL_ORDERS_RESPONSES = { 202: CancelAllOrdersAccepted, ...REFUSALS } as const;

export const cancelAllOrders: Operation<typeof CANCEL_ALL_ORDERS_RESPONSES> = {
  name: 'cancelAllOrders',
  method: 'POST',
  path: '/v1/cancelAllOrders',
  auth: 'signed',
  description: 'cancel all open orders of a subaccount, or of one market',
  schema: { body: CancelAllOrdersBody },
  response: CANCEL_ALL_ORDERS_RESPONSES,
  errorSource: 'Cancel',
  weight: 'cancelAllOrders',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as CancelAllOrdersBody;
    const accountIndex = body.accountIndex ?? 0;
    return sequenced(state, walletOf(request.query, body), () => scheme2Context(state, request, accountIndex), (ctx) => {
      if (isReply(ctx)) return ctx;
      const expired = checkValidUntil(state, 'Cancel', body.validUntil);
      if (expired !== undefined) return expired;
      const marketId = body.marketId ?? undefined;
      const ms = marketId === undefined ? undefined : resolveMarket(state.exchange, marketId);
      if (marketId !== undefined && ms === undefined) return refuse(ERRORS.unknownMarket, 'Cancel');
      const charge = chargeOnce(state, ctx.headers.signature, () => chargeOrderWrite(state, request, 'cancelAllOrders', ctx.address, accountIndex, 1, { kind: 'other' }));
      if (isReply(charge)) return charge;
      const result = state.exchange.submit({ type: 'cancelAll', address: ctx.address, accountIndex, marketId });
      if (result.kind === 'invalid') return engineInvalid('Cancel', result);
      const market = ms === undefined ? {} : { marketId: ms.spec.id, marketDisplayName: ms.spec.displayName };
      return { status: 202, body: { address: ctx.address, accountIndex, status: 'CANCEL_ALL_ACKNOWLEDGED', updateTime: state.exchange.clock(), ...market, rateLimit: charge.rateLimit } };
    });
  },
};
