/**
 * A byte scanner for the JSONL lines perpsim itself writes (`oracle`, `trade`, `book`), the
 * replay's fast path: no string per line, no JSON.parse, no object per event.
 *
 * Contract: `scan(bytes, start, end)` reads one line and answers
 * - the replay event, written into one of three objects the scanner owns (valid until the
 *   next scan);
 * - `null` for a well-formed line of a market that is not configured (skipped, as the
 *   JSON.parse path skips it);
 * - `undefined` for anything it does not recognize — another type (funding, header), an
 *   unknown key, whitespace, an escape, a number that is not a plain integer, a decimal string
 *   that is not `digits[.digits]` of at most 15 digits, a missing field. The caller then parses
 *   the line with JSON.parse (data-format.ts), so any valid JSONL still replays, and every
 *   error or oddity behaves exactly as on that path.
 * Accepted lines: one JSON object without whitespace; keys in any order, each at most once
 * meaningful (a repeated key: the last wins, as in JSON.parse); `type` "oracle" | "trade" |
 * "book"; `ts` and optional `lts` non-negative integers below 2^53 without leading zeros;
 * `market` a string without escapes; `price`, `size`, `mark` decimal strings; `side` "BUY" |
 * "SELL"; `snapshot` true | false; `bids` / `asks` arrays of [price, size] string pairs.
 * Decimals convert with decimal-units.ts `unitsOf`, the function the JSON.parse path uses.
 */
import type { MarketSpec } from '../../engine/index.ts';
import { BOOK_RECORD, ORACLE_RECORD, TRADE_RECORD } from './binary-format.ts';
import { MAX_DIGITS, unitsOf } from './decimal-units.ts';
import type { BookEvent, OracleEvent, TradeEvent } from './market-events.ts';

export type { BookEvent, OracleEvent, TradeEvent } from './market-events.ts';

/** What the scanner needs of a market: its id and units (a MarketSpec, or its copy in a worker thread). */
export interface ScanMarket {
  id: number;
  tick: Pick<MarketSpec['tick'], 'scale' | 'mantissa'>;
  step: Pick<MarketSpec['step'], 'scale' | 'mantissa'>;
}


const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const BACKSLASH = 0x5c;

/** `read`'s answer for a well-formed line of a market that is not configured. */
export const OTHER_MARKET = -1;
/** `read`'s answer for a line the scanner does not recognize. */
export const UNRECOGNIZED = 0;

/** A "key": its bytes as a number, for keys of up to 6 ASCII bytes (all the format's short keys). */
function keyCode(text: string): number {
  let code = 0;
  for (let i = 0; i < text.length; i++) code = code * 256 + text.charCodeAt(i);
  return code;
}

const K_TYPE = keyCode('type');
const K_TS = keyCode('ts');
const K_LTS = keyCode('lts');
const K_MARKET = keyCode('market');
const K_PRICE = keyCode('price');
const K_MARK = keyCode('mark');
const K_SIDE = keyCode('side');
const K_SIZE = keyCode('size');
const K_BIDS = keyCode('bids');
const K_ASKS = keyCode('asks');
const V_ORACLE = keyCode('oracle');
const V_TRADE = keyCode('trade');
const V_BOOK = keyCode('book');
const V_BUY = keyCode('BUY');
const V_SELL = keyCode('SELL');
const SNAPSHOT = Buffer.from('snapshot');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

/** Raw decimal levels of one side: n and d per price and per size. */
class RawLevels {
  n: number[] = [];
  d: number[] = [];
  count = 0;
}

export class LineScanner {
  readonly oracle: OracleEvent = { type: 'oracle', ts: 0, lts: 0, marketId: 0, price: 0 };
  readonly trade: TradeEvent = { type: 'trade', ts: 0, lts: 0, marketId: 0, side: 0, price: 0, size: 0 };
  readonly book: BookEvent = { type: 'book', ts: 0, lts: 0, marketId: 0, snapshot: false, bids: [], asks: [] };
  private readonly names: Buffer[] = [];
  private readonly specs: ScanMarket[] = [];
  private bytes: Uint8Array = new Uint8Array(0);
  private p = 0;
  /** The last decimal read: n·10^-d. */
  private n = 0;
  private d = 0;
  private readonly rawBids = new RawLevels();
  private readonly rawAsks = new RawLevels();
  /** The last line `read` recognized (its levels are rawBids and rawAsks). */
  private type = 0;
  /** Exchange time of the last line `read` recognized. */
  ts = 0;
  private lts = 0;
  private market = 0;
  private side = 0;
  private snapshot = false;
  private priceN = 0;
  private priceD = 0;
  private sizeN = 0;
  private sizeD = 0;

