/**
 * GET /v1/api-meta/candles — the metadata service's candles (public): `market`, `timeframe`,
 * `to` and `from` in unix SECONDS (the public clients send seconds here, microseconds on
 * /v1/candles), and one of `from` or `countback` required. The venue serves its spot tickers
 * here; perpsim has no spot markets, so the market is any perpetual's selector and the reply
 * is GET /v1/candles' for the same window: `{candles: [candle]}` newest first, a bar for every
 * period (docs/decisions.md "Fidelity to the live venue").
 */
import { Type } from 'typebox';
import { badRequest } from '../../contract/errors.ts';
import type { Operation } from '../../contract/operation.ts';
import { candlesReply } from './candles.ts';
import { CANDLES_RESPONSES } from '../../contract/reply-schema.ts';

/** Unix seconds: a millisecond- or microsecond-scale value (above 1e11, the year 5138) is 400. */
const Seconds = Type.Integer({ minimum: 0, maximum: 99_999_999_999 });

export const apiMetaCandles: Operation<typeof CANDLES_RESPONSES> = {
  name: 'apiMetaCandles',
  method: 'GET',
  path: '/v1/api-meta/candles',
  auth: 'public',
  description: 'metadata candles, bounds in unix seconds',
  schema: {
    querystring: Type.Object(
      { market: Type.String(), timeframe: Type.String(), to: Seconds, from: Type.Optional(Seconds), countback: Type.Optional(Type.Integer({ minimum: 1 })) },
      { additionalProperties: true },
    ),
  },
  response: CANDLES_RESPONSES,
  errorSource: null,
  weight: 'apiMetaCandles',
  mutates: false,
  handle: (state, request) => {
    const query = request.query as { market: string; timeframe: string; to: number; from?: number; countback?: number };
    if (query.from === undefined && query.countback === undefined) return badRequest('one of from or countback is required');
    return candlesReply(state, {
      market: query.market,
      timeframe: query.timeframe,
      to: query.to * 1_000_000,
      ...(query.from !== undefined && { from: query.from * 1_000_000 }),
      ...(query.countback !== undefined && { countback: query.countback }),
    });
  },
};
