/**
 * Markets at the gateway: selectors and the market record.
 *
 * A market selector (filters, path parameters) is the display name, case-insensitive, or the
 * numeric id; anything else is unresolvable (400). The market record follows supplement §7:
 * required fields always present, off-hours band fields null for 24/7 markets and in regular
 * hours, prices "0" when unavailable. The interface says the removed size fields are no longer
 * returned; supplement §12 keeps minOrderSize/maxOrderSize because live clients read them.
 */
import { ticksToPrice, type MarketState } from '../engine/index.ts';
import type { Exchange } from './exchange.ts';
import { price as formatPrice, size as formatSize } from './format.ts';

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
