import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TradesEvent } from '../engine/index.ts';
import { createMarketStatsStore, recordTrades } from '../gateway/read-models/market-stats.ts';

const MIN = 60_000_000;
const T0 = 1_704_067_200_000_000;

/** The tape pair by pair, each pair's notional in bigints (the contract in market-stats.ts). */
function reference(events: TradesEvent[], valueMul: bigint): unknown {
  type Bucket = { minute: number; first: number; last: number; high: number; low: number; volume: number; notional: bigint; trades: number };
  const tape = { buckets: [] as Bucket[], lastTradePrice: undefined as number | undefined, version: 0, cached: undefined };
  for (const e of events) {
    const minute = Math.floor(e.time / MIN) * MIN;
    const start = minute - 1439 * MIN;
    tape.buckets = tape.buckets.filter((b) => b.minute >= start);
    tape.version++;
    for (const entry of e.entries) {
      let bucket = tape.buckets[tape.buckets.length - 1];
      if (bucket === undefined || bucket.minute < minute) {
        bucket = { minute, first: entry.price, last: entry.price, high: entry.price, low: entry.price, volume: 0, notional: 0n, trades: 0 };
        tape.buckets.push(bucket);
      }
      bucket.high = Math.max(bucket.high, entry.price);
      bucket.low = Math.min(bucket.low, entry.price);
      bucket.last = entry.price;
      bucket.volume += entry.size;
      bucket.notional += BigInt(entry.price) * BigInt(entry.size) * valueMul;
      bucket.trades++;
      tape.lastTradePrice = entry.price;
    }
  }
  return new Map([[1, tape]]);
}

describe('market statistics take an event\'s pairs at once: the same tape as pair by pair', () => {
  it('matches the pair-by-pair buckets, products past 2^53 included', () => {
    const pair = fc.tuple(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 40 }));
    const event = fc.record({ gapUs: fc.integer({ min: 0, max: 3 * MIN }), pairs: fc.array(pair, { maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 12 }), fc.bigInt({ min: 1n, max: 10n ** 6n }), (specs, valueMul) => {
        let time = T0;
        const events: TradesEvent[] = specs.map((s, k) => {
          time += s.gapUs;
          return {
            type: 'trades', globalSeq: k, time, marketSeq: k, marketId: 1, takerOrderId: 9, takerSide: 0,
            entries: s.pairs.map(([price, size], i) => ({ tradeId: k * 10 + i, price, size, makerOrderId: 1, makerAddress: '0xb', makerAccountIndex: 0, takerAddress: '0xa', takerAccountIndex: 0 })),
          };
        });
        const store = createMarketStatsStore();
        for (const e of events) recordTrades(store, e, valueMul);
        expect(store.byMarket).toEqual(reference(events, valueMul));
      }),
      { numRuns: 300 },
    );
  });
});
