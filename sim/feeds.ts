/**
 * Oracle price feeds: a seeded geometric random walk per market.
 *
 * Each step draws a normal return with the market's volatility scaled to the step length, and
 * now and then a jump; the price is rounded to the market's tick (and to its tier's tick). The
 * same seed gives the same path on every machine (sim/prng.ts), whatever the clock's speed.
 */
import { onTierTick, type MarketSpec } from '../engine/index.ts';
import { createPrng, type Prng } from './prng.ts';

export interface WalkParams {
  /** Annualized volatility, e.g. 0.6 for 60 %. */
  volatility: number;
  /** Probability per step of a jump, and the jump's standard deviation (fraction). */
  jumpProbability: number;
  jumpSize: number;
}

export const DEFAULT_WALK: WalkParams = { volatility: 0.6, jumpProbability: 0.0005, jumpSize: 0.01 };

export interface RandomWalk {
  spec: MarketSpec;
  params: WalkParams;
  rng: Prng;
  /** Current price in ticks (float; rounded when read). */
  price: number;
}

export function createWalk(spec: MarketSpec, startTicks: number, seed: number, params: WalkParams = DEFAULT_WALK): RandomWalk {
  return { spec, params, rng: createPrng(seed * 7919 + spec.id), price: startTicks };
}

export function normal(rng: Prng): number {
  // Box-Muller; 1 - next() keeps the log argument in (0, 1].
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

const US_PER_YEAR = 365 * 86_400_000_000;

/** Advances the walk by `dtUs` and returns the new price in whole ticks on its tier's tick. */
export function step(walk: RandomWalk, dtUs: number): number {
  const sigma = walk.params.volatility * Math.sqrt(dtUs / US_PER_YEAR);
  let ret = sigma * normal(walk.rng);
  if (walk.rng.next() < walk.params.jumpProbability) ret += walk.params.jumpSize * normal(walk.rng);
  walk.price = Math.max(1, walk.price * Math.exp(ret));
  let ticks = Math.max(1, Math.round(walk.price));
  while (!onTierTick(walk.spec, ticks)) ticks--;
  return Math.max(1, ticks);
}
