/**
 * GET /v1/orders — the account's open orders and its recent closed orders (the last 1,000 kept
 * by the exchange's read model): `{orders: [order record], total}`, newest first by createdAt.
 *
 * Filters (interface.md): market, status, side, from/to (epoch µs on createdAt). The interface
 * gives `limit` to openOrders only; perpsim also accepts it here (1-1000, default 1000, larger
 * values clamped: the interface's page cap). `total` counts every match, also those past the
 * limit.
 */
import type { Operation } from '../../contract/operation.ts';
import { orderListReply, OrderListQuery, ORDER_LIST_RESPONSES } from '../support/order-rows.ts';

export const orders: Operation<typeof ORDER_LIST_RESPONSES> = {
  name: 'orders',
  method: 'GET',
  path: '/v1/orders',
  auth: 'public',
  description: 'open and recent closed orders',
  schema: { querystring: OrderListQuery },
  response: ORDER_LIST_RESPONSES,
  errorSource: null,
  weight: 'orders',
  mutates: false,
  handle: (state, request) =>
    orderListReply(state.exchange, request.query, true),
};
