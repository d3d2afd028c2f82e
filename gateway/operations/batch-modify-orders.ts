/**
 * POST /v1/batchModifyOrders — up to 100 modifies in one request, each signed on its own (op 3).
 *
 * Body (interface.md "Order management", supplement §2): `{modifies: [element…]}`; each element
 * is a modifyOrder body plus its `signature`. The interface: "a failing element shows up as a
 * row with status ERROR while the rest proceed" — so here, unlike batchCancelOrders, an
 * element naming both or neither of orderId / clientId is only that element's ERROR row, as
 * is any other element failure (schema, ticks, signature). Engine outcomes are rows too: the
 * single modifyOrder reply without rateLimit (`ACK`, or `REJECTED` with rejectionReason); an
 * engine validation error (e.g. notional below minimum) is an ERROR row. The batch envelope
 * (X-Signature present but unverified, a replay slot per element, N charged to the order pool) is
 * order-write-support.ts's.
 *
 * Engine: the accepted modifies are submitted one by one, in order (each is independent).
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../engine/spec.ts';
import type { Operation } from '../contract/operation.ts';
import { isReply } from './common.ts';
import { modifyCommand, ModifyOrderBody, modifyReply, submitModify, type ParsedModify, ModifyOrderAccepted, ModifyOrderRejected } from './modify-order.ts';
import { batchContext, batchReplies, batchHeaderRefusal, batchReply, chargeBatch, elementRow, everyRow, parseElements, targetRowIds, type ParsedElements } from './order-write-support.ts';
import { sequenced, walletOf } from '../auth/sequencer.ts';
import type { Maybe } from '../shared/maybe.ts';

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
