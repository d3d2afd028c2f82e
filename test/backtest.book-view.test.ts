import { describe, expect, it } from 'vitest';
import { Backtest, type BookUpdate, type Strategy } from '../index.ts';
import { recording, T0, MS, type RelativeRecord } from './support/backtest-data.ts';

const BOOKS: RelativeRecord[] = [
  { at: 0, type: 'book', snapshot: true, bids: [['96990.0', '2.0'], ['96980.0', '1.0']], asks: [['97000.0', '0.5'], ['97010.0', '1.0'], ['97020.0', '3.0']] },
  // A shorter book (a side emptied, a level removed), then a longer one again: the pooled pairs are refilled.
  { at: 1, type: 'book', bids: [['96990.0', '0'], ['96980.0', '0']], asks: [['97010.0', '0']] },
  { at: 2, type: 'book', bids: [['96970.0', '4.0'], ['96960.0', '5.0'], ['96950.0', '6.0']], asks: [['97030.0', '0.25']] },
];

/** What each book event showed, as plain values. */
const EXPECTED = [
  { time: T0, bids: [[96990, 2], [96980, 1]], asks: [[97000, 0.5], [97010, 1], [97020, 3]] },
  { time: T0 + 1 * MS, bids: [], asks: [[97000, 0.5], [97020, 3]] },
  { time: T0 + 2 * MS, bids: [[96970, 4], [96960, 5], [96950, 6]], asks: [[97000, 0.5], [97020, 3], [97030, 0.25]] },
];

const copy = (b: BookUpdate) => ({ time: b.time, bids: b.bids.map(([p, s]) => [p, s]), asks: b.asks.map(([p, s]) => [p, s]) });

async function run(config: { bookView?: 'reused' | 'copy'; feedMs?: number }, onBook: Strategy['onBook']): Promise<void> {
  const file = recording(BOOKS);
  await new Backtest({ data: { file }, markets: ['BTC-USD'], ...(config.bookView && { bookView: config.bookView }), ...(config.feedMs !== undefined && { latency: { feed: config.feedMs } }) }, { onBook }).run();
}

describe("onBook's view: reused by default (read it during the call), a fresh copy on request", () => {
  it('by default every call gets the same object, refilled with the book as it is at that call', async () => {
    const seen: BookUpdate[] = [];
    const values: ReturnType<typeof copy>[] = [];
    await run({}, (book) => {
      seen.push(book);
      values.push(copy(book));
    });
    expect(values).toEqual(EXPECTED);
    expect(new Set(seen).size).toBe(1);
    expect(new Set(seen.map((b) => b.bids)).size).toBe(1);
    // A kept view is the backtest's: after the run it shows the last book, not the first.
    expect(copy(seen[0]!)).toEqual(EXPECTED[2]);
  });

  it('with feed latency, views in flight at once each keep their own event until delivered', async () => {
    const values: ReturnType<typeof copy>[] = [];
    const seen = new Set<BookUpdate>();
    // 5 ms of feed latency: the three events (1 ms apart) are all waiting before the first is delivered.
    await run({ feedMs: 5 }, (book) => {
      seen.add(book);
      values.push(copy(book));
    });
    expect(values).toEqual(EXPECTED);
    expect(seen.size).toBe(3);
  });

  it("bookView 'copy': every call gets its own object and arrays, which keep their values", async () => {
    const seen: BookUpdate[] = [];
    await run({ bookView: 'copy' }, (book) => void seen.push(book));
    expect(new Set(seen).size).toBe(3);
    expect(seen.map(copy)).toEqual(EXPECTED);
  });
});
