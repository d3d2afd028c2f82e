/**
 * GET /v1/fills — the account's fills, newest first: `{fills: [fill record], total}`
 * (supplement §6, §7), from the last 5,000 the exchange's read model keeps per account.
 *
 * Filters (interface.md): market, role (MAKER / TAKER; ALP, the third role of the record, is
 * accepted too), side (BUY / SELL), from/to (epoch µs on createdAt), limit 1-1000 (default
 * 1000, larger values clamped). `total` counts every match, also those past the limit. REST
 * rows carry neither clientId nor sequenceNumber (WebSocket only, supplement §7).
 */
import { Type, type Static } from 'typebox';
import { FILL_ROLES, SIDES, type FillEvent } from '../../../engine/index.ts';
import { ok } from '../../contract/errors.ts';
import { accountKeyOf } from '../../shared/account-key.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { formatFill, sideName, type FillRecord } from '../../contract/format.ts';
import type { Operation } from '../../contract/operation.ts';
import { accountOf } from '../support/common.ts';
import { accountQueryWith, enumFilter, isFilterReply, limitOf, LIST_PARAMS, marketFilter, windowOf } from '../support/read-filters.ts';
import { orderOf } from '../../read-models/history-store.ts';
import { okReplies, FillRecord as FillRecordSchema } from '../../contract/reply-schema.ts';

export const FillsQuery = accountQueryWith({ ...LIST_PARAMS, role: Type.Optional(Type.String()), side: Type.Optional(Type.String()) });

export type FillsReply = Static<(typeof FILLS_RESPONSES)[200]>;

/**
 * Whether the fill's order was one of the engine's liquidation / ADL orders (its orderId then
 * prints `liq:…`): the order's remembered update says so; once it is forgotten, the leg whose
 * account is the liquidated user is the engine's.
 */
export function fillOrigin(exchange: Exchange, e: FillEvent): 'LIQUIDATION' | 'ADL' | undefined {
  const order = orderOf(exchange, e.orderId);
  if (order !== undefined) return order.origin;
  if (e.liquidation === undefined || e.liquidation.liquidatedUser !== e.address) return undefined;
  return e.liquidation.method === 'ADL' ? 'ADL' : 'LIQUIDATION';
}

export function fillRecord(exchange: Exchange, e: FillEvent): FillRecord {
  return formatFill(e, exchange.engine.markets.get(e.marketId)!.spec, fillOrigin(exchange, e));
}

export const FILLS_RESPONSES = okReplies(Type.Object({ fills: Type.Array(FillRecordSchema), total: Type.Integer() }));

export const fills: Operation<typeof FILLS_RESPONSES> = {
  name: 'fills',
  method: 'GET',
  path: '/v1/fills',
  auth: 'public',
  description: 'fills',
  schema: { querystring: FillsQuery },
  response: FILLS_RESPONSES,
  errorSource: null,
  weight: 'fills',
  mutates: false,
  handle: (state, request) => {
    const exchange = state.exchange;
    const query = request.query;
    const ref = accountOf(query);
    const market = marketFilter(exchange, query);
    if (isFilterReply(market)) return market;
    const role = enumFilter(query, 'role', FILL_ROLES);
    if (isFilterReply(role)) return role;
    const side = enumFilter(query, 'side', SIDES);
    if (isFilterReply(side)) return side;
    const window = windowOf(query, exchange.clock());
    if (isFilterReply(window)) return window;
    const page = exchange.history.page('fills', accountKeyOf(ref.address, ref.accountIndex), {
      window,
      marketId: market === null ? null : market.spec.id,
      matches: role === null && side === null ? undefined : (e) => (role === null || e.role === role) && (side === null || sideName(e.side) === side),
      limit: limitOf(query),
    });
    const body: FillsReply = { fills: page.rows.map((e) => fillRecord(exchange, e)), total: page.total };
    return ok(body);
  },
};
