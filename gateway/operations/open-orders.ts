/**
 * GET /v1/openOrders — the account's open orders: resting (OPEN, PARTIALLY_FILLED) and
 * untriggered TPSL. `{orders: [order record], total}`, newest first.
 *
 * Filters (interface.md): market, status, side, from/to (epoch µs on createdAt), limit 1-1000
 * (default 1000, larger values clamped). `total` counts every open order that matches, also
 * those past the limit. Only the OPEN and UNTRIGGERED status values can match here.
 */
import type { Operation } from '../operation.ts';
import { orderListReply, OrderListQuery } from './order-rows.ts';

export const openOrders: Operation = {
  name: 'openOrders',
  method: 'GET',
  path: '/v1/openOrders',
  auth: 'public',
  description: 'open orders',
  schema: { querystring: OrderListQuery },
  handle: (state, request) => orderListReply(state.exchange, request.query, false),
};
