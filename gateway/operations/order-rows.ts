/**
 * What GET /v1/orders, /v1/openOrders and /v1/order/{orderId} share: the account's orders as
 * the exchange's read models remember them (the latest update of each order), their filters and
 * their order.
 *
 * - Open orders are the account's live orders in the engine (resting OPEN / PARTIALLY_FILLED,
 *   and untriggered TPSL, which report TPSL_PLACED); closed orders are the recent ones
 *   exchange.ts keeps per account (1,000 by default).
 * - Status filter values (interface.md): OPEN matches OPEN and PARTIALLY_FILLED; UNTRIGGERED the
 *   untriggered TPSL (TPSL_PLACED); CANCELED also MARGIN_CANCELED and TPSL_CANCELED; FILLED,
 *   REJECTED, LIQUIDATED, ADL themselves. Several values may be sent comma-separated.
 * - Rows are newest first by createdAt, then by orderId (descending).
 */
import { Type } from 'typebox';
import { accountOrders, findAccount, ORDER_STATUS_FILTERS, SIDES, type OrderEvent, type OrderStatus } from '../../engine/index.ts';
import { badRequest, ok, type Reply } from '../errors.ts';
import { accountKeyOf, type Exchange } from '../exchange.ts';
import { formatOrder, sideName, type OrderRecord } from '../format.ts';
import { accountOf, type AccountRef } from './common.ts';
import { accountQueryWith, enumFilter, inWindow, isFilterReply, limitOf, LIST_PARAMS, marketFilter, windowOf, type Window } from './read-filters.ts';

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

export interface OrderFilters {
  marketId: number | null;
  statuses: ReadonlySet<OrderStatus> | null;
  side: 'BUY' | 'SELL' | null;
  window: Window;
  limit: number;
}

function statusFilter(value: unknown): ReadonlySet<OrderStatus> | null | Reply {
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
export function orderFilters(exchange: Exchange, query: Record<string, unknown>): OrderFilters | Reply {
  const market = marketFilter(exchange, query);
  if (isFilterReply(market)) return market;
  const statuses = statusFilter(query.status);
  if (isFilterReply(statuses)) return statuses;
  const side = enumFilter(query, 'side', SIDES);
  if (isFilterReply(side)) return side;
  const window = windowOf(query, exchange.clock());
  if (isFilterReply(window)) return window;
  return { marketId: market === null ? null : market.spec.id, statuses, side, window, limit: limitOf(query) };
}

function matches(e: OrderEvent, f: OrderFilters): boolean {
  return (
    (f.marketId === null || e.marketId === f.marketId) &&
    (f.statuses === null || f.statuses.has(e.status)) &&
    (f.side === null || sideName(e.side) === f.side) &&
    inWindow(e.createdAt, f.window)
  );
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

/** The latest update of each of the account's remembered closed orders. */
export function closedOrderEvents(exchange: Exchange, ref: AccountRef): OrderEvent[] {
  return [...exchange.history.closedOrders(accountKeyOf(ref.address, ref.accountIndex))];
}

export interface OrderPage {
  orders: OrderRecord[];
  total: number;
}

/** Filters, sorts newest first, and formats up to `limit` rows; `total` counts every match. */
export function orderPage(exchange: Exchange, events: readonly OrderEvent[], filters: OrderFilters): OrderPage {
  const kept = events.filter((e) => matches(e, filters));
  kept.sort((a, b) => b.createdAt - a.createdAt || b.orderId - a.orderId);
  const orders = kept.slice(0, filters.limit).map((e) => formatOrder(e, exchange.engine.markets.get(e.marketId)!.spec));
  return { orders, total: kept.length };
}

/** The reply of a list read over `eventsOf` the queried account: a 400 for a bad filter, else the page. */
export function orderListReply(exchange: Exchange, query: Record<string, unknown>, eventsOf: (exchange: Exchange, ref: AccountRef) => OrderEvent[]): Reply {
  const filters = orderFilters(exchange, query);
  if (isFilterReply(filters)) return filters;
  return ok(orderPage(exchange, eventsOf(exchange, accountOf(query)), filters));
}
