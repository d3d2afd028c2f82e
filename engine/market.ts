/**
 * Markets: configuration compiled into integer rules.
 *
 * Contract: a `MarketSpec` is built once from a `MarketDef` and never changes except for its
 * status. It answers, in ticks and quantums, the questions order validation asks: is a price on
 * its tier's tick, is a size within bounds, what is a price·size notional in USD. Decimal
 * strings enter through `priceToTicks` / `sizeToQuantums` (exact, or null) and leave through
 * `ticksToPrice` / `quantumsToSize`.
 *
 * Tick tiers (interface.md Scheme 1 rule 2): prices are always counted in the top-level tick; in
 * a coarser band a price must also be a multiple of that band's tick, expressed here as
 * `multiple` (band tick / top-level tick, an integer).
 */
import Big from 'big.js';
import { LIMITS } from './spec.ts';
import type { MarketCategory, MarketStatus } from './spec.ts';
import type { MarketDef } from './types.ts';
import { bigToUnits, formatUnits, toUnits, unitOf, type Unit } from './units.ts';
import { plainRecord } from './plain-record.ts';

export interface TickBand {
  /** Exclusive upper bound in ticks; Infinity on the top band. */
  upTo: number;
  /** The band's tick in top-level ticks. */
  multiple: number;
}

export interface MarketSpec {
  id: number;
  def: MarketDef;
  displayName: string;
  status: MarketStatus;
  category: MarketCategory | null;
  tick: Unit;
  step: Unit;
  bands: TickBand[];
  minSize: number;
  maxSize: number;
  maxLeverage: number;
  /** 10^(tick scale + step scale) / (tick mantissa · step mantissa): USD = ticks·quantums / this. */
  notionalDivisor: number;
  /** Minimum notional and the position cap as exact ticks·quantums thresholds. */
  minNotionalValue: bigint;
  maxPositionValue: bigint;
  /** Float shadows of the two thresholds for the fast path. */
  minNotionalValueF: number;
  maxPositionValueF: number;
  /** Quote quantums (1e-9 USD) per tick·quantum: notional = price · size · valueMul. */
  valueMul: bigint;
  /** Margin fractions in ppm. */
  imfPpm: bigint;
  mmfPpm: bigint;
  offHoursImfPpm: bigint;
  /** Float shadows for the fast margin path (margin.ts `crossRiskF`). */
  valueMulF: number;
  imfF: number;
  mmfF: number;
  offHoursImfF: number;
}

const buildMarketSpec = plainRecord<MarketSpec>();
const buildBand = plainRecord<TickBand>();

