/**
 * Markets at the gateway: selectors and the market record.
 *
 * A market selector (filters, path parameters) is the display name, case-insensitive, or the
 * numeric id; anything else is unresolvable (400). The market record follows supplement §7:
 * required fields always present, off-hours band fields null for 24/7 markets and in regular
 * hours, prices "0" when unavailable. The interface says the removed size fields are no longer
 * returned; supplement §12 keeps minOrderSize/maxOrderSize because live clients read them.
 */
import { ticksToPrice, type MarketState } from '../../engine/index.ts';
import type { Exchange } from './exchange.ts';
import type { MarketRow } from '../contract/reply-schema.ts';
import { price as formatPrice, size as formatSize } from '../contract/format.ts';
import { fundingRateString, type FundingRateStore } from './funding-rates-store.ts';
import { marketStats, type MarketStatsStore } from './market-stats.ts';

export function resolveMarket(exchange: Exchange, selector: unknown): MarketState | undefined {
  if (typeof selector === 'number' && Number.isInteger(selector)) return exchange.engine.markets.get(selector);
  if (typeof selector !== 'string' || selector.length === 0 || selector.length > 64) return undefined;
  if (/^\d+$/.test(selector)) return exchange.engine.markets.get(Number(selector));
  const wanted = selector.toUpperCase();
  for (const ms of exchange.engine.markets.values()) if (ms.spec.displayName.toUpperCase() === wanted) return ms;
  return undefined;
}

/** Markets ascending by id (the order of every list the interface sorts). */
export function marketsById(exchange: Exchange): MarketState[] {
  return [...exchange.engine.markets.values()].sort((a, b) => a.spec.id - b.spec.id);
}

