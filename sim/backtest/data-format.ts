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
 * The reader converts to the engine's integers (ticks, quantums) with exact integer arithmetic
 * on the decimal text (decimal-units.ts; off-grid text rounds to the nearest unit). It reads the
 * file in 4 MB blocks and splits lines on bytes, so a 10-million-event file streams in constant
 * memory. Lines of the shapes perpsim writes (oracle, trade, book) are read by a byte scanner
 * (line-scanner.ts) without JSON.parse; every other line (header, funding, another writer's
 * layout) is JSON.parsed, and both routes give the same events (docs/decisions.md
 * "Backtesting: speed").
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { MarketSpec } from '../../engine/index.ts';
import { BinaryReader, BinaryWriter, isBinaryFile } from './binary-format.ts';
import { decimalUnits } from './decimal-units.ts';
import { LineScanner, type BookEvent, type OracleEvent, type TradeEvent } from './line-scanner.ts';

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

/**
 * A record in engine units: what the backtest replays. `levels` are flat [price, size, …].
 * Events from the reader's fast path are objects it reuses: valid until its next `next()`.
 */
export type ReplayEvent = OracleEvent | TradeEvent | BookEvent | { type: 'funding'; ts: number; lts: number; marketId: number; rateE12: bigint };

/** Decimal text to a count of `unit`s (decimal-units.ts): exact for plain decimals, nearest unit otherwise. */
export function fastUnits(text: string, scale: number, mantissa: number): number {
  return decimalUnits(text, scale, mantissa);
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
const NEWLINE = 0x0a;

/** How the reader parses lines: `fast` scans perpsim's own shapes and JSON.parses the rest; `json` JSON.parses every line. */
export type ParseMode = 'fast' | 'json';

/**
 * Pull reader over a JSONL file: `next()` answers the next replayable event, or undefined at
 * the end. Events outside [from, to) (exchange time) are skipped. The file is read in 4 MB
 * blocks into one Buffer and split on newline bytes; in `fast` mode each line goes through
 * the byte scanner (line-scanner.ts) and only lines it does not recognize are decoded and
 * JSON.parsed, so both modes answer the same events. Scanned events are objects the reader
 * reuses: an event is valid until the next `next()`.
 */
export class MarketDataReader {
  private readonly fd: number;
  private buffer = Buffer.allocUnsafe(BLOCK);
  /** Unread bytes are buffer[pos, end). */
  private pos = 0;
  private end = 0;
  private eof = false;
  private done = false;
  private lineNo = 0;
  private readonly scanner: LineScanner | undefined;
  /** Bytes read so far, for progress. */
  bytesRead = 0;
  /** Lines the fast path handed to JSON.parse (header, funding, unrecognized shapes). */
  fallbackLines = 0;

  constructor(
    path: string,
    private readonly specs: ReadonlyMap<string, MarketSpec>,
    private readonly from = -Infinity,
    private readonly to = Infinity,
    mode: ParseMode = 'fast',
  ) {
    this.fd = openSync(path, 'r');
    this.scanner = mode === 'fast' ? new LineScanner(specs) : undefined;
  }

  next(): ReplayEvent | undefined {
    const scanner = this.scanner;
    for (;;) {
      let nl = this.buffer.indexOf(NEWLINE, this.pos);
      if (nl < 0 || nl >= this.end) {
        if (this.fill()) continue;
        // The last line, without a newline.
        if (this.pos >= this.end) return undefined;
        nl = this.end;
      }
      const start = this.pos;
      this.pos = nl + 1;
      this.lineNo++;
      if (nl === start) continue;
      let event: ReplayEvent | null | undefined = scanner === undefined ? undefined : scanner.scan(this.buffer, start, nl);
      if (event === null) continue;
      if (event === undefined) {
        if (scanner !== undefined) this.fallbackLines++;
        let record: MarketDataRecord | HeaderRecord;
        try {
          record = JSON.parse(this.buffer.toString('utf8', start, nl)) as MarketDataRecord | HeaderRecord;
        } catch {
          throw new DataFormatError(`line ${this.lineNo}: not JSON`);
        }
        event = toReplayEvent(record, this.specs, this.lineNo);
        if (event === undefined) continue;
      }
      if (event.ts < this.from) continue;
      if (event.ts >= this.to) {
        this.close();
        this.pos = this.end;
        return undefined;
      }
      return event;
    }
  }

  /** Reads more bytes behind the unread ones; false at the end of the file. */
  private fill(): boolean {
    if (this.eof || this.done) return false;
    const left = this.end - this.pos;
    if (left > 0 && this.pos === 0 && this.end === this.buffer.length) {
      // One line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(this.buffer.length * 2);
      this.buffer.copy(bigger, 0, 0, this.end);
      this.buffer = bigger;
    } else if (this.pos > 0) {
      this.buffer.copy(this.buffer, 0, this.pos, this.end);
    }
    this.pos = 0;
    this.end = left;
    const n = readSync(this.fd, this.buffer, left, this.buffer.length - left, null);
    this.bytesRead += n;
    if (n === 0) {
      this.eof = true;
      this.close();
      return false;
    }
    this.end += n;
    return true;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
  }
}

/** What the backtest pulls events from: a JSONL or a binary reader. */
export interface MarketDataSource {
  next(): ReplayEvent | undefined;
  close(): void;
  readonly bytesRead: number;
}

/** Opens a recording: the binary format (binary-format.ts) when the file starts with its magic, JSONL otherwise. */
export function openMarketData(path: string, specs: ReadonlyMap<string, MarketSpec>, from = -Infinity, to = Infinity, mode: ParseMode = 'fast'): MarketDataSource {
  return isBinaryFile(path) ? new BinaryReader(path, specs, from, to) : new MarketDataReader(path, specs, from, to, mode);
}

/** The markets of a JSONL file's header line, or undefined when it has none. */
export function headerMarkets(path: string): string[] | undefined {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const n = readSync(fd, head, 0, head.length, 0);
    const nl = head.indexOf(NEWLINE);
    const first = head.toString('utf8', 0, nl >= 0 && nl < n ? nl : n);
    const record = JSON.parse(first) as Partial<HeaderRecord>;
    return record.type === 'header' && Array.isArray(record.markets) ? record.markets : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * `perpsim convert`: a JSONL recording to the binary format, for the given markets (their
 * events in engine units; other markets' lines are dropped). Answers the events written.
 */
export function convertToBinary(from: string, to: string, specs: readonly MarketSpec[]): number {
  const reader = new MarketDataReader(from, new Map(specs.map((s) => [s.displayName, s])));
  const writer = new BinaryWriter(to, specs);
  try {
    for (let e = reader.next(); e !== undefined; e = reader.next()) writer.write(e);
  } finally {
    reader.close();
    writer.close();
  }
  return writer.count;
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