  constructor(specs: ReadonlyMap<string, ScanMarket>) {
    for (const [name, spec] of specs) {
      this.names.push(Buffer.from(name, 'utf8'));
      this.specs.push(spec);
    }
  }

  /** One line, `bytes[start, end)` without its newline (see the module contract). */
  scan(bytes: Uint8Array, start: number, end: number): OracleEvent | TradeEvent | BookEvent | null | undefined {
    const type = this.read(bytes, start, end);
    if (type === UNRECOGNIZED) return undefined;
    if (type === OTHER_MARKET) return null;
    const spec = this.specs[this.market]!;
    switch (type) {
      case ORACLE_RECORD: {
        const e = this.oracle;
        e.ts = this.ts;
        e.lts = this.lts;
        e.marketId = spec.id;
        e.price = unitsOf(this.priceN, this.priceD, spec.tick.scale, spec.tick.mantissa);
        return e;
      }
      case TRADE_RECORD: {
        const e = this.trade;
        e.ts = this.ts;
        e.lts = this.lts;
        e.marketId = spec.id;
        e.side = this.side as 0 | 1;
        e.price = unitsOf(this.priceN, this.priceD, spec.tick.scale, spec.tick.mantissa);
        e.size = unitsOf(this.sizeN, this.sizeD, spec.step.scale, spec.step.mantissa);
        return e;
      }
      default: {
        const e = this.book;
        e.ts = this.ts;
        e.lts = this.lts;
        e.marketId = spec.id;
        e.snapshot = this.snapshot;
        e.bids = convert(this.rawBids, spec);
        e.asks = convert(this.rawAsks, spec);
        return e;
      }
    }
  }

  /** The float64 words the last line `read` recognized takes as a binary record. */
  recordLength(): number {
    return this.type === ORACLE_RECORD ? 4 : this.type === TRADE_RECORD ? 6 : 5 + 2 * (this.rawBids.count + this.rawAsks.count);
  }

  /**
   * Writes the last line `read` recognized as a binary record (binary-format.ts layout, the
   * market word being the index of its market in the scanner's map) at `out[at]`, converted
   * with the `unitsOf` `scan` uses; answers the index after it. `out` has `recordLength()` words from `at`.
   */
  writeRecord(out: Float64Array, at: number): number {
    const spec = this.specs[this.market]!;
    const type = this.type;
    out[at + 1] = this.ts;
    out[at + 2] = this.lts;
    if (type === ORACLE_RECORD) {
      out[at] = ORACLE_RECORD | (this.market << 8);
      out[at + 3] = unitsOf(this.priceN, this.priceD, spec.tick.scale, spec.tick.mantissa);
      return at + 4;
    }
    if (type === TRADE_RECORD) {
      out[at] = TRADE_RECORD | (this.market << 8);
      out[at + 3] = this.side;
      out[at + 4] = unitsOf(this.priceN, this.priceD, spec.tick.scale, spec.tick.mantissa);
      out[at + 5] = unitsOf(this.sizeN, this.sizeD, spec.step.scale, spec.step.mantissa);
      return at + 6;
    }
    out[at] = BOOK_RECORD | (this.market << 8) | ((this.snapshot ? 1 : 0) << 16);
    out[at + 3] = this.rawBids.count;
    out[at + 4] = this.rawAsks.count;
    return convertInto(this.rawAsks, spec, out, convertInto(this.rawBids, spec, out, at + 5));
  }

