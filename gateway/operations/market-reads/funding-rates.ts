/**
 * GET /v1/fundingRates — settled hourly funding rates, newest first (ties by marketId):
 * `{fundingRates: [{marketId, marketDisplayName, fundingRate, time}]}`. `market` optional,
 * `from` / `to` epoch µs inclusive, no default window (the limit bounds the page). Rows come
 * from gateway/read-models/funding-rates-store.ts.
 * Spec: supplement §6. Choices: docs/decisions.md "Market-read operations".
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../../../engine/index.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { fundingRateString, readFundingRates } from '../../read-models/funding-rates-store.ts';
import { marketsById, resolveMarket } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { okReplies } from '../../contract/reply-schema.ts';

export type FundingRateRecord = Static<(typeof FUNDING_RATES_RESPONSES)[200]['properties']['fundingRates']['items']>;

const TimeBound = Type.Optional(Type.Integer({ minimum: LIMITS.minMicrosecondBound }));

export const FUNDING_RATES_RESPONSES = okReplies(
  Type.Object({
    fundingRates: Type.Array(Type.Object({ marketId: Type.Integer(), marketDisplayName: Type.String(), fundingRate: Type.String(), time: Type.Number() })),
  }),
);

export const fundingRates: Operation<typeof FUNDING_RATES_RESPONSES> = {
  name: 'fundingRates',
  method: 'GET',
  path: '/v1/fundingRates',
  auth: 'public',
  description: 'funding rate history',
  schema: {
    querystring: Type.Object(
      {
        market: Type.Optional(Type.String()),
        limit: Type.Optional(Type.Integer({ minimum: LIMITS.historyLimitMin })),
        from: TimeBound,
        to: TimeBound,
      },
      { additionalProperties: true },
    ),
  },
  response: FUNDING_RATES_RESPONSES,
  errorSource: null,
  weight: 'fundingRates',
  mutates: false,
  handle: (state, request) => {
    const query = request.query as { market?: string; limit?: number; from?: number; to?: number };
    const exchange = state.exchange;
    let marketIds: number[];
    if (query.market === undefined) {
      marketIds = marketsById(exchange).map((ms) => ms.spec.id);
    } else {
      const ms = resolveMarket(exchange, query.market);
      if (ms === undefined) return badRequest(`unknown market: ${query.market}`);
      marketIds = [ms.spec.id];
    }
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) return badRequest('from must not be after to');
    const limit = Math.min(query.limit ?? LIMITS.historyLimitDefault, LIMITS.historyLimitMax);
    const rows = readFundingRates(state.fundingRates, marketIds, { from: query.from, to: query.to, limit });
    const records: FundingRateRecord[] = rows.map((e) => ({
      marketId: e.marketId,
      marketDisplayName: exchange.engine.markets.get(e.marketId)!.spec.displayName,
      fundingRate: fundingRateString(e.rate),
      time: e.time,
    }));
    return ok({ fundingRates: records });
  },
};
