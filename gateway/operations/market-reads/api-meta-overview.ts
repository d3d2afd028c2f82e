/**
 * GET /v1/api-meta/overview — a market summary keyed by base asset, under the market record's
 * field names, with 24-hour figures from the one-minute candles (the 1,440 bars ending with the
 * current one). Keys in ascending marketId order; `category` only inside the classified
 * universe.
 * Spec: interface.md ("the overview reads are keyed by base asset"). Shape: docs/decisions.md
 * "Market-read operations".
 */
import type { MarketState, TradesEvent } from '../../../engine/index.ts';
import { barOpenTime, readCandles, TIMEFRAME_US, type CandleStore } from '../../read-models/candles.ts';
import { ok } from '../../contract/errors.ts';
import type { Exchange } from '../../read-models/exchange.ts';
import { price, size, usd } from '../../contract/format.ts';
import { marketsById } from '../../read-models/markets.ts';
import type { Operation } from '../../contract/operation.ts';
import { priceRecord } from './prices.ts';
import { Type, type Static } from 'typebox';
import { okReplies, mapOf } from '../../contract/reply-schema.ts';

const CLASSIFIED: ReadonlySet<string> = new Set(['EQUITIES', 'COMMODITIES', 'INDICES', 'CRYPTO']);
const MINUTES_PER_DAY = 1440;

/** An overview entry, fields in the order `overviewEntry` writes them (the optional ones after). */
export const OverviewEntrySchema = Type.Object({
  baseAsset: Type.String(),
  marketId: Type.Integer(),
  marketDisplayName: Type.String(),
  status: Type.String(),
  oraclePrice: Type.String(),
  markPrice: Type.String(),
  volume24h: Type.String(),
  volume24hNotional: Type.String(),
  trades24h: Type.Integer(),
  openInterest: Type.String(),
  fullAssetName: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  lastTradePrice: Type.Optional(Type.String()),
  priceChange24h: Type.Optional(Type.String()),
  high24h: Type.Optional(Type.String()),
  low24h: Type.Optional(Type.String()),
});
/** By base asset. */
export const API_META_OVERVIEW_RESPONSES = okReplies(mapOf(OverviewEntrySchema));

export type OverviewEntry = Static<typeof OverviewEntrySchema>;

/** (last − first) / first as a 4-decimal fraction ("-0.0185"). */
function change(first: number, last: number): string {
  const text = ((last - first) / first).toFixed(4);
  return text === '-0.0000' ? '0.0000' : text;
}

export function overviewEntry(exchange: Exchange, store: CandleStore, ms: MarketState, now: number): OverviewEntry {
  const spec = ms.spec;
  const prices = priceRecord(ms);
  const entry: OverviewEntry = {
    baseAsset: spec.def.baseAsset,
    marketId: spec.id,
    marketDisplayName: spec.displayName,
    status: spec.status,
    oraclePrice: prices.oraclePrice,
    markPrice: prices.markPrice,
    volume24h: size(spec, 0),
    volume24hNotional: usd(0n),
    trades24h: 0,
    openInterest: size(spec, ms.openInterest),
  };
  if (spec.def.fullAssetName !== undefined) entry.fullAssetName = spec.def.fullAssetName;
  if (spec.category !== null && CLASSIFIED.has(spec.category)) entry.category = spec.category;
  let lastEvent: TradesEvent | undefined;
  for (const e of exchange.history.newestTrades(spec.id)) {
    lastEvent = e;
    break;
  }
  const lastEntry = lastEvent?.entries[lastEvent.entries.length - 1];
  if (lastEntry !== undefined) entry.lastTradePrice = price(spec, lastEntry.price);
  const from = barOpenTime('1m', now) - (MINUTES_PER_DAY - 1) * TIMEFRAME_US['1m'];
  const bars = readCandles(store, spec.id, '1m', { to: Infinity, from, limit: MINUTES_PER_DAY });
  if (bars.length > 0) {
    let high = -Infinity;
    let low = Infinity;
    let volume = 0;
    let notional = 0n;
    let trades = 0;
    for (const bar of bars) {
      if (bar.high > high) high = bar.high;
      if (bar.low < low) low = bar.low;
      volume += bar.volume;
      notional += bar.notional;
      trades += bar.tradeCount;
    }
    entry.priceChange24h = change(bars[bars.length - 1]!.open, bars[0]!.close);
    entry.high24h = price(spec, high);
    entry.low24h = price(spec, low);
    entry.volume24h = size(spec, volume);
    entry.volume24hNotional = usd(notional);
    entry.trades24h = trades;
  }
  return entry;
}

export const apiMetaOverview: Operation<typeof API_META_OVERVIEW_RESPONSES> = {
  name: 'apiMetaOverview',
  method: 'GET',
  path: '/v1/api-meta/overview',
  auth: 'public',
  description: 'market overview by base asset',
  schema: {},
  response: API_META_OVERVIEW_RESPONSES,
  errorSource: null,
  weight: 'apiMetaOverview',
  mutates: false,
  handle: (state) => {
    const store = state.candles;
    const now = state.exchange.clock();
    const overview: Record<string, OverviewEntry> = {};
    for (const ms of marketsById(state.exchange)) {
      const asset = ms.spec.def.baseAsset;
      if (!Object.hasOwn(overview, asset)) overview[asset] = overviewEntry(state.exchange, store, ms, now);
    }
    return ok(overview);
  },
};
