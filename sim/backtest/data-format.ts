/**
 * perpsim's recorded market-data format (JSONL), its reader and its writer.
 *
 * Contract: one JSON object per line, in exchange-time order. Every event has `type`, `ts`
 * (exchange time, unix µs), `lts` (local receive time, unix µs; equal to `ts` when unknown) and
 * `market` (display name). Prices and sizes are decimal strings, as on the venue's wire.
 *
 * | type | fields |
 * | --- | --- |
 * | header (optional, first line) | format "perpsim-market-data", version 1, markets (display names), source |
 * | oracle | price, mark (optional) |
 * | trade | side (aggressor BUY/SELL), price, size |
 * | book | snapshot (true: replaces the book), bids, asks: [[price, size], …] absolute sizes, "0" removes |
 * | funding | rate (per hour, decimal) |
 *
 * The reader converts to the engine's integers (ticks, quantums) with one float multiply per
 * field and rounds to the nearest unit: the recorded text is what the venue printed in those
 * units, so rounding only absorbs the float's last-bit error. It reads the file in 4 MB blocks
 * and parses line by line, so a 10-million-event file streams in constant memory.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { MarketSpec } from '../../engine/index.ts';

export const FORMAT_NAME = 'perpsim-market-data';
export const FORMAT_VERSION = 1;

export type PriceSize = readonly [price: string, size: string];

interface RecordBase {
  ts: number;
  lts: number;
  market: string;
}

export interface OracleRecord extends RecordBase {
  type: 'oracle';
  price: string;
  mark?: string;
}

export interface TradeRecord extends RecordBase {
  type: 'trade';
  side: 'BUY' | 'SELL';
  price: string;
  size: string;
}

export interface BookRecord extends RecordBase {
  type: 'book';
  snapshot?: boolean;
  bids: readonly PriceSize[];
  asks: readonly PriceSize[];
}

export interface FundingRecord extends RecordBase {
  type: 'funding';
  rate: string;
}

export interface HeaderRecord {
  type: 'header';
  format: typeof FORMAT_NAME;
  version: number;
  markets: string[];
  source?: string;
}

export type MarketDataRecord = OracleRecord | TradeRecord | BookRecord | FundingRecord;

/** A record in engine units: what the backtest replays. `levels` are flat [price, size, …]. */
export type ReplayEvent =
  | { type: 'oracle'; ts: number; lts: number; marketId: number; price: number }
  | { type: 'trade'; ts: number; lts: number; marketId: number; side: 0 | 1; price: number; size: number }
  | { type: 'book'; ts: number; lts: number; marketId: number; snapshot: boolean; bids: number[]; asks: number[] }
  | { type: 'funding'; ts: number; lts: number; marketId: number; rateE12: bigint };

/** Decimal text to a count of `unit`s, rounded to the nearest (see the module contract). */
export function fastUnits(text: string, scale: number, mantissa: number): number {
  return Math.round((Number(text) * 10 ** scale) / mantissa);
}

function levels(pairs: readonly PriceSize[], spec: MarketSpec): number[] {
  const out = new Array<number>(pairs.length * 2);
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    out[2 * i] = fastUnits(pair[0], spec.tick.scale, spec.tick.mantissa);
    out[2 * i + 1] = fastUnits(pair[1], spec.step.scale, spec.step.mantissa);
  }
  return out;
}

export class DataFormatError extends Error {}