function fraction(ppm: bigint): string {
  const text = (Number(ppm) / 1e6).toFixed(6);
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

export function marketRecord(ms: MarketState): Record<string, unknown> {
  const spec = ms.spec;
  const def = spec.def;
  const online = spec.status === 'ONLINE';
  const hours = def.regularTradingHours;
  const record: Record<string, unknown> = {
    marketDisplayName: spec.displayName,
    marketId: spec.id,
    status: spec.status,
    baseAsset: def.baseAsset,
    quoteAsset: 'USD',
    tickSize: def.tickSize,
    stepSize: def.stepSize,
    tickTiers: def.tickTiers.map((t) => (t.upToPrice === undefined ? { tick: t.tick } : { upToPrice: t.upToPrice, tick: t.tick })),
    minOrderNotional: def.minOrderNotional,
    minOrderSize: def.minOrderSize,
    maxOrderSize: def.maxOrderSize,
    type: 'PERPETUAL',
    category: def.category,
    addedTimestamp: def.addedTimestamp,
    regularTradingHours: hours === null ? null : { ...hours, isOvernight: hours.isOvernight ?? false },
    isOutsideRth: online ? ms.outsideRth : null,
    currentSettlementPrice: null,
    upperTradingBound: null,
    lowerTradingBound: null,
    nextUpperTradingBound: null,
    nextLowerTradingBound: null,
    isUpperInExpansionZone: null,
    isLowerInExpansionZone: null,
    upperZoneEnteredAt: null,
    lowerZoneEnteredAt: null,
    upperExpectedExpansionAt: null,
    lowerExpectedExpansionAt: null,
    oraclePrice: online && ms.oraclePrice > 0 ? ticksToPrice(spec, ms.oraclePrice) : formatPrice(spec, 0),
    markPrice: online && ms.markPrice > 0 ? ticksToPrice(spec, ms.markPrice) : '0',
    openInterest: formatSize(spec, ms.openInterest),
    initialMarginFraction: fraction(spec.imfPpm),
    maintenanceMarginFraction: fraction(spec.mmfPpm),
    offHoursInitialMarginFraction: fraction(spec.offHoursImfPpm),
    assetResolution: '10000000000',
  };
  if (def.fullAssetName !== undefined) record.fullAssetName = def.fullAssetName;
  return record;
}

const HOUR_US = 3_600_000_000;

/** The fields of `marketRecord`, as the market row's schema types them. */
type MarketRecordFields = Omit<MarketRow, 'lastTradePrice' | 'fundingRate' | 'nextFundingRate' | 'nextFundingAt' | 'priceChange24h' | 'volume24h' | 'volume24hNotional' | 'high24h' | 'low24h' | 'trades24h' | 'openInterestCapNotional' | 'pythId'>;

/**
 * The venue's price-feed id of a base asset (`pythId`, a decimal string on every live row), for
 * the assets of the default universe that the captured live rows show. A market whose asset is
 * not listed has no pythId (the field is optional, supplement §7).
 */
const PYTH_IDS: Readonly<Record<string, string>> = { BTC: '1', ETH: '2', SOL: '6', DOGE: '13', AMD: '949', F: '1126' };

/**
 * The market row of GET /v1/markets and the markets channel: the record plus the live venue's
 * state fields (docs/decisions.md "Fidelity to the live venue"), from real state:
 * - fundingRate: the last settled hourly rate ("0" before the first settlement, and offline);
 *   nextFundingRate: the current hour's predicted rate; nextFundingAt: the next settlement,
 *   unix seconds (an integer, as live);
 * - the 24-hour fields from the trade tape (gateway/read-models/market-stats.ts);
 * - openInterestCapNotional: null, as live on uncapped markets (perpsim has no open-interest
 *   caps); pythId as above.
 * Field order follows the live rows.
 */
/** What a market row reads: the exchange and two read models (a GatewayState has them all). */
export interface MarketRowSources {
  exchange: Exchange;
  fundingRates: FundingRateStore;
  marketStats: MarketStatsStore;
}

export function marketRow(sources: MarketRowSources, ms: MarketState): MarketRow {
  const exchange = sources.exchange;
  // marketRecord stays an open record (ws/market-attributes.ts indexes it by field name).
  const record = marketRecord(ms) as MarketRecordFields;
  const online = ms.spec.status === 'ONLINE';
  const now = exchange.clock();
  const settled = sources.fundingRates.byMarket.get(ms.spec.id);
  const lastRate = settled === undefined || settled.length === 0 ? undefined : settled[settled.length - 1]!.rate;
  const nextAt = exchange.engine.nextSettlementAt > 0 ? exchange.engine.nextSettlementAt : Math.floor(now / HOUR_US) * HOUR_US + HOUR_US;
  const stats = marketStats(sources.marketStats, ms.spec, now);
  const { openInterest, initialMarginFraction, maintenanceMarginFraction, offHoursInitialMarginFraction, assetResolution, ...head } = record;
  const { marketDisplayName, fullAssetName, ...rest } = head;
  const ordered = { marketDisplayName, ...(fullAssetName === undefined ? {} : { fullAssetName }) };
  const { regularTradingHours, isOutsideRth, currentSettlementPrice, upperTradingBound, lowerTradingBound, nextUpperTradingBound, nextLowerTradingBound, isUpperInExpansionZone, isLowerInExpansionZone, upperZoneEnteredAt, lowerZoneEnteredAt, upperExpectedExpansionAt, lowerExpectedExpansionAt, type, category, addedTimestamp, oraclePrice, markPrice, ...identity } = rest;
  return {
    ...ordered,
    ...identity,
    oraclePrice,
    markPrice,
    ...(stats.lastTradePrice === undefined ? {} : { lastTradePrice: stats.lastTradePrice }),
    fundingRate: online && lastRate !== undefined ? fundingRateString(lastRate) : '0',
    nextFundingRate: online ? fundingRateString(ms.funding.rate) : '0',
    nextFundingAt: Math.floor(nextAt / 1_000_000),
    priceChange24h: stats.priceChange24h,
    volume24h: stats.volume24h,
    volume24hNotional: stats.volume24hNotional,
    ...(stats.high24h === undefined ? {} : { high24h: stats.high24h, low24h: stats.low24h }),
    trades24h: stats.trades24h,
    openInterest,
    openInterestCapNotional: null,
    initialMarginFraction,
    maintenanceMarginFraction,
    offHoursInitialMarginFraction,
    regularTradingHours,
    isOutsideRth,
    currentSettlementPrice,
    upperTradingBound,
    lowerTradingBound,
    nextUpperTradingBound,
    nextLowerTradingBound,
    isUpperInExpansionZone,
    isLowerInExpansionZone,
    upperZoneEnteredAt,
    upperExpectedExpansionAt,
    lowerZoneEnteredAt,
    lowerExpectedExpansionAt,
    type,
    category,
    addedTimestamp,
    assetResolution,
    ...(PYTH_IDS[ms.spec.def.baseAsset] === undefined ? {} : { pythId: PYTH_IDS[ms.spec.def.baseAsset] }),
  };
}
