/**
 * Hostile request parts for the gateway fuzz test (test/gateway.fuzz.test.ts), as fast-check
 * arbitraries over plain data. Nothing here knows a route: everything is derived from an
 * operation's JSON schema and a `FuzzWorld` (the addresses, keys, markets and ids that exist),
 * so a new operation is fuzzed without touching this file.
 *
 * Contract:
 * - `jsonBody` gives the text of a body: schema-shaped with some fields replaced by hostile
 *   values (wrong types, huge / negative / non-finite numbers, NaN-like strings, long strings,
 *   unicode, nesting, prototype keys), any JSON value, or text that is not JSON at all.
 *   Numbers are written as raw literals (`1e400`, 30-digit integers), which JSON.stringify
 *   cannot produce.
 * - `queryText` gives `?…` text: schema-shaped keys and hostile values, repeated keys, bracket
 *   keys, and odd percent-encodings (`%zz`, a lone `%`, invalid UTF-8, `%00`, `+`).
 * - `headerSet` gives the signed triple (X-API-Key, X-Timestamp, X-Signature), each missing,
 *   empty, the wrong length, not hex, repeated, or a timestamp at second / millisecond /
 *   microsecond / nanosecond scale, far future or past; plus a content type and stray headers.
 * - `pathText` fills an operation's `:params` with hostile segments.
 * - `describeRequest` prints a request short enough for a failure message.
 *
 * Every arbitrary is deterministic under fast-check's seed; nothing reads a clock.
 */
import fc from 'fast-check';

/** The JSON-schema subset TypeBox emits for the operation table. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  const?: unknown;
  nullable?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

/** What exists in the gateway under test, so shaped inputs can name it (and near-misses of it). */
export interface FuzzWorld {
  /** Registered, funded master addresses (lowercase 0x). */
  addresses: readonly string[];
  /** Their registered API keys (64 lowercase hex). */
  apiKeys: readonly string[];
  /** Market selectors: display names and ids as text. */
  markets: readonly string[];
  marketIds: readonly number[];
  orderIds: readonly string[];
  clientIds: readonly string[];
  tradeIds: readonly string[];
  /** The simulated clock (µs). */
  nowUs: number;
  /** Schemas of array elements that the table leaves open (`orders` → placeOrder's body). */
  itemSchemas: Readonly<Record<string, JsonSchema>>;
}

/** A number written verbatim into JSON text (`1e400`, `-0`, 30-digit integers). */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** A JSON-ish tree: what `jsonText` serializes. `undefined` members are dropped. */
export type Tree = null | boolean | number | string | RawNumber | undefined | Tree[] | { [key: string]: Tree };

export interface FuzzRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string | string[]>;
  /** Body text; undefined sends none. */
  payload: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Hostile scalars.

const HEX = '0123456789abcdef';
export const hex = (length: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...HEX), minLength: length, maxLength: length });

/** Numbers JSON.stringify cannot write, or that overflow / underflow / lose precision. */
const NUMBER_LITERALS = [
  '0', '-0', '-1', '1', '2147483648', '-2147483649', '9007199254740993', '-9007199254740993',
  '18446744073709551616', '123456789012345678901234567890', '1e400', '-1e400', '1e-400', '1E3',
  '0.1', '-0.5', '1.5', '1.0', '4.9e-324', '1.7976931348623157e308', '1e21', '65536', '65535', '255', '10', '9',
] as const;

/** Strings a decimal, id or enum parser might half-accept. */
const NASTY_STRINGS = [
  '', ' ', '0', '-0', '-1', '+1', '.5', '5.', '1.', '--1', '1e5', '1E-7', '1e400', '-1e400', 'NaN', '-NaN', 'Infinity',
  '-Infinity', 'null', 'undefined', 'true', 'false', '[]', '{}', '0x', '0x10', '0b1', '0o7', '1_000', '1,5', ' 1', '1 ',
  '\t1\n', '0.000000000000000000000000000001', '99999999999999999999999999999999', '9'.repeat(400), '1'.repeat(65),
  '١٢٣', '１２３', '\u0000', '\u0000abc', '\uD800', '\uDFFF', '💥', '\u202Eevil', 'Ω≈ç√∫', '__proto__', 'constructor',
  'prototype', 'toString', 'hasOwnProperty', 'valueOf', '%00', '%zz', '../../etc/passwd', '<script>', "' OR 1=1 --",
  'BTC-USD', 'btc-usd', 'BTC-USD ', 'F-USD', 'GTT', 'gtt', 'IOC', 'FOK', 'ALO', 'GTC', 'BUY', 'buy', 'SELL', 'LIMIT', 'MARKET',
  'STOP_LOSS', 'TAKE_PROFIT', 'entryTpsl', 'positionTpsl', 'partialTpsl', '0x' + 'f'.repeat(40), 'f'.repeat(64), 'z'.repeat(64),
] as const;

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'] as const;

