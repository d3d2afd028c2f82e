/**
 * POST /v1/placeOrder — a signed order write (Scheme 1, op 1; op 4 for a TPSL order). An engine
 * rejection answers 200 REJECTED with its rejectionReason; an accepted order 202 ACK with its
 * orderId, its lifecycle following on the orders / userFills channels.
 * Spec: interface.md "Order management"; supplement §2, §3. Checks run in the order `handle`
 * calls them (400 → 401/403 → 400 Tick → 401 → 409 → 429 → the engine).
 */
import { Type, type Static } from 'typebox';
import { LIMITS, ORDER_TYPES, REJECTION_REASONS, SIDES, TPSL_TYPES } from '../../../engine/spec.ts';
import type { PlaceOrderCommand, ResultOf } from '../../../engine/index.ts';
import { priceToTicks, sizeToQuantums } from '../../../engine/index.ts';
import { goodTilTimeNs } from '../../auth/index.ts';
import { engineInvalid, ERRORS, refuse, type Refusal, type Reply } from '../../contract/errors.ts';
import { orderIdString, price as formatPrice, size as formatSize } from '../../contract/format.ts';
import type { GatewayState, Operation, OperationRequest } from '../../contract/operation.ts';
import { REFUSALS, stringEnum } from '../../contract/reply-schema.ts';
import type { OrderWriteRateLimit } from '../../rate-limit/index.ts';
import { chargeOrderWrite } from '../support/charge.ts';
import { ADDRESS_PATTERN, isReply, withScheme1Signature } from '../support/common.ts';
import { chargeOnce, clientTimeOf, ORDER_REPLY_HEAD, orderWriteContext, orderWriteReplies, scheme1Refusal, tifCode } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';
import { orderOf } from '../../read-models/history-store.ts';

const DECIMAL = Type.String({ minLength: 1, maxLength: 64 });

export const PlaceOrderBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax }),
    marketId: Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }),
    orderSide: Type.Union([Type.Literal(SIDES[0]), Type.Literal(SIDES[1])]),
    orderType: Type.Union([Type.Literal(ORDER_TYPES[0]), Type.Literal(ORDER_TYPES[1])]),
    timeInForce: Type.String(),
    quantity: DECIMAL,
    price: DECIMAL,
    goodTilTime: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Integer({ minimum: 0 })])),
    timestamp: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.clientIdMaxLength, pattern: '^[A-Za-z0-9_-]+$' })),
    reduceOnly: Type.Optional(Type.Boolean()),
    tpslType: Type.Optional(Type.String()),
    tpsl_type: Type.Optional(Type.String()),
    stopPrice: Type.Optional(DECIMAL),
    isPositionTPSL: Type.Optional(Type.Boolean()),
    clientTime: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    signature: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

type Body = Static<typeof PlaceOrderBody>;

/**
 * The replies (supplement §3): 202 ACK, the engine accepted the order (its lifecycle follows on
 * the orders / userFills channels); 200 REJECTED, definitive, `error` repeating the rejectionReason.
 */
const PLACE_ORDER_REPLIES = orderWriteReplies(ORDER_REPLY_HEAD, {
  quantity: Type.String(),
  price: Type.String(),
  timeInForce: Type.String(),
  goodTilTime: Type.String(),
  reduceOnly: Type.Boolean(),
  clientTime: Type.Number(),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  updateTime: Type.Number(),
  remainingSize: Type.String(),
  filledSize: Type.String(),
}, 'ACK', { rejectionReason: Type.Optional(stringEnum(REJECTION_REASONS)), error: Type.Optional(stringEnum(REJECTION_REASONS)) });
export const PlaceOrderAccepted = PLACE_ORDER_REPLIES.accepted;
export const PlaceOrderRejected = PLACE_ORDER_REPLIES.rejected;
export const PLACE_ORDER_RESPONSES = { 200: PlaceOrderRejected, 202: PlaceOrderAccepted, ...REFUSALS } as const;
type PlaceOrderReply = Reply<Static<typeof PlaceOrderAccepted>> | Reply<Static<typeof PlaceOrderRejected>> | Refusal;

/**
 * Parses and authorizes one order body into an engine command; a Reply when it is refused.
 * `signature` is the payload signature: the X-Signature header for a single order, the
 * element's own for a batch element.
 */
