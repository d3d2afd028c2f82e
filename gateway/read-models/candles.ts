/**
 * Candles: OHLCV bars per market and timeframe, built from the engine's public trades.
 *
 * Contract:
 * - Every entry of a `trades` event (one maker/taker pair) goes into the bar of every
 *   timeframe whose window holds the event's time: open/high/low/close in ticks, volume and
 *   takerBuyVolume in quantums, notional in quote quantums (price · size · valueMul, exact),
 *   tradeCount = pairs. takerBuy* count pairs whose taker bought.
 * - Bar windows: openTime = floor(time / length) · length from the Unix epoch, except `1w`,
 *   which opens on Mondays 00:00 UTC (the epoch was a Thursday). `3d` bars count from the epoch.
 * - Bars exist only where trades happened: no empty bars are invented for quiet windows.
 * - A bar is final once the exchange clock reaches its end (openTime + length); `isFinal` is
 *   decided when the bar is read, so the same bar reads false, then true.
 * - Engine time never goes backwards, so each series only ever updates its newest bar or
 *   appends one; a series keeps its newest `barsPerSeries` bars (oldest dropped first).
 * - With a closed-bar store (`closed()`, the SQLite history tables: gateway/read-models/history-store.ts) a
 *   series is live state only: its newest `LIVE_BARS` bars. A bar goes to the closed-bar store
 *   when the next one opens (final from then on: later trades are later in time), and reads
 *   continue there below the oldest bar the series holds. The newest two stay in memory because
 *   every trades event reads them (the WebSocket update names the bar it superseded).
 * - `createGateway` (gateway.ts) builds the one store of a gateway with the exchange and feeds
 *   it every `trades` event (`addTrades`).
 *
 * Reads (`readCandles`) return bars newest first (supplement §12) within [from, to) on openTime.
 * `readFilledCandles` is the venue's read (GET /v1/candles): a bar for every period of the
 * window up to the one holding the clock, a period without trades being a zero-volume bar whose
 * open, high, low and close are the previous bar's close; periods before the market's first
 * trade have no bar (there is no close to carry).
 */
import { CANDLE_TIMEFRAMES, type CandleTimeframe, type MarketSpec, type TradesEvent } from '../../engine/index.ts';
import { price, size, usd } from '../contract/format.ts';
import { plainRecord } from '../../engine/index.ts';
import { tradesNotional } from '../shared/trade-notional.ts';

const MINUTE_US = 60_000_000;
const HOUR_US = 60 * MINUTE_US;
const DAY_US = 24 * HOUR_US;
/** 1970-01-05, the first Monday after the epoch. */
const WEEK_OFFSET_US = 4 * DAY_US;

/** Bar length of every timeframe, µs. */
export const TIMEFRAME_US: Readonly<Record<CandleTimeframe, number>> = {
  '1m': MINUTE_US,
  '3m': 3 * MINUTE_US,
  '5m': 5 * MINUTE_US,
  '15m': 15 * MINUTE_US,
  '30m': 30 * MINUTE_US,
  '1h': HOUR_US,
  '2h': 2 * HOUR_US,
  '4h': 4 * HOUR_US,
  '8h': 8 * HOUR_US,
  '12h': 12 * HOUR_US,
  '1d': DAY_US,
  '3d': 3 * DAY_US,
  '1w': 7 * DAY_US,
};

export function isTimeframe(value: unknown): value is CandleTimeframe {
  return typeof value === 'string' && (CANDLE_TIMEFRAMES as readonly string[]).includes(value);
}

/** The openTime of the `timeframe` bar that holds `time` (µs). */
export function barOpenTime(timeframe: CandleTimeframe, time: number): number {
  return openTimeOf(time, TIMEFRAME_US[timeframe], offsetOf(timeframe));
}

/** Where a timeframe's grid starts: weekly bars open on Mondays (the epoch was a Thursday), the others at 0. */
function offsetOf(timeframe: CandleTimeframe): number {
  return timeframe === '1w' ? WEEK_OFFSET_US : 0;
}

/** The open time of the bar of `length` µs, its grid shifted by `offset`, that holds `time`. */
function openTimeOf(time: number, length: number, offset: number): number {
  return Math.floor((time - offset) / length) * length + offset;
}

/** One bar in engine units. */
export interface CandleBar {
  openTime: number;
  /** Ticks. */
  open: number;
  high: number;
  low: number;
  close: number;
  /** Quantums. */
  volume: number;
  takerBuyVolume: number;
  /** Quote quantums (1e9 = 1 USD). */
  notional: bigint;
  takerBuyNotional: bigint;
  tradeCount: number;
}