const rawNumber: fc.Arbitrary<RawNumber> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LITERALS).map((t) => new RawNumber(t)) },
  { weight: 2, arbitrary: fc.constantFrom('1e400', '-1e400', '1e309').map((t) => new RawNumber(t)) },
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => new RawNumber(JSON.stringify(d))),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map((b) => new RawNumber(b.toString())),
);

const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt().map(String) },
);

/** Deeply nested arrays / objects around a leaf. */
const nested: fc.Arbitrary<Tree> = fc.tuple(fc.integer({ min: 2, max: 200 }), fc.boolean()).map(([depth, objects]) => {
  let tree: Tree = 1;
  for (let i = 0; i < depth; i++) tree = objects ? { a: tree } : [tree];
  return tree;
});

const protoObject: fc.Arbitrary<Tree> = fc
  .tuple(fc.constantFrom(...PROTO_KEYS), fc.constantFrom<Tree>({ polluted: 'yes' }, null, 'x', 1, [], { toString: 1 }))
  .map(([key, value]) => ({ [key]: value }));

/** Any hostile value: the replacement for a schema field. */
export const hostileValue: fc.Arbitrary<Tree> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: rawNumber },
  { weight: 1, arbitrary: fc.constantFrom<Tree>(null, true, false, [], {}, [null], ['1'], { '': '' }) },
  { weight: 1, arbitrary: nested },
  { weight: 1, arbitrary: protoObject },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree> },
);

// ---------------------------------------------------------------------------------------------
// Schema-shaped values: valid most of the time per field, hostile some of the time, so requests
// get past the schema and into the handlers.

const ADDRESS_PATTERN = '^(0x|0X)?[0-9a-fA-F]{40}$';

function nameHint(name: string, world: FuzzWorld): fc.Arbitrary<Tree> | undefined {
  const lower = name.toLowerCase();
  const near = (values: readonly string[]): fc.Arbitrary<Tree> => (values.length === 0 ? nastyString : fc.constantFrom(...values));
  if (lower === 'market') return fc.oneof(near(world.markets), fc.constantFrom(...world.markets.map((m) => m.toLowerCase())), nastyString);
  if (lower === 'orderid') return fc.oneof(near(world.orderIds), fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String), nastyString);
  if (lower === 'tradeid') return fc.oneof(near(world.tradeIds), fc.bigInt({ min: 0n, max: 2n ** 70n }).map(String), nastyString);
  if (lower === 'clientid') return fc.oneof(near(world.clientIds), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), nastyString);
  if (lower === 'timeinforce' || lower === 'tif') return fc.oneof(fc.constantFrom('GTT', 'GTC', 'IOC', 'FOK', 'ALO'), nastyString);
  if (lower === 'timeframe') return fc.oneof(fc.constantFrom('1m', '5m', '1h', '1d', '1w', '1M', '2d', '0m', '-1m'), nastyString);
  if (lower === 'side' || lower === 'orderside') return fc.constantFrom('BUY', 'SELL', 'buy', 'B', '');
  if (lower === 'role') return fc.constantFrom('MAKER', 'TAKER', 'maker', '');
  if (lower === 'status') return fc.constantFrom('OPEN', 'FILLED', 'CANCELED', 'REJECTED', 'open', '');
  if (lower === 'r' || lower === 's') return fc.oneof(hex(64).map((h) => '0x' + h), fc.integer({ min: 1, max: 70 }).chain((n) => hex(n)), fc.constantFrom('0x', '0x0', '0'.repeat(64), 'f'.repeat(64)));
  if (lower === 'v') return fc.constantFrom<Tree>(27, 28, 0, 1, 2, 26, 37, 38, '0x1b', '0x1c', '27', '1', '0x', '-1', 2 ** 53, new RawNumber('1e400'));
  if (lower === 'signature') return fc.oneof(hex(130).map((h) => '0x' + h), hex(128), fc.record({ r: hex(64).map((h) => '0x' + h), s: hex(64), v: fc.constantFrom<Tree>(27, 28, '0x1c', 0) }));
  if (lower.endsWith('address')) return fc.oneof({ weight: 4, arbitrary: fc.constant(world.addresses[0]!) }, { weight: 1, arbitrary: fc.constantFrom(...world.addresses) }, { weight: 1, arbitrary: nastyString });
  if (lower === 'grouping') return fc.constantFrom('entryTpsl', 'partialTpsl', 'positionTpsl', 'normalTpsl', '');
  if (lower.includes('tpsl')) return fc.constantFrom('STOP_LOSS', 'TAKE_PROFIT', 'entryTpsl', 'partialTpsl', 'positionTpsl', '');
  if (lower === 'price' || lower === 'quantity' || lower === 'stopprice' || lower === 'amount' || lower === 'size') return decimalText;
  if (lower === 'from' || lower === 'to' || lower.endsWith('time') || lower === 'validuntil' || lower.endsWith('timens')) return timeValue(world);
  if (lower === 'publickey' || lower === 'apikey') return fc.oneof({ weight: 3, arbitrary: near(world.apiKeys) }, { weight: 3, arbitrary: hex(64) }, { weight: 1, arbitrary: hex(63) }, { weight: 1, arbitrary: fc.constant('0x' + 'a'.repeat(64)) });
  if (lower === 'nonce') {
    const ns = BigInt(world.nowUs) * 1000n;
    return fc.oneof(fc.bigInt({ min: ns - 10n ** 14n, max: ns + 10n ** 14n }).map(String), fc.uuid(), fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String), nastyString);
  }
  return undefined;
}

