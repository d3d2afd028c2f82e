/**
 * Replay of a recorded price file as a market's oracle feed.
 *
 * File format (README "Price files"): one row per price, `time` and `price`.
 * - CSV (`.csv`, or any file whose first data line does not start with `{`): `time,price`; an
 *   optional header row names the columns (`time` or `timestamp`, and `price`, any case, other
 *   columns ignored); without one the first two columns are time and price.
 * - JSONL (`.jsonl`, `.ndjson`, or lines starting with `{`): `{"time": …, "price": …}` per line.
 * - `time`: epoch milliseconds (a number, fractions allowed) or an ISO 8601 date-time string;
 *   only the differences between rows matter. Rows must not go back in time.
 * - `price`: a positive decimal (string or number), rounded to the nearest tick of its band.
 * - Blank lines and lines starting with `#` are skipped.
 *
 * Playback: the first row's price is the market's starting oracle price; from then on, at
 * simulated time start + (row time − first row time) the oracle takes the row's price — at the
 * clock's pace, so an accelerated clock plays the file faster. After the last row the price holds.
 * Deterministic: the price at a simulated time depends only on the file.
 */
import { readFileSync } from 'node:fs';
import Big from 'big.js';
import type { MarketDef, MarketSpec } from '../engine/index.ts';
import { ConfigError } from './config.ts';
import { toTierTick } from './feeds.ts';

export interface PriceRow {
  /** Milliseconds (only differences between rows matter). */
  timeMs: number;
  /** Positive decimal string. */
  price: string;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/i;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DECIMAL = /^(\d+\.?\d*|\.\d+)$/;
/** More problems than this and the file is surely not a price file: stop listing. */
const MAX_PROBLEMS = 20;

function parseTime(value: unknown): number | string {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (NUMBER.test(text)) return Number(text);
    if (ISO_DATE_TIME.test(text)) {
      const ms = Date.parse(text);
      if (Number.isFinite(ms)) return ms;
    }
  }
  return `time ${JSON.stringify(value)} is neither epoch milliseconds nor an ISO 8601 date-time`;
}

function parsePrice(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? new Big(value).toFixed() : typeof value === 'string' ? value.trim() : '';
  if (!DECIMAL.test(text) || new Big(text).lte(0)) throw new Error(`price ${JSON.stringify(value)} is not a positive decimal`);
  return text;
}

/** The (time, price) cells of each data line, by format. */
function cells(lines: { n: number; text: string }[], jsonl: boolean, problems: string[]): { n: number; time: unknown; price: unknown }[] {
  if (jsonl) {
    return lines.flatMap(({ n, text }) => {
      try {
        const row = JSON.parse(text) as unknown;
        if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new Error('not an object');
        return [{ n, time: (row as Record<string, unknown>).time, price: (row as Record<string, unknown>).price }];
      } catch {
        problems.push(`line ${n}: not a JSON object with time and price`);
        return [];
      }
    });
  }
  let timeCol = 0;
  let priceCol = 1;
  let data = lines;
  const first = lines[0]?.text.split(',').map((c) => c.trim().toLowerCase()) ?? [];
  if (first.length > 0 && !NUMBER.test(first[0]!) && !ISO_DATE_TIME.test(first[0]!)) {
    timeCol = first.findIndex((c) => c === 'time' || c === 'timestamp');
    priceCol = first.indexOf('price');
    if (timeCol < 0 || priceCol < 0) {
      problems.push(`line ${lines[0]!.n}: a header row must name a time (or timestamp) and a price column`);
      return [];
    }
    data = lines.slice(1);
  }
  return data.map(({ n, text }) => {
    const row = text.split(',');
    return { n, time: row[timeCol], price: row[priceCol] };
  });
}

/** Parses a price file's text; throws ConfigError (an input file's problems) listing the bad lines. */
export function parsePriceFile(text: string, source = 'price file', format?: 'csv' | 'jsonl'): PriceRow[] {
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ n: i + 1, text: line.trim() }))
    .filter((l) => l.text !== '' && !l.text.startsWith('#'));
  const problems: string[] = [];
  const jsonl = format === undefined ? lines[0]?.text.startsWith('{') === true : format === 'jsonl';
  const rows: PriceRow[] = [];
  for (const { n, time, price } of cells(lines, jsonl, problems)) {
    if (problems.length >= MAX_PROBLEMS) break;
    const timeMs = parseTime(time);
    if (typeof timeMs === 'string') {
      problems.push(`line ${n}: ${timeMs}`);
      continue;
    }
    try {
      const row = { timeMs, price: parsePrice(price) };
      const prev = rows[rows.length - 1];
      if (prev !== undefined && timeMs < prev.timeMs) problems.push(`line ${n}: time goes back (rows must be in time order)`);
      else rows.push(row);
    } catch (err) {
      problems.push(`line ${n}: ${(err as Error).message}`);
    }
  }
  if (problems.length === 0 && rows.length === 0) problems.push('no price rows');
  // In file order: lines that are not rows at all are found before the rows are read.
  const lineOf = (p: string): number => Number(/^line (\d+)/.exec(p)?.[1] ?? 0);
  if (problems.length > 0) throw new ConfigError(source, problems.sort((a, b) => lineOf(a) - lineOf(b)));
  return rows;
}

/** Reads and parses a price file; the extension picks the format (.csv, .jsonl/.ndjson), else the content. */
export function loadPriceFile(path: string): PriceRow[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`price file ${path}`, [`cannot be read: ${(err as Error).message}`]);
  }
  const format = /\.csv$/i.test(path) ? 'csv' : /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : undefined;
  return parsePriceFile(text, `price file ${path}`, format);
}

export interface ReplayFeed {
  /** Offsets from the first row (µs) and prices (ticks on their band). */
  offsets: number[];
  ticks: number[];
  /** Simulated µs at which the first row plays. */
  startUs: number;
  /** The row last played (time only moves forward). */
  index: number;
}

/** A price as whole ticks of the market, rounded half-even to the top-level tick, then onto its band. */
export function rowTicks(spec: MarketSpec, price: string): number {
  const ticks = Number(new Big(price).div(spec.tick.big).round(0, Big.roundHalfEven).toFixed(0));
  return toTierTick(spec, Math.max(1, ticks));
}

export function createReplay(spec: MarketSpec, rows: readonly PriceRow[], startUs: number): ReplayFeed {
  const first = rows[0]!.timeMs;
  return { offsets: rows.map((r) => Math.round((r.timeMs - first) * 1000)), ticks: rows.map((r) => rowTicks(spec, r.price)), startUs, index: 0 };
}

/** The price (ticks) in force at simulated time `nowUs`: the last row due by then. */
export function replayPrice(feed: ReplayFeed, nowUs: number): number {
  const elapsed = nowUs - feed.startUs;
  while (feed.index + 1 < feed.offsets.length && feed.offsets[feed.index + 1]! <= elapsed) feed.index++;
  return feed.ticks[feed.index]!;
}

/** The market a price file is for (display name, any case); an error message when there is no ONLINE one. */
export function replayMarket(markets: readonly MarketDef[], name: string): MarketDef | string {
  const market = markets.find((m) => m.displayName.toLowerCase() === name.toLowerCase());
  if (market === undefined) return `price file for unknown market ${name}`;
  if (market.status !== 'ONLINE') return `price file for ${market.displayName}, which is not ONLINE`;
  return market;
}
