/**
 * GET /v1/order/{orderId} — one order's record, bare (supplement §6): its latest update.
 *
 * `orderId` is the hex id the venue prints (`liq:` prefix of liquidation orders optional). 404
 * `{"error":"order not found"}` when the id is not one of ours, is no longer remembered, or
 * belongs to another address. With `accountIndex` the order must also be that subaccount's;
 * without it any subaccount of the address matches (order ids are unique exchange-wide).
 */
import { Type } from 'typebox';
import { notFound, ok } from '../../contract/errors.ts';
import { formatOrder, parseOrderId } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { AccountQuery, accountOf } from '../support/common.ts';
import { orderOf } from '../../read-models/history-store.ts';
import { okReplies, OrderRecord } from '../../contract/reply-schema.ts';

export const OrderParams = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });

export const ORDER_RESPONSES = okReplies(OrderRecord);

export const order: Operation<typeof ORDER_RESPONSES> = {
  name: 'order',
  method: 'GET',
  path: '/v1/order/:orderId',
  auth: 'public',
  description: 'one order',
  schema: { querystring: AccountQuery, params: OrderParams },
  response: ORDER_RESPONSES,
  errorSource: null,
  weight: 'order',
  mutates: false,
  handle: (state, request) => {
    const ref = accountOf(request.query);
    const id = parseOrderId(request.params.orderId);
    const e = id === null ? undefined : orderOf(state.exchange, id);
    if (e === undefined || e.address !== ref.address) return notFound('order not found');
    if (request.query.accountIndex !== undefined && e.accountIndex !== ref.accountIndex) return notFound('order not found');
    return ok(formatOrder(e, state.exchange.engine.markets.get(e.marketId)!.spec));
  },
};
