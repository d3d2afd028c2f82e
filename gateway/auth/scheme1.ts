/**
 * Scheme 1: the typed payload that order writes (and API-key withdrawals) sign.
 *
 * Contract (interface.md Authentication "Scheme 1", supplement §1, §12):
 * - The signed bytes are a compact JSON object with the keys of the operation's row in
 *   `SCHEME1_KEYS`, in that (alphabetical) order, no whitespace, no timestamp or action prefix.
 * - It is built from parsed values, not the raw body: `p` price in ticks of the market's
 *   top-level tickSize, `q` size in quantums of stepSize (or quote quantums for op 5), `g` the
 *   request goodTilTime in µs times 1000, `ct` the X-Timestamp. Integers are written as plain
 *   digits; `ct`, `g` and withdraw `q` exceed 2^53 and are taken as bigint (or digit strings).
 * - `ad` is lowercased (`0x` + 40 digits); `c`, `id` and `n` are written exactly as given.
 *   Optional keys (`c`, cancel's `id`) are omitted when absent or empty.
 * - Verification tries the clientId as sent, then lowercased (supplement §12: some clients
 *   lowercase `c` when signing but send the original case in the body).
 * - modifyOrder is verified against every form supplement §12 lists: the interface form (`id`
 *   always, `c` when the order has one, `g/r/s/t`), the newer form (one of `id`/`c`), and the
 *   older form without `g/r/s/t`. The caller fills `g/r/s/t` from the resting order when the
 *   body lacks them.
 *
 * The builders throw TypeError on values the gateway should never pass (a non-integer tick, a
 * malformed address, a missing required key): the gateway validates the body (400) first.
 */
import { SIGNED_OPS } from '../../engine/spec.ts';
import { normalizeAddress } from './address.ts';
import { AUTH_ERRORS, type AuthError } from './errors.ts';
import { verifyEd25519 } from './ed25519.ts';

/** The payload version key `v` (interface.md Versioning: "currently 1"). */
export const SIGNED_PAYLOAD_VERSION = 1;

export type Scheme1Op = (typeof SIGNED_OPS)[keyof typeof SIGNED_OPS];

/** An integer: a JS number (safe integer), a bigint, or a string of decimal digits. */
export type IntValue = number | bigint | string;

/** placeOrder (op 1) and untriggered TPSL place (op 4). */
export interface OrderPayloadFields {
  /** Master address, any case, with or without `0x`; signed lowercase. */
  address: string;
  accountIndex: number;
  /** Client order id, signed exactly as given; omitted when absent or empty. */
  clientId?: string | undefined;
  /** `ct`: X-Timestamp in ns. */
  clientTimeNs: IntValue;
  /** `g`: goodTilTime µs × 1000 (see `goodTilTimeNs`). */
  goodTilTimeNs: IntValue;
  marketId: number;
  /** `p`: price in ticks of the market's top-level tickSize. */
  priceTicks: IntValue;
  /** `q`: size in quantums of the market's stepSize. */
  sizeQuantums: IntValue;
  /** `r`: written 0 or 1. */
  reduceOnly: boolean | 0 | 1;
  /** `s`: 0 buy, 1 sell. */
  side: 0 | 1;
  /** `t`: 0 GTT, 1 FOK, 2 IOC, 3 ALO (the index in `TIME_IN_FORCE`). */
  timeInForce: 0 | 1 | 2 | 3;
}

/** cancelOrder (op 2): exactly one of orderId / clientId should be present (not enforced here). */
export interface CancelPayloadFields {
  address: string;
  accountIndex: number;
  clientId?: string | undefined;
  clientTimeNs: IntValue;
  /** Server order id; omitted when canceling by client id. */
  orderId?: string | undefined;
  marketId: number;
}

/** modifyOrder (op 3), interface form: `id` always; `g/r/s/t` echo the resting order. */
export interface ModifyPayloadFields extends OrderPayloadFields {
  orderId: string;
}

