/**
 * Oracle price feeds: a seeded geometric random walk per market.
 *
 * Each step draws a normal log-return with the market's volatility scaled to the step length,
 * and now and then a jump; the price is rounded to the market's tick (and to its band's tick).
 * Markets with regular trading hours follow their session: outside it the walk moves with
 * `offHoursVolatility` times its volatility and takes no jumps, and the first step back inside
 * the session adds an opening gap (a normal draw of `sessionGap`). The same seed gives the same
 * path on every machine (sim/prng.ts), whatever the clock's speed.
 */
import { onTierTick, type MarketSpec } from '../engine/index.ts';
import { isOutsideRth } from '../engine/prices.ts';
import { createPrng, type Prng } from './prng.ts';

export interface WalkParams {
  /** Annualized volatility, e.g. 0.6 for 60 %. */
  volatility: number;
  /** Probability per step of a jump, and the jump's standard deviation (fraction). */
  jumpProbability: number;
  jumpSize: number;
  /** Outside regular trading hours: the volatility's multiplier (0 holds the price). */
  offHoursVolatility: number;
  /** Standard deviation (fraction) of the gap at a session's open. */
  sessionGap: number;
}

export const DEFAULT_WALK: WalkParams = { volatility: 0.6, jumpProbability: 0.0005, jumpSize: 0.01, offHoursVolatility: 0.2, sessionGap: 0.005 };

/**
 * Built-in annualized volatilities of the default markets, near their long-run realized
 * levels; other markets use DEFAULT_WALK's.
 */
export const DEFAULT_VOLATILITY: Readonly<Record<string, number>> = {
  'BTC-USD': 0.5,
  'ETH-USD': 0.65,
  'SOL-USD': 0.8,
  'DOGE-USD': 0.9,
  'AMD-USD': 0.5,
  'SPX-USD': 0.16,
  'XAU-USD': 0.15,
};

/**
 * A market's walk parameters, most specific first: its own section of the config
 * (`feeds.markets`), then the config's `feeds` values, then the built-in volatility of the
 * market, then DEFAULT_WALK.
 */
export function walkParamsFor(displayName: string, global: Partial<WalkParams> = {}, perMarket: Readonly<Record<string, Partial<WalkParams>>> = {}): WalkParams {
  const builtIn = DEFAULT_VOLATILITY[displayName];
  return { ...DEFAULT_WALK, ...(builtIn !== undefined && { volatility: builtIn }), ...global, ...perMarket[displayName] };
}

export interface RandomWalk {
  spec: MarketSpec;
  params: WalkParams;
  rng: Prng;
  /** Current price in ticks (float; rounded when read). */
  price: number;
  /** Whether the last step was outside the market's session (a session open gaps). */
  outside: boolean | undefined;
}

export function createWalk(spec: MarketSpec, startTicks: number, seed: number, params: WalkParams = DEFAULT_WALK): RandomWalk {
  return { spec, params, rng: createPrng(seed * 7919 + spec.id), price: startTicks, outside: undefined };
}

export function normal(rng: Prng): number {
  // Box-Muller; 1 - next() keeps the log argument in (0, 1].
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

const US_PER_YEAR = 365 * 86_400_000_000;

/**
 * The highest price a feed reaches, in ticks: the engine takes safe integers only, and below
 * this stepping down to a band's tick still changes the number.
 */
export const MAX_FEED_TICKS = 1e15;

/** Whole ticks at or below `ticks` that lie on their band's tick (1 to MAX_FEED_TICKS). */
export function toTierTick(spec: MarketSpec, ticks: number): number {
  let t = Math.min(MAX_FEED_TICKS, Math.max(1, Math.round(ticks)));
  while (t > 1 && !onTierTick(spec, t)) t--;
  return t;
}

/**
 * Advances the walk by `dtUs`, ending at simulated time `nowUs`, and returns the new price in
 * whole ticks on its band's tick. Every step draws the same count of values, in or out of the
 * session, so a path does not depend on when sessions fall.
 */
export function step(walk: RandomWalk, dtUs: number, nowUs: number): number {
  const outside = isOutsideRth(walk.spec.def.regularTradingHours, nowUs);
  const opening = walk.outside === true && !outside;
  walk.outside = outside;
  const scale = outside ? walk.params.offHoursVolatility : 1;
  const sigma = walk.params.volatility * scale * Math.sqrt(dtUs / US_PER_YEAR);
  const diffusion = normal(walk.rng);
  const jumps = walk.rng.next() < walk.params.jumpProbability;
  const jump = normal(walk.rng);
  const gap = normal(walk.rng);
  let ret = sigma * diffusion;
  if (jumps && !outside) ret += walk.params.jumpSize * jump;
  if (opening) ret += walk.params.sessionGap * gap;
  walk.price = Math.min(MAX_FEED_TICKS, Math.max(1, walk.price * Math.exp(ret)));
  return toTierTick(walk.spec, walk.price);
}
