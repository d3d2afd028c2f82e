/**
 * POST /v1/cancelAllOrders — cancel every open and untriggered order of a subaccount, or of one
 * of its markets (Scheme 2), unless `validUntil` (epoch ms) has passed. Charges the cancel pool
 * the configured cancel-all cost (1,000 by default); a 429 carries no client ids. Reply 202
 * CANCEL_ALL_ACKNOWLEDGED; each order's CANCELED follows on the orders channel.
 * Spec: interface.md "Order management", "Cancel-all response"; supplement §4, §12.
 * Checks run in the order `handle` calls them (400 → 401/403 → 401 → 400 → 409 → 429 → the
 * engine).
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { engineInvalid, ERRORS, refuse } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { RateLimitInfo, REFUSALS } from '../../contract/reply-schema.ts';
import { chargeOrderWrite } from '../support/charge.ts';
import { ADDRESS_PATTERN, isReply } from '../support/common.ts';
import { chargeOnce, checkValidUntil, orNull, scheme2Context } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';

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
