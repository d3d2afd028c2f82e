/**
 * GET /v1/openOrders — the account's open orders: resting (OPEN, PARTIALLY_FILLED) and
 * untriggered TPSL. `{orders: [order record], total}`, newest first.
 *
 * Filters (interface.md): market, status, side, from/to (epoch µs on createdAt), limit 1-1000
 * (default 1000, larger values clamped). `total` counts every open order that matches, also
 * those past the limit. Only the OPEN and UNTRIGGERED status values can match here.
 */
import type { Operation } from '../../contract/operation.ts';
import { orderListReply, OrderListQuery, ORDER_LIST_RESPONSES } from '../support/order-rows.ts';

export const openOrders: Operation<typeof ORDER_LIST_RESPONSES> = {
  name: 'openOrders',
  method: 'GET',
  path: '/v1/openOrders',
  auth: 'public',
  description: 'open orders',
  schema: { querystring: OrderListQuery },
  response: ORDER_LIST_RESPONSES,
  errorSource: null,
  weight: 'openOrders',
  mutates: false,
  handle: (state, request) => orderListReply(state.exchange, request.query, false),
};
