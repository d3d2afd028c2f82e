import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CANDLE_TIMEFRAMES, compileMarket, priceToTicks, sizeToQuantums, type TradesEvent } from '../engine/index.ts';
import { addTrades, barOpenTime, candleRecord, createCandleStore, readCandles, TIMEFRAME_US, type CandleBar } from '../gateway/read-models/candles.ts';
import { createGateway } from '../gateway/gateway.ts';
import { rateLimitConfig } from '../gateway/rate-limit/index.ts';
import { defaultMarkets } from '../sim/markets.ts';

const btc = compileMarket(defaultMarkets()[0]!);
const MIN = 60_000_000;
/** 2024-01-01 00:00 UTC, a Monday. */
const MONDAY = 1_704_067_200_000_000;

let nextTradeId = 1;
function trades(time: number, takerSide: 0 | 1, fills: [price: string, size: string][]): TradesEvent {
  return {
    type: 'trades',
    globalSeq: 0,
    time,
    marketSeq: 0,
    marketId: btc.id,
    takerOrderId: 99,
    takerSide,
    entries: fills.map(([p, s]) => ({
      tradeId: nextTradeId++,
      price: priceToTicks(btc, p)!,
      size: sizeToQuantums(btc, s)!,
      makerOrderId: 1,
      makerAddress: '0x' + 'b'.repeat(40),
      makerAccountIndex: 0,
      takerAddress: '0x' + 'a'.repeat(40),
      takerAccountIndex: 0,
    })),
  };
}

describe('bar windows: openTime = floor(time / length) · length; 1w opens Monday 00:00 UTC', () => {
  it('aligns minutes, hours and days to the epoch', () => {
    expect(barOpenTime('1m', MONDAY + 59_999_999)).toBe(MONDAY);
    expect(barOpenTime('5m', MONDAY + 7 * MIN)).toBe(MONDAY + 5 * MIN);
    expect(barOpenTime('1h', MONDAY + 61 * MIN)).toBe(MONDAY + 60 * MIN);
    expect(barOpenTime('1d', MONDAY + 25 * 60 * MIN)).toBe(MONDAY + TIMEFRAME_US['1d']);
    expect(barOpenTime('3d', MONDAY) % TIMEFRAME_US['3d']).toBe(0);
  });

  it('opens weekly bars on Monday, not on the epoch Thursday', () => {
    const wednesday = MONDAY + 2 * TIMEFRAME_US['1d'] + 5 * MIN;
    expect(barOpenTime('1w', wednesday)).toBe(MONDAY);
    expect(barOpenTime('1w', MONDAY - 1)).toBe(MONDAY - TIMEFRAME_US['1w']);
  });
});

describe('addTrades: OHLCV from every maker/taker pair, takerBuy* from buying takers', () => {
  it('builds open, high, low, close, volumes, notionals and the trade count', () => {
    const store = createCandleStore();
    addTrades(store, trades(MONDAY + 1_000, 0, [['97000.0', '0.01'], ['97010.0', '0.02']]), btc.valueMul);
    addTrades(store, trades(MONDAY + 2_000, 1, [['96990.0', '0.03']]), btc.valueMul);
    const [bar] = readCandles(store, btc.id, '1m', { to: MONDAY + MIN, limit: 10 });
    expect(candleRecord(btc, '1m', bar!, MONDAY + 30_000_000)).toEqual({
      marketDisplayName: 'BTC-USD',
      marketId: 1,
      timeframe: '1m',
      openTime: MONDAY,
      open: '97000.0',
      high: '97010.0',
      low: '96990.0',
      close: '96990.0',
      volume: '0.06',
      takerBuyVolume: '0.03',
      notionalVolume: '5819.9',
      takerBuyNotionalVolume: '2910.2',
      tradeCount: 3,
      isFinal: false,
    });
  });

  it('starts a new bar per window and feeds every timeframe', () => {
    const store = createCandleStore();
    addTrades(store, trades(MONDAY, 0, [['100.0', '1']]), btc.valueMul);
    addTrades(store, trades(MONDAY + MIN, 0, [['101.0', '1']]), btc.valueMul);
    addTrades(store, trades(MONDAY + 3 * MIN, 1, [['99.0', '1']]), btc.valueMul);
    expect(readCandles(store, btc.id, '1m', { to: Infinity, limit: 10 }).map((b) => b.openTime)).toEqual([MONDAY + 3 * MIN, MONDAY + MIN, MONDAY]);
    const [hour] = readCandles(store, btc.id, '1h', { to: Infinity, limit: 10 });
    expect(hour).toMatchObject({ openTime: MONDAY, open: 1000, high: 1010, low: 990, close: 990, tradeCount: 3 });
  });

  it('keeps the newest barsPerSeries bars of a series', () => {
    const store = createCandleStore(2);
    for (let i = 0; i < 4; i++) addTrades(store, trades(MONDAY + i * MIN, 0, [['100.0', '1']]), btc.valueMul);
    expect(readCandles(store, btc.id, '1m', { to: Infinity, limit: 10 }).map((b) => b.openTime)).toEqual([MONDAY + 3 * MIN, MONDAY + 2 * MIN]);
  });
});

