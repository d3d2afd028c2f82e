/**
 * POST /v1/modifyOrder — change a resting order's price and total size (Scheme 1, op 3).
 * Exactly one of orderId / clientId names the target; side, timeInForce and reduceOnly are
 * immutable echoes; a different goodTilTime is a cancel-replace. The signature verifies in
 * every form the sources disagree on, with the fields the body leaves out taken from the target
 * as the gateway last saw it (0 when unknown). Reply 202 ACK (applied or buffered) or 200
 * REJECTED with its rejectionReason; the reply schema is `RESPONSES`.
 * Spec: interface.md "Modify-order request body"; supplement §2, §3, §12.
 * Checks run in the order `handle` calls them (400 → 401/403 → 400 Tick → 401 → 409 → 429 →
 * the engine).
 */
import { Type, type Static } from 'typebox';
import { LIMITS, REJECTION_REASONS } from '../../../engine/spec.ts';
import { findAccount, priceToTicks, sizeToQuantums } from '../../../engine/index.ts';
import type { ModifyOrderCommand, OrderEvent, ResultOf, SideCode, TifCode } from '../../../engine/index.ts';
import { goodTilTimeNs } from '../../auth/index.ts';
import { engineInvalid, ERRORS, refuse, type Refusal, type Reply } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import { orderIdString, parseOrderId, size as formatSize } from '../../contract/format.ts';
import type { GatewayState, Operation, OperationRequest } from '../../contract/operation.ts';
import { REFUSALS, stringEnum } from '../../contract/reply-schema.ts';
import type { OrderWriteRateLimit } from '../../rate-limit/index.ts';
import { chargeOrderWrite } from '../support/charge.ts';
import { ADDRESS_PATTERN, isReply, withScheme1Signature } from '../support/common.ts';
import { chargeOnce, checkTarget, clientTimeOf, ORDER_REPLY_HEAD, orderWriteReplies, orderWriteContext, orNull, present, scheme1Refusal, sideCode, tifCode } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';
import { orderOf } from '../../read-models/history-store.ts';

const DECIMAL = Type.String({ minLength: 1, maxLength: 64 });

export const ModifyOrderBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax }),
    marketId: Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }),
    goodTilTime: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{1,20}$' }), Type.Integer({ minimum: 0 })])),
    quantity: DECIMAL,
    price: DECIMAL,
    reduceOnly: Type.Optional(orNull(Type.Boolean())),
    orderId: Type.Optional(orNull(Type.String({ maxLength: 64 }))),
    clientId: Type.Optional(orNull(Type.String({ maxLength: LIMITS.clientIdMaxLength, pattern: '^[A-Za-z0-9_-]*$' }))),
    clientTime: Type.Optional(Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]{0,20}$' })])),
    side: Type.Optional(Type.String()),
    orderSide: Type.Optional(Type.String()),
    timeInForce: Type.Optional(Type.String()),
    timestamp: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    signature: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export type ModifyOrderBody = Static<typeof ModifyOrderBody>;

const { address, accountIndex, ...target } = ORDER_REPLY_HEAD;
/**
 * The replies (supplement §3): 202 ACK, applied (in place, crossing, cancel-replace) or buffered
 * for a target not yet on the book; 200 REJECTED, refused, or the replacement was rejected.
 */
const MODIFY_ORDER_REPLIES = orderWriteReplies({ address, accountIndex, clientTime: Type.Number(), ...target }, {
  updateTime: Type.Number(),
  goodTilTime: Type.String(),
  originalSize: Type.String(),
  remainingSize: Type.String(),
  filledSize: Type.String(),
}, 'ACK', { rejectionReason: Type.Optional(stringEnum(REJECTION_REASONS)) });
export const ModifyOrderAccepted = MODIFY_ORDER_REPLIES.accepted;
export const ModifyOrderRejected = MODIFY_ORDER_REPLIES.rejected;
export const MODIFY_ORDER_RESPONSES = { 200: ModifyOrderRejected, 202: ModifyOrderAccepted, ...REFUSALS } as const;
type ModifyOrderReply = Reply<Static<typeof ModifyOrderAccepted>> | Reply<Static<typeof ModifyOrderRejected>> | Refusal;