/** Builds the integer rules of a market; throws on an inconsistent definition. */
export function compileMarket(def: MarketDef): MarketSpec {
  if (!Number.isInteger(def.id) || def.id < 0 || def.id > LIMITS.marketIdMax) {
    throw new Error(`market id out of range: ${def.id}`);
  }
  const tick = unitOf(def.tickSize);
  const step = unitOf(def.stepSize);
  const bands: TickBand[] = [];
  const tiers = def.tickTiers.length > 0 ? def.tickTiers : [{ tick: def.tickSize }];
  for (const tier of tiers) {
    const multiple = toUnits(tier.tick, tick);
    if (multiple === null || multiple < 1) throw new Error(`${def.displayName}: tier tick ${tier.tick} is not a multiple of ${def.tickSize}`);
    const upTo = tier.upToPrice === undefined ? Infinity : toUnits(tier.upToPrice, tick);
    if (upTo === null) throw new Error(`${def.displayName}: tier bound ${tier.upToPrice} is not on the tick`);
    bands.push(buildBand({ upTo, multiple }));
  }
  const minSize = toUnits(def.minOrderSize, step);
  const maxSize = toUnits(def.maxOrderSize, step);
  if (minSize === null || maxSize === null || minSize < 1 || maxSize < minSize) {
    throw new Error(`${def.displayName}: order size bounds are not on the step`);
  }
  // USD value of one tick·quantum is tick·step; thresholds are USD / (tick·step), rounded up so
  // that "at least 5 USD" and "at most the cap" stay exact comparisons on integers.
  const unitValue = tick.big.times(step.big);
  const minNotionalValue = ceilBig(new Big(def.minOrderNotional).div(unitValue));
  const cap = new Big(LIMITS.maxPositionNotionalE10.toString()).div(1e10);
  const maxPositionValue = BigInt(cap.div(unitValue).round(0, Big.roundDown).toFixed(0));
  const imf = Number(def.initialMarginFraction);
  // The venue's markets all have tick·step = 1e-9 USD, one quote quantum; perpsim requires a
  // whole number of quote quantums so that every notional is exact (docs/decisions.md).
  const perQuantum = unitValue.times(1e9);
  if (!perQuantum.eq(perQuantum.round(0, Big.roundDown)) || perQuantum.lt(1)) {
    throw new Error(`${def.displayName}: tickSize × stepSize must be a whole multiple of 1e-9 USD`);
  }
  return buildMarketSpec({
    id: def.id,
    def,
    displayName: def.displayName,
    status: def.status,
    category: def.category,
    tick,
    step,
    bands,
    minSize,
    maxSize,
    maxLeverage: def.maxLeverage ?? Math.floor(1 / imf + 1e-9),
    notionalDivisor: Number(new Big(1).div(unitValue).toFixed(12)),
    minNotionalValue,
    maxPositionValue,
    minNotionalValueF: Number(minNotionalValue),
    maxPositionValueF: Number(maxPositionValue),
    valueMul: BigInt(perQuantum.toFixed(0)),
    imfPpm: fractionPpm(def.initialMarginFraction, def.displayName),
    mmfPpm: fractionPpm(def.maintenanceMarginFraction, def.displayName),
    offHoursImfPpm: fractionPpm(def.offHoursInitialMarginFraction, def.displayName),
    valueMulF: Number(perQuantum.toFixed(0)),
    imfF: Number(fractionPpm(def.initialMarginFraction, def.displayName)) / 1e6,
    mmfF: Number(fractionPpm(def.maintenanceMarginFraction, def.displayName)) / 1e6,
    offHoursImfF: Number(fractionPpm(def.offHoursInitialMarginFraction, def.displayName)) / 1e6,
  });
}

/** A fraction such as "0.016667" in ppm, rounded up (margin is never understated). */
function fractionPpm(text: string, market: string): bigint {
  const value = new Big(text);
  if (value.lte(0) || value.gt(1)) throw new Error(`${market}: margin fraction out of range: ${text}`);
  return ceilBig(value.times(1_000_000));
}

function ceilBig(value: Big): bigint {
  return BigInt(value.round(0, Big.roundUp).toFixed(0));
}

/** True when `price` (ticks) is a multiple of its band's tick. */
export function onTierTick(market: MarketSpec, price: number): boolean {
  const bands = market.bands;
  for (let i = 0; i < bands.length; i++) {
    const band = bands[i]!;
    if (price < band.upTo) return band.multiple === 1 || price % band.multiple === 0;
  }
  return true;
}

/** True when price·size is at least the market's minimum order notional. */
export function meetsMinNotional(market: MarketSpec, price: number, size: number): boolean {
  const approx = price * size;
  // Floats decide every case that is not within rounding distance of the threshold.
  if (approx > market.minNotionalValueF * 1.000001) return true;
  if (approx < market.minNotionalValueF * 0.999999) return false;
  return BigInt(price) * BigInt(size) >= market.minNotionalValue;
}

/** True when |position|·price stays within the fixed maximum position notional. */
export function withinPositionCap(market: MarketSpec, price: number, absPosition: number): boolean {
  const approx = price * absPosition;
  if (approx < market.maxPositionValueF * 0.999999) return true;
  if (approx > market.maxPositionValueF * 1.000001) return false;
  return BigInt(price) * BigInt(absPosition) <= market.maxPositionValue;
}

export function priceToTicks(market: MarketSpec, text: string): number | null {
  return toUnits(text, market.tick);
}

export function sizeToQuantums(market: MarketSpec, text: string): number | null {
  return toUnits(text, market.step);
}

export function bigPriceToTicks(market: MarketSpec, value: Big): number | null {
  return bigToUnits(value, market.tick);
}

export function ticksToPrice(market: MarketSpec, ticks: number): string {
  return formatUnits(ticks, market.tick);
}

export function quantumsToSize(market: MarketSpec, quantums: number): string {
  return formatUnits(quantums, market.step);
}