describe('readCandles: window [from, to) on openTime, newest first, at most limit', () => {
  const store = createCandleStore();
  for (let i = 0; i < 5; i++) addTrades(store, trades(MONDAY + i * MIN + 5, 0, [['100.0', '1']]), btc.valueMul);
  const opens = (w: Parameters<typeof readCandles>[3]) => readCandles(store, btc.id, '1m', w).map((b) => (b.openTime - MONDAY) / MIN);

  it('excludes `to` and includes `from`', () => {
    expect(opens({ to: MONDAY + 3 * MIN, limit: 10 })).toEqual([2, 1, 0]);
    expect(opens({ to: MONDAY + 3 * MIN, from: MONDAY + MIN, limit: 10 })).toEqual([2, 1]);
    expect(opens({ to: MONDAY + 3 * MIN + 1, from: MONDAY + MIN + 1, limit: 10 })).toEqual([3, 2]);
  });

  it('keeps the newest `limit` bars of the window', () => {
    expect(opens({ to: Infinity, limit: 2 })).toEqual([4, 3]);
  });

  it('answers [] for an unknown series or an empty window', () => {
    expect(readCandles(store, 2, '1m', { to: Infinity, limit: 10 })).toEqual([]);
    expect(opens({ to: MONDAY, limit: 10 })).toEqual([]);
  });
});

describe('candleRecord: isFinal once the clock reaches openTime + length', () => {
  it('reads false inside the bar and true at its end', () => {
    const store = createCandleStore();
    addTrades(store, trades(MONDAY, 0, [['100.0', '1']]), btc.valueMul);
    const [bar] = readCandles(store, btc.id, '1m', { to: Infinity, limit: 1 });
    expect(candleRecord(btc, '1m', bar!, MONDAY + MIN - 1).isFinal).toBe(false);
    expect(candleRecord(btc, '1m', bar!, MONDAY + MIN).isFinal).toBe(true);
  });
});