  /**
   * Reads one line into the scanner's fields: answers its record type (ORACLE_RECORD,
   * TRADE_RECORD, BOOK_RECORD), OTHER_MARKET for a well-formed line of a market not configured,
   * UNRECOGNIZED for anything else (see the module contract).
   */
  read(bytes: Uint8Array, start: number, end: number): number {
    this.bytes = bytes;
    this.p = start;
    if (bytes[this.p++] !== OPEN_BRACE) return UNRECOGNIZED;
    let type = 0;
    let ts = -1;
    let lts = -1;
    let market = -2;
    let side = -1;
    let snapshot = false;
    let priceN = -1;
    let priceD = 0;
    let sizeN = -1;
    let sizeD = 0;
    let bids = false;
    let asks = false;
    for (;;) {
      let p = this.p;
      if (bytes[p++] !== QUOTE) return UNRECOGNIZED;
      const keyStart = p;
      let code = 0;
      for (;;) {
        const c = bytes[p++]!;
        if (c === QUOTE) break;
        if (c === BACKSLASH || c < 0x20 || p >= end) return UNRECOGNIZED;
        code = code * 256 + c;
      }
      const keyLength = p - 1 - keyStart;
      if (bytes[p++] !== COLON) return UNRECOGNIZED;
      this.p = p;
      if (keyLength > 6) {
        if (keyLength !== 8 || !this.equals(keyStart, SNAPSHOT)) return UNRECOGNIZED;
        if (this.word(TRUE)) snapshot = true;
        else if (this.word(FALSE)) snapshot = false;
        else return UNRECOGNIZED;
      } else if (code === K_TYPE) {
        const v = this.shortString();
        if (v === V_ORACLE) type = ORACLE_RECORD;
        else if (v === V_TRADE) type = TRADE_RECORD;
        else if (v === V_BOOK) type = BOOK_RECORD;
        else return UNRECOGNIZED;
      } else if (code === K_TS) {
        ts = this.integer();
        if (ts < 0) return UNRECOGNIZED;
      } else if (code === K_LTS) {
        lts = this.integer();
        if (lts < 0) return UNRECOGNIZED;
      } else if (code === K_MARKET) {
        market = this.marketName();
        if (market === -2) return UNRECOGNIZED;
      } else if (code === K_PRICE) {
        if (!this.decimal()) return UNRECOGNIZED;
        priceN = this.n;
        priceD = this.d;
      } else if (code === K_SIZE) {
        if (!this.decimal()) return UNRECOGNIZED;
        sizeN = this.n;
        sizeD = this.d;
      } else if (code === K_MARK) {
        if (!this.decimal()) return UNRECOGNIZED;
      } else if (code === K_SIDE) {
        const v = this.shortString();
        if (v === V_BUY) side = 0;
        else if (v === V_SELL) side = 1;
        else return UNRECOGNIZED;
      } else if (code === K_BIDS) {
        if (!this.levels(this.rawBids)) return UNRECOGNIZED;
        bids = true;
      } else if (code === K_ASKS) {
        if (!this.levels(this.rawAsks)) return UNRECOGNIZED;
        asks = true;
      } else {
        return UNRECOGNIZED;
      }
      const c = bytes[this.p++];
      if (c === COMMA) continue;
      if (c === CLOSE_BRACE && this.p === end) break;
      return UNRECOGNIZED;
    }
    if (ts < 0 || market === -2) return UNRECOGNIZED;
    if (type === ORACLE_RECORD) {
      if (priceN < 0) return UNRECOGNIZED;
    } else if (type === TRADE_RECORD) {
      if (priceN < 0 || sizeN < 0 || side < 0) return UNRECOGNIZED;
    } else if (type === BOOK_RECORD) {
      if (!bids || !asks) return UNRECOGNIZED;
    } else {
      return UNRECOGNIZED;
    }
    if (market < 0) return OTHER_MARKET;
    this.type = type;
    this.ts = ts;
    this.lts = lts < 0 ? ts : lts;
    this.market = market;
    this.side = side;
    this.snapshot = snapshot;
    this.priceN = priceN;
    this.priceD = priceD;
    this.sizeN = sizeN;
    this.sizeD = sizeD;
    return type;
  }

  private equals(at: number, word: Uint8Array): boolean {
    for (let i = 0; i < word.length; i++) if (this.bytes[at + i] !== word[i]) return false;
    return true;
  }

  private word(word: Uint8Array): boolean {
    if (!this.equals(this.p, word)) return false;
    this.p += word.length;
    return true;
  }

  /** A string of at most 6 ASCII bytes as its key code; -1 otherwise. */
  private shortString(): number {
    const bytes = this.bytes;
    let p = this.p;
    if (bytes[p++] !== QUOTE) return -1;
    let code = 0;
    for (let i = 0; i <= 6; i++) {
      const c = bytes[p++];
      if (c === QUOTE) {
        this.p = p;
        return code;
      }
      if (c === undefined || c === BACKSLASH || c < 0x20 || c >= 0x80) return -1;
      code = code * 256 + c;
    }
    return -1;
  }