/** Bars that no longer change, kept outside the series (the SQLite history tables). */
export interface ClosedBars {
  add(marketId: number, timeframe: CandleTimeframe, bar: CandleBar): void;
  /** Bars with from ≤ openTime < to, newest first, at most `limit`. */
  read(marketId: number, timeframe: CandleTimeframe, window: CandleWindow): CandleBar[];
}

export interface CandleStore {
  /** Bars oldest first, by `marketId/timeframe`. */
  series: Map<string, CandleBar[]>;
  barsPerSeries: number;
  /** Where closed bars go; undefined: they stay in `series`. Asked per event: persistence installs it after start-up. */
  closed: () => ClosedBars | undefined;
  /**
   * Per market, made once: the series keys, one per timeframe in CANDLE_TIMEFRAMES' order (a key
   * built per trades event was a new string to hash 13 times an event), and the series' lists
   * themselves, taken from `series` (`of`) once, so that a trades event reaches its 13 lists by
   * index instead of 13 Map lookups. A list is only ever replaced with the whole `series` map (a
   * restore): `of` is then not `series`, and the lists are taken again.
   */
  markets: Map<number, MarketSeries>;
}

/** A market's series keys and lists (CandleStore.markets). */
export interface MarketSeries {
  keys: readonly string[];
  of: Map<string, CandleBar[]>;
  lists: (CandleBar[] | undefined)[];
}

/** Bar length (µs) and window offset of each timeframe, in CANDLE_TIMEFRAMES' order (barOpenTime's figures). */
const LENGTH_US: readonly number[] = CANDLE_TIMEFRAMES.map((timeframe) => TIMEFRAME_US[timeframe]);
const OFFSET_US: readonly number[] = CANDLE_TIMEFRAMES.map(offsetOf);

/** Bars a series keeps when closed bars are stored elsewhere: the open one and the one before. */
export const LIVE_BARS = 2;

/** Bars kept per market and timeframe: 3.5 days of 1m bars, above the 1,500-bar page cap. */
export const DEFAULT_BARS_PER_SERIES = 5000;

const buildCandleStore = plainRecord<CandleStore>();

export function createCandleStore(barsPerSeries = DEFAULT_BARS_PER_SERIES, closed: CandleStore['closed'] = () => undefined): CandleStore {
  return buildCandleStore({ series: new Map(), barsPerSeries, closed, markets: new Map() });
}

function seriesKey(marketId: number, timeframe: CandleTimeframe): string {
  return marketId + '/' + timeframe;
}

/**
 * Adds the pairs of one trades event to every timeframe. `valueMul`: the market's quote quantums
 * per tick·quantum. The pairs of an event share its time, so they land in the same bar of each
 * timeframe: their aggregates (first, high, low and last price, volume, notional) are taken once
 * and added to each bar, the same values as pair by pair with one bigint sum per bar instead of
 * one per pair and timeframe. `notional`: the event's (`tradesNotional`), when the caller has it.
 */
export function addTrades(store: CandleStore, e: TradesEvent, valueMul: bigint, notional = tradesNotional(e.entries, valueMul)): void {
  const entries = e.entries;
  const count = entries.length;
  const takerBuys = e.takerSide === 0;
  const closed = store.closed();
  const keep = closed === undefined ? store.barsPerSeries : LIVE_BARS;
  let market = store.markets.get(e.marketId);
  if (market === undefined) {
    market = { keys: CANDLE_TIMEFRAMES.map((timeframe) => seriesKey(e.marketId, timeframe)), of: store.series, lists: [] };
    store.markets.set(e.marketId, market);
  }
  if (market.of !== store.series) {
    market.of = store.series;
    market.lists = [];
  }
  const first = count === 0 ? 0 : entries[0]!.price;
  let high = first;
  let low = first;
  let volume = 0;
  for (let i = 0; i < count; i++) {
    const entry = entries[i]!;
    if (entry.price > high) high = entry.price;
    if (entry.price < low) low = entry.price;
    volume += entry.size;
  }
  const last = count === 0 ? 0 : entries[count - 1]!.price;
  for (let t = 0; t < CANDLE_TIMEFRAMES.length; t++) {
    let bars = market.lists[t];
    if (bars === undefined) {
      const key = market.keys[t]!;
      bars = store.series.get(key);
      if (bars === undefined) {
        bars = [];
        store.series.set(key, bars);
      }
      market.lists[t] = bars;
    }
    if (count === 0) continue;
    const openTime = openTimeOf(e.time, LENGTH_US[t]!, OFFSET_US[t]!);
    let bar = bars[bars.length - 1];
    if (bar === undefined || bar.openTime < openTime) {
      if (bar !== undefined) closed?.add(e.marketId, CANDLE_TIMEFRAMES[t]!, bar);
      bar = { openTime, open: first, high: first, low: first, close: first, volume: 0, takerBuyVolume: 0, notional: 0n, takerBuyNotional: 0n, tradeCount: 0 };
      bars.push(bar);
      while (bars.length > keep) bars.shift();
    }
    if (high > bar.high) bar.high = high;
    if (low < bar.low) bar.low = low;
    bar.close = last;
    bar.volume += volume;
    bar.notional += notional;
    bar.tradeCount += count;
    if (takerBuys) {
      bar.takerBuyVolume += volume;
      bar.takerBuyNotional += notional;
    }
  }
}