export function orderCommand(state: GatewayState, request: OperationRequest, body: Body, signature: string, outer: 'verified' | 'present'): Maybe<{ command: Omit<PlaceOrderCommand, 'time'>; displayName: string } | Refusal> {
  const resolved = orderWriteContext(state, request, body, 'Order', outer);
  if (isReply(resolved)) return resolved;
  const { ctx, ms } = resolved;
  const tif = tifCode(body.timeInForce);
  if (tif === undefined) return refuse(ERRORS.invalidTimeInForce, 'Order', body.timeInForce);
  const tpslType = body.tpslType ?? body.tpsl_type;
  if (tpslType !== undefined && !(TPSL_TYPES as readonly string[]).includes(tpslType)) {
    return refuse(ERRORS.invalidTpslType, 'Order');
  }
  const ticks = priceToTicks(ms.spec, body.price);
  if (ticks === null) return refuse(ERRORS.priceNotOnTick, 'Order');
  const quantums = sizeToQuantums(ms.spec, body.quantity);
  if (quantums === null) return refuse(ERRORS.quantityNotOnStep, 'Order');
  let stop: number | undefined;
  if (body.stopPrice !== undefined) {
    const parsed = priceToTicks(ms.spec, body.stopPrice);
    if (parsed === null) return refuse(ERRORS.stopPriceNotOnTick, 'Order');
    stop = parsed;
  }
  if (body.goodTilTime === undefined) return refuse(ERRORS.goodTilTimeRequired, 'Order');
  const gtt = Number(body.goodTilTime);
  const g = goodTilTimeNs(String(body.goodTilTime));
  if (!Number.isSafeInteger(gtt) || g === null) return refuse(ERRORS.invalidGoodTilTime, 'Order');
  const side = body.orderSide === 'BUY' ? 0 : 1;
  const reduceOnly = body.reduceOnly === true;
  const op = tpslType !== undefined ? 4 : 1;
  return withScheme1Signature(state, ctx.key.apiKey, signature, op, {
    address: ctx.address,
    accountIndex: body.accountIndex,
    clientId: body.clientId,
    clientTimeNs: ctx.headers.timestampNs,
    goodTilTimeNs: g,
    marketId: body.marketId,
    priceTicks: ticks,
    sizeQuantums: quantums,
    reduceOnly,
    side,
    timeInForce: tif,
  }, (verified) => {
    if (!verified) return scheme1Refusal(outer);
    return {
      displayName: ms.spec.displayName,
      command: {
        type: 'placeOrder',
        address: ctx.address,
        accountIndex: body.accountIndex,
        marketId: body.marketId,
        side,
        orderType: body.orderType === 'MARKET' ? 1 : 0,
        tif,
        price: ticks,
        size: quantums,
        reduceOnly,
        clientId: body.clientId,
        goodTilTime: gtt,
        tpslType: tpslType as PlaceOrderCommand['tpslType'],
        stopPrice: stop,
        isPositionTpsl: body.isPositionTPSL,
      },
    };
  });
}

export const placeOrder: Operation<typeof PLACE_ORDER_RESPONSES> = {
  name: 'placeOrder',
  method: 'POST',
  path: '/v1/placeOrder',
  auth: 'signed',
  description: 'place an order',
  schema: { body: PlaceOrderBody },
  response: PLACE_ORDER_RESPONSES,
  errorSource: 'Order',
  weight: 'placeOrder',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as Body;
    const signature = String(request.headers['x-signature'] ?? '');
    return sequenced(state, walletOf(request.query, body), () => orderCommand(state, request, body, signature, 'verified'), (parsed) => {
      if (isReply(parsed)) return parsed;
      const charge = chargeOnce(state, signature, () =>
        chargeOrderWrite(state, request, 'placeOrder', parsed.command.address, body.accountIndex, 1, { kind: 'order', clientId: body.clientId }),
      );
      if (isReply(charge)) return charge;
      const result = state.exchange.submit(parsed.command);
      return orderReply(state, parsed.command, parsed.displayName, result, charge.rateLimit, body);
    });
  },
};

export function orderReply(
  state: GatewayState,
  command: Omit<PlaceOrderCommand, 'time'>,
  displayName: string,
  result: ResultOf<PlaceOrderCommand>,
  rateLimit: OrderWriteRateLimit | undefined,
  body: Body,
): PlaceOrderReply {
  if (result.kind === 'invalid') return engineInvalid('Order', result);
  const ms = state.exchange.engine.markets.get(command.marketId)!;
  const now = state.exchange.clock();
  const event = orderOf(state.exchange, result.orderId);
  const rejected = result.status === 'REJECTED';
  // Written out in the order of the reply's fields (batch rows are written with JSON.stringify),
  // as literals: spreading shared parts made V8 define each key through its runtime (about 8 µs
  // an order, docs/decisions.md "Event-loop cost per signed order").
  const orderId = orderIdString(result.orderId);
  const clientId = command.clientId ?? '';
  const quantity = formatSize(ms.spec, command.size);
  const price = formatPrice(ms.spec, command.price);
  const goodTilTime = String(command.goodTilTime);
  const clientTime = clientTimeOf(body.clientTime);
  const createdAt = event?.createdAt ?? now;
  const updatedAt = event?.time ?? now;
  const remainingSize = formatSize(ms.spec, rejected ? command.size : event?.remaining ?? command.size);
  const filledSize = formatSize(ms.spec, rejected ? 0 : event?.filled ?? 0);
  const { address, accountIndex, marketId, reduceOnly } = command;
  const timeInForce = body.timeInForce;
  if (rejected) {
    const reason = result.rejectionReason;
    return {
      status: 200,
      body: { address, accountIndex, orderId, clientId, marketId, marketDisplayName: displayName, status: 'REJECTED', quantity, price, timeInForce, goodTilTime, reduceOnly, clientTime, createdAt, updatedAt, updateTime: now, remainingSize, filledSize, rejectionReason: reason, error: reason, rateLimit },
    };
  }
  return {
    status: 202,
    body: { address, accountIndex, orderId, clientId, marketId, marketDisplayName: displayName, status: 'ACK', quantity, price, timeInForce, goodTilTime, reduceOnly, clientTime, createdAt, updatedAt, updateTime: now, remainingSize, filledSize, rateLimit },
  };
}
