/**
 * Order-book levels as the venue prints them: best first, optionally aggregated by significant
 * figures (GET /v1/l2OrderBook and the WebSocket l2Orderbook channel share this module).
 *
 * Contract: pure functions, engine integers in (price ticks, size quantums), wire pairs out.
 * - Without `sigFigs` every level prints at its own price; with it, levels are grouped into
 *   buckets and their sizes summed. A price's bucket is `10^(digits - sigFigs) × roundStep` in
 *   units of the tick's last decimal, `digits` being the number of digits of the price written
 *   in those units: 97123.4 with sigFigs 2 → buckets of 1000 (97000 / 98000), sigFigs 5 → 1,
 *   sigFigs 5 with roundStep 5 → 5. Each price takes the bucket of its own magnitude, so a
 *   side that straddles a power of ten changes bucket width there.
 * - Bids round DOWN and asks round UP to their bucket (interface.md l2Orderbook): a bucket
 *   never shows a better price than some order in it.
 * - A bucket no wider than one tick does not aggregate: the level keeps its own price (the book
 *   is never shown finer than the tick, and no label is invented off the tick grid).
 * - Rounding is monotonic in price, so walking a side best first, equal buckets are adjacent:
 *   aggregation is one pass that stops after `nLevels` buckets. Cost O(levels read).
 * - Aggregated prices print with the tick's decimals ("97000.0"), like every price.
 * - `roundStep` 2 and 5 only make sense with sigFigs 5 (the venue's rule); `roundStep` 1 is the
 *   identity and is accepted anywhere (`aggregationError` says which combinations are refused).
 */
import { formatBig, levelsBestFirst, LIMITS, type BookSide, type MarketSpec, type SideCode } from '../../engine/index.ts';
import { size as formatSize } from '../contract/format.ts';

/** A price level as the engine keeps it: price in ticks, summed size in quantums. */
export interface RawLevel {
  readonly price: number;
  readonly size: number;
}

/** One side of a book as a list of levels sorted worst to best (tests build these). */
export interface WorstToBestSide {
  readonly levels: readonly RawLevel[];
}

/** A side of the engine's book (read through its named readers) or a list of levels. */
export type SideSource = WorstToBestSide | BookSide;

export interface Aggregation {
  /** 2-5; undefined = full precision. */
  sigFigs?: number | undefined;
  /** 1, 2 or 5 (2 and 5 only with sigFigs 5); multiplies the bucket. */
  roundStep?: number | undefined;
}

/** A tick as mantissa × 10^-scale (engine/units.ts `Unit`). */
export interface TickUnit {
  readonly mantissa: number;
  readonly scale: number;
}

/** An aggregated level: price in units of 10^-scale (the tick's last decimal), size in quantums. */
export type UnitLevel = [units: number, size: number];

/** The message of a 400 for an aggregation the venue refuses, or null when it is valid. */
export function aggregationError(agg: Aggregation): string | null {
  const { sigFigs, roundStep } = agg;
  if (sigFigs !== undefined && (!Number.isInteger(sigFigs) || sigFigs < LIMITS.sigFigsMin || sigFigs > LIMITS.sigFigsMax)) {
    return `sigFigs must be an integer from ${LIMITS.sigFigsMin} to ${LIMITS.sigFigsMax}`;
  }
  if (roundStep !== undefined) {
    if (!(LIMITS.roundSteps as readonly number[]).includes(roundStep)) return 'roundStep must be 1, 2 or 5';
    if (roundStep !== 1 && sigFigs !== LIMITS.sigFigsMax) return `roundStep ${roundStep} requires sigFigs ${LIMITS.sigFigsMax}`;
  }
  return null;
}

/** Number of decimal digits of a positive integer. */
function digitsOf(n: number): number {
  let d = 1;
  while (n >= 10 ** d) d++;
  return d;
}

/**
 * The bucket a price falls in, in the same units (10^-scale): rounded down for bids, up for
 * asks; the price itself when the bucket is at most `tickUnits` wide.
 *
 * @example bucketOf(971234, 0, 2, 1, 1) // 970000 (97123.4 → 97000.0)
 */
export function bucketOf(units: number, side: SideCode, sigFigs: number, roundStep: number, tickUnits: number): number {
  const exponent = digitsOf(units) - sigFigs;
  // Below one unit (the tick's last decimal) a bucket is finer than any tick.
  if (exponent < 0) return units;
  const width = 10 ** exponent * roundStep;
  if (width <= tickUnits) return units;
  return side === 0 ? Math.floor(units / width) * width : Math.ceil(units / width) * width;
}

/** A side's levels best first. */
export function* bestFirst(side: SideSource): Generator<RawLevel> {
  if (!('levels' in side)) {
    yield* levelsBestFirst(side);
    return;
  }
  const levels = side.levels;
  for (let i = levels.length - 1; i >= 0; i--) yield levels[i]!;
}

/**
 * The first `nLevels` levels of a side, best first, aggregated as asked.
 *
 * @param levels the side's levels, best first
 */
export function aggregateLevels(levels: Iterable<RawLevel>, side: SideCode, tick: TickUnit, nLevels: number, agg: Aggregation = {}): UnitLevel[] {
  const out: UnitLevel[] = [];
  if (nLevels <= 0) return out;
  const sigFigs = agg.sigFigs;
  const roundStep = agg.roundStep ?? 1;
  for (const level of levels) {
    if (level.size <= 0) continue;
    const units = level.price * tick.mantissa;
    const bucket = sigFigs === undefined ? units : bucketOf(units, side, sigFigs, roundStep, tick.mantissa);
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === bucket) {
      last[1] += level.size;
      continue;
    }
    if (out.length === nLevels) break;
    out.push([bucket, level.size]);
  }
  return out;
}

/** Wire pairs [price, size] of aggregated levels. */
export function formatLevels(spec: MarketSpec, levels: readonly UnitLevel[]): [string, string][] {
  return levels.map(([units, quantums]) => [formatBig(BigInt(units), spec.tick.scale), formatSize(spec, quantums)]);
}

/** One side of a market's book as the venue prints it: up to `nLevels` [price, size] pairs, best first. */
export function bookSideLevels(spec: MarketSpec, side: SideSource, sideCode: SideCode, nLevels: number, agg: Aggregation = {}): [string, string][] {
  return formatLevels(spec, aggregateLevels(bestFirst(side), sideCode, spec.tick, nLevels, agg));
}
