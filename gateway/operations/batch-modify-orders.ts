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
 * (X-Signature present but unverified, one replay slot, N charged to the order pool) is
 * order-write-support.ts's.
 *
 * Engine: the accepted modifies are submitted one by one, in order (each is independent).
 */
import { Type } from 'typebox';
import { LIMITS } from '../../engine/spec.ts';
import { fail } from '../errors.ts';
import type { Operation } from '../operation.ts';
import { chargeOrderWrite } from './charge.ts';
import { isReply } from './common.ts';
import { modifyCommand, ModifyOrderBody, modifyReply, type ParsedModify } from './modify-order.ts';
import {
  batchContext,
  batchHeaderRefusal,
  batchReplayKey,
  batchReply,
  elementError,
  errorRow,
  rowFromReply,
  stringField,
  withoutNulls,
  type BatchRow,
} from './order-write-support.ts';

export const BatchModifyOrdersBody = Type.Object(
  {
    modifies: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: LIMITS.batchMin, maxItems: LIMITS.batchMax }),
  },
  { additionalProperties: true },
);

const rowIds = (element: unknown): [string | undefined, string | undefined] => [stringField(element, 'orderId'), stringField(element, 'clientId')];

export const batchModifyOrders: Operation = {
  name: 'batchModifyOrders',
  method: 'POST',
  path: '/v1/batchModifyOrders',
  auth: 'signed',
  description: 'modify up to 100 orders, each signed',
  schema: { body: BatchModifyOrdersBody },
  handle: (state, request) => {
    const { modifies } = request.body as { modifies: unknown[] };
    const refusal = batchHeaderRefusal(request, modifies, rowIds);
    if (refusal !== undefined) return refusal;
    const ctx = batchContext(state, request, 'Order', modifies);
    if (isReply(ctx)) return ctx;

    const rows: (BatchRow | undefined)[] = [];
    const accepted: { index: number; parsed: ParsedModify }[] = [];
    modifies.forEach((sent, index) => {
      const raw = withoutNulls(sent);
      const [orderId, clientId] = rowIds(raw);
      const invalid = elementError(ModifyOrderBody, raw, `modifies/${index}`);
      if (invalid !== undefined) {
        rows[index] = errorRow(orderId, clientId, invalid);
        return;
      }
      const element = raw as ModifyOrderBody;
      const parsed = modifyCommand(state, request, element, element.signature ?? '', 'present');
      if (isReply(parsed)) rows[index] = rowFromReply(parsed, orderId, clientId);
      else accepted.push({ index, parsed });
    });

    const key = batchReplayKey('batchModifyOrders', modifies);
    if (state.replay.has(key)) return fail(409, 'replayed request');
    const clientIds = modifies.map((element) => stringField(element, 'clientId'));
    const charge = chargeOrderWrite(state, request, 'batchModifyOrders', ctx.address, ctx.accountIndex, modifies.length, { kind: 'batch', clientIds });
    if (isReply(charge)) return charge;
    state.replay.add(key);

    for (const { index, parsed } of accepted) {
      const reply = modifyReply(state, parsed, state.exchange.submit(parsed.command), undefined);
      rows[index] = reply.status >= 400 ? rowFromReply(reply, parsed.orderId, parsed.clientId) : (reply.body as BatchRow);
    }
    return batchReply(modifies.map((element, index) => rows[index] ?? errorRow(...rowIds(element), 'not processed')), charge.rateLimit, 'ACK');
  },
};
