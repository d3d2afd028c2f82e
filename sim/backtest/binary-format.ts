/**
 * perpsim's binary market-data format (`.bin`, written by `perpsim convert`): the recorded JSONL
 * already converted to engine units, read without any parsing. JSONL stays the interchange
 * format (the recorder writes it); this is a cache of it for fast replays.
 *
 * Layout (little-endian):
 * | bytes | content |
 * | --- | --- |
 * | 0-7 | magic `PSMDBIN1` |
 * | 8-11 | u32 header length H |
 * | 12 … 12+H | header JSON: {format: "perpsim-market-data-binary", version: 1, markets: [{name, tick, step}]} |
 * | … to a multiple of 8 | zero padding |
 * | then | records, each a run of float64 values |
 *
 * Every value of a record is a float64 holding an integer below 2^53 (ticks, quantums, µs):
 * - word 0: `type | market << 8 | snapshot << 16` (type 1 oracle, 2 trade, 3 book, 4 funding;
 *   market = index into the header's markets);
 * - ts, lts;
 * - oracle: price · trade: side (0 BUY, 1 SELL), price, size · book: bid count B, ask count A,
 *   then B bid [price, size] pairs and A ask pairs · funding: rate × 10^12.
 * Prices are ticks of the market's `tick`, sizes quantums of its `step`; a reader configured
 * with other units for a market refuses the file. Blocks are read into an 8-byte-aligned
 * Buffer and viewed as a Float64Array, so reading a record is a few array loads.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { MarketSpec } from '../../engine/index.ts';
import type { BookEvent, OracleEvent, TradeEvent } from './market-events.ts';

export const BINARY_MAGIC = 'PSMDBIN1';
export const BINARY_FORMAT_NAME = 'perpsim-market-data-binary';
const BLOCK = 4 * 1024 * 1024;

export const ORACLE_RECORD = 1;
export const TRADE_RECORD = 2;
export const BOOK_RECORD = 3;
const FUNDING = 4;
/**
 * Never in a file: a line of the JSONL the worker route (jsonl-pipeline.ts) hands over as text,
 * [RAW_LINE, line number, byte length, the UTF-8 bytes padded to 8].
 */
export const RAW_LINE_RECORD = 5;
const ORACLE = ORACLE_RECORD;
const TRADE = TRADE_RECORD;
const BOOK = BOOK_RECORD;

export interface BinaryHeader {
  format: typeof BINARY_FORMAT_NAME;
  version: 1;
  markets: { name: string; tick: string; step: string }[];
}

export interface FundingEvent { type: 'funding'; ts: number; lts: number; marketId: number; rateE12: bigint }
export type BinaryEvent = OracleEvent | TradeEvent | BookEvent | FundingEvent;

export class BinaryFormatError extends Error {}

/** True when the file starts with the binary magic. */
export function isBinaryFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(BINARY_MAGIC.length);
    const n = readSync(fd, head, 0, head.length, 0);
    return n === head.length && head.toString('latin1') === BINARY_MAGIC;
  } finally {
    closeSync(fd);
  }
}

/** Writes events (engine units of the given markets) in the binary format. */
export class BinaryWriter {
  private readonly fd: number;
  private readonly values = new Float64Array(BLOCK / 8);
  private used = 0;
  private readonly index = new Map<number, number>();
  count = 0;

  constructor(path: string, specs: readonly MarketSpec[]) {
    if (specs.length > 255) throw new BinaryFormatError('at most 255 markets per binary file (the record word keeps the market in 8 bits)');
    this.fd = openSync(path, 'w');
    specs.forEach((spec, i) => this.index.set(spec.id, i));
    const header: BinaryHeader = { format: BINARY_FORMAT_NAME, version: 1, markets: specs.map((s) => ({ name: s.displayName, tick: s.tick.text, step: s.step.text })) };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const length = 12 + json.length;
    const head = Buffer.alloc(Math.ceil(length / 8) * 8);
    head.write(BINARY_MAGIC, 0, 'latin1');
    head.writeUInt32LE(json.length, 8);
    json.copy(head, 12);
    writeSync(this.fd, head);
  }

