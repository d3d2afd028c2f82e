/**
 * History events (closed orders, fills, trades, ledger entries) as compact bytes for the history
 * tables and the journal rows that carry them (history-tables.ts).
 *
 * Why: v8.serialize writes every property name with every event (an order's 28 keys are most of
 * its ~460 bytes) and costs microseconds to set up per call; with several history rows per
 * filled order that was a large share of the journal's cost per order (docs/benchmarks.md,
 * "journal"). Here the key lists of the engine's event shapes are fixed tables, so an event is
 * its values only, written by hand into one reused buffer.
 *
 * Contract:
 * - `decodeEvent(encodeEvent(e))` equals `e` (undefined fields kept, bigints as bigints, -0 as
 *   -0), for any plain-object graph of numbers, strings, booleans, bigints, null, undefined and
 *   arrays. Anything else (a Map, a class instance, a typed array) makes `encodeEvent` fall back
 *   to v8.serialize for that event: never a lossy row.
 * - `decodeEvent` also reads v8.serialize output (the rows of schema versions up to 8): v8's
 *   starts with its version tag 0xFF, this format with `FORMAT`.
 * - `SHAPES` is part of the stored format: a shape's id and key order never change. An object
 *   whose own keys are not exactly one shape's (a field the engine added later) is written with
 *   its keys inline (`T_OBJECT`), so a new field costs bytes, not correctness.
 */
import { deserialize, serialize } from 'node:v8';

/** First byte of this format (v8.serialize output starts with 0xFF). */
const FORMAT = 0x01;
const V8_TAG = 0xff;

const T_UNDEFINED = 0;
const T_FALSE = 1;
const T_TRUE = 2;
const T_NULL = 3;
/** Non-negative safe integer, varint. */
const T_UINT = 4;
/** Negative safe integer, varint of its magnitude. */
const T_NINT = 5;
const T_FLOAT = 6;
/** UTF-8, varint byte length. */
const T_STRING = 7;
/** '0x' + 40 lowercase hex digits: the 20 bytes. */
const T_ADDRESS = 8;
/** A bigint within int64, 8 bytes little-endian. */
const T_INT64 = 9;
/** Any other bigint, as a decimal string. */
const T_BIGINT = 10;
const T_ARRAY = 11;
/** A plain object of a known shape: varint shape id, then its values in the shape's key order. */
const T_SHAPE = 12;
/** Any other plain object: varint key count, then (string key, value) pairs. */
const T_OBJECT = 13;

/** Key lists of the engine's history events (engine/emit.ts, engine/engine.ts): ids are stored. */
const SHAPES: readonly (readonly string[])[] = [
  // 0: OrderEvent
  ['type', 'globalSeq', 'accountSeq', 'time', 'orderId', 'address', 'accountIndex', 'marketId', 'clientId', 'side', 'orderType', 'tif', 'reduceOnly', 'price', 'size', 'remaining', 'filled', 'filledValue', 'goodTilTime', 'createdAt', 'status', 'rejectionReason', 'cancelReason', 'origin', 'tpslType', 'triggerPrice', 'isPositionTpsl', 'parentOrderId'],
  // 1: FillEvent
  ['type', 'globalSeq', 'accountSeq', 'marketSeq', 'time', 'tradeId', 'orderId', 'address', 'accountIndex', 'clientId', 'marketId', 'side', 'price', 'size', 'role', 'orderSize', 'remaining', 'fee', 'closedPnl', 'positionEffect', 'liquidation'],
  // 2: TradesEvent
  ['type', 'globalSeq', 'time', 'marketSeq', 'marketId', 'takerOrderId', 'takerSide', 'entries'],
  // 3: a TradesEvent's entry
  ['tradeId', 'price', 'size', 'makerOrderId', 'makerAddress', 'makerAccountIndex', 'takerAddress', 'takerAccountIndex'],
  // 4: TransferEvent
  ['type', 'globalSeq', 'accountSeq', 'time', 'address', 'accountIndex', 'operationId', 'kind', 'amount', 'netQuoteBalance', 'status', 'rejectReason', 'counterpartyIndex'],
  // 5: FundingPaymentEvent
  ['type', 'globalSeq', 'accountSeq', 'time', 'address', 'accountIndex', 'marketId', 'rate', 'size', 'payment'],
  // 6: InterestEvent
  ['type', 'globalSeq', 'accountSeq', 'time', 'address', 'accountIndex', 'payment'],
];