  /** A non-negative JSON integer below 2^53; -1 otherwise. */
  private integer(): number {
    const bytes = this.bytes;
    const first = this.p;
    let p = first;
    let n = 0;
    for (;;) {
      const c = bytes[p]!;
      if (!(c >= ZERO && c <= NINE)) break;
      n = n * 10 + (c - ZERO);
      p++;
    }
    this.p = p;
    const digits = p - first;
    if (digits === 0 || digits > 16 || (digits > 1 && bytes[first] === ZERO) || !Number.isSafeInteger(n)) return -1;
    const c = bytes[p];
    // A fraction or an exponent: not a plain integer.
    if (c === DOT || c === 0x65 || c === 0x45) return -1;
    return n;
  }

  /** A market name string: the configured market's index, -1 for another market, -2 when not a plain string. */
  private marketName(): number {
    const bytes = this.bytes;
    let p = this.p;
    if (bytes[p++] !== QUOTE) return -2;
    const start = p;
    for (;;) {
      const c = bytes[p++];
      if (c === QUOTE) break;
      if (c === undefined || c === BACKSLASH || c < 0x20) return -2;
    }
    this.p = p;
    const length = p - 1 - start;
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.length === length && this.equals(start, name)) return i;
    }
    return -1;
  }

  /** A decimal string `digits[.digits]` of at most 15 digits into n, d; false otherwise. */
  private decimal(): boolean {
    const bytes = this.bytes;
    let p = this.p;
    if (bytes[p++] !== QUOTE) return false;
    let n = 0;
    let digits = 0;
    let d = -1;
    for (;;) {
      const c = bytes[p++]!;
      if (c >= ZERO && c <= NINE) {
        n = n * 10 + (c - ZERO);
        digits++;
        if (d >= 0) d++;
      } else if (c === DOT && d < 0 && digits > 0) {
        d = 0;
      } else if (c === QUOTE) {
        break;
      } else {
        return false;
      }
    }
    this.p = p;
    if (digits === 0 || digits > MAX_DIGITS || d === 0) return false;
    this.n = n;
    this.d = d < 0 ? 0 : d;
    return true;
  }

  /** `[]` or `[[price, size], …]` of decimal strings. */
  private levels(out: RawLevels): boolean {
    const bytes = this.bytes;
    if (bytes[this.p++] !== OPEN_BRACKET) return false;
    out.count = 0;
    if (bytes[this.p] === CLOSE_BRACKET) {
      this.p++;
      return true;
    }
    for (;;) {
      if (bytes[this.p++] !== OPEN_BRACKET) return false;
      if (!this.decimal()) return false;
      const k = out.count * 2;
      out.n[k] = this.n;
      out.d[k] = this.d;
      if (bytes[this.p++] !== COMMA || !this.decimal()) return false;
      out.n[k + 1] = this.n;
      out.d[k + 1] = this.d;
      out.count++;
      if (bytes[this.p++] !== CLOSE_BRACKET) return false;
      const c = bytes[this.p++];
      if (c === COMMA) continue;
      if (c === CLOSE_BRACKET) return true;
      return false;
    }
  }
}

/** Converted levels in a fresh array (resizing one array in place costs more than a young allocation); empty sides share one. */
function convert(raw: RawLevels, spec: ScanMarket): number[] {
  const count = raw.count;
  if (count === 0) return NO_LEVELS;
  const { scale: ps, mantissa: pm } = spec.tick;
  const { scale: ss, mantissa: sm } = spec.step;
  const out: number[] = [];
  for (let k = 0; k < 2 * count; k += 2) {
    out.push(unitsOf(raw.n[k]!, raw.d[k]!, ps, pm), unitsOf(raw.n[k + 1]!, raw.d[k + 1]!, ss, sm));
  }
  return out;
}

/** Converted levels written at `out[at]`; answers the index after them. */
function convertInto(raw: RawLevels, spec: ScanMarket, out: Float64Array, at: number): number {
  const { scale: ps, mantissa: pm } = spec.tick;
  const { scale: ss, mantissa: sm } = spec.step;
  for (let k = 0; k < 2 * raw.count; k += 2) {
    out[at++] = unitsOf(raw.n[k]!, raw.d[k]!, ps, pm);
    out[at++] = unitsOf(raw.n[k + 1]!, raw.d[k + 1]!, ss, sm);
  }
  return at;
}

/** The empty side of a one-sided delta (never written to). */
const NO_LEVELS: number[] = [];
