/**
 * The bytes an API key signs, exactly as interface.md "Authentication" defines them.
 *
 * Scheme 1 (placeOrder op 1, cancelOrder op 2, modifyOrder op 3, TPSL place op 4, and each batch
 * element; API-key withdraw op 5, supplement §1): a compact JSON object, keys in alphabetical
 * order, no whitespace, no prefix. `ad` lowercase, `c` / `id` / `n` as sent, optional keys left
 * out when empty, integers as plain digits (`ct`, `g` and withdraw `q` exceed 2^53: bigint).
 * `p` / `q` are the price and size in integer ticks / quantums (`units.ts`), `g` the request
 * goodTilTime (µs) × 1000, `ct` the X-Timestamp.
 *
 * Scheme 2 (cancelAllOrders, scheduleCancel, setLeverage, adjustIsolatedMargin and the other
 * signed non-order routes): `timestamp + action + canonical_json(body)`, `action` the last path
 * segment (the notifications paths: the path itself) or, over the socket, the request type; a
 * request without a body signs `timestamp + action`.
 */
import type { Side, TimeInForce } from './types.ts';

/** The typed payload's version key `v` (interface.md Versioning). */
export const PAYLOAD_VERSION = 1;

export const OP = { placeOrder: 1, cancelOrder: 2, modifyOrder: 3, tpslPlace: 4, withdraw: 5 } as const;

const TIF_CODE: Readonly<Record<TimeInForce, number>> = { GTT: 0, GTC: 0, FOK: 1, IOC: 2, ALO: 3 };

/** `t`: 0 GTT (GTC), 1 FOK, 2 IOC, 3 ALO. */
export function tifCode(timeInForce: string): number {
  const code = TIF_CODE[timeInForce.toUpperCase() as TimeInForce];
  if (code === undefined) throw new TypeError(`unknown timeInForce: ${timeInForce}`);
  return code;
}

/** `s`: 0 buy, 1 sell (the modify body writes buy/sell in any case). */
export function sideCode(side: string): 0 | 1 {
  const upper = side.toUpperCase();
  if (upper !== 'BUY' && upper !== 'SELL') throw new TypeError(`unknown side: ${side}`);
  return upper === 'BUY' ? 0 : 1;
}

type PayloadValue = string | number | bigint | undefined;

/** Keys sorted, empty optional values left out, strings quoted, integers as digits. */
function compact(fields: Readonly<Record<string, PayloadValue>>): string {
  const parts: string[] = [];
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key];
    if (value === undefined || value === '') continue;
    parts.push(`"${key}":${typeof value === 'string' ? JSON.stringify(value) : value.toString()}`);
  }
  return `{${parts.join(',')}}`;
}

const ADDRESS = /^(0x|0X)?([0-9a-fA-F]{40})$/;

/** `0x` + 40 lowercase hex digits. */
export function normalizeAddress(address: string): string {
  const match = ADDRESS.exec(address);
  if (match === null) throw new TypeError(`not a 20-byte hex address: ${address}`);
  return `0x${match[2]!.toLowerCase()}`;
}

export interface OrderFields {
  address: string;
  accountIndex: number;
  clientId?: string | undefined;
  clientTimeNs: bigint;
  /** The request's goodTilTime, µs. */
  goodTilTimeUs: bigint;
  marketId: number;
  priceTicks: bigint;
  sizeQuantums: bigint;
  reduceOnly: boolean;
  side: Side | string;
  timeInForce: TimeInForce | string;
}

/** placeOrder (op 1), or an untriggered TPSL place (op 4, same keys). */
export function placePayload(fields: OrderFields, tpsl = false): string {
  return compact({ ...orderKeys(fields), op: tpsl ? OP.tpslPlace : OP.placeOrder });
}

function orderKeys(fields: OrderFields): Record<string, PayloadValue> {
  return {
    ad: normalizeAddress(fields.address),
    ai: fields.accountIndex,
    c: fields.clientId,
    ct: fields.clientTimeNs,
    g: fields.goodTilTimeUs * 1000n,
    m: fields.marketId,
    p: fields.priceTicks,
    q: fields.sizeQuantums,
    r: fields.reduceOnly ? 1 : 0,
    s: sideCode(fields.side),
    t: tifCode(fields.timeInForce),
    v: PAYLOAD_VERSION,
  };
}

export interface CancelFields {
  address: string;
  accountIndex: number;
  marketId: number;
  clientTimeNs: bigint;
  /** Exactly one of orderId / clientId. */
  orderId?: string | undefined;
  clientId?: string | undefined;
}

/** cancelOrder (op 2): `id` omitted when canceling by client id. */
export function cancelPayload(fields: CancelFields): string {
  return compact({
    ad: normalizeAddress(fields.address),
    ai: fields.accountIndex,
    c: fields.clientId,
    ct: fields.clientTimeNs,
    id: fields.orderId,
    m: fields.marketId,
    op: OP.cancelOrder,
    v: PAYLOAD_VERSION,
  });
}

/**
 * modifyOrder (op 3), the interface's form: `id` always, `c` only when the resting order has a
 * client id, and `g` / `r` / `s` / `t` echoing the resting order (`g` the new goodTilTime of a
 * cancel-replace).
 */
export function modifyPayload(fields: OrderFields & { orderId: string }): string {
  return compact({ ...orderKeys(fields), id: fields.orderId, op: OP.modifyOrder });
}

export interface WithdrawFields {
  address: string;
  accountIndex: number;
  clientTimeNs: bigint;
  nonce: string;
  /** Quote quantums (1e9 = 1 USD). */
  amountQuantums: bigint;
}

/** API-key withdraw (op 5, supplement §1): `{ad, ai, ct, n, op, q, v}`. */
export function withdrawPayload(fields: WithdrawFields): string {
  return compact({
    ad: normalizeAddress(fields.address),
    ai: fields.accountIndex,
    ct: fields.clientTimeNs,
    n: fields.nonce,
    op: OP.withdraw,
    q: fields.amountQuantums,
    v: PAYLOAD_VERSION,
  });
}

export type Json = null | boolean | number | bigint | string | readonly Json[] | { readonly [key: string]: Json | undefined };

/** Keys sorted at every level, no whitespace; undefined properties left out as JSON.stringify does. */
export function canonicalJson(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map((item: Json) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as { readonly [key: string]: Json | undefined };
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Paths under this prefix are their own action (interface.md Scheme 2). */
const VERBATIM_PREFIX = '/v1/api-meta/notifications';

/** The Scheme 2 action of a REST path: its last segment, or the notifications path itself. */
export function scheme2Action(path: string): string {
  const clean = path.split(/[?#]/)[0]!;
  return clean.startsWith(VERBATIM_PREFIX) ? clean : clean.slice(clean.lastIndexOf('/') + 1);
}

/** `timestamp + action + canonical_json(body)`; no body signs `timestamp + action`. */
export function scheme2Message(timestampNs: bigint | string, action: string, body?: Json): string {
  return `${timestampNs.toString()}${action}${body === undefined ? '' : canonicalJson(body)}`;
}