describe('the gateway\'s candle store: built with the exchange, it follows every trades event from the first command', () => {
  it('holds the bars of every trade, the first one included', () => {
    const now = { us: MONDAY };
    const gateway = createGateway({
      engine: { markets: defaultMarkets() },
      clock: () => now.us,
      config: { service: 'test', version: 'test', auth: true, rateLimit: rateLimitConfig({}) },
      clocks: () => ({ wallNs: BigInt(now.us) * 1000n, simNs: BigInt(now.us) * 1000n }),
      nowMs: () => Math.floor(now.us / 1000),
    });
    const exchange = gateway.exchange;
    const submitTrade = (price: string) => {
      exchange.submit({ type: 'placeOrder', address: '0x' + 'b'.repeat(40), accountIndex: 0, marketId: 1, side: 1, orderType: 0, tif: 0, price: priceToTicks(btc, price)!, size: sizeToQuantums(btc, '0.01')!, reduceOnly: false, goodTilTime: now.us + 40 * 86_400_000_000 });
      exchange.submit({ type: 'placeOrder', address: '0x' + 'a'.repeat(40), accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: 2, price: priceToTicks(btc, price)!, size: sizeToQuantums(btc, '0.01')!, reduceOnly: false, goodTilTime: now.us + 40 * 86_400_000_000 });
    };
    for (const address of ['0x' + 'a'.repeat(40), '0x' + 'b'.repeat(40)]) exchange.submit({ type: 'deposit', address, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
    exchange.submit({ type: 'setOraclePrice', marketId: 1, price: priceToTicks(btc, '97000')! });
    submitTrade('97000.0');
    const store = gateway.candles;
    now.us += MIN;
    submitTrade('97100.0');
    const bars = readCandles(store, 1, '1m', { to: Infinity, limit: 10 });
    expect(bars.map((b) => [b.openTime, b.close, b.tradeCount])).toEqual([
      [MONDAY + MIN, 971000, 1],
      [MONDAY, 970000, 1],
    ]);
  });
});

describe('addTrades takes an event\'s pairs at once: the same bars as pair by pair', () => {
  /** The bars pair by pair, every pair's notional in bigints (the definition in the header). */
  function reference(events: TradesEvent[], valueMul: bigint): Map<string, CandleBar[]> {
    const series = new Map<string, CandleBar[]>();
    for (const e of events) {
      for (const timeframe of CANDLE_TIMEFRAMES) {
        const key = e.marketId + '/' + timeframe;
        const bars = series.get(key) ?? [];
        series.set(key, bars);
        const openTime = barOpenTime(timeframe, e.time);
        for (const entry of e.entries) {
          let bar = bars[bars.length - 1];
          if (bar === undefined || bar.openTime < openTime) {
            bar = { openTime, open: entry.price, high: entry.price, low: entry.price, close: entry.price, volume: 0, takerBuyVolume: 0, notional: 0n, takerBuyNotional: 0n, tradeCount: 0 };
            bars.push(bar);
          }
          const notional = BigInt(entry.price) * BigInt(entry.size) * valueMul;
          bar.high = Math.max(bar.high, entry.price);
          bar.low = Math.min(bar.low, entry.price);
          bar.close = entry.price;
          bar.volume += entry.size;
          bar.notional += notional;
          bar.tradeCount++;
          if (e.takerSide === 0) {
            bar.takerBuyVolume += entry.size;
            bar.takerBuyNotional += notional;
          }
        }
      }
    }
    return series;
  }

  it('matches the pair-by-pair bars, products past 2^53 included', () => {
    // Prices and sizes up to 2^40 each: tick·quantum products on both sides of 2^53.
    const pair = fc.tuple(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 40 }));
    const event = fc.record({ gapUs: fc.integer({ min: 0, max: 40 * MIN }), takerSide: fc.constantFrom(0 as const, 1 as const), pairs: fc.array(pair, { minLength: 0, maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 12 }), fc.bigInt({ min: 1n, max: 10n ** 6n }), (specs, valueMul) => {
        let time = MONDAY;
        const events = specs.map((s) => {
          time += s.gapUs;
          const e = trades(time, s.takerSide, []);
          e.entries = s.pairs.map(([p, q]) => ({ ...trades(time, s.takerSide, [['1.0', '0.001']]).entries[0]!, price: p, size: q }));
          return e;
        });
        const store = createCandleStore();
        for (const e of events) addTrades(store, e, valueMul);
        expect(store.series).toEqual(reference(events, valueMul));
      }),
      { numRuns: 300 },
    );
  });
});

describe('addTrades after the series map is replaced (a restore)', () => {
  it('adds to the lists of the new map, not to those of the one it replaced', () => {
    const store = createCandleStore();
    addTrades(store, trades(MONDAY + 1_000, 0, [['100.0', '1']]), btc.valueMul);
    const before = store.series;
    // A restore puts a decoded copy in place: other list objects under the same keys.
    store.series = new Map([...before].map(([key, bars]) => [key, bars.map((bar) => ({ ...bar }))]));
    addTrades(store, trades(MONDAY + 2_000, 0, [['101.0', '2']]), btc.valueMul);
    for (const timeframe of CANDLE_TIMEFRAMES) {
      expect(before.get(`${btc.id}/${timeframe}`)![0]!.tradeCount).toBe(1);
      const [bar] = readCandles(store, btc.id, timeframe, { to: MONDAY + TIMEFRAME_US['1w'], limit: 10 });
      expect(bar).toMatchObject({ tradeCount: 2, close: priceToTicks(btc, '101.0'), volume: sizeToQuantums(btc, '3') });
    }
  });
});
