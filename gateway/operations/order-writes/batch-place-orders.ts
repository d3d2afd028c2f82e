/**
 * POST /v1/batchPlaceOrders — up to 100 placeOrder elements, each signed on its own (op 1, op 4
 * for TPSL), with an optional unsigned `grouping` (entryTpsl / partialTpsl / positionTpsl). The
 * accepted elements go to the engine as one `batchPlace` command, so a batch applies at one
 * instant and a group's shape is checked before anything is placed. The envelope (X-Signature,
 * replay slots, pool charge, rows) is order-write-support.ts's.
 * Spec: interface.md "Order management"; supplement §2, §3.
 * perpsim's choices (failed elements in a group, shape errors): docs/decisions.md "Order-write
 * operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS, TPSL_GROUPINGS, type TpslGrouping } from '../../../engine/spec.ts';
import type { BatchOrder } from '../../../engine/index.ts';
import { engineInvalid, ERRORS, refuse, type Reply } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { isReply } from '../support/common.ts';
import {
  batchContext,
  batchHeaderRefusal,
  batchReply,
  chargeBatch,
  elementRow,
  errorRow,
  everyRow,
  orNull,
  parseElements,
  type ParsedElements,
  stringField,
  type RowIds,
  batchReplies,
 
} from '../support/order-write-support.ts';
import { orderCommand, orderReply, PlaceOrderBody, PlaceOrderAccepted, PlaceOrderRejected } from './place-order.ts';
import { sequenced, walletOf } from '../../auth/sequencer.ts';
import { andThen, type Maybe } from '../../shared/maybe.ts';

export const BatchPlaceOrdersBody = Type.Object(
  {
    orders: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: LIMITS.batchMin, maxItems: LIMITS.batchMax }),
    grouping: Type.Optional(orNull(Type.String())),
  },
  { additionalProperties: true },
);

type Element = Parameters<typeof orderCommand>[2] & { signature?: string };

interface Placed {
  command: BatchOrder;
  displayName: string;
  element: Element;
}

const rowIds: RowIds = (element) => [undefined, stringField(element, 'clientId')];

/** Rows: the element's PlaceOrder reply (202 or 200 schema, no rateLimit) or an ERROR row. */
export const BATCH_PLACE_ORDERS_RESPONSES = batchReplies(PlaceOrderAccepted, PlaceOrderRejected);
type Row = Static<(typeof BATCH_PLACE_ORDERS_RESPONSES)[200]['properties']['responses']['items']>;

export const batchPlaceOrders: Operation<typeof BATCH_PLACE_ORDERS_RESPONSES> = {
  name: 'batchPlaceOrders',
  method: 'POST',
  path: '/v1/batchPlaceOrders',
  auth: 'signed',
  description: 'place up to 100 orders, each signed; optional TPSL grouping',
  schema: { body: BatchPlaceOrdersBody },
  response: BATCH_PLACE_ORDERS_RESPONSES,
  errorSource: 'Order',
  weight: 'batchPlaceOrders',
  mutates: true,
  handle: (state, request) => {
    const { orders, grouping: groupingText } = request.body as { orders: unknown[]; grouping?: string | null };
    const refusal = batchHeaderRefusal(request, orders, rowIds);
    if (refusal !== undefined) return refusal;
    let grouping: TpslGrouping | undefined;
    if (groupingText !== undefined && groupingText !== null && groupingText !== '') {
      if (!(TPSL_GROUPINGS as readonly string[]).includes(groupingText)) return refuse(ERRORS.invalidGrouping, 'Order');
      grouping = groupingText as TpslGrouping;
    }
    const ctx = batchContext(state, request, 'Order', orders);
    if (isReply(ctx)) return ctx;

    const parse = (): Maybe<ParsedElements<Placed>> =>
      parseElements(state.validator, orders, 'orders', PlaceOrderBody, rowIds, (element: Element): Maybe<Placed | Reply> =>
        andThen(orderCommand(state, request, element, element.signature ?? '', 'present'), (parsed): Placed | Reply => {
          if (isReply(parsed)) return parsed;
          const { type: _type, ...command } = parsed.command;
          return { command, displayName: parsed.displayName, element };
        }),
      );
    return sequenced(state, walletOf(request.query, request.body), parse, (parsed) => {
      const charge = chargeBatch(state, request, 'batchPlaceOrders', ctx, orders, parsed, rowIds);
      if (isReply(charge)) return charge;
      const { accepted } = parsed;
      const rows: (Row | undefined)[] = parsed.rows;

      if (grouping !== undefined && accepted.length < orders.length) {
        const failed = rows.findIndex((row) => row !== undefined);
        const responses = orders.map((element, index) => rows[index] ?? errorRow(undefined, stringField(element, 'clientId'), `${grouping} group not placed: element ${failed} was rejected`));
        return batchReply(responses, charge.rateLimit, 'ACK');
      }
      if (accepted.length > 0) {
        const result = state.exchange.submit({ type: 'batchPlace', orders: accepted.map((a) => a.parsed.command), grouping });
        if (result.kind === 'invalid') return engineInvalid('Order', result);
        const results = result.results;
        accepted.forEach(({ index, parsed }, i) => {
          const outcome = results[i];
          if (outcome === undefined) {
            rows[index] = errorRow(undefined, parsed.element.clientId, 'unexpected engine result');
            return;
          }
          const reply = orderReply(state, { type: 'placeOrder', ...parsed.command }, parsed.displayName, outcome, undefined, parsed.element);
          rows[index] = elementRow(reply, undefined, parsed.element.clientId);
        });
      }
      return batchReply(everyRow(orders, rows, rowIds), charge.rateLimit, 'ACK');
    });
  },
};
