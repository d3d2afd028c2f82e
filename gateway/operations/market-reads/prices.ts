/**
 * GET /v1/prices — {"<marketId>": {marketDisplayName, oraclePrice, markPrice, sequencer}}
 * (supplement §6), OFFLINE markets omitted (interface.md "market ordering"); keys ascend by id.
 * An optional `market` filter narrows it to one market (OFFLINE → {}, unresolvable → 400).
 *
 * oraclePrice prints with the tick's decimals ("0.00" before the first price, as on the market
 * record); markPrice is "0" when there is none (never replaced by the oracle); `sequencer` is
 * the market's sequence (the lastSequenceId of its book stream).
 */
import { Type } from 'typebox';
import type { MarketState } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { price } from '../../contract/format.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies, mapOf } from '../../contract/reply-schema.ts';

export interface PriceRecord {
  marketDisplayName: string;
  oraclePrice: string;
  markPrice: string;
  sequencer: number;
}

/** A market's prices as the market record prints them: an OFFLINE market reads "0" prices (supplement §8). */
export function priceRecord(ms: MarketState): PriceRecord {
  const online = ms.spec.status === 'ONLINE';
  return {
    marketDisplayName: ms.spec.displayName,
    oraclePrice: price(ms.spec, online && ms.oraclePrice > 0 ? ms.oraclePrice : 0),
    markPrice: online && ms.markPrice > 0 ? price(ms.spec, ms.markPrice) : '0',
    sequencer: ms.seq,
  };
}

/** The prices map of the given markets, OFFLINE ones left out. */
export function pricesRecord(markets: readonly MarketState[]): Record<string, PriceRecord> {
  const out: Record<string, PriceRecord> = {};
  for (const ms of markets) if (ms.spec.status !== 'OFFLINE') out[String(ms.spec.id)] = priceRecord(ms);
  return out;
}

/** The prices map, by marketId. */
export const PRICES_RESPONSES = okReplies(
  mapOf(Type.Object({ marketDisplayName: Type.String(), oraclePrice: Type.String(), markPrice: Type.String(), sequencer: Type.Integer() })),
);

export const prices: Operation<typeof PRICES_RESPONSES> = {
  name: 'prices',
  method: 'GET',
  path: '/v1/prices',
  auth: 'public',
  description: 'oracle and mark prices',
  schema: { querystring: Type.Object({ market: Type.Optional(Type.String()) }, { additionalProperties: true }) },
  response: PRICES_RESPONSES,
  errorSource: null,
  weight: 'prices',
  mutates: false,
  handle: (state, request) => {
    const filter = request.query.market;
    if (filter === undefined) return ok(pricesRecord(marketsById(state.exchange)));
    const ms = resolveMarket(state.exchange, filter);
    if (ms === undefined) return badRequest(`unknown market: ${String(filter)}`);
    return ok(pricesRecord([ms]));
  },
};
