/** GET /v1/markets — every market row (gateway/read-models/markets.ts marketRow) by ascending id, or the one a `market` filter names. */
import { Type } from 'typebox';
import { badRequest, ok } from '../../contract/errors.ts';
import { marketRow, marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies, MarketRow } from '../../contract/reply-schema.ts';

export const MARKETS_RESPONSES = okReplies(Type.Object({ markets: Type.Array(MarketRow) }));

export const markets: Operation<typeof MARKETS_RESPONSES> = {
  name: 'markets',
  method: 'GET',
  path: '/v1/markets',
  auth: 'public',
  description: 'market records',
  schema: { querystring: Type.Object({ market: Type.Optional(Type.String()) }, { additionalProperties: true }) },
  response: MARKETS_RESPONSES,
  errorSource: null,
  weight: 'markets',
  mutates: false,
  handle: (state, request) => {
    const filter = request.query.market;
    if (filter === undefined) return ok({ markets: marketsById(state.exchange).map((ms) => marketRow(state, ms)) });
    const ms = resolveMarket(state.exchange, filter);
    if (ms === undefined) return badRequest(`unknown market: ${String(filter)}`);
    return ok({ markets: [marketRow(state, ms)] });
  },
};