/** API-key withdraw (op 5, supplement §1). */
export interface WithdrawPayloadFields {
  address: string;
  accountIndex: number;
  clientTimeNs: IntValue;
  /** `n`: the nonce string, as sent. */
  nonce: string;
  /** `q`: amount in quote quantums (1e9 = 1 USD). */
  amountQuantums: IntValue;
}

export interface Scheme1FieldsByOp {
  1: OrderPayloadFields;
  2: CancelPayloadFields;
  3: ModifyPayloadFields;
  4: OrderPayloadFields;
  5: WithdrawPayloadFields;
}

/** What verification needs per op: a modify may be identified by clientId alone (supplement §12). */
export interface Scheme1VerifyFieldsByOp extends Omit<Scheme1FieldsByOp, 3> {
  3: Omit<ModifyPayloadFields, 'orderId'> & { orderId?: string | undefined };
}

type Encoding = 'address' | 'int' | 'bit' | 'string' | 'op' | 'version';

export interface Scheme1Key {
  /** The wire key. */
  readonly key: string;
  /** The input field it is read from (none for `op` and `v`). */
  readonly field?: string;
  readonly encoding: Encoding;
  /** Omitted when absent or empty. */
  readonly optional?: boolean;
}

const AD: Scheme1Key = { key: 'ad', field: 'address', encoding: 'address' };
const AI: Scheme1Key = { key: 'ai', field: 'accountIndex', encoding: 'int' };
const C: Scheme1Key = { key: 'c', field: 'clientId', encoding: 'string', optional: true };
const CT: Scheme1Key = { key: 'ct', field: 'clientTimeNs', encoding: 'int' };
const G: Scheme1Key = { key: 'g', field: 'goodTilTimeNs', encoding: 'int' };
const ID: Scheme1Key = { key: 'id', field: 'orderId', encoding: 'string' };
const ID_OPTIONAL: Scheme1Key = { ...ID, optional: true };
const M: Scheme1Key = { key: 'm', field: 'marketId', encoding: 'int' };
const N: Scheme1Key = { key: 'n', field: 'nonce', encoding: 'string' };
const OP: Scheme1Key = { key: 'op', encoding: 'op' };
const P: Scheme1Key = { key: 'p', field: 'priceTicks', encoding: 'int' };
const Q: Scheme1Key = { key: 'q', field: 'sizeQuantums', encoding: 'int' };
const Q_AMOUNT: Scheme1Key = { key: 'q', field: 'amountQuantums', encoding: 'int' };
const R: Scheme1Key = { key: 'r', field: 'reduceOnly', encoding: 'bit' };
const S: Scheme1Key = { key: 's', field: 'side', encoding: 'int' };
const T: Scheme1Key = { key: 't', field: 'timeInForce', encoding: 'int' };
const V: Scheme1Key = { key: 'v', encoding: 'version' };

const ORDER_KEYS = [AD, AI, C, CT, G, M, OP, P, Q, R, S, T, V] as const;

/** Keys per operation, in signing order (interface.md "Keys per operation", supplement §1 op 5). */
export const SCHEME1_KEYS: { readonly [O in Scheme1Op]: readonly Scheme1Key[] } = {
  [SIGNED_OPS.placeOrder]: ORDER_KEYS,
  [SIGNED_OPS.cancelOrder]: [AD, AI, C, CT, ID_OPTIONAL, M, OP, V],
  [SIGNED_OPS.modifyOrder]: [AD, AI, C, CT, G, ID, M, OP, P, Q, R, S, T, V],
  [SIGNED_OPS.tpslPlace]: ORDER_KEYS,
  [SIGNED_OPS.withdraw]: [AD, AI, CT, N, OP, Q_AMOUNT, V],
};

