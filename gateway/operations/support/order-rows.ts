/**
 * What GET /v1/orders, /v1/openOrders and /v1/order/{orderId} share: the account's orders as the
 * read models remember them (the latest update of each), their filters and their order. Open
 * orders are the engine's live ones (untriggered TPSL report TPSL_PLACED); closed ones the
 * recent ones kept per account. Rows are newest first by createdAt, then orderId descending.
 * Spec: interface.md status filter values. Filter choices: docs/decisions.md "Reads".
 */
import { Type } from 'typebox';
import { accountOrders, findAccount, ORDER_STATUS_FILTERS, SIDES, type OrderEvent, type OrderStatus } from '../../../engine/index.ts';
import { badRequest, ok, type Refusal } from '../../contract/errors.ts';
import type { OperationReply } from '../../contract/operation.ts';
import { OrderRecord as OrderRecordSchema, okReplies } from '../../contract/reply-schema.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { formatOrder, type OrderRecord } from '../../contract/format.ts';
import { newestCreatedFirst, orderMatches, type OrderQuery } from '../../read-models/history-store.ts';
import { accountOf, type AccountRef } from './common.ts';
import { accountQueryWith, enumFilter, isFilterReply, limitOf, LIST_PARAMS, marketFilter, windowOf } from './read-filters.ts';

/** Query of /v1/orders and /v1/openOrders. */
export const OrderListQuery = accountQueryWith({ ...LIST_PARAMS, status: Type.Optional(Type.String()), side: Type.Optional(Type.String()) });

type StatusFilter = (typeof ORDER_STATUS_FILTERS)[number];

const STATUS_MATCHES: Readonly<Record<StatusFilter, readonly OrderStatus[]>> = {
  OPEN: ['OPEN', 'PARTIALLY_FILLED'],
  UNTRIGGERED: ['TPSL_PLACED', 'UNTRIGGERED'],
  FILLED: ['FILLED'],
  CANCELED: ['CANCELED', 'MARGIN_CANCELED', 'TPSL_CANCELED'],
  REJECTED: ['REJECTED'],
  LIQUIDATED: ['LIQUIDATED'],
  ADL: ['ADL'],
};

/** The filters of the order lists (history-store.ts `OrderQuery`). */
export type OrderFilters = OrderQuery;

function statusFilter(value: unknown): ReadonlySet<OrderStatus> | null | Refusal {
  if (value === undefined || value === '') return null;
  const out = new Set<OrderStatus>();
  for (const part of String(value).split(',')) {
    const name = part.trim().toUpperCase();
    if (!(ORDER_STATUS_FILTERS as readonly string[]).includes(name)) return badRequest(`invalid status: ${part.trim()}`);
    for (const status of STATUS_MATCHES[name as StatusFilter]) out.add(status);
  }
  return out;
}

/** market, status, side, from/to (on createdAt), limit; a 400 for any bad value. */
export function orderFilters(exchange: Exchange, query: Record<string, unknown>): OrderFilters | Refusal {
  const market = marketFilter(exchange, query);
  if (isFilterReply(market)) return market;
  const statuses = statusFilter(query.status);
  if (isFilterReply(statuses)) return statuses;
  const side = enumFilter(query, 'side', SIDES);
  if (isFilterReply(side)) return side;
  const window = windowOf(query, exchange.clock());
  if (isFilterReply(window)) return window;
  return { marketId: market === null ? null : market.spec.id, statuses, side: side === null ? null : side === 'BUY' ? 0 : 1, window, limit: limitOf(query) };
}

/** The latest update of each of the account's live orders. */
export function openOrderEvents(exchange: Exchange, ref: AccountRef): OrderEvent[] {
  const acct = findAccount(exchange.engine.accounts, ref.address, ref.accountIndex);
  if (acct === undefined) return [];
  const out: OrderEvent[] = [];
  for (const order of accountOrders(acct)) {
    const e = exchange.orders.get(order.id);
    if (e !== undefined) out.push(e);
  }
  return out;
}

/** GET /v1/orders and /v1/openOrders: a page of order records and the count of every match. */
export const ORDER_LIST_RESPONSES = okReplies(Type.Object({ orders: Type.Array(OrderRecordSchema), total: Type.Integer() }));

export interface OrderPage {
  orders: OrderRecord[];
  total: number;
}

/**
 * Filters, sorts newest first, and formats up to `limit` rows of the `live` orders and, when
 * `closedOf` names an account, of its closed orders (a page the history store filters and
 * sorts: SQL on the tables); `total` counts every match.
 */
export function orderPage(exchange: Exchange, live: readonly OrderEvent[], filters: OrderFilters, closedOf: AccountRef | null): OrderPage {
  let kept = live.filter((e) => orderMatches(e, filters));
  let total = kept.length;
  if (closedOf !== null) {
    const closed = exchange.history.closedOrderPage(accountKeyOf(closedOf.address, closedOf.accountIndex), filters);
    kept = kept.concat(closed.rows);
    total += closed.total;
  }
  kept.sort(newestCreatedFirst);
  const orders = kept.slice(0, filters.limit).map((e) => formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec));
  return { orders, total };
}

/** The reply of a list read of the queried account's live orders (and closed ones: `withClosed`): a 400 for a bad filter, else the page. */
export function orderListReply(exchange: Exchange, query: Record<string, unknown>, withClosed: boolean): OperationReply<typeof ORDER_LIST_RESPONSES> {
  const filters = orderFilters(exchange, query);
  if (isFilterReply(filters)) return filters;
  const ref = accountOf(query);
  return ok(orderPage(exchange, openOrderEvents(exchange, ref), filters, withClosed ? ref : null));
}