const decimalText: fc.Arbitrary<Tree> = fc.oneof(
  fc.constantFrom('1', '0.001', '0.0001', '0.00000001', '97000', '97000.1', '3500', '0.1', '100', '10000', '10001', '99999999', '1e3', '0', '-1', '-0.0', '0.05', '1.23456789012345678901'),
  fc.tuple(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.integer({ min: 0, max: 30 })).map(([digits, scale]) => {
    const text = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
    return (digits < 0n ? '-' : '') + (scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`);
  }),
  fc.double().map(String),
);

function timeValue(world: FuzzWorld): fc.Arbitrary<Tree> {
  const us = world.nowUs;
  const ms = Math.floor(us / 1000);
  const DAY_MS = 86_400_000;
  // µs (goodTilTime, scheduleCancel time, history bounds), ms (key validUntil), s, and edges.
  const values = [us, us + 40 * DAY_MS * 1000, us + 10_000_000, us + 60_000_000, us - 1, ms, ms + DAY_MS, ms + 90 * DAY_MS, ms + 200 * DAY_MS, Math.floor(us / 1_000_000), 0, 1e14, 1e14 - 1, Number.MAX_SAFE_INTEGER, 2 ** 63];
  return fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values.map((v) => BigInt(Math.trunc(v)).toString())), fc.constant(new RawNumber(`${BigInt(us) * 1000n}`)));
}

function stringOf(schema: JsonSchema, name: string, world: FuzzWorld): fc.Arbitrary<Tree> {
  const hinted = nameHint(name, world);
  if (schema.pattern === ADDRESS_PATTERN) {
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant(world.addresses[0]!) },
      { weight: 1, arbitrary: fc.constantFrom(...world.addresses) },
      { weight: 1, arbitrary: fc.constantFrom(...world.addresses.map((a) => '0X' + a.slice(2).toUpperCase())) },
      { weight: 1, arbitrary: hex(40).map((h) => '0x' + h) },
      { weight: 1, arbitrary: hex(40) },
    );
  }
  if (hinted !== undefined && schema.pattern !== undefined) return fc.oneof(hinted, fc.stringMatching(new RegExp(schema.pattern)));
  if (hinted !== undefined) return hinted;
  if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 80) });
}

function integerOf(schema: JsonSchema, name: string, world: FuzzWorld): fc.Arbitrary<Tree> {
  const lower = name.toLowerCase();
  if (lower === 'marketid') return fc.oneof(fc.constantFrom(...world.marketIds), fc.integer({ min: 0, max: 65535 }));
  const hinted = nameHint(name, world);
  if (hinted !== undefined && (lower === 'from' || lower === 'to' || lower.endsWith('time') || lower === 'validuntil')) return hinted;
  const min = schema.minimum ?? -1_000_000;
  const max = schema.maximum ?? Math.max(min + 1_000_000, 1_000_000);
  const edges = [min, max, min + 1, max - 1].filter((v) => v >= min && v <= max);
  const options = [fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) }), fc.constantFrom(...edges)];
  // Unbounded above: amounts in quote quantums (1 USD = 10^9) up to past 2^53.
  if (schema.maximum === undefined) options.push(fc.integer({ min: Math.max(min, 0), max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(10 ** 9, 10 ** 12, 2 ** 53));
  return fc.oneof(...options);
}

/**
 * A value for `schema`: each node is shaped by the schema most of the time and hostile
 * otherwise (`mutation` is the chance per node, as 1 in n).
 */
export function shaped(schema: JsonSchema | undefined, world: FuzzWorld, name = '', depth = 0, mutation = 6): fc.Arbitrary<Tree> {
  if (schema === undefined || depth > 4) return hostileValue;
  const valid = validShape(schema, world, name, depth, mutation);
  const options: Array<fc.WeightedArbitrary<Tree>> = [{ weight: mutation - 1, arbitrary: valid }, { weight: 1, arbitrary: hostileValue }];
  if (schema.nullable === true) options.push({ weight: 1, arbitrary: fc.constant(null) });
  return fc.oneof(...options);
}

function validShape(schema: JsonSchema, world: FuzzWorld, name: string, depth: number, mutation: number): fc.Arbitrary<Tree> {
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((s) => validShape(s, world, name, depth, mutation)));
  if (schema.const !== undefined) return fc.constant(schema.const as Tree);
  switch (schema.type) {
    case 'string':
      return stringOf(schema, name, world);
    case 'integer':
      return integerOf(schema, name, world);
    case 'number':
      return fc.oneof(integerOf(schema, name, world), fc.double({ noNaN: true, noDefaultInfinity: true }), rawNumber);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = schema.items?.properties !== undefined && Object.keys(schema.items.properties).length === 0 ? world.itemSchemas[name] ?? schema.items : schema.items;
      return fc.array(shaped(items, world, name, depth + 1, mutation), { minLength: 0, maxLength: Math.min(schema.maxItems ?? 5, 6) });
    }
    case 'object':
      return objectOf(schema, world, depth, mutation);
    default:
      return hostileValue;
  }
}

function objectOf(schema: JsonSchema, world: FuzzWorld, depth: number, mutation: number): fc.Arbitrary<Tree> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const fields: Record<string, fc.Arbitrary<Tree>> = {};
  for (const [key, sub] of Object.entries(properties)) {
    const value = shaped(sub, world, key, depth + 1, mutation);
    // Required fields are present nearly always; optional ones half the time.
    fields[key] = required.has(key) ? fc.oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: fc.constant(undefined) }) : fc.option(value, { nil: undefined });
  }
  const extras = fc.oneof(
    { weight: 1, arbitrary: fc.constant<Array<[string, Tree]>>([]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), hostileValue), { minLength: 1, maxLength: 3 }) },
  );
  return fc.tuple(fc.record(fields), extras).map(([record, more]) => {
    const out: Record<string, Tree> = {};
    for (const [k, v] of Object.entries(record)) if (v !== undefined) out[k] = v;
    // defineProperty: `__proto__` becomes an own key, as JSON.parse makes it.
    for (const [k, v] of more) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/** JSON text of a tree; raw numbers are written as given. */
export function jsonText(tree: Tree): string {
  if (tree instanceof RawNumber) return tree.text;
  if (tree === undefined) return 'null';
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  if (tree !== null && typeof tree === 'object') {
    const parts: string[] = [];
    for (const key of Object.keys(tree)) if (tree[key] !== undefined) parts.push(`${JSON.stringify(key)}:${jsonText(tree[key])}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(tree);
}

// ---------------------------------------------------------------------------------------------
// Bodies.

/** Text that is not JSON, or JSON that a lenient parser reads differently. */
const MALFORMED_TEXT = [
  '{', '}', '[', '{"a":', '{"a":1,}', '[1,]', "{'a':1}", '{a:1}', 'NaN', '{"x":NaN}', '{"x":Infinity}', '{"x":-Infinity}',
  '{"x":undefined}', '{"x":01}', '{"x":.5}', '{"x":+1}', '{"x":0x10}', '{"x":1e}', '"unterminated', '\u0000', '\uFEFF{}',
  '{"a":1}{"a":2}', '{"a":1} trailing', '/* c */{}', '{"a":"\\u00"}', '{"a":"\\x41"}', '{"a":"\u0001"}', 'null', 'true',
  '0', '-0', '""', '[]', '{}', ' ', '\n\t', '{"address":"0x","address":"0x1"}', '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}', '{"orders":"[]"}', '{"orders":[null]}', '{"orders":[[]]}', '1e400', '[1e400]',
] as const;

/** Body text: shaped by `schema` (most), any JSON value, or not JSON at all. */
export function jsonBody(schema: JsonSchema | undefined, world: FuzzWorld): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: shaped(schema ?? { type: 'object', properties: {} }, world).map(jsonText) },
    { weight: 2, arbitrary: hostileValue.map(jsonText) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_TEXT) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings.

/** Percent-encodings a decoder may choke on. */
const ODD_ENCODINGS = ['%', '%z', '%zz', '%0', '%00', '%C3%28', '%E0%A4%A', '%F0%9F%92', '%FF', '%2F', '%26', '%3D', '+', '%2B', '%20', '%u0041', '%%', '#frag'] as const;

function queryValue(value: Tree): string {
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'string') return value;
  return jsonText(value);
}

const encodeWith = (mode: number, text: string): string => {
  switch (mode) {
    case 0:
      return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?'));
    case 1:
      // Raw where the URL allows it; everything else escaped.
      return text.replace(/[^A-Za-z0-9_.~!$'()*,;:@/-]/g, (c) => (/[\uD800-\uDFFF]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c)));
    default:
      return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?')).replace(/%20/g, '+');
  }
};

/** `?…` text: shaped keys (repeated sometimes, bracketed sometimes) with odd encodings mixed in. */
export function queryText(schema: JsonSchema | undefined, world: FuzzWorld): fc.Arbitrary<string> {
  const shapedQuery = shaped(schema ?? { type: 'object', properties: {} }, world, '', 0, 5);
  const repeats = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...Object.keys(schema?.properties ?? {}), 'address', 'market', '__proto__', 'constructor', 'a[b]', 'a[]', '', '='), fc.string({ maxLength: 6 })), hostileValue), { maxLength: 3 });
  const odd = fc.array(fc.tuple(fc.constantFrom(...ODD_ENCODINGS), fc.constantFrom(...ODD_ENCODINGS)), { maxLength: 2 });
  return fc.tuple(shapedQuery, repeats, odd, fc.integer({ min: 0, max: 2 }), fc.boolean()).map(([query, more, weird, mode, bare]) => {
    const parts: string[] = [];
    const push = (key: string, value: Tree): void => {
      if (Array.isArray(value)) {
        for (const item of value) parts.push(`${encodeWith(mode, key)}=${encodeWith(mode, queryValue(item))}`);
      } else if (value === null && bare) {
        parts.push(encodeWith(mode, key));
      } else {
        parts.push(`${encodeWith(mode, key)}=${encodeWith(mode, queryValue(value))}`);
      }
    };
    if (query !== null && typeof query === 'object' && !Array.isArray(query) && !(query instanceof RawNumber)) {
      for (const key of Object.keys(query)) push(key, query[key]);
    } else {
      push('q', query);
    }
    for (const [key, value] of more) push(key, value);
    for (const [key, value] of weird) parts.push(`${key}=${value}`);
    return parts.length === 0 ? '' : `?${parts.join('&')}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Headers.

const NS_PER_US = 1000n;

function timestampHeader(world: FuzzWorld): fc.Arbitrary<string | string[] | undefined> {
  const ns = BigInt(world.nowUs) * NS_PER_US;
  const window = 30_000_000_000n;
  return fc.oneof(
    { weight: 6, arbitrary: fc.bigInt({ min: ns - window, max: ns + window }).map(String) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '', ' ', '0', '-1', String(ns / 1_000_000_000n), String(ns / 1_000_000n), String(ns / NS_PER_US), String(ns + window + 1n),
        String(ns - window - 1n), String(ns * 1000n), String(ns + 10n ** 18n), '1'.repeat(32), '1'.repeat(33), '9'.repeat(19), `${ns}.5`,
        `${ns} `, ` ${ns}`, `+${ns}`, `0x${ns.toString(16)}`, '1e18', 'NaN', `${ns}abc`, '١٧٠٠٠٠٠٠٠٠٠٠٠٠٠٠٠٠٠٠',
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([String(ns), String(ns)]) },
  );
}

function apiKeyHeader(world: FuzzWorld): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...world.apiKeys) },
    { weight: 1, arbitrary: fc.constantFrom(...world.apiKeys.map((k) => k.toUpperCase())) },
    { weight: 2, arbitrary: hex(64) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom('', ' ', '0x' + (world.apiKeys[0] ?? ''), 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'a'.repeat(5000), '00'.repeat(32), 'ab cd'),
        fc.integer({ min: 0, max: 140 }).chain((n) => hex(n)),
        fc.string({ unit: 'grapheme-ascii', maxLength: 70 }),
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([world.apiKeys[0] ?? '', world.apiKeys[0] ?? '']) },
  );
}

const signatureHeader: fc.Arbitrary<string | string[] | undefined> = fc.oneof(
  { weight: 6, arbitrary: hex(128) },
  { weight: 1, arbitrary: hex(128).map((h) => h.toUpperCase()) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constantFrom('', ' ', '0'.repeat(128), 'f'.repeat(128), 'g'.repeat(128), '0x' + 'a'.repeat(128), 'a'.repeat(127), 'a'.repeat(129), 'a'.repeat(10_000)),
      fc.integer({ min: 0, max: 260 }).chain((n) => hex(n)),
      fc.string({ unit: 'grapheme-ascii', maxLength: 140 }),
    ),
  },
  { weight: 1, arbitrary: fc.constant<string[]>(['a'.repeat(128), 'b'.repeat(128)]) },
);

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/octet-stream', '', ';',
  'application/json; charset=', 'application/*',
] as const;

/** The signed triple, content type and stray headers (country, forwarded-for). */
export function headerSet(world: FuzzWorld): fc.Arbitrary<Record<string, string | string[]>> {
  return fc
    .record({
      'x-api-key': apiKeyHeader(world),
      'x-timestamp': timestampHeader(world),
      'x-signature': signatureHeader,
      'content-type': fc.oneof({ weight: 8, arbitrary: fc.constant<string | undefined>('application/json') }, { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) }),
      'x-perpsim-country': fc.option(fc.constantFrom('US', 'us', 'CU', 'XX', '', 'U', 'ÜS', 'a'.repeat(300)), { nil: undefined }),
      'x-forwarded-for': fc.option(fc.constantFrom('1.2.3.4', '::1', 'garbage', ''), { nil: undefined }),
    })
    .map((headers) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
      return out;
    });
}

// ---------------------------------------------------------------------------------------------
// Paths.

/** An operation's path with each `:param` replaced by a hostile segment. */
export function pathText(path: string, world: FuzzWorld): fc.Arbitrary<string> {
  const names = [...path.matchAll(/(?<=\/):([A-Za-z]+)/g)].map((m) => m[1]!);
  if (names.length === 0) return fc.constant(path);
  const segment = (name: string): fc.Arbitrary<string> =>
    fc.oneof(
      { weight: 4, arbitrary: (nameHint(name, world) ?? nastyString).map((v) => encodeWith(0, queryValue(v as Tree))) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD_ENCODINGS.filter((e) => e !== '#frag' && e !== '+'), '..', '.', '%2E%2E', 'a%2Fb', 'x'.repeat(101), 'x'.repeat(5000)) },
    );
  return fc.tuple(...names.map(segment)).map((values) => {
    let out = path;
    names.forEach((name, i) => (out = out.replace(`/:${name}`, `/${values[i]!}`)));
    return out;
  });
}

/** One line per request part, long values cut, for failure messages. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}…(${text.length} chars)` : text);
  return `${request.method} ${cut(request.url)}\n  headers ${cut(JSON.stringify(request.headers))}\n  body ${request.payload === undefined ? '(none)' : cut(JSON.stringify(request.payload))}`;
}
