/**
 * GET /v1/bbo/{market} — top of book (interface.md "Best bid/offer"): each side {price, size}
 * or null when empty, the market's sequence (lastSequenceId, as on the book stream), the
 * global sequence and the exchange clock (µs). The path takes the display name; the numeric
 * id is accepted as well (a market selector). Unresolvable → 400.
 */
import { Type, type Static } from 'typebox';
import { bestLevel, type MarketState } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { price, size } from '../../contract/format.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies, nullable } from '../../contract/reply-schema.ts';

export interface BboLevel {
  price: string;
  size: string;
}

export type BboRecord = Static<typeof BboReply>;

/** The bbo record of a market now (shared with the WebSocket bbo channel's snapshot). */
export function bboRecord(exchange: Exchange, ms: MarketState): BboRecord {
  const bid = bestLevel(ms.book.bids);
  const ask = bestLevel(ms.book.asks);
  return {
    bestBid: bid === undefined ? null : { price: price(ms.spec, bid.price), size: size(ms.spec, bid.size) },
    bestAsk: ask === undefined ? null : { price: price(ms.spec, ask.price), size: size(ms.spec, ask.size) },
    lastSequenceId: ms.seq,
    globalSequenceId: exchange.engine.seq.global,
    timestamp: exchange.clock(),
  };
}

const BboLevelSchema = nullable(Type.Object({ price: Type.String(), size: Type.String() }));

/** The bbo record, fields in the order `bboRecord` writes them. */
export const BboReply = Type.Object({
  bestBid: BboLevelSchema,
  bestAsk: BboLevelSchema,
  lastSequenceId: Type.Integer(),
  globalSequenceId: Type.Integer(),
  timestamp: Type.Number(),
});
export const BBO_RESPONSES = okReplies(BboReply);

export const bbo: Operation<typeof BBO_RESPONSES> = {
  name: 'bbo',
  method: 'GET',
  path: '/v1/bbo/:market',
  auth: 'public',
  description: 'best bid/offer of a market',
  schema: { params: Type.Object({ market: Type.String() }) },
  response: BBO_RESPONSES,
  errorSource: null,
  weight: 'bbo',
  mutates: false,
  handle: (state, request) => {
    const ms = resolveMarket(state.exchange, request.params.market);
    if (ms === undefined) return badRequest(`unknown market: ${String(request.params.market)}`);
    return ok(bboRecord(state.exchange, ms));
  },
};