/** One parsed line in engine units; undefined for the header and for markets not configured. */
export function toReplayEvent(record: MarketDataRecord | HeaderRecord, specs: ReadonlyMap<string, MarketSpec>, line: number): ReplayEvent | undefined {
  if (record.type === 'header') return undefined;
  const spec = specs.get(record.market);
  if (spec === undefined) return undefined;
  const ts = record.ts;
  if (!Number.isSafeInteger(ts)) throw new DataFormatError(`line ${line}: ts must be unix microseconds`);
  const lts = record.lts ?? ts;
  switch (record.type) {
    case 'oracle':
      return { type: 'oracle', ts, lts, marketId: spec.id, price: fastUnits(record.price, spec.tick.scale, spec.tick.mantissa) };
    case 'trade':
      return {
        type: 'trade',
        ts,
        lts,
        marketId: spec.id,
        side: record.side === 'BUY' ? 0 : 1,
        price: fastUnits(record.price, spec.tick.scale, spec.tick.mantissa),
        size: fastUnits(record.size, spec.step.scale, spec.step.mantissa),
      };
    case 'book':
      return { type: 'book', ts, lts, marketId: spec.id, snapshot: record.snapshot === true, bids: levels(record.bids, spec), asks: levels(record.asks, spec) };
    case 'funding':
      return { type: 'funding', ts, lts, marketId: spec.id, rateE12: BigInt(Math.round(Number(record.rate) * 1e12)) };
    default:
      throw new DataFormatError(`line ${line}: unknown event type ${String((record as { type: unknown }).type)}`);
  }
}

const BLOCK = 4 * 1024 * 1024;

/**
 * Pull reader over a JSONL file: `next()` answers the next replayable event, or undefined at
 * the end. Events outside [from, to) (exchange time) are skipped.
 */
export class MarketDataReader {
  private readonly fd: number;
  private readonly buffer = Buffer.allocUnsafe(BLOCK);
  private lines: string[] = [];
  private index = 0;
  private rest = '';
  private done = false;
  private lineNo = 0;
  /** Bytes read so far, for progress. */
  bytesRead = 0;

  constructor(
    path: string,
    private readonly specs: ReadonlyMap<string, MarketSpec>,
    private readonly from = -Infinity,
    private readonly to = Infinity,
  ) {
    this.fd = openSync(path, 'r');
  }

  next(): ReplayEvent | undefined {
    for (;;) {
      if (this.index >= this.lines.length && !this.fill()) return undefined;
      const text = this.lines[this.index++]!;
      this.lineNo++;
      if (text.length === 0) continue;
      let record: MarketDataRecord | HeaderRecord;
      try {
        record = JSON.parse(text) as MarketDataRecord | HeaderRecord;
      } catch {
        throw new DataFormatError(`line ${this.lineNo}: not JSON`);
      }
      const event = toReplayEvent(record, this.specs, this.lineNo);
      if (event === undefined || event.ts < this.from) continue;
      if (event.ts >= this.to) {
        this.close();
        return undefined;
      }
      return event;
    }
  }

  private fill(): boolean {
    while (!this.done) {
      const n = readSync(this.fd, this.buffer, 0, BLOCK, null);
      this.bytesRead += n;
      if (n === 0) {
        this.close();
        this.lines = this.rest.length > 0 ? [this.rest] : [];
        this.rest = '';
        this.index = 0;
        return this.lines.length > 0;
      }
      const text = this.rest + this.buffer.toString('utf8', 0, n);
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        this.rest = text;
        continue;
      }
      this.lines = text.slice(0, cut).split('\n');
      this.rest = text.slice(cut + 1);
      this.index = 0;
      return true;
    }
    return false;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
  }
}

/** Buffered JSONL writer (the recorder and the bench's generator). */
export class MarketDataWriter {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;
  count = 0;

  constructor(path: string, header?: Omit<HeaderRecord, 'type' | 'format' | 'version'>) {
    this.fd = openSync(path, 'w');
    if (header !== undefined) this.writeLine(JSON.stringify({ type: 'header', format: FORMAT_NAME, version: FORMAT_VERSION, ...header }));
  }

  write(record: MarketDataRecord): void {
    this.count++;
    this.writeLine(JSON.stringify(record));
  }

  private writeLine(line: string): void {
    this.chunks.push(line, '\n');
    this.size += line.length + 1;
    if (this.size >= BLOCK) this.flush();
  }

  flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}