/** The modify forms of supplement §12 are the op 3 row with `id` optional and, in the older form, no g/r/s/t. */
const MODIFY_KEYS_NEWER: readonly Scheme1Key[] = [AD, AI, C, CT, G, ID_OPTIONAL, M, OP, P, Q, R, S, T, V];
const MODIFY_KEYS_OLDER: readonly Scheme1Key[] = [AD, AI, C, CT, ID_OPTIONAL, M, OP, P, Q, V];

/**
 * The exact Scheme 1 bytes (as a string) for one operation.
 *
 * @example scheme1Payload(SIGNED_OPS.cancelOrder, { address: '0xAB…', accountIndex: 0,
 *   clientTimeNs: 1700000000000000000n, orderId: '0x1f', marketId: 1 })
 *   // '{"ad":"0xab…","ai":0,"ct":1700000000000000000,"id":"0x1f","m":1,"op":2,"v":1}'
 * @throws TypeError when a required key is missing or a value is not of its kind.
 */
export function scheme1Payload<O extends Scheme1Op>(op: O, fields: Scheme1FieldsByOp[O]): string {
  return writePayload(op, SCHEME1_KEYS[op], fields as unknown as Readonly<Record<string, unknown>>);
}

/** goodTilTime µs (the request field, a string) to the payload's `g` in ns; null when not a non-negative integer. */
export function goodTilTimeNs(goodTilTimeUs: IntValue): bigint | null {
  const us = toBigInt(goodTilTimeUs);
  return us === null || us < 0n ? null : us * 1000n;
}

/**
 * Every payload a valid signature may cover, most likely first and without repeats: the
 * clientId as given, then lowercased; for modifyOrder also the forms of supplement §12.
 */
export function scheme1Candidates<O extends Scheme1Op>(op: O, fields: Scheme1VerifyFieldsByOp[O]): string[] {
  const record = fields as unknown as Readonly<Record<string, unknown>>;
  const forms: Array<[readonly Scheme1Key[], Readonly<Record<string, unknown>>]> = [];
  if (op === SIGNED_OPS.modifyOrder) {
    const orderId = nonEmpty(record.orderId);
    const clientId = nonEmpty(record.clientId);
    const both = { ...record };
    const idOnly = { ...record, clientId: undefined };
    const clientOnly = { ...record, orderId: undefined };
    // Interface form first (needs an orderId), then one of id / c, then the same without g/r/s/t.
    if (orderId) forms.push([SCHEME1_KEYS[SIGNED_OPS.modifyOrder], both]);
    if (orderId && clientId) forms.push([MODIFY_KEYS_NEWER, idOnly]);
    if (clientId) forms.push([MODIFY_KEYS_NEWER, clientOnly]);
    if (orderId) forms.push([MODIFY_KEYS_OLDER, both]);
    if (orderId && clientId) forms.push([MODIFY_KEYS_OLDER, idOnly]);
    if (clientId) forms.push([MODIFY_KEYS_OLDER, clientOnly]);
  } else {
    // One form: the payload, then its lowercased-clientId twin when that differs (no Set to hash them).
    const payload = writePayload(op, SCHEME1_KEYS[op], record);
    const clientId = record.clientId;
    if (typeof clientId !== 'string' || clientId.toLowerCase() === clientId) return [payload];
    return [payload, writePayload(op, SCHEME1_KEYS[op], { ...record, clientId: clientId.toLowerCase() })];
  }
  const out = new Set<string>();
  for (const [keys, values] of forms) out.add(writePayload(op, keys, values));
  for (const [keys, values] of forms) {
    const clientId = values.clientId;
    if (typeof clientId === 'string' && clientId.toLowerCase() !== clientId) {
      out.add(writePayload(op, keys, { ...values, clientId: clientId.toLowerCase() }));
    }
  }
  return [...out];
}

/**
 * Verifies a Scheme 1 signature: tries each candidate payload (clientId as sent, then
 * lowercased; modify forms of supplement §12).
 *
 * @returns The payload the signature covers, or null when none verifies (answer
 *   `AUTH_ERRORS.invalidSignature`). Malformed key or signature hex also gives null; use
 *   `checkEd25519Hex` first to answer those with their own error.
 */