export interface CandleWindow {
  /** Exclusive upper bound on openTime, µs. */
  to: number;
  /** Inclusive lower bound on openTime, µs; undefined = no bound. */
  from?: number | undefined;
  /** At most this many bars (the newest ones of the window). */
  limit: number;
}

/** Bars of a series with from ≤ openTime < to, newest first, at most `limit`. */
export function readCandles(store: CandleStore, marketId: number, timeframe: CandleTimeframe, window: CandleWindow): CandleBar[] {
  const bars = store.series.get(seriesKey(marketId, timeframe)) ?? [];
  // First bar with openTime >= to.
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bars[mid]!.openTime < window.to) lo = mid + 1;
    else hi = mid;
  }
  const out: CandleBar[] = [];
  const from = window.from ?? -Infinity;
  for (let i = lo - 1; i >= 0 && out.length < window.limit; i--) {
    const bar = bars[i]!;
    if (bar.openTime < from) return out;
    out.push(bar);
  }
  const closed = store.closed();
  if (closed === undefined || out.length >= window.limit) return out;
  // The closed bars are all older than the series' oldest (a bar is stored when it is superseded).
  const to = bars.length === 0 ? window.to : Math.min(window.to, bars[0]!.openTime);
  for (const bar of closed.read(marketId, timeframe, { to, from: window.from, limit: window.limit - out.length })) out.push(bar);
  return out;
}

/** A period without trades: flat at the previous close, nothing traded. */
function quietBar(openTime: number, close: number): CandleBar {
  return { openTime, open: close, high: close, low: close, close, volume: 0, takerBuyVolume: 0, notional: 0n, takerBuyNotional: 0n, tradeCount: 0 };
}

/**
 * One bar per period with from ≤ openTime < to and openTime ≤ the period holding `now` (µs),
 * newest first, at most `limit`; periods without trades carry the previous close (see the
 * header). Reads the stored bars of the window plus, where a gap reaches below them, the
 * newest bar before it.
 */
export function readFilledCandles(store: CandleStore, marketId: number, timeframe: CandleTimeframe, window: CandleWindow, now: number): CandleBar[] {
  const length = TIMEFRAME_US[timeframe];
  let period = Math.min(barOpenTime(timeframe, window.to - 1), barOpenTime(timeframe, now));
  const from = window.from ?? -Infinity;
  const real = readCandles(store, marketId, timeframe, { to: period + 1, from: window.from, limit: window.limit });
  const out: CandleBar[] = [];
  let next = 0;
  while (out.length < window.limit && period >= from) {
    let older = real[next];
    if (older === undefined) {
      older = readCandles(store, marketId, timeframe, { to: period + 1, limit: 1 })[0];
      if (older === undefined) break;
      real.push(older);
    }
    if (older.openTime === period) {
      out.push(older);
      next++;
    } else out.push(quietBar(period, older.close));
    period -= length;
  }
  return out;
}

/** The candle record (supplement §7). */
export interface CandleRecord {
  marketDisplayName: string;
  marketId: number;
  timeframe: CandleTimeframe;
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  takerBuyVolume: string;
  notionalVolume: string;
  takerBuyNotionalVolume: string;
  tradeCount: number;
  isFinal: boolean;
}

/** A bar as the venue prints it; final once `now` (µs) reaches the bar's end. */
export function candleRecord(spec: MarketSpec, timeframe: CandleTimeframe, bar: CandleBar, now: number): CandleRecord {
  return {
    marketDisplayName: spec.displayName,
    marketId: spec.id,
    timeframe,
    openTime: bar.openTime,
    open: price(spec, bar.open),
    high: price(spec, bar.high),
    low: price(spec, bar.low),
    close: price(spec, bar.close),
    volume: size(spec, bar.volume),
    takerBuyVolume: size(spec, bar.takerBuyVolume),
    notionalVolume: usd(bar.notional),
    takerBuyNotionalVolume: usd(bar.takerBuyNotional),
    tradeCount: bar.tradeCount,
    isFinal: now >= bar.openTime + TIMEFRAME_US[timeframe],
  };
}