  write(e: BinaryEvent): void {
    const market = this.index.get(e.marketId);
    if (market === undefined) throw new BinaryFormatError(`market ${e.marketId} is not in this file's header`);
    this.count++;
    switch (e.type) {
      case 'oracle':
        this.push([ORACLE | (market << 8), e.ts, e.lts, e.price]);
        return;
      case 'trade':
        this.push([TRADE | (market << 8), e.ts, e.lts, e.side, e.price, e.size]);
        return;
      case 'book':
        this.push([BOOK | (market << 8) | ((e.snapshot ? 1 : 0) << 16), e.ts, e.lts, e.bids.length / 2, e.asks.length / 2]);
        this.push(e.bids);
        this.push(e.asks);
        return;
      case 'funding': {
        const rate = Number(e.rateE12);
        if (!Number.isSafeInteger(rate)) throw new BinaryFormatError(`funding rate ${e.rateE12} ×1e-12 is beyond 2^53`);
        this.push([FUNDING | (market << 8), e.ts, e.lts, rate]);
        return;
      }
    }
  }

  private push(values: readonly number[]): void {
    for (let i = 0; i < values.length; i++) {
      if (this.used === this.values.length) this.flush();
      this.values[this.used++] = values[i]!;
    }
  }

  private flush(): void {
    if (this.used === 0) return;
    writeSync(this.fd, new Uint8Array(this.values.buffer, 0, this.used * 8));
    this.used = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * Pull reader over binary records, with MarketDataReader's contract: `next()` answers the next
 * event of a configured market in [from, to), in objects it reuses (valid until the next call;
 * a book event's `bids` and `asks` arrays too).
 * Subclasses supply the records (`fill`) and the configured spec per record market index.
 */
export abstract class RecordReader {
  /** Float64 view of the records at hand; unread values are [pos, end). */
  protected values = new Float64Array(BLOCK / 8);
  protected pos = 0;
  protected end = 0;
  /** Configured spec per record market index, undefined when not configured. */
  protected readonly specs: (MarketSpec | undefined)[] = [];
  readonly oracle: OracleEvent = { type: 'oracle', ts: 0, lts: 0, marketId: 0, price: 0 };
  readonly trade: TradeEvent = { type: 'trade', ts: 0, lts: 0, marketId: 0, side: 0, price: 0, size: 0 };
  readonly book: BookEvent = { type: 'book', ts: 0, lts: 0, marketId: 0, snapshot: false, bids: [], asks: [] };
  /**
   * The book event's level arrays, one per length, refilled per event (an empty side is
   * NO_LEVELS). One per length because cutting an array's length makes V8 trim its store and the
   * next longer side grow a new one: an allocation per book event.
   */
  private readonly bidLevels: (number[] | undefined)[] = [];
  private readonly askLevels: (number[] | undefined)[] = [];

  constructor(
    protected readonly from: number,
    protected readonly to: number,
  ) {}

  next(): BinaryEvent | undefined {
    for (;;) {
      if (this.pos >= this.end && !this.fill(1)) return undefined;
      const type = this.values[this.pos]! & 0xff;
      let event: BinaryEvent | undefined;
      if (type === RAW_LINE_RECORD) {
        event = this.rawLine();
        if (event === undefined || event.ts < this.from) continue;
        if (event.ts >= this.to) return this.stop();
        return event;
      }
      const fixed = type === TRADE ? 6 : type === BOOK ? 5 : type === ORACLE || type === FUNDING ? 4 : 0;
      if (fixed === 0) throw new BinaryFormatError(`corrupt binary market-data file: record type ${type}`);
      if (this.end - this.pos < fixed) this.need(fixed);
      if (type === BOOK) {
        const total = 5 + 2 * (this.values[this.pos + 3]! + this.values[this.pos + 4]!);
        if (this.end - this.pos < total) this.need(total);
      }
      const v = this.values;
      const at = this.pos;
      const word = v[at]!;
      const spec = this.specs[(word >> 8) & 0xff];
      const ts = v[at + 1]!;
      switch (type) {
        case ORACLE: {
          this.pos = at + 4;
          event = this.oracle;
          event.price = v[at + 3]!;
          break;
        }
        case TRADE: {
          this.pos = at + 6;
          const e = this.trade;
          e.side = v[at + 3] === 0 ? 0 : 1;
          e.price = v[at + 4]!;
          e.size = v[at + 5]!;
          event = e;
          break;
        }
        case BOOK: {
          const bids = 2 * v[at + 3]!;
          const asks = 2 * v[at + 4]!;
          const first = at + 5;
          this.pos = first + bids + asks;
          if (spec === undefined || ts < this.from) continue;
          const e = this.book;
          e.snapshot = ((word >> 16) & 1) === 1;
          e.bids = levels(v, first, bids, this.bidLevels);
          e.asks = levels(v, first + bids, asks, this.askLevels);
          event = e;
          break;
        }
        default: {
          this.pos = at + 4;
          event = { type: 'funding', ts, lts: 0, marketId: 0, rateE12: BigInt(v[at + 3]!) };
          break;
        }
      }
      if (spec === undefined || ts < this.from) continue;
      if (ts >= this.to) return this.stop();
      event.ts = ts;
      event.lts = v[at + 2]!;
      event.marketId = spec.id;
      return event;
    }
  }

  /** The end of the window: nothing more is read. */
  private stop(): undefined {
    this.close();
    this.pos = this.end;
    return undefined;
  }

  /** Makes `n` values available from `pos`, or fails: the data ends inside a record. */
  private need(n: number): void {
    if (!this.fill(n)) throw new BinaryFormatError('truncated binary market-data file');
  }

  /** The event of the RAW_LINE_RECORD at `pos` (undefined when it has none), `pos` moved past it. Files never hold one. */
  protected rawLine(): BinaryEvent | undefined {
    throw new BinaryFormatError(`corrupt binary market-data file: record type ${RAW_LINE_RECORD}`);
  }

  /** Makes at least `n` values unread from `pos`; false when the records end first. */
  protected abstract fill(n: number): boolean;

  abstract close(): void;
}

/** RecordReader over a binary file, read in 4 MB blocks. */
export class BinaryReader extends RecordReader {
  private readonly fd: number;
  private eof = false;
  private done = false;
  /** File position of the next read. */
  private offset = 0;
  bytesRead = 0;

  constructor(path: string, specs: ReadonlyMap<string, MarketSpec>, from = -Infinity, to = Infinity) {
    super(from, to);
    this.fd = openSync(path, 'r');
    const head = Buffer.alloc(12);
    if (readSync(this.fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== BINARY_MAGIC) throw new BinaryFormatError(`${path} is not a perpsim binary market-data file`);
    const json = Buffer.alloc(head.readUInt32LE(8));
    readSync(this.fd, json, 0, json.length, 12);
    const header = JSON.parse(json.toString('utf8')) as BinaryHeader;
    if (header.format !== BINARY_FORMAT_NAME || header.version !== 1) throw new BinaryFormatError(`${path}: unsupported binary format ${header.format} v${header.version}`);
    for (const m of header.markets) {
      const spec = specs.get(m.name);
      if (spec !== undefined && (spec.tick.text !== m.tick || spec.step.text !== m.step)) {
        throw new BinaryFormatError(`${path}: ${m.name} was converted with tick ${m.tick} and step ${m.step}, configured ${spec.tick.text} and ${spec.step.text}; convert the JSONL again`);
      }
      this.specs.push(spec);
    }
    this.offset = Math.ceil((12 + json.length) / 8) * 8;
    this.bytesRead = this.offset;
  }

  /** Moves the unread values to the front and reads until at least `n` are unread; false when the file ends first. */
  protected fill(n: number): boolean {
    if (this.eof || this.done) return false;
    const left = this.end - this.pos;
    if (n > this.values.length) {
      const bigger = new Float64Array(Math.max(n, this.values.length * 2));
      bigger.set(this.values.subarray(this.pos, this.end));
      this.values = bigger;
    } else {
      this.values.copyWithin(0, this.pos, this.end);
    }
    this.pos = 0;
    this.end = left;
    const bytes = new Uint8Array(this.values.buffer);
    while (this.end < n) {
      const got = readSync(this.fd, bytes, this.end * 8, bytes.length - this.end * 8, this.offset);
      this.offset += got;
      this.bytesRead += got;
      if (got === 0) {
        this.eof = true;
        this.close();
        return false;
      }
      if (got % 8 !== 0) throw new BinaryFormatError('truncated binary market-data file');
      this.end += got / 8;
    }
    return true;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    closeSync(this.fd);
  }
}

const NO_LEVELS: number[] = [];

/** `count` values from `at`, written into `byLength`'s array of that length; empty sides share NO_LEVELS. */
function levels(v: Float64Array, at: number, count: number, byLength: (number[] | undefined)[]): number[] {
  if (count === 0) return NO_LEVELS;
  while (byLength.length <= count) byLength.push(undefined);
  let out = byLength[count];
  if (out === undefined) {
    out = [];
    for (let i = 0; i < count; i++) out.push(v[at + i]!);
    byLength[count] = out;
    return out;
  }
  for (let i = 0; i < count; i++) out[i] = v[at + i]!;
  return out;
}
