/**
 * POST /v1/batchModifyOrders — up to 100 modifyOrder elements, each signed on its own (op 3).
 * Every element failure is that element's ERROR row (unlike batchCancelOrders, naming both or
 * neither target too: "a failing element shows up as a row with status ERROR"); engine outcomes
 * are the single replies without rateLimit. Accepted modifies are submitted one by one, in
 * order. The envelope is order-write-support.ts's.
 * Spec: interface.md "Order management"; supplement §2.
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import type { Operation } from '../../contract/operation.ts';
import { isReply } from '../support/common.ts';
import { modifyCommand, ModifyOrderBody, modifyReply, submitModify, type ParsedModify, ModifyOrderAccepted, ModifyOrderRejected } from './modify-order.ts';
import { batchContext, batchReplies, batchHeaderRefusal, batchReply, chargeBatch, elementRow, everyRow, parseElements, targetRowIds, type ParsedElements } from '../support/order-write-support.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import type { Maybe } from '../../shared/maybe.ts';

export const BatchModifyOrdersBody = Type.Object(
  {
    modifies: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: LIMITS.batchMin, maxItems: LIMITS.batchMax }),
  },
  { additionalProperties: true },
);

/** Rows: the element's ModifyOrder reply (202 or 200 schema, no rateLimit) or an ERROR row. */
export const BATCH_MODIFY_ORDERS_RESPONSES = batchReplies(ModifyOrderAccepted, ModifyOrderRejected);
type Row = Static<(typeof BATCH_MODIFY_ORDERS_RESPONSES)[200]['properties']['responses']['items']>;

export const batchModifyOrders: Operation<typeof BATCH_MODIFY_ORDERS_RESPONSES> = {
  name: 'batchModifyOrders',
  method: 'POST',
  path: '/v1/batchModifyOrders',
  auth: 'signed',
  description: 'modify up to 100 orders, each signed',
  schema: { body: BatchModifyOrdersBody },
  response: BATCH_MODIFY_ORDERS_RESPONSES,
  errorSource: 'Order',
  weight: 'batchModifyOrders',
  mutates: true,
  handle: (state, request) => {
    const { modifies } = request.body as { modifies: unknown[] };
    const refusal = batchHeaderRefusal(request, modifies, targetRowIds);
    if (refusal !== undefined) return refusal;
    const ctx = batchContext(state, request, 'Order', modifies);
    if (isReply(ctx)) return ctx;
    const parse = (): Maybe<ParsedElements<ParsedModify>> =>
      parseElements(state.validator, modifies, 'modifies', ModifyOrderBody, targetRowIds, (element: ModifyOrderBody) => modifyCommand(state, request, element, element.signature ?? '', 'present'));
    return sequenced(state, walletOf(request.query, request.body), parse, (parsed) => {
      const charge = chargeBatch(state, request, 'batchModifyOrders', ctx, modifies, parsed, targetRowIds);
      if (isReply(charge)) return charge;
      const { accepted } = parsed;
      const rows: (Row | undefined)[] = parsed.rows;
      for (const { index, parsed } of accepted) {
        rows[index] = elementRow(modifyReply(state, parsed, submitModify(state, parsed), undefined), parsed.orderId, parsed.clientId);
      }
      return batchReply(everyRow(modifies, rows, targetRowIds), charge.rateLimit, 'ACK');
    });
  },
};