/** Candidate shapes by first key, then key count: one array comparison finds the match. */
const shapeIndex = new Map<string, Map<number, number[]>>();
SHAPES.forEach((keys, id) => {
  const byCount = shapeIndex.get(keys[0]!) ?? new Map<number, number[]>();
  byCount.set(keys.length, [...(byCount.get(keys.length) ?? []), id]);
  shapeIndex.set(keys[0]!, byCount);
});

function shapeOf(keys: string[]): number {
  const candidates = shapeIndex.get(keys[0]!)?.get(keys.length);
  if (candidates === undefined) return -1;
  for (const id of candidates) {
    const shape = SHAPES[id]!;
    let i = 0;
    while (i < keys.length && keys[i] === shape[i]) i++;
    if (i === keys.length) return id;
  }
  return -1;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown inside `encodeEvent` for a value this format does not hold (v8 takes the event). */
class Unsupported extends Error {}

let out = Buffer.allocUnsafe(4096);
let at = 0;

function room(n: number): void {
  if (at + n <= out.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, at + n));
  out.copy(bigger, 0, 0, at);
  out = bigger;
}

function writeVarint(n: number): void {
  room(8);
  // Below 2^31 with bit operations; above (engine times are ~2^51) with arithmetic.
  if (n < 0x80000000) {
    while (n >= 0x80) {
      out[at++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    out[at++] = n;
    return;
  }
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
}

function writeString(s: string): void {
  const max = s.length * 3;
  writeVarint(s.length);
  // Mostly ASCII (statuses, enums): the length in chars is the length in bytes then.
  room(max);
  const start = at;
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    out[start + i] = c;
  }
  // The empty string goes the long way too: a zero char count is the long way's mark.
  if (ascii && s.length > 0) {
    at += s.length;
    return;
  }
  // Not ASCII: a zero char count marks a byte length that follows.
  at = start - varintLength(s.length);
  writeVarint(0);
  const bytes = Buffer.byteLength(s, 'utf8');
  writeVarint(bytes);
  room(bytes);
  at += out.write(s, at, 'utf8');
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len++;
  }
  return len;
}

/** Hex digit values by char code; -1 for anything else (lowercase only: an address with capitals stays a string, so it reads back as written). */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_DIGIT['0123456789abcdef'.charCodeAt(i)] = i;

/**
 * `s` (42 chars) as T_ADDRESS and its 20 bytes, if it is '0x' + 40 lowercase hex digits;
 * false, with nothing written, if not. A loop over the chars: `Buffer.write(hex)` costs a
 * native call and a sliced string per address.
 */
function writeAddress(s: string): boolean {
  if (s.charCodeAt(0) !== 0x30 || s.charCodeAt(1) !== 0x78) return false;
  room(21);
  const start = at + 1;
  for (let i = 0; i < 20; i++) {
    const hi = s.charCodeAt(2 + 2 * i);
    const lo = s.charCodeAt(3 + 2 * i);
    const h = hi < 128 ? HEX_DIGIT[hi]! : -1;
    const l = lo < 128 ? HEX_DIGIT[lo]! : -1;
    if (h < 0 || l < 0) return false;
    out[start + i] = (h << 4) | l;
  }
  out[at] = T_ADDRESS;
  at = start + 20;
  return true;
}

function writeValue(v: unknown): void {
  room(9);
  switch (typeof v) {
    case 'undefined':
      out[at++] = T_UNDEFINED;
      return;
    case 'boolean':
      out[at++] = v ? T_TRUE : T_FALSE;
      return;
    case 'number':
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
        out[at++] = v >= 0 ? T_UINT : T_NINT;
        writeVarint(v >= 0 ? v : -v);
      } else {
        out[at++] = T_FLOAT;
        out.writeDoubleLE(v, at);
        at += 8;
      }
      return;
    case 'bigint':
      if (v >= INT64_MIN && v <= INT64_MAX) {
        out[at++] = T_INT64;
        out.writeBigInt64LE(v, at);
        at += 8;
      } else {
        out[at++] = T_BIGINT;
        writeString(v.toString());
      }
      return;
    case 'string':
      if (v.length === 42 && writeAddress(v)) return;
      out[at++] = T_STRING;
      writeString(v);
      return;
    case 'object':
      if (v === null) {
        out[at++] = T_NULL;
        return;
      }
      if (Array.isArray(v)) {
        out[at++] = T_ARRAY;
        writeVarint(v.length);
        for (let i = 0; i < v.length; i++) writeValue(v[i]);
        return;
      }
      if (Object.getPrototypeOf(v) === Object.prototype) {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o);
        const shape = shapeOf(keys);
        if (shape >= 0) {
          out[at++] = T_SHAPE;
          writeVarint(shape);
        } else {
          out[at++] = T_OBJECT;
          writeVarint(keys.length);
        }
        if (shape >= 0) return SHAPE_WRITERS[shape]!(o);
        for (const key of keys) {
          writeString(key);
          writeValue(o[key]);
        }
        return;
      }
      throw new Unsupported();
    default:
      throw new Unsupported();
  }
}

