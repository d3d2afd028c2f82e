/**
 * POST /v1/cancelOrder — cancel one order named by exactly one of orderId / clientId (Scheme 1,
 * op 2; `id` verified as sent, `c` as sent then lowercased). Reply 202 CANCEL_ACKNOWLEDGED when
 * the engine canceled it (CANCELED follows on the orders channel), 200 REJECTED ORDER_NOT_FOUND
 * when it refused; the reply schema is `RESPONSES`.
 * Spec: interface.md "Order management"; supplement §2. Checks run in the order `handle` calls
 * them (400 → 401/403 → 400 → 401 → 400 validUntil → 409 → 429 → the engine).
 * perpsim's choices: docs/decisions.md "Order-write operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS, REJECTION_REASONS } from '../../../engine/spec.ts';
import type { CancelOrderCommand, ResultOf } from '../../../engine/index.ts';
import { engineInvalid, ERRORS, refuse, type Refusal, type Reply } from '../../contract/errors.ts';
import { orderIdString, parseOrderId, size as formatSize } from '../../contract/format.ts';
import type { GatewayState, Operation, OperationRequest } from '../../contract/operation.ts';
import { REFUSALS, stringEnum } from '../../contract/reply-schema.ts';
import type { OrderWriteRateLimit } from '../../rate-limit/index.ts';
import { chargeOrderWrite } from '../support/charge.ts';
import { ADDRESS_PATTERN, isReply, withScheme1Signature } from '../support/common.ts';
import { chargeOnce, checkTarget, checkValidUntil, ORDER_REPLY_HEAD, orderWriteContext, orderWriteReplies, orNull, present, scheme1Refusal } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';
import { orderOf } from '../../read-models/history-store.ts';


export const CancelOrderBody = Type.Object(
  {
    address: Type.Optional(Type.String({ pattern: ADDRESS_PATTERN })),
    accountIndex: Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax }),
    marketId: Type.Integer({ minimum: 0, maximum: LIMITS.marketIdMax }),
    timestamp: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    orderId: Type.Optional(orNull(Type.String({ maxLength: 64 }))),
    clientId: Type.Optional(orNull(Type.String({ maxLength: LIMITS.clientIdMaxLength, pattern: '^[A-Za-z0-9_-]*$' }))),
    kind: Type.Optional(Type.Union([Type.Literal('orderId'), Type.Literal('clientId')])),
    validUntil: Type.Optional(orNull(Type.Integer({ minimum: 0 }))),
    signature: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export type CancelOrderBody = Static<typeof CancelOrderBody>;

/**
 * The replies: 202 CANCEL_ACKNOWLEDGED, the engine canceled the order (CANCELED follows on the
 * orders channel); 200 REJECTED (ORDER_NOT_FOUND), with the sizes when the order is remembered.
 */
const CANCEL_ORDER_REPLIES = orderWriteReplies(ORDER_REPLY_HEAD, { updateTime: Type.Number() }, 'CANCEL_ACKNOWLEDGED', {
  remainingSize: Type.Optional(Type.String()),
  filledSize: Type.Optional(Type.String()),
  rejectionReason: stringEnum(REJECTION_REASONS),
});
export const CancelOrderAccepted = CANCEL_ORDER_REPLIES.accepted;
export const CancelOrderRejected = CANCEL_ORDER_REPLIES.rejected;
export const CANCEL_ORDER_RESPONSES = { 200: CancelOrderRejected, 202: CancelOrderAccepted, ...REFUSALS } as const;
type CancelOrderReply = Reply<Static<typeof CancelOrderAccepted>> | Reply<Static<typeof CancelOrderRejected>> | Refusal;

export interface ParsedCancel {
  command: Omit<CancelOrderCommand, 'time'>;
  displayName: string;
  /** The identifiers as sent ("" / null normalized to undefined). */
  orderId: string | undefined;
  clientId: string | undefined;
}

/** The body's rules that need no key: the target rule and `kind`. */
export function cancelShape(body: CancelOrderBody): Refusal | undefined {
  const orderId = present(body.orderId);
  const clientId = present(body.clientId);
  const target = checkTarget('Cancel', orderId, clientId);
  if (target !== undefined) return target;
  if (body.kind !== undefined && (body.kind === 'orderId') !== (orderId !== undefined)) {
    return refuse(ERRORS.kindMismatch, 'Cancel', body.kind, orderId !== undefined ? 'orderId' : 'clientId');
  }
  return undefined;
}

/**
 * Authorizes one cancel body into an engine command; a Reply when it is refused. `signature`
 * is the payload signature: X-Signature for a single cancel, the element's own in a batch.
 */
