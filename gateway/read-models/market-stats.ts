/**
 * Rolling 24-hour statistics of every market (the live venue's market-row fields
 * lastTradePrice, priceChange24h, volume24h, volume24hNotional, high24h, low24h, trades24h),
 * kept from the engine's `trades` events.
 *
 * Contract:
 * - Each trade entry (one maker/taker pair) goes into its market's one-minute bucket: first and
 *   last price, high, low (ticks), size (quantums), notional (quote quantums, exact) and a count.
 * - The window is the 1,440 whole minutes that end with the current one: a minute's trades leave
 *   it 24 hours after their minute opened. Buckets older than that are dropped as trades arrive,
 *   so a market keeps at most 1,441 of them.
 * - lastTradePrice is the newest trade ever (not windowed); absent before the first trade, as
 *   on the live venue's never-traded rows. high24h/low24h are absent when the window is empty;
 *   the counters then read "0" / 0.
 * - priceChange24h = (last − first) / first over the window's trades, a fraction rounded half
 *   away from zero to 4 decimals; volume24h and volume24hNotional are rounded the same way to
 *   2 decimals. Those precisions are the live venue's (captured market rows), not a choice.
 * - `createGateway` (gateway.ts) builds the one store of a gateway with the exchange and feeds
 *   it every `trades` event (`recordTrades`). The tape is not in the durable image: after a
 *   restart it holds the trades of the journal records replayed since the newest snapshot.
 */
import { formatBig, type MarketSpec, type TradesEvent } from '../../engine/index.ts';
import { price, size } from '../contract/format.ts';
import { plainRecord } from '../../engine/index.ts';
import { tradesNotional } from '../shared/trade-notional.ts';

const MINUTE_US = 60_000_000;
const WINDOW_MINUTES = 1440;

interface MinuteBucket {
  minute: number;
  first: number;
  last: number;
  high: number;
  low: number;
  volume: number;
  notional: bigint;
  trades: number;
}

interface MarketTape {
  /** Oldest first. */
  buckets: MinuteBucket[];
  lastTradePrice: number | undefined;
  /** Bumped by every trades event; with the window start it keys `cached`. */
  version: number;
  cached: { start: number; version: number; fields: MarketStatsFields } | undefined;
}

export interface MarketStatsStore {
  byMarket: Map<number, MarketTape>;
}

const buildMarketStatsStore = plainRecord<MarketStatsStore>();

export function createMarketStatsStore(): MarketStatsStore {
  return buildMarketStatsStore({ byMarket: new Map() });
}

/** The openTime of the oldest minute inside the window that holds `now`. */
function windowStart(now: number): number {
  return Math.floor(now / MINUTE_US) * MINUTE_US - (WINDOW_MINUTES - 1) * MINUTE_US;
}

/**
 * Adds one trades event's pairs to its minute's bucket: they share the event's time, so their
 * aggregates are added at once (one bigint sum per event). `notional`: the event's
 * (`tradesNotional`), when the caller has it.
 */
export function recordTrades(store: MarketStatsStore, e: TradesEvent, valueMul: bigint, notional = tradesNotional(e.entries, valueMul)): void {
  let tape = store.byMarket.get(e.marketId);
  if (tape === undefined) {
    tape = { buckets: [], lastTradePrice: undefined, version: 0, cached: undefined };
    store.byMarket.set(e.marketId, tape);
  }
  const minute = Math.floor(e.time / MINUTE_US) * MINUTE_US;
  const start = windowStart(e.time);
  let drop = 0;
  while (drop < tape.buckets.length && tape.buckets[drop]!.minute < start) drop++;
  if (drop > 0) tape.buckets.splice(0, drop);
  tape.version++;
  const entries = e.entries;
  if (entries.length === 0) return;
  const first = entries[0]!.price;
  let bucket = tape.buckets[tape.buckets.length - 1];
  if (bucket === undefined || bucket.minute < minute) {
    bucket = { minute, first, last: first, high: first, low: first, volume: 0, notional: 0n, trades: 0 };
    tape.buckets.push(bucket);
  }
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.price > bucket.high) bucket.high = entry.price;
    if (entry.price < bucket.low) bucket.low = entry.price;
    bucket.volume += entry.size;
  }
  const last = entries[entries.length - 1]!.price;
  bucket.last = last;
  bucket.notional += notional;
  bucket.trades += entries.length;
  tape.lastTradePrice = last;
}

/** `value / 10^scale` rounded half away from zero to `places` decimals, without trailing zeros ("0", "0.04", "-0.0051"). */
export function roundScaled(value: bigint, scale: number, places: number): string {
  const unit = 10n ** BigInt(Math.max(0, scale - places));
  const half = unit / 2n;
  const rounded = value >= 0n ? (value + half) / unit : -((-value + half) / unit);
  if (rounded === 0n) return '0';
  return formatBig(rounded, Math.min(places, scale)).replace(/\.?0+$/, '');
}

/** A decimal string rounded half away from zero to `places` decimals. */
export function roundDecimal(text: string, places: number): string {
  const negative = text.startsWith('-');
  const [whole, frac = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole! + frac);
  return roundScaled(negative ? -value : value, frac.length, places);
}

export interface MarketStatsFields {
  lastTradePrice?: string;
  priceChange24h: string;
  volume24h: string;
  volume24hNotional: string;
  high24h?: string;
  low24h?: string;
  trades24h: number;
}

/**
 * The market row's 24-hour fields at `now` (µs). Every markets-channel frame reads every row, so
 * a market's fields are computed once per window start and trades event (then shared).
 */
export function marketStats(store: MarketStatsStore, spec: MarketSpec, now: number): MarketStatsFields {
  const tape = store.byMarket.get(spec.id);
  const start = windowStart(now);
  if (tape?.cached !== undefined && tape.cached.start === start && tape.cached.version === tape.version) return tape.cached.fields;
  let first: number | undefined;
  let last = 0;
  let high = -Infinity;
  let low = Infinity;
  let volume = 0;
  let notional = 0n;
  let trades = 0;
  for (const b of tape?.buckets ?? []) {
    if (b.minute < start) continue;
    first ??= b.first;
    last = b.last;
    if (b.high > high) high = b.high;
    if (b.low < low) low = b.low;
    volume += b.volume;
    notional += b.notional;
    trades += b.trades;
  }
  const fields: MarketStatsFields = {
    priceChange24h: first === undefined ? '0' : roundScaled((BigInt(last - first) * 10n ** 12n) / BigInt(first), 12, 4),
    volume24h: roundDecimal(size(spec, volume), 2),
    volume24hNotional: roundScaled(notional, 9, 2),
    trades24h: trades,
  };
  if (tape?.lastTradePrice !== undefined) fields.lastTradePrice = price(spec, tape.lastTradePrice);
  if (first !== undefined) {
    fields.high24h = price(spec, high);
    fields.low24h = price(spec, low);
  }
  if (tape !== undefined) tape.cached = { start, version: tape.version, fields };
  return fields;
}