export interface ParsedModify {
  command: Omit<ModifyOrderCommand, 'time'>;
  displayName: string;
  /** The identifiers as sent ("" / null normalized to undefined). */
  orderId: string | undefined;
  clientId: string | undefined;
  /** The target as the read model last saw it, before the modify. */
  target: OrderEvent | undefined;
  clientTime: number;
}

/** The caller's order named by orderId or clientId, live or recently ended, as last seen. */
export function findOwnOrder(state: GatewayState, address: string, accountIndex: number, orderId: number | undefined, clientId: string | undefined): OrderEvent | undefined {
  const own = (e: OrderEvent | undefined): OrderEvent | undefined => (e !== undefined && e.address === address && e.accountIndex === accountIndex ? e : undefined);
  if (orderId !== undefined) return own(orderOf(state.exchange, orderId));
  if (clientId === undefined) return undefined;
  const live = findAccount(state.exchange.engine.accounts, address, accountIndex)?.clientIds.get(clientId);
  if (live !== undefined) return own(state.exchange.orders.get(live.id));
  const closed = state.exchange.history.closedOrders(accountKeyOf(address, accountIndex));
  for (let i = closed.length - 1; i >= 0; i--) {
    const e = own(closed[i]);
    if (e !== undefined && e.clientId === clientId) return e;
  }
  return undefined;
}

/**
 * Authorizes one modify body into an engine command; a Reply when it is refused. `signature`
 * is X-Signature for a single modify, the element's own in a batch.
 */
export function modifyCommand(state: GatewayState, request: OperationRequest, body: ModifyOrderBody, signature: string, outer: 'verified' | 'present'): Maybe<ParsedModify | Refusal> {
  const orderId = present(body.orderId);
  const clientId = present(body.clientId);
  const target = checkTarget('Order', orderId, clientId);
  if (target !== undefined) return target;
  const resolved = orderWriteContext(state, request, body, 'Order', outer);
  if (isReply(resolved)) return resolved;
  const { ctx, ms } = resolved;
  const id = orderId === undefined ? undefined : parseOrderId(orderId);
  if (id === null) return refuse(ERRORS.invalidOrderId, 'Order');
  const sideText = body.side ?? body.orderSide;
  let side: SideCode | undefined;
  if (sideText !== undefined) {
    side = sideCode(sideText);
    if (side === undefined) return refuse(ERRORS.invalidSide, 'Order', sideText);
  }
  let tif: TifCode | undefined;
  if (body.timeInForce !== undefined) {
    tif = tifCode(body.timeInForce);
    if (tif === undefined) return refuse(ERRORS.invalidTimeInForce, 'Order', body.timeInForce);
  }
  const ticks = priceToTicks(ms.spec, body.price);
  if (ticks === null) return refuse(ERRORS.priceNotOnTick, 'Order');
  const quantums = sizeToQuantums(ms.spec, body.quantity);
  if (quantums === null) return refuse(ERRORS.quantityNotOnStep, 'Order');
  let gtt: number | undefined;
  if (body.goodTilTime !== undefined) {
    gtt = Number(body.goodTilTime);
    if (!Number.isSafeInteger(gtt)) return refuse(ERRORS.invalidGoodTilTime, 'Order');
  }
  const reduceOnly = body.reduceOnly ?? undefined;
  const resting = findOwnOrder(state, ctx.address, body.accountIndex, id, clientId);
  const g = goodTilTimeNs(gtt ?? resting?.goodTilTime ?? 0) ?? 0n;
  return withScheme1Signature(state, ctx.key.apiKey, signature, 3, {
    address: ctx.address,
    accountIndex: body.accountIndex,
    clientId: clientId ?? resting?.clientId,
    clientTimeNs: ctx.headers.timestampNs,
    goodTilTimeNs: g,
    orderId: orderId ?? (resting === undefined ? undefined : orderIdString(resting.orderId)),
    marketId: body.marketId,
    priceTicks: ticks,
    sizeQuantums: quantums,
    reduceOnly: reduceOnly ?? resting?.reduceOnly ?? false,
    side: side ?? resting?.side ?? 0,
    timeInForce: tif ?? resting?.tif ?? 0,
  }, (verified) => {
    if (!verified) return scheme1Refusal(outer);
    return {
      displayName: ms.spec.displayName,
      orderId,
      clientId,
      target: resting,
      clientTime: clientTimeOf(body.clientTime),
      command: {
        type: 'modifyOrder',
        address: ctx.address,
        accountIndex: body.accountIndex,
        marketId: body.marketId,
        orderId: id,
        clientId,
        price: ticks,
        size: quantums,
        side,
        tif,
        reduceOnly,
        goodTilTime: gtt,
      },
    };
  });
}

