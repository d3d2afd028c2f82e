import { describe, expect, it } from 'vitest';
import {
  compileMarket,
  onTierTick,
  priceToTicks,
  quantumsToSize,
  sizeToQuantums,
  ticksToPrice,
} from '../engine/index.ts';
import { harness, testMarket } from './support/engine-fixture.ts';

const btc = compileMarket(
  testMarket({
    id: 1,
    displayName: 'BTC-USD',
    tickSize: '0.1',
    stepSize: '0.00000001',
    minOrderSize: '0.0001',
    maxOrderSize: '10000',
    tickTiers: [
      { upToPrice: '500000', tick: '0.1' },
      { upToPrice: '1000000', tick: '0.2' },
      { upToPrice: '2000000', tick: '0.5' },
      { upToPrice: '5000000', tick: '1' },
      { upToPrice: '10000000', tick: '2' },
      { tick: '5' },
    ],
    initialMarginFraction: '0.025',
  }),
);

describe('prices are integer ticks of the top-level tickSize, sizes integer quantums of stepSize', () => {
  it('converts decimal strings exactly', () => {
    expect(priceToTicks(btc, '97123.4')).toBe(971234);
    expect(priceToTicks(btc, '97123.40000')).toBe(971234);
    expect(sizeToQuantums(btc, '0.00012345')).toBe(12345);
    expect(sizeToQuantums(btc, '10000')).toBe(1_000_000_000_000);
  });

  it('rejects a value that is not an exact multiple (errorType Tick upstream)', () => {
    expect(priceToTicks(btc, '97123.45')).toBeNull();
    expect(sizeToQuantums(btc, '0.000000001')).toBeNull();
    expect(priceToTicks(btc, 'abc')).toBeNull();
    expect(priceToTicks(btc, '1e3')).toBeNull();
  });

  it('formats ticks and quantums back with the unit\'s decimals', () => {
    expect(ticksToPrice(btc, 971234)).toBe('97123.4');
    expect(quantumsToSize(btc, 12345)).toBe('0.00012345');
    expect(quantumsToSize(btc, 0)).toBe('0.00000000');
  });

  it('defaults max leverage to floor(1 / IMF)', () => {
    expect(btc.maxLeverage).toBe(40);
    expect(compileMarket(testMarket({ initialMarginFraction: '0.04' })).maxLeverage).toBe(25);
  });
});

describe('a price inside a coarser tick tier must be a multiple of that tier\'s tick', () => {
  it('accepts any tick below the first bound', () => {
    expect(onTierTick(btc, priceToTicks(btc, '499999.9')!)).toBe(true);
  });

  it('requires the band tick above each bound', () => {
    expect(onTierTick(btc, priceToTicks(btc, '500000.1')!)).toBe(false);
    expect(onTierTick(btc, priceToTicks(btc, '500000.2')!)).toBe(true);
    expect(onTierTick(btc, priceToTicks(btc, '1500000.3')!)).toBe(false);
    expect(onTierTick(btc, priceToTicks(btc, '1500000.5')!)).toBe(true);
    expect(onTierTick(btc, priceToTicks(btc, '12000003')!)).toBe(false);
    expect(onTierTick(btc, priceToTicks(btc, '12000005')!)).toBe(true);
  });

  it('answers errorType Tick for an order off its tier', () => {
    const h = harness();
    // testMarket: tick 0.1 up to 1000, then 0.5 up to 10000.
    expect(h.place({ side: 0, price: 10001, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'Tick' });
    expect(h.place({ side: 0, price: 10005, size: 1000 })).toMatchObject({ kind: 'order', status: 'OPEN' });
    expect(h.take().filter((e) => e.type === 'order')).toHaveLength(1);
  });
});

describe('a market is data: id, display name, status, category, sizes, margin fractions, hours', () => {
  it('refuses an inconsistent definition', () => {
    expect(() => compileMarket(testMarket({ tickTiers: [{ tick: '0.15' }] }))).toThrow(/not a multiple/);
    expect(() => compileMarket(testMarket({ id: 70000 }))).toThrow(/out of range/);
    expect(() => compileMarket(testMarket({ minOrderSize: '0.0001' }))).toThrow(/step/);
  });

  it('answers Unavailable for orders on a market that is not ONLINE', () => {
    const h = harness({ markets: [testMarket(), testMarket({ id: 11, displayName: 'F-USD', status: 'OFFLINE' })] });
    expect(h.place({ marketId: 11, side: 0, price: 1000, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'Unavailable' });
    expect(h.place({ marketId: 99, side: 0, price: 1000, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'InvalidRequest' });
  });

  it('can be added and switched OFFLINE by command', () => {
    const h = harness();
    expect(h.run({ type: 'addMarket', market: testMarket({ id: 2, displayName: 'TWO-USD' }) })).toEqual({ kind: 'done' });
    expect(h.run({ type: 'addMarket', market: testMarket({ id: 2 }) })).toMatchObject({ kind: 'invalid' });
    h.run({ type: 'setMarketStatus', marketId: 2, status: 'OFFLINE' });
    expect(h.take().map((e) => e.type)).toEqual(['market', 'market']);
    expect(h.place({ marketId: 2, side: 0, price: 1000, size: 1000 })).toMatchObject({ kind: 'invalid', errorType: 'Unavailable' });
  });
});
