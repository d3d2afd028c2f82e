/**
 * GET /v1/l2OrderBook/{market} — the book's levels, bids and asks best first (always arrays),
 * lastSequenceId, globalSequenceId and the exchange clock. `nLevels` 1-100 (larger clamped),
 * `sigFigs` 2-5 aggregates (bids down, asks up: book-levels.ts), `roundStep` 1, 2 or 5 (2 and 5
 * need sigFigs 5); anything else 400.
 * Spec: supplement §6. Choices: docs/decisions.md "Reads".
 */
import { Type, type Static } from 'typebox';
import { LIMITS, type MarketState } from '../../../engine/index.ts';
import { aggregationError, bookSideLevels, type Aggregation } from '../../read-models/book-levels.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies } from '../../contract/reply-schema.ts';

export type L2BookRecord = Static<typeof L2BookReply>;

/** The book record of a market now (shared with the WebSocket l2Orderbook snapshots). */
export function l2BookRecord(exchange: Exchange, ms: MarketState, nLevels: number, agg: Aggregation = {}): L2BookRecord {
  return {
    bids: bookSideLevels(ms.spec, ms.book.bids, 0, nLevels, agg),
    asks: bookSideLevels(ms.spec, ms.book.asks, 1, nLevels, agg),
    lastSequenceId: ms.seq,
    globalSequenceId: exchange.engine.seq.global,
    timestamp: exchange.clock(),
  };
}

const Level = Type.Tuple([Type.String(), Type.String()]);

/** The book record, fields in the order `l2BookRecord` writes them. */
export const L2BookReply = Type.Object({
  bids: Type.Array(Level),
  asks: Type.Array(Level),
  lastSequenceId: Type.Integer(),
  globalSequenceId: Type.Integer(),
  timestamp: Type.Number(),
});
export const L2_ORDER_BOOK_RESPONSES = okReplies(L2BookReply);

export const l2OrderBook: Operation<typeof L2_ORDER_BOOK_RESPONSES> = {
  name: 'l2OrderBook',
  method: 'GET',
  path: '/v1/l2OrderBook/:market',
  auth: 'public',
  description: 'order book levels of a market',
  schema: {
    params: Type.Object({ market: Type.String() }),
    querystring: Type.Object(
      {
        nLevels: Type.Optional(Type.Integer({ minimum: LIMITS.l2LevelsMin })),
        sigFigs: Type.Optional(Type.Integer()),
        roundStep: Type.Optional(Type.Integer()),
      },
      { additionalProperties: true },
    ),
  },
  response: L2_ORDER_BOOK_RESPONSES,
  errorSource: null,
  weight: 'l2OrderBook',
  mutates: false,
  handle: (state, request) => {
    const ms = resolveMarket(state.exchange, request.params.market);
    if (ms === undefined) return badRequest(`unknown market: ${String(request.params.market)}`);
    const query = request.query as { nLevels?: number; sigFigs?: number; roundStep?: number };
    const agg: Aggregation = { sigFigs: query.sigFigs, roundStep: query.roundStep };
    const error = aggregationError(agg);
    if (error !== null) return badRequest(error);
    const nLevels = Math.min(query.nLevels ?? LIMITS.l2LevelsDefault, LIMITS.l2LevelsMax);
    return ok(l2BookRecord(state.exchange, ms, nLevels, agg));
  },
};
