/**
 * GET /v1/api-meta/markets — descriptive market metadata, `{markets: [metadata]}` by ascending
 * marketId, with /v1/markets' optional `market` filter: the static part of the market record
 * under its own field names (live numbers are on /v1/markets and /v1/api-meta/overview).
 * Spec: interface.md shows no shape; perpsim's: docs/decisions.md "Market-read operations".
 */
import { Type, type Static } from 'typebox';
import type { MarketState } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies, nullable, TradingHours } from '../../contract/reply-schema.ts';

/** Market metadata, fields in the order `marketMetadata` writes them (fullAssetName last). */
export const MarketMetadataSchema = Type.Object({
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  baseAsset: Type.String(),
  quoteAsset: Type.Literal('USD'),
  category: nullable(Type.String()),
  status: Type.String(),
  type: Type.Literal('PERPETUAL'),
  addedTimestamp: Type.Integer(),
  regularTradingHours: TradingHours,
  fullAssetName: Type.Optional(Type.String()),
});
export const API_META_MARKETS_RESPONSES = okReplies(Type.Object({ markets: Type.Array(MarketMetadataSchema) }));

export type MarketMetadata = Static<typeof MarketMetadataSchema>;

export function marketMetadata(ms: MarketState): MarketMetadata {
  const def = ms.spec.def;
  const hours = def.regularTradingHours;
  const record: MarketMetadata = {
    marketId: ms.spec.id,
    marketDisplayName: ms.spec.displayName,
    baseAsset: def.baseAsset,
    quoteAsset: 'USD',
    category: ms.spec.category,
    status: ms.spec.status,
    type: 'PERPETUAL',
    addedTimestamp: def.addedTimestamp,
    regularTradingHours: hours === null ? null : { ...hours, isOvernight: hours.isOvernight ?? false },
  };
  if (def.fullAssetName !== undefined) record.fullAssetName = def.fullAssetName;
  return record;
}

export const apiMetaMarkets: Operation<typeof API_META_MARKETS_RESPONSES> = {
  name: 'apiMetaMarkets',
  method: 'GET',
  path: '/v1/api-meta/markets',
  auth: 'public',
  description: 'market metadata',
  schema: { querystring: Type.Object({ market: Type.Optional(Type.String()) }, { additionalProperties: true }) },
  response: API_META_MARKETS_RESPONSES,
  errorSource: null,
  weight: 'apiMetaMarkets',
  mutates: false,
  handle: (state, request) => {
    const filter = request.query.market;
    if (filter === undefined) return ok({ markets: marketsById(state.exchange).map(marketMetadata) });
    const ms = resolveMarket(state.exchange, filter);
    if (ms === undefined) return badRequest(`unknown market: ${String(filter)}`);
    return ok({ markets: [marketMetadata(ms)] });
  },
};