/**
 * Per shape, its values written in key order by named property reads: a read by a computed key
 * (`o[key]`) is a generic lookup each time, a named one is cached at its site; the writer of an
 * order event (28 keys) took about a third less time so.
 */
const SHAPE_WRITERS: readonly ((o: Record<string, unknown>) => void)[] = SHAPES.map(
  (keys) => new Function('write', `return (o) => { ${keys.map((k) => `write(o[${JSON.stringify(k)}]);`).join(' ')} };`)(writeValue) as (o: Record<string, unknown>) => void,
);

/** `e` as this format's bytes (v8.serialize's for a value outside it). */
export function encodeEvent(e: object): Buffer {
  at = 0;
  try {
    room(1);
    out[at++] = FORMAT;
    writeValue(e);
  } catch (err) {
    if (err instanceof Unsupported) return serialize(e);
    throw err;
  }
  const bytes = Buffer.allocUnsafe(at);
  out.copy(bytes, 0, 0, at);
  return bytes;
}

let src: Uint8Array = new Uint8Array(0);
let view: DataView = new DataView(new ArrayBuffer(0));
let pos = 0;

function readVarint(): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    const b = src[pos++]!;
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 0x80;
  }
}

const decoder = new TextDecoder();

function readString(): string {
  const chars = readVarint();
  if (chars === 0) {
    const bytes = readVarint();
    const s = decoder.decode(src.subarray(pos, pos + bytes));
    pos += bytes;
    return s;
  }
  // ASCII: the char codes are the bytes.
  let s = '';
  for (let i = 0; i < chars; i++) s += String.fromCharCode(src[pos + i]!);
  pos += chars;
  return s;
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function readValue(): unknown {
  const tag = src[pos++];
  switch (tag) {
    case T_UNDEFINED:
      return undefined;
    case T_FALSE:
      return false;
    case T_TRUE:
      return true;
    case T_NULL:
      return null;
    case T_UINT:
      return readVarint();
    case T_NINT:
      return -readVarint();
    case T_FLOAT: {
      const v = view.getFloat64(pos, true);
      pos += 8;
      return v;
    }
    case T_STRING:
      return readString();
    case T_ADDRESS: {
      let s = '0x';
      for (let i = 0; i < 20; i++) s += HEX[src[pos + i]!];
      pos += 20;
      return s;
    }
    case T_INT64: {
      const v = view.getBigInt64(pos, true);
      pos += 8;
      return v;
    }
    case T_BIGINT:
      return BigInt(readString());
    case T_ARRAY: {
      const n = readVarint();
      const a: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) a[i] = readValue();
      return a;
    }
    case T_SHAPE: {
      const keys = SHAPES[readVarint()];
      if (keys === undefined) throw new Error('history event of an unknown shape');
      const o: Record<string, unknown> = {};
      for (const key of keys) o[key] = readValue();
      return o;
    }
    case T_OBJECT: {
      const n = readVarint();
      const o: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const key = readString();
        o[key] = readValue();
      }
      return o;
    }
    default:
      throw new Error(`history event with an unknown value tag ${String(tag)}`);
  }
}

/** The event `bytes` hold: this format or v8.serialize's. */
export function decodeEvent<T = unknown>(bytes: Uint8Array): T {
  if (bytes[0] === V8_TAG) return deserialize(bytes) as T;
  if (bytes[0] !== FORMAT) throw new Error(`history event in an unknown format (first byte ${String(bytes[0])})`);
  src = bytes;
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 1;
  return readValue() as T;
}
