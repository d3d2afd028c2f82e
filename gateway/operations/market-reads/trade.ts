/**
 * GET /v1/trade/{tradeId} (and GET /v1/trade?tradeId=) — one public trade, the bare row GET
 * /v1/trades returns, by its hex tradeId ("0x" accepted), optionally narrowed by `market`.
 * 400 for a malformed tradeId or market, 404 when no trade (or none the bounded read model
 * still holds) has it.
 * Spec: interface.md lists /v1/trade without parameters; the path form is what live clients
 * call (docs/decisions.md "Market-read operations").
 */
import { Type } from 'typebox';
import { badRequest, notFound, ok } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { GatewayState, Operation, OperationReply, OperationRequest } from '../../contract/operation.ts';
import { tradeRecord, type TradeRecord, TradeReply } from './trades.ts';
import { okReplies } from '../../contract/reply-schema.ts';

/** A tradeId as printed (hex, optional 0x) back to the engine's number; null when malformed. */
export function parseTradeId(text: unknown): number | null {
  if (typeof text !== 'string' || !/^(0x)?[0-9a-fA-F]{1,13}$/.test(text)) return null;
  const n = Number.parseInt(text.replace(/^0x/i, ''), 16);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function findTrade(exchange: Exchange, marketIds: readonly number[], tradeId: number): TradeRecord | undefined {
  for (const id of marketIds) {
    // Newest first, without copying the held list: a looked-up trade is most often a recent one.
    for (const e of exchange.history.newestTrades(id)) {
      for (const entry of e.entries) if (entry.tradeId === tradeId) return tradeRecord(exchange, e, entry);
    }
  }
  return undefined;
}

export const TRADE_RESPONSES = okReplies(TradeReply);

function handle(state: GatewayState, request: OperationRequest): OperationReply<typeof TRADE_RESPONSES> {
  const raw = request.params.tradeId ?? request.query.tradeId;
  if (raw === undefined) return badRequest('tradeId is required');
  const tradeId = parseTradeId(raw);
  if (tradeId === null) return badRequest(`invalid tradeId: ${String(raw)}`);
  const filter = request.query.market;
  let marketIds: number[];
  if (filter === undefined) {
    marketIds = marketsById(state.exchange).map((ms) => ms.spec.id);
  } else {
    const ms = resolveMarket(state.exchange, filter);
    if (ms === undefined) return badRequest(`unknown market: ${String(filter)}`);
    marketIds = [ms.spec.id];
  }
  const found = findTrade(state.exchange, marketIds, tradeId);
  return found === undefined ? notFound('trade not found') : ok(found);
}

const TradeQuery = Type.Object({ market: Type.Optional(Type.String()), tradeId: Type.Optional(Type.String()) }, { additionalProperties: true });

export const trade: Operation<typeof TRADE_RESPONSES> = {
  name: 'trade',
  method: 'GET',
  path: '/v1/trade/:tradeId',
  auth: 'public',
  description: 'one public trade by tradeId',
  schema: { params: Type.Object({ tradeId: Type.String() }), querystring: TradeQuery },
  response: TRADE_RESPONSES,
  errorSource: null,
  weight: 'trade',
  mutates: false,
  handle,
};

/** The same lookup with the id in the query, for the path as the interface lists it. */
export const tradeByQuery: Operation<typeof TRADE_RESPONSES> = {
  name: 'trade',
  method: 'GET',
  path: '/v1/trade',
  auth: 'public',
  description: 'one public trade by tradeId (query)',
  schema: { querystring: TradeQuery },
  response: TRADE_RESPONSES,
  errorSource: null,
  weight: 'trade',
  mutates: false,
  handle,
};
