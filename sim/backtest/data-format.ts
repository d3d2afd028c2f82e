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
 * "Speed: the replay routes").
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { MarketSpec } from '../../engine/index.ts';
import { BinaryWriter } from './binary-format.ts';
import { decimalUnits } from './decimal-units.ts';
import { LineReader } from './line-reader.ts';
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

/**
 * How a JSONL file is read: `scan` scans perpsim's own shapes with the byte scanner
 * (line-scanner.ts) and JSON.parses the rest, in this thread; `worker` does the same in a
 * worker thread while this one replays (jsonl-pipeline.ts); `fast` (the default) is `worker`
 * for files of at least WORKER_MIN_BYTES and `scan` otherwise (open-market-data.ts); `json`
 * JSON.parses every line. All four answer the same events. MarketDataReader is the in-thread
 * reader: it scans in every mode but `json`.
 */
export type ParseMode = 'fast' | 'scan' | 'worker' | 'json';

/**
 * Pull reader over a JSONL file: `next()` answers the next replayable event, or undefined at
 * the end. Events outside [from, to) (exchange time) are skipped. The file is read in 4 MB
 * blocks into one Buffer and split on newline bytes; in `fast` mode each line goes through
 * the byte scanner (line-scanner.ts) and only lines it does not recognize are decoded and
 * JSON.parsed, so both modes answer the same events. Scanned events are objects the reader
 * reuses: an event is valid until the next `next()`.
 */
export class MarketDataReader {
  private readonly lines: LineReader;
  private readonly scanner: LineScanner | undefined;
  /** Lines the fast path handed to JSON.parse (header, funding, unrecognized shapes). */
  fallbackLines = 0;

  constructor(
    path: string,
    private readonly specs: ReadonlyMap<string, MarketSpec>,
    private readonly from = -Infinity,
    private readonly to = Infinity,
    mode: ParseMode = 'fast',
    /** Read only the lines that start before this byte (line-reader.ts). */
    endByte = Infinity,
  ) {
    this.lines = new LineReader(path, 0, endByte);
    this.scanner = mode === 'json' ? undefined : new LineScanner(specs);
  }

  /** Bytes read so far, for progress. */
  get bytesRead(): number {
    return this.lines.bytesRead;
  }

  /** Lines read so far, empty ones included. */
  get linesRead(): number {
    return this.lines.lineNo;
  }

  /** True once an event at or after `to` ended the replay. */
  reachedTo = false;

  next(): ReplayEvent | undefined {
    const scanner = this.scanner;
    const lines = this.lines;
    while (lines.next()) {
      const start = lines.start;
      const nl = lines.stop;
      if (nl === start) continue;
      let event: ReplayEvent | null | undefined = scanner === undefined ? undefined : scanner.scan(lines.buffer, start, nl);
      if (event === null) continue;
      if (event === undefined) {
        if (scanner !== undefined) this.fallbackLines++;
        event = parseLine(lines.buffer.toString('utf8', start, nl), this.specs, lines.lineNo);
        if (event === undefined) continue;
      }
      if (event.ts < this.from) continue;
      if (event.ts >= this.to) {
        this.reachedTo = true;
        this.close();
        return undefined;
      }
      return event;
    }
    return undefined;
  }

  close(): void {
    this.lines.close();
  }
}

/** One line JSON.parsed into engine units: undefined for the header and for markets not configured; DataFormatError when it is not JSON. */
export function parseLine(text: string, specs: ReadonlyMap<string, MarketSpec>, lineNo: number): ReplayEvent | undefined {
  let record: MarketDataRecord | HeaderRecord;
  try {
    record = JSON.parse(text) as MarketDataRecord | HeaderRecord;
  } catch {
    throw new DataFormatError(`line ${lineNo}: not JSON`);
  }
  return toReplayEvent(record, specs, lineNo);
}

/** What the backtest pulls events from: a JSONL or a binary reader. */
export interface MarketDataSource {
  next(): ReplayEvent | undefined;
  close(): void;
  readonly bytesRead: number;
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