/**
 * Submits a parsed modify in its turn. The target is read again first: an earlier write of the
 * same wallet (sequencer.ts) may have changed it since the request was verified.
 */
export function submitModify(state: GatewayState, parsed: ParsedModify): ResultOf<ModifyOrderCommand> {
  const { address, accountIndex, orderId, clientId } = parsed.command;
  parsed.target = findOwnOrder(state, address, accountIndex, orderId, clientId);
  return state.exchange.submit(parsed.command);
}

/** The modify's reply (status and body) from the engine's result. */
export function modifyReply(state: GatewayState, parsed: ParsedModify, result: ResultOf<ModifyOrderCommand>, rateLimit: OrderWriteRateLimit | undefined): ModifyOrderReply {
  if (result.kind === 'invalid') return engineInvalid('Order', result);
  const { command, target } = parsed;
  const spec = state.exchange.engine.markets.get(command.marketId)!.spec;
  const orderNumber = result.kind === 'buffered' ? target?.orderId ?? command.orderId : result.orderId ?? target?.orderId ?? command.orderId;
  const after = orderNumber === undefined ? undefined : findOwnOrder(state, command.address, command.accountIndex, orderNumber, undefined);
  const rejected = result.kind === 'rejected' || (result.kind === 'order' && result.status === 'REJECTED');
  // Written out in the order of the reply's fields (batch rows are written with JSON.stringify),
  // as literals: spreading shared parts made V8 define each key through its runtime
  // (docs/decisions.md, "Event-loop cost per signed order").
  const { address, accountIndex, marketId } = command;
  const clientTime = parsed.clientTime;
  const orderId = orderNumber === undefined ? '' : orderIdString(orderNumber);
  const clientId = after?.clientId ?? parsed.clientId ?? '';
  const marketDisplayName = parsed.displayName;
  const updateTime = state.exchange.clock();
  const goodTilTime = String(after?.goodTilTime ?? command.goodTilTime ?? target?.goodTilTime ?? '');
  const originalSize = formatSize(spec, target?.size ?? command.size);
  const remainingSize = formatSize(spec, after?.remaining ?? command.size);
  const filledSize = formatSize(spec, after?.filled ?? 0);
  if (rejected) {
    const rejectionReason = result.kind === 'rejected' ? result.rejectionReason : result.kind === 'order' ? result.rejectionReason : undefined;
    return {
      status: 200,
      body: { address, accountIndex, clientTime, orderId, clientId, marketId, marketDisplayName, status: 'REJECTED', updateTime, goodTilTime, originalSize, remainingSize, filledSize, rejectionReason, rateLimit },
    };
  }
  return {
    status: 202,
    body: { address, accountIndex, clientTime, orderId, clientId, marketId, marketDisplayName, status: 'ACK', updateTime, goodTilTime, originalSize, remainingSize, filledSize, rateLimit },
  };
}

export const modifyOrder: Operation<typeof MODIFY_ORDER_RESPONSES> = {
  name: 'modifyOrder',
  method: 'POST',
  path: '/v1/modifyOrder',
  auth: 'signed',
  description: 'modify a resting order (price, size; a new goodTilTime cancel-replaces)',
  schema: { body: ModifyOrderBody },
  response: MODIFY_ORDER_RESPONSES,
  errorSource: 'Order',
  weight: 'modifyOrder',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as ModifyOrderBody;
    const signature = String(request.headers['x-signature'] ?? '');
    return sequenced(state, walletOf(request.query, body), () => modifyCommand(state, request, body, signature, 'verified'), (parsed) => {
      if (isReply(parsed)) return parsed;
      const charge = chargeOnce(state, signature, () =>
        chargeOrderWrite(state, request, 'modifyOrder', parsed.command.address, body.accountIndex, 1, { kind: 'order', clientId: parsed.clientId }),
      );
      if (isReply(charge)) return charge;
      return modifyReply(state, parsed, submitModify(state, parsed), charge.rateLimit);
    });
  },
};