export function cancelCommand(state: GatewayState, request: OperationRequest, body: CancelOrderBody, signature: string, outer: 'verified' | 'present'): Maybe<ParsedCancel | Refusal> {
  const shape = cancelShape(body);
  if (shape !== undefined) return shape;
  const orderId = present(body.orderId);
  const clientId = present(body.clientId);
  const resolved = orderWriteContext(state, request, body, 'Cancel', outer);
  if (isReply(resolved)) return resolved;
  const { ctx, ms } = resolved;
  const id = orderId === undefined ? undefined : parseOrderId(orderId);
  if (id === null) return refuse(ERRORS.invalidOrderId, 'Cancel');
  return withScheme1Signature(state, ctx.key.apiKey, signature, 2, {
    address: ctx.address,
    accountIndex: body.accountIndex,
    clientId,
    clientTimeNs: ctx.headers.timestampNs,
    orderId,
    marketId: body.marketId,
  }, (verified) => {
    if (!verified) return scheme1Refusal(outer);
    const expired = checkValidUntil(state, 'Cancel', body.validUntil);
    if (expired !== undefined) return expired;
    return {
      displayName: ms.spec.displayName,
      orderId,
      clientId,
      command: { type: 'cancelOrder', address: ctx.address, accountIndex: body.accountIndex, marketId: body.marketId, orderId: id, clientId },
    };
  });
}

/** The cancel's reply body (without rateLimit) and status, from the engine's result. */
export function cancelReply(state: GatewayState, parsed: ParsedCancel, result: ResultOf<CancelOrderCommand>, rateLimit: OrderWriteRateLimit | undefined): CancelOrderReply {
  if (result.kind === 'invalid') return engineInvalid('Cancel', result);
  const { command } = parsed;
  const orderNumber = result.orderId ?? command.orderId;
  const remembered = orderNumber === undefined ? undefined : orderOf(state.exchange, orderNumber);
  // Only the caller's own order in this market says anything about the target.
  const event = remembered !== undefined && remembered.address === command.address && remembered.accountIndex === command.accountIndex && remembered.marketId === command.marketId ? remembered : undefined;
  // Written out in the order of the reply's fields (batch rows are written with JSON.stringify),
  // as literals: spreading shared parts made V8 define each key through its runtime
  // (docs/decisions.md, "Event-loop cost per signed order").
  const { address, accountIndex, marketId } = command;
  const orderId = orderNumber === undefined ? '' : orderIdString(orderNumber);
  const clientId = event?.clientId ?? parsed.clientId ?? '';
  const marketDisplayName = parsed.displayName;
  const updateTime = state.exchange.clock();
  if (result.kind === 'rejected') {
    const rejectionReason = result.rejectionReason;
    if (event === undefined) {
      return { status: 200, body: { address, accountIndex, orderId, clientId, marketId, marketDisplayName, status: 'REJECTED', updateTime, rejectionReason, rateLimit } };
    }
    const spec = state.exchange.engine.markets.get(event.marketId)!.spec;
    const remainingSize = formatSize(spec, event.remaining);
    const filledSize = formatSize(spec, event.filled);
    return {
      status: 200,
      body: { address, accountIndex, orderId, clientId, marketId, marketDisplayName, status: 'REJECTED', updateTime, remainingSize, filledSize, rejectionReason, rateLimit },
    };
  }
  return { status: 202, body: { address, accountIndex, orderId, clientId, marketId, marketDisplayName, status: 'CANCEL_ACKNOWLEDGED', updateTime, rateLimit } };
}

export const cancelOrder: Operation<typeof CANCEL_ORDER_RESPONSES> = {
  name: 'cancelOrder',
  method: 'POST',
  path: '/v1/cancelOrder',
  auth: 'signed',
  description: 'cancel an order by orderId or clientId',
  schema: { body: CancelOrderBody },
  response: CANCEL_ORDER_RESPONSES,
  errorSource: 'Cancel',
  weight: 'cancelOrder',
  mutates: true,
  handle: (state, request) => {
    const body = request.body as CancelOrderBody;
    const signature = String(request.headers['x-signature'] ?? '');
    return sequenced(state, walletOf(request.query, body), () => cancelCommand(state, request, body, signature, 'verified'), (parsed) => {
      if (isReply(parsed)) return parsed;
      const charge = chargeOnce(state, signature, () =>
        chargeOrderWrite(state, request, 'cancelOrder', parsed.command.address, body.accountIndex, 1, { kind: 'order', clientId: parsed.clientId }),
      );
      if (isReply(charge)) return charge;
      return cancelReply(state, parsed, state.exchange.submit(parsed.command), charge.rateLimit);
    });
  },
};
