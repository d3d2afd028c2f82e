import { describe, expect, it } from 'vitest';
import { compileMarket } from '../engine/index.ts';
import { aggregateLevels, aggregationError, bestFirst, bookSideLevels, bucketOf, formatLevels, type RawLevel } from '../gateway/read-models/book-levels.ts';
import { defaultMarkets } from '../sim/markets.ts';

const btc = compileMarket(defaultMarkets().find((m) => m.displayName === 'BTC-USD')!);
const doge = compileMarket(defaultMarkets().find((m) => m.displayName === 'DOGE-USD')!);
const TICK = { mantissa: 1, scale: 1 };

/** BTC levels from decimal prices (tick 0.1) and quantum sizes. */
const lv = (price: number, size: number): RawLevel => ({ price: Math.round(price * 10), size });

describe('bucketOf: a price takes the bucket of its own magnitude; bids round down, asks round up', () => {
  it('sigFigs 2 on 97123.4 gives 97000.0 for a bid and 98000.0 for an ask', () => {
    expect(bucketOf(971234, 0, 2, 1, 1)).toBe(970000);
    expect(bucketOf(971234, 1, 2, 1, 1)).toBe(980000);
  });

  it('sigFigs 5 buckets by whole dollars at 97123.4; roundStep 2 and 5 widen the bucket', () => {
    expect(bucketOf(971234, 0, 5, 1, 1)).toBe(971230);
    expect(bucketOf(971234, 0, 5, 2, 1)).toBe(971220);
    expect(bucketOf(971234, 0, 5, 5, 1)).toBe(971200);
    expect(bucketOf(971234, 1, 5, 5, 1)).toBe(971250);
  });

  it('a price already on its bucket stays put on both sides', () => {
    expect(bucketOf(970000, 0, 2, 1, 1)).toBe(970000);
    expect(bucketOf(970000, 1, 2, 1, 1)).toBe(970000);
  });

  it('an ask rounding up may reach the next power of ten', () => {
    expect(bucketOf(9995, 1, 3, 1, 1)).toBe(10000);
    expect(bucketOf(9995, 0, 3, 1, 1)).toBe(9990);
  });

  it('a bucket no wider than one tick does not aggregate', () => {
    // 971.2 with 5 significant figures is finer than the 0.1 tick.
    expect(bucketOf(9712, 0, 5, 5, 1)).toBe(9712);
    // Tick 0.5 (5 units): a 0.2-wide bucket is finer than the tick.
    expect(bucketOf(9715, 0, 4, 2, 5)).toBe(9715);
  });
});

describe('aggregateLevels: best first, equal buckets merged with summed sizes, at most nLevels', () => {
  const bids = [lv(96123.4, 1), lv(96100.0, 2), lv(95999.9, 4), lv(95900.1, 8), lv(95000.0, 16)];
  const asks = [lv(97000.1, 1), lv(97050.0, 2), lv(97999.9, 4), lv(98000.0, 8)];

  it('without sigFigs every level keeps its own price', () => {
    expect(aggregateLevels(bids, 0, TICK, 10)).toEqual(bids.map((l) => [l.price, l.size]));
  });

  it('sigFigs 3 groups bids down and asks up to 100-dollar buckets', () => {
    expect(aggregateLevels(bids, 0, TICK, 10, { sigFigs: 3 })).toEqual([
      [961000, 3],
      [959000, 12],
      [950000, 16],
    ]);
    expect(aggregateLevels(asks, 1, TICK, 10, { sigFigs: 3 })).toEqual([
      [971000, 3],
      [980000, 12],
    ]);
  });

  it('stops after nLevels buckets, finishing the last one', () => {
    expect(aggregateLevels(bids, 0, TICK, 2, { sigFigs: 3 })).toEqual([
      [961000, 3],
      [959000, 12],
    ]);
    expect(aggregateLevels(bids, 0, TICK, 0)).toEqual([]);
  });

  it('skips empty levels', () => {
    expect(aggregateLevels([lv(1, 0), lv(0.9, 5)], 0, TICK, 5)).toEqual([[9, 5]]);
  });
});

describe('bookSideLevels: an engine side (worst → best) as wire pairs, best first', () => {
  it('reads the side from its best end and prints prices with the tick decimals', () => {
    const side = { levels: [lv(95000, 1_000_000), lv(96000, 2_000_000), lv(96123.4, 500_000)] };
    expect([...bestFirst(side)].map((l) => l.price)).toEqual([961234, 960000, 950000]);
    expect(bookSideLevels(btc, side, 0, 2)).toEqual([
      ['96123.4', '0.005'],
      ['96000.0', '0.02'],
    ]);
    expect(bookSideLevels(btc, side, 0, 5, { sigFigs: 2 })).toEqual([
      ['96000.0', '0.025'],
      ['95000.0', '0.01'],
    ]);
  });

  it('formats fine ticks exactly (DOGE tick 0.00001)', () => {
    expect(formatLevels(doge, [[32123, 10_000]])).toEqual([['0.32123', '1.0']]);
  });
});

describe('aggregationError: sigFigs 2-5; roundStep 1, 2 or 5, and 2 or 5 only with sigFigs 5', () => {
  it('accepts the documented combinations', () => {
    expect(aggregationError({})).toBeNull();
    expect(aggregationError({ sigFigs: 2 })).toBeNull();
    expect(aggregationError({ sigFigs: 5, roundStep: 5 })).toBeNull();
    expect(aggregationError({ roundStep: 1 })).toBeNull();
  });

  it('refuses the others with a message', () => {
    expect(aggregationError({ sigFigs: 1 })).toBe('sigFigs must be an integer from 2 to 5');
    expect(aggregationError({ sigFigs: 6 })).toBe('sigFigs must be an integer from 2 to 5');
    expect(aggregationError({ sigFigs: 5, roundStep: 3 })).toBe('roundStep must be 1, 2 or 5');
    expect(aggregationError({ sigFigs: 4, roundStep: 2 })).toBe('roundStep 2 requires sigFigs 5');
    expect(aggregationError({ roundStep: 5 })).toBe('roundStep 5 requires sigFigs 5');
  });
});
