/**
 * The settled hourly funding rates of every market (GET /v1/fundingRates), kept from the
 * engine's `fundingRate` events.
 *
 * Contract:
 * - One row per `fundingRate` event: the market, the rate (1e-12 units) and the settlement time
 *   (a whole hour, µs). The engine settles only markets with an oracle price, so a market
 *   without one has no rows for that hour.
 * - Rows are kept per market, oldest first, the newest `ratesPerMarket` of them (a year of
 *   hours by default).
 * - The engine keeps no history of its own: `createGateway` (gateway.ts) builds the store with
 *   the exchange and feeds it every `fundingRate` event, so no settled rate is missed.
 * - Rates print as plain decimals: 12_500_000 (1e-12 units) → "0.0000125".
 */
import { formatBig, trimDecimal, type FundingRateEvent } from '../../engine/index.ts';
import { plainRecord } from '../../engine/index.ts';

export interface FundingRateStore {
  byMarket: Map<number, FundingRateEvent[]>;
  ratesPerMarket: number;
}

export const DEFAULT_RATES_PER_MARKET = 24 * 366;

const buildFundingRateStore = plainRecord<FundingRateStore>();

export function createFundingRateStore(ratesPerMarket = DEFAULT_RATES_PER_MARKET): FundingRateStore {
  return buildFundingRateStore({ byMarket: new Map(), ratesPerMarket });
}

export function recordFundingRate(store: FundingRateStore, e: FundingRateEvent): void {
  let rows = store.byMarket.get(e.marketId);
  if (rows === undefined) {
    rows = [];
    store.byMarket.set(e.marketId, rows);
  }
  rows.push(e);
  if (rows.length > store.ratesPerMarket) rows.shift();
}

export interface RateWindow {
  /** Inclusive bounds on the settlement time, µs. */
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
}

/** Rows of the given markets within [from, to], newest first (ties: ascending marketId), at most `limit`. */
export function readFundingRates(store: FundingRateStore, marketIds: readonly number[], window: RateWindow): FundingRateEvent[] {
  const from = window.from ?? -Infinity;
  const to = window.to ?? Infinity;
  const rows: FundingRateEvent[] = [];
  for (const id of marketIds) {
    for (const e of store.byMarket.get(id) ?? []) if (e.time >= from && e.time <= to) rows.push(e);
  }
  rows.sort((a, b) => b.time - a.time || a.marketId - b.marketId);
  return rows.slice(0, window.limit);
}

/** A rate in 1e-12 units as a decimal string. */
export function fundingRateString(rate: bigint): string {
  return trimDecimal(formatBig(rate, 12));
}
