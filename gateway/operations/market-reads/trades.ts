/**
 * GET /v1/trades — public trades, newest first (descending tradeId), one row per maker/taker
 * pair; `side` is the taker's. `market` is optional (without it every market's trades merge),
 * `from` / `to` epoch µs inclusive, `limit` 1-1000. Rows that share a taker execution share its
 * market sequence number; rows come from the bounded trades history.
 * Spec: supplement §6, §7 trade record.
 */
import { Type, type Static } from 'typebox';
import { LIMITS, type TradeEntry, type TradesEvent } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { orderIdString, price, sideName, size } from '../../contract/format.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { orderOf } from '../../read-models/history-store.ts';
import { okReplies, stringEnum } from '../../contract/reply-schema.ts';
import { SIDES } from '../../../engine/spec.ts';

export type TradeRecord = Static<typeof TradeReply>;

/** An orderId as fill records print it: `liq:` for the engine's own orders it still knows. */
function publicOrderId(exchange: Exchange, orderId: number): string {
  return orderIdString(orderId, orderOf(exchange, orderId)?.origin);
}

/** The trade record of one maker/taker pair of a trades event. */
export function tradeRecord(exchange: Exchange, e: TradesEvent, entry: TradeEntry): TradeRecord {
  const spec = exchange.engine.markets.get(e.marketId)!.spec;
  return {
    marketId: e.marketId,
    marketDisplayName: spec.displayName,
    side: sideName(e.takerSide),
    price: price(spec, entry.price),
    size: size(spec, entry.size),
    tradeId: entry.tradeId.toString(16),
    timestamp: e.time,
    takerOrderId: publicOrderId(exchange, e.takerOrderId),
    takerAddress: entry.takerAddress,
    makerOrderId: publicOrderId(exchange, entry.makerOrderId),
    makerAddress: entry.makerAddress,
    sequenceNumber: e.marketSeq,
  };
}

export interface TradeWindow {
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
}

/** Trades of the given markets within [from, to], newest first (descending tradeId), at most `limit`. */
export function recentTrades(exchange: Exchange, marketIds: readonly number[], window: TradeWindow): TradeRecord[] {
  const picked: { e: TradesEvent; entry: TradeEntry }[] = [];
  for (const id of marketIds) {
    // Each market's newest `limit` rows in the window are enough for the merge.
    let taken = 0;
    for (const e of exchange.history.newestTrades(id, { from: window.from, to: window.to })) {
      if (taken >= window.limit) break;
      for (let j = e.entries.length - 1; j >= 0 && taken < window.limit; j--, taken++) picked.push({ e, entry: e.entries[j]! });
    }
  }
  picked.sort((a, b) => b.entry.tradeId - a.entry.tradeId);
  return picked.slice(0, window.limit).map(({ e, entry }) => tradeRecord(exchange, e, entry));
}

const TimeBound = Type.Optional(Type.Integer({ minimum: LIMITS.minMicrosecondBound }));

export const TradesQuery = Type.Object(
  {
    market: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: LIMITS.historyLimitMin })),
    from: TimeBound,
    to: TimeBound,
  },
  { additionalProperties: true },
);

/** The trade record, fields in the order `tradeRecord` writes them. */
export const TradeReply = Type.Object({
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  side: stringEnum(SIDES),
  price: Type.String(),
  size: Type.String(),
  tradeId: Type.String(),
  timestamp: Type.Number(),
  takerOrderId: Type.String(),
  takerAddress: Type.String(),
  makerOrderId: Type.String(),
  makerAddress: Type.String(),
  sequenceNumber: Type.Integer(),
});
export const TRADES_RESPONSES = okReplies(Type.Object({ trades: Type.Array(TradeReply) }));

export const trades: Operation<typeof TRADES_RESPONSES> = {
  name: 'trades',
  method: 'GET',
  path: '/v1/trades',
  auth: 'public',
  description: 'public trades, newest first',
  schema: { querystring: TradesQuery },
  response: TRADES_RESPONSES,
  errorSource: null,
  weight: 'trades',
  mutates: false,
  handle: (state, request) => {
    const query = request.query as { market?: string; limit?: number; from?: number; to?: number };
    let marketIds: number[];
    if (query.market === undefined) {
      marketIds = marketsById(state.exchange).map((ms) => ms.spec.id);
    } else {
      const ms = resolveMarket(state.exchange, query.market);
      if (ms === undefined) return badRequest(`unknown market: ${query.market}`);
      marketIds = [ms.spec.id];
    }
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) return badRequest('from must not be after to');
    const limit = Math.min(query.limit ?? LIMITS.historyLimitDefault, LIMITS.historyLimitMax);
    return ok({ trades: recentTrades(state.exchange, marketIds, { from: query.from, to: query.to, limit }) });
  },
};
