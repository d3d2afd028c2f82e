/**
 * POST /v1/batchCancelOrders — 1 to 100 cancelOrder elements, each signed on its own (op 2). An
 * element naming both or neither of orderId / clientId makes the whole request 400 (the
 * interface: "both gives 400"); any other element failure is its ERROR row. Accepted cancels
 * are submitted one by one, in order; rows are the single replies without rateLimit. The
 * envelope is order-write-support.ts's.
 * Spec: interface.md "Order management"; supplement §2.
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { ERRORS, refuse, type ErrorBody } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { isReply } from '../support/common.ts';
import { cancelCommand, cancelReply, CancelOrderBody, type ParsedCancel, CancelOrderAccepted, CancelOrderRejected } from './cancel-order.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';
import {
  batchContext,
  batchHeaderRefusal,
  batchReply,
  chargeBatch,
  checkTarget,
  elementRow,
  everyRow,
  parseElements,
  type ParsedElements,
  present,
  targetRowIds,
  batchReplies,
 
} from '../support/order-write-support.ts';

export const BatchCancelOrdersBody = Type.Object(
  {
    cancels: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: LIMITS.batchMin, maxItems: LIMITS.batchMax }),
  },
  { additionalProperties: true },
);

/** Rows: the element's CancelOrder reply (202 or 200 schema, no rateLimit) or an ERROR row. */
export const BATCH_CANCEL_ORDERS_RESPONSES = batchReplies(CancelOrderAccepted, CancelOrderRejected);
type Row = Static<(typeof BATCH_CANCEL_ORDERS_RESPONSES)[200]['properties']['responses']['items']>;

export const batchCancelOrders: Operation<typeof BATCH_CANCEL_ORDERS_RESPONSES> = {
  name: 'batchCancelOrders',
  method: 'POST',
  path: '/v1/batchCancelOrders',
  auth: 'signed',
  description: 'cancel up to 100 orders, each signed',
  schema: { body: BatchCancelOrdersBody },
  response: BATCH_CANCEL_ORDERS_RESPONSES,
  errorSource: 'Cancel',
  weight: 'batchCancelOrders',
  mutates: true,
  handle: (state, request) => {
    const { cancels } = request.body as { cancels: unknown[] };
    const refusal = batchHeaderRefusal(request, cancels, targetRowIds);
    if (refusal !== undefined) return refusal;
    // Both (or neither) identifiers on any element: the whole request is invalid.
    for (const [index, element] of cancels.entries()) {
      const [orderId, clientId] = [present((element as CancelOrderBody | null)?.orderId), present((element as CancelOrderBody | null)?.clientId)];
      const target = checkTarget('Cancel', orderId, clientId);
      if (target !== undefined) return refuse(ERRORS.batchElementInvalid, 'Cancel', `cancels/${index}`, (target.body as ErrorBody).error);
    }
    const ctx = batchContext(state, request, 'Cancel', cancels);
    if (isReply(ctx)) return ctx;

    const parse = (): Maybe<ParsedElements<ParsedCancel>> =>
      parseElements(state.validator, cancels, 'cancels', CancelOrderBody, targetRowIds, (element: CancelOrderBody) => cancelCommand(state, request, element, element.signature ?? '', 'present'));
    return sequenced(state, walletOf(request.query, request.body), parse, (parsed) => {
      const charge = chargeBatch(state, request, 'batchCancelOrders', ctx, cancels, parsed, targetRowIds);
      if (isReply(charge)) return charge;
      const { accepted } = parsed;
      const rows: (Row | undefined)[] = parsed.rows;
      for (const { index, parsed } of accepted) {
        rows[index] = elementRow(cancelReply(state, parsed, state.exchange.submit(parsed.command), undefined), parsed.orderId, parsed.clientId);
      }
      return batchReply(everyRow(cancels, rows, targetRowIds), charge.rateLimit, 'CANCEL_ACKNOWLEDGED');
    });
  },
};
