/**
 * GET /v1/candles — OHLCV bars of one market and timeframe, newest first, built from real trades
 * (gateway/read-models/candles.ts `readFilledCandles`). `market`, `timeframe` and `to` (epoch
 * µs) are required; the lower bound is `from` or `countback` (closed bars back from `to`), never
 * both. Every period from the market's first trade has a bar (a quiet one at the previous
 * close); a page holds at most 1,500 bars.
 * Spec: supplement §6, §7 candle record, §12 order. Choices where the spec is silent:
 * docs/decisions.md "Market-read operations".
 */
import { Type } from 'typebox';
import { CANDLE_TIMEFRAMES, LIMITS } from '../../../engine/index.ts';
import { candleRecord, isTimeframe, readFilledCandles, TIMEFRAME_US } from '../../read-models/candles.ts';
import { badRequest, ok } from '../../contract/errors.ts';
import { resolveMarket } from '../../read-models/markets.ts';
import type { GatewayState, Operation, OperationReply } from '../../contract/operation.ts';
import { CANDLES_RESPONSES } from '../../contract/reply-schema.ts';

const Micros = Type.Integer({ minimum: LIMITS.minMicrosecondBound });

export const candles: Operation<typeof CANDLES_RESPONSES> = {
  name: 'candles',
  method: 'GET',
  path: '/v1/candles',
  auth: 'public',
  description: 'OHLCV candles, newest first',
  schema: {
    querystring: Type.Object(
      {
        market: Type.String(),
        timeframe: Type.String(),
        to: Micros,
        from: Type.Optional(Micros),
        countback: Type.Optional(Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: true },
    ),
  },
  response: CANDLES_RESPONSES,
  errorSource: null,
  weight: 'candles',
  mutates: false,
  handle: (state, request) => candlesReply(state, request.query as unknown as CandlesQuery),
};

export interface CandlesQuery {
  market: string;
  timeframe: string;
  /** Epoch µs. */
  to: number;
  from?: number;
  countback?: number;
}

/** The candles read of a validated query (bounds in µs), shared with GET /v1/api-meta/candles. */
export function candlesReply(state: GatewayState, query: CandlesQuery): OperationReply<typeof CANDLES_RESPONSES> {
  const ms = resolveMarket(state.exchange, query.market);
  if (ms === undefined) return badRequest(`unknown market: ${query.market}`);
  const timeframe = query.timeframe;
  if (!isTimeframe(timeframe)) return badRequest(`timeframe must be one of ${CANDLE_TIMEFRAMES.join(', ')}`);
  if (query.from !== undefined && query.countback !== undefined) return badRequest('from and countback are mutually exclusive');
  if (query.from !== undefined && query.from > query.to) return badRequest('from must not be after to');
  const limit = Math.min(query.countback ?? LIMITS.candlePageMax, LIMITS.candlePageMax);
  const store = state.candles;
  const now = state.exchange.clock();
  // Closed bars only: a bar that ends by min(to, now) opens at or before that minus its length.
  const to = query.countback === undefined ? query.to : Math.min(query.to, now) - TIMEFRAME_US[timeframe] + 1;
  const bars = readFilledCandles(store, ms.spec.id, timeframe, { to, from: query.from, limit }, now);
  return ok({ candles: bars.map((bar) => candleRecord(ms.spec, timeframe, bar, now)) });
}