export function verifyScheme1<O extends Scheme1Op>(
  apiKeyHex: string,
  signatureHex: string,
  op: O,
  fields: Scheme1VerifyFieldsByOp[O],
): string | null {
  for (const payload of scheme1Candidates(op, fields)) {
    if (verifyEd25519(apiKeyHex, payload, signatureHex)) return payload;
  }
  return null;
}

/**
 * Batches on REST: X-Signature must be present and non-empty, its value is not verified
 * (interface.md Scheme 1 rule 4, supplement §12). Returns the error for every element, or null.
 */
export function checkBatchSignatureHeader(value: unknown): AuthError | null {
  return typeof value === 'string' && value.length > 0 ? null : AUTH_ERRORS.invalidOrderSignature;
}

function writePayload(op: Scheme1Op, keys: readonly Scheme1Key[], fields: Readonly<Record<string, unknown>>): string {
  if (keys === ORDER_KEYS) return writeOrderPayload(op, fields);
  const parts: string[] = [];
  for (const spec of keys) {
    const text = encode(op, spec, spec.field === undefined ? undefined : fields[spec.field]);
    if (text === null) continue;
    parts.push(`"${spec.key}":${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * ORDER_KEYS (ops 1 and 4: every order) written out: the bytes and errors of the walk above,
 * keys checked in the same order, without its per-key parts and join.
 */
function writeOrderPayload(op: Scheme1Op, f: Readonly<Record<string, unknown>>): string {
  const ad = encode(op, AD, f.address);
  const ai = encode(op, AI, f.accountIndex);
  const c = encode(op, C, f.clientId);
  const ct = encode(op, CT, f.clientTimeNs);
  const g = encode(op, G, f.goodTilTimeNs);
  const m = encode(op, M, f.marketId);
  const p = encode(op, P, f.priceTicks);
  const q = encode(op, Q, f.sizeQuantums);
  const r = encode(op, R, f.reduceOnly);
  const s = encode(op, S, f.side);
  const t = encode(op, T, f.timeInForce);
  return `{"ad":${ad},"ai":${ai},${c === null ? '' : `"c":${c},`}"ct":${ct},"g":${g},"m":${m},"op":${op},"p":${p},"q":${q},"r":${r},"s":${s},"t":${t},"v":${SIGNED_PAYLOAD_VERSION}}`;
}

/** The JSON text of one key's value; null when an optional key is absent. */
function encode(op: Scheme1Op, spec: Scheme1Key, value: unknown): string | null {
  if (spec.encoding === 'op') return String(op);
  if (spec.encoding === 'version') return String(SIGNED_PAYLOAD_VERSION);
  if (value === undefined || value === null || value === '') {
    if (spec.optional === true) return null;
    throw new TypeError(`scheme 1 op ${op}: ${spec.field} (${spec.key}) is required`);
  }
  switch (spec.encoding) {
    case 'address': {
      const address = normalizeAddress(value);
      if (address === null) throw new TypeError(`scheme 1 op ${op}: ${spec.field} is not an address`);
      return `"${address}"`;
    }
    case 'string':
      if (typeof value !== 'string') throw new TypeError(`scheme 1 op ${op}: ${spec.field} must be a string`);
      return JSON.stringify(value);
    case 'bit':
      if (value === true || value === 1) return '1';
      if (value === false || value === 0) return '0';
      throw new TypeError(`scheme 1 op ${op}: ${spec.field} must be a boolean or 0/1`);
    case 'int': {
      // Safe integers print the same digits as their bigint, without making one.
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      const int = toBigInt(value);
      if (int === null) throw new TypeError(`scheme 1 op ${op}: ${spec.field} must be an integer`);
      return int.toString();
    }
  }
}

function toBigInt(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return BigInt(value);
  return null;
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}
