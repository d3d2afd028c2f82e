import { describe, expect, it } from 'vitest';
import { compileMarket } from '../engine/index.ts';
import { parseConfig } from '../sim/config.ts';
import { createWalk, DEFAULT_WALK, step, walkParamsFor, type WalkParams } from '../sim/feeds.ts';
import { defaultMarkets } from '../sim/markets.ts';

const markets = defaultMarkets();
const btc = compileMarket(markets.find((m) => m.displayName === 'BTC-USD')!);
const amd = compileMarket(markets.find((m) => m.displayName === 'AMD-USD')!);
const SECOND = 1_000_000;
/** Tuesday 2025-01-07 16:00 UTC = 11:00 in New York: inside AMD's session. */
const TUESDAY_RTH = Date.UTC(2025, 0, 7, 16) * 1000;

function logReturns(params: WalkParams, steps: number, seed = 3, spec = btc, start = TUESDAY_RTH): number[] {
  const walk = createWalk(spec, 1_000_000, seed, params);
  const out: number[] = [];
  let prev = walk.price;
  for (let i = 1; i <= steps; i++) {
    step(walk, SECOND, start + i * SECOND);
    out.push(Math.log(walk.price / prev));
    prev = walk.price;
  }
  return out;
}

function stdev(xs: number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
}

describe('seeded random walk per market: geometric, volatility per market, occasional jumps', () => {
  const calm: WalkParams = { ...DEFAULT_WALK, volatility: 0.6, jumpProbability: 0 };

  it('moves by normal log-returns with the volatility scaled to the step (geometric: relative, never below zero)', () => {
    const returns = logReturns(calm, 20_000);
    const expected = 0.6 * Math.sqrt(1 / (365 * 86_400));
    expect(stdev(returns) / expected).toBeGreaterThan(0.97);
    expect(stdev(returns) / expected).toBeLessThan(1.03);
    const crash = createWalk(btc, 1_000_000, 1, { ...calm, volatility: 500 });
    for (let i = 0; i < 1000; i++) {
      const ticks = step(crash, 60 * SECOND, TUESDAY_RTH);
      expect(ticks).toBeGreaterThanOrEqual(1);
      expect(Number.isSafeInteger(ticks)).toBe(true);
    }
  });

  it('jumps now and then: about jumpProbability of the steps carry a jump of jumpSize', () => {
    const sigma = 0.6 * Math.sqrt(1 / (365 * 86_400));
    const big = (params: WalkParams): number => logReturns(params, 20_000).filter((r) => Math.abs(r) > 10 * sigma).length;
    expect(big(calm)).toBe(0);
    const jumps = big({ ...calm, jumpProbability: 0.01, jumpSize: 0.05 });
    expect(jumps).toBeGreaterThan(140);
    expect(jumps).toBeLessThan(200);
  });

  it('takes its parameters per market: config feeds.markets, then feeds, then the market\'s built-in volatility', () => {
    expect(walkParamsFor('BTC-USD').volatility).toBe(0.5);
    expect(walkParamsFor('SPX-USD').volatility).toBe(0.16);
    expect(walkParamsFor('NEW-USD').volatility).toBe(DEFAULT_WALK.volatility);
    const config = parseConfig({ feeds: { volatility: 0.3, markets: { 'SPX-USD': { volatility: 0.1, sessionGap: 0 } } } });
    expect(walkParamsFor('BTC-USD', config.walk, config.walkByMarket)).toMatchObject({ volatility: 0.3 });
    expect(walkParamsFor('SPX-USD', config.walk, config.walkByMarket)).toMatchObject({ volatility: 0.1, sessionGap: 0, jumpSize: DEFAULT_WALK.jumpSize });
    expect(() => parseConfig({ feeds: { markets: { 'SPX-USD': { volatilty: 1 } } } })).toThrow(/feeds\.markets\.SPX-USD\.volatilty: unknown key/);
  });

  it('is deterministic for a seed', () => {
    expect(logReturns(DEFAULT_WALK, 500, 9)).toEqual(logReturns(DEFAULT_WALK, 500, 9));
    expect(logReturns(DEFAULT_WALK, 500, 9)).not.toEqual(logReturns(DEFAULT_WALK, 500, 10));
  });
});

describe('equities follow their session', () => {
  const params: WalkParams = { ...DEFAULT_WALK, volatility: 0.5, jumpProbability: 0.5, jumpSize: 0.05, offHoursVolatility: 0, sessionGap: 0.05 };
  /** Friday 2025-01-10 23:00 UTC (18:00 New York, inside) to Monday 2025-01-13 09:30 UTC (04:30, inside again). */
  const friday = Date.UTC(2025, 0, 10, 23) * 1000;
  const monday = Date.UTC(2025, 0, 13, 9, 30) * 1000;

  it('holds still outside regular trading hours with offHoursVolatility 0 (no jumps either), and gaps at the open', () => {
    const walk = createWalk(amd, 12_500, 5, params);
    const prices: number[] = [];
    for (let t = friday; t <= monday; t += 60 * SECOND) prices.push(step(walk, 60 * SECOND, t));
    // 20:00 New York on Friday closes the session; 04:00 on Monday opens it (09:00 UTC).
    const close = (Date.UTC(2025, 0, 11, 1) * 1000 - friday) / (60 * SECOND);
    const open = (Date.UTC(2025, 0, 13, 9) * 1000 - friday) / (60 * SECOND);
    const weekend = prices.slice(close, open);
    expect(new Set(weekend).size).toBe(1);
    expect(prices[open]).not.toBe(prices[open - 1]);
    expect(new Set(prices.slice(0, close)).size).toBeGreaterThan(1);
  });

  it('moves off-hours with offHoursVolatility times the volatility; a 24/7 market never leaves its session', () => {
    const saturday = Date.UTC(2025, 0, 11, 12) * 1000;
    const calm = { ...params, jumpProbability: 0 };
    const offHours = stdev(logReturns({ ...calm, offHoursVolatility: 0.2 }, 5000, 3, amd, saturday));
    const inHours = stdev(logReturns({ ...calm, offHoursVolatility: 0.2 }, 5000, 3, amd, TUESDAY_RTH));
    expect(offHours / inHours).toBeGreaterThan(0.15);
    expect(offHours / inHours).toBeLessThan(0.25);
    expect(logReturns(calm, 500, 3, btc, saturday)).toEqual(logReturns(calm, 500, 3, btc, TUESDAY_RTH));
  });
});
