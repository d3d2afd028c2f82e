/**
 * Client-side signing of the order writes beyond placeOrder, written the way a venue client
 * writes it and independently of gateway/auth: Scheme 1 payloads as compact JSON with sorted
 * keys (empty optional keys omitted, `ad` lowercased, `c` / `id` as sent, `p` / `q` from
 * price / tickSize and size / stepSize, `g` = goodTilTime µs × 1000), Scheme 2 messages as
 * `timestamp + action + canonical_json(body)`. Batches sign each element on its own with the
 * request's X-Timestamp as `ct`; X-Signature carries the first element's signature.
 */
import Big from 'big.js';
import { DAY_US, type GatewayHarness, type Wallet } from './gateway-fixture.ts';

export interface SignedRequest {
  url: string;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
}

type Side = 'BUY' | 'SELL';
type PayloadValue = string | number | bigint | undefined;

/** Distinct nanoseconds per signed request within one clock reading (the fixture uses 0-999 offsets too; these differ in content). */
let counter = 0;
export function timestampNs(h: GatewayHarness): bigint {
  return BigInt(h.now.us) * 1000n + BigInt(++counter % 1000);
}

/** Compact JSON, keys sorted, empty values omitted: what a client signs for Scheme 1. */
export function clientPayload(fields: Record<string, PayloadValue>): string {
  const parts: string[] = [];
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key];
    if (value === undefined || value === '') continue;
    parts.push(`${JSON.stringify(key)}:${typeof value === 'string' ? JSON.stringify(value) : value.toString()}`);
  }
  return `{${parts.join(',')}}`;
}

/** Sorted keys at every level, no whitespace: Scheme 2's canonical_json. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function units(h: GatewayHarness, marketId: number, value: string, field: 'tickSize' | 'stepSize'): bigint {
  const def = h.exchange.engine.markets.get(marketId)!.spec.def;
  return BigInt(new Big(value).div(def[field]).toFixed(0));
}

const SIDE: Record<Side, number> = { BUY: 0, SELL: 1 };
const TIF: Record<string, number> = { GTT: 0, GTC: 0, FOK: 1, IOC: 2, ALO: 3 };

function headers(w: Wallet, ts: bigint, signature: string | null): Record<string, string> {
  const out: Record<string, string> = { 'x-api-key': w.apiKey, 'x-timestamp': ts.toString(), 'content-type': 'application/json' };
  if (signature !== null) out['x-signature'] = signature;
  return out;
}

// ---------------------------------------------------------------------------------------------
// placeOrder elements (op 1; op 4 for TPSL).

export interface PlaceElementInput {
  marketId?: number;
  accountIndex?: number;
  side?: Side;
  orderType?: 'LIMIT' | 'MARKET';
  timeInForce?: string;
  quantity: string;
  price: string;
  clientId?: string;
  reduceOnly?: boolean;
  goodTilTime?: string;
  tpslType?: 'STOP_LOSS' | 'TAKE_PROFIT';
  /** How the TPSL type is spelled on the wire (the docs' `tpsl_type` or a client's `tpslType`). */
  tpslKey?: 'tpsl_type' | 'tpslType';
  stopPrice?: string;
}

/** A batch element: the placeOrder body plus its own signature over `ct` = the batch's timestamp. */
export function placeElement(h: GatewayHarness, w: Wallet, input: PlaceElementInput, ts: bigint): Record<string, unknown> {
  const marketId = input.marketId ?? 1;
  const accountIndex = input.accountIndex ?? 0;
  const gtt = input.goodTilTime ?? String(h.now.us + 40 * DAY_US);
  const tif = input.timeInForce ?? 'GTT';
  const side = input.side ?? 'BUY';
  const message = clientPayload({
    ad: w.address.toLowerCase(),
    ai: accountIndex,
    c: input.clientId,
    ct: ts,
    g: BigInt(gtt) * 1000n,
    m: marketId,
    op: input.tpslType === undefined ? 1 : 4,
    p: units(h, marketId, input.price, 'tickSize'),
    q: units(h, marketId, input.quantity, 'stepSize'),
    r: input.reduceOnly === true ? 1 : 0,
    s: SIDE[side],
    t: TIF[tif],
    v: 1,
  });
  const element: Record<string, unknown> = {
    address: w.address,
    accountIndex,
    marketId,
    orderSide: side,
    orderType: input.orderType ?? 'LIMIT',
    timeInForce: tif,
    quantity: input.quantity,
    price: input.price,
    goodTilTime: gtt,
    timestamp: Number(ts),
    reduceOnly: input.reduceOnly === true,
  };
  if (input.clientId !== undefined) element.clientId = input.clientId;
  if (input.tpslType !== undefined) element[input.tpslKey ?? 'tpsl_type'] = input.tpslType;
  if (input.stopPrice !== undefined) element.stopPrice = input.stopPrice;
  element.signature = h.sign(message, w);
  return element;
}

// ---------------------------------------------------------------------------------------------
// cancelOrder (op 2).

export interface CancelInput {
  marketId?: number;
  accountIndex?: number;
  orderId?: string;
  clientId?: string;
  kind?: 'orderId' | 'clientId';
  validUntil?: number;
}

/** The cancel body (without signature) and the signature over it. */
export function cancelElement(h: GatewayHarness, w: Wallet, input: CancelInput, ts: bigint): Record<string, unknown> {
  const marketId = input.marketId ?? 1;
  const accountIndex = input.accountIndex ?? 0;
  const message = clientPayload({ ad: w.address.toLowerCase(), ai: accountIndex, c: input.clientId, ct: ts, id: input.orderId, m: marketId, op: 2, v: 1 });
  const body: Record<string, unknown> = { address: w.address, accountIndex, marketId, timestamp: Number(ts) };
  if (input.orderId !== undefined) body.orderId = input.orderId;
  if (input.clientId !== undefined) body.clientId = input.clientId;
  if (input.kind !== undefined) body.kind = input.kind;
  if (input.validUntil !== undefined) body.validUntil = input.validUntil;
  body.signature = h.sign(message, w);
  return body;
}

/** A signed POST /v1/cancelOrder: the signature goes in X-Signature, not the body. */
export function cancelOrderRequest(h: GatewayHarness, w: Wallet, input: CancelInput, ts: bigint = timestampNs(h)): SignedRequest {
  const { signature, ...payload } = cancelElement(h, w, input, ts);
  return { url: `/v1/cancelOrder?address=${w.address}`, payload, headers: headers(w, ts, signature as string) };
}

// ---------------------------------------------------------------------------------------------
// modifyOrder (op 3).

/** What the client knows of its resting order: the immutable attributes it echoes when signing. */
export interface RestingOrder {
  orderId: string;
  clientId?: string;
  side: Side;
  timeInForce: string;
  reduceOnly: boolean;
  goodTilTime: string;
}

export interface ModifyInput {
  marketId?: number;
  accountIndex?: number;
  /** Which identifier the body carries. */
  by: 'orderId' | 'clientId';
  price: string;
  quantity: string;
  /** A new goodTilTime (cancel-replace); signed as `g` instead of the resting one. */
  goodTilTime?: string;
  /** Send side / timeInForce / reduceOnly / the resting goodTilTime in the body too. */
  echoImmutables?: boolean;
  /** Overrides of the body's echoes (to change an immutable field). */
  side?: Side;
  clientTime?: string;
  /**
   * Signed form (supplement §12): `interface` — id always, c when the order has one, g/r/s/t;
   * `newer` — only the identifier the body carries, g/r/s/t; `older` — that identifier, no g/r/s/t.
   */
  form?: 'interface' | 'newer' | 'older';
}

export function modifyElement(h: GatewayHarness, w: Wallet, resting: RestingOrder, input: ModifyInput, ts: bigint): Record<string, unknown> {
  const marketId = input.marketId ?? 1;
  const accountIndex = input.accountIndex ?? 0;
  const form = input.form ?? 'interface';
  const gtt = input.goodTilTime ?? resting.goodTilTime;
  const side = input.side ?? resting.side;
  const ids =
    form === 'interface'
      ? { id: resting.orderId, c: resting.clientId }
      : input.by === 'orderId'
        ? { id: resting.orderId, c: undefined }
        : { id: undefined, c: resting.clientId };
  const echoes = form === 'older' ? {} : { g: BigInt(gtt) * 1000n, r: resting.reduceOnly ? 1 : 0, s: SIDE[side], t: TIF[resting.timeInForce] };
  const message = clientPayload({
    ad: w.address.toLowerCase(),
    ai: accountIndex,
    ...ids,
    ct: ts,
    m: marketId,
    op: 3,
    p: units(h, marketId, input.price, 'tickSize'),
    q: units(h, marketId, input.quantity, 'stepSize'),
    v: 1,
    ...echoes,
  });
  const body: Record<string, unknown> = { address: w.address, accountIndex, marketId, quantity: input.quantity, price: input.price };
  if (input.by === 'orderId') body.orderId = resting.orderId;
  else body.clientId = resting.clientId;
  if (input.echoImmutables === true || input.side !== undefined) body.side = side;
  if (input.echoImmutables === true) {
    body.timeInForce = resting.timeInForce;
    body.reduceOnly = resting.reduceOnly;
  }
  if (input.goodTilTime !== undefined || input.echoImmutables === true) body.goodTilTime = gtt;
  body.clientTime = input.clientTime ?? ts.toString();
  body.signature = h.sign(message, w);
  return body;
}

export function modifyOrderRequest(h: GatewayHarness, w: Wallet, resting: RestingOrder, input: ModifyInput, ts: bigint = timestampNs(h)): SignedRequest {
  const { signature, ...payload } = modifyElement(h, w, resting, input, ts);
  return { url: `/v1/modifyOrder?address=${w.address}`, payload, headers: headers(w, ts, signature as string) };
}

// ---------------------------------------------------------------------------------------------
// Batches and Scheme 2.

export interface BatchOptions {
  /** X-Signature: the first element's signature by default; null omits the header. */
  xSignature?: string | null;
  /** Top-level fields beside the array (grouping). */
  extra?: Record<string, unknown>;
}

export function batchRequest(
  w: Wallet,
  path: 'batchPlaceOrders' | 'batchCancelOrders' | 'batchModifyOrders',
  elements: Record<string, unknown>[],
  ts: bigint,
  options: BatchOptions = {},
): SignedRequest {
  const key = path === 'batchPlaceOrders' ? 'orders' : path === 'batchCancelOrders' ? 'cancels' : 'modifies';
  const xSignature = options.xSignature === undefined ? String(elements[0]?.signature ?? '') : options.xSignature;
  return { url: `/v1/${path}?address=${w.address}`, payload: { [key]: elements, ...options.extra }, headers: headers(w, ts, xSignature) };
}

/** A Scheme 2 request (cancelAllOrders, scheduleCancel): `ts + action + canonical_json(body)`. */
export function scheme2Request(h: GatewayHarness, w: Wallet, action: string, body: Record<string, unknown>, ts: bigint = timestampNs(h)): SignedRequest {
  const signature = h.sign(`${ts}${action}${canonical(body)}`, w);
  return { url: `/v1/${action}?address=${w.address}`, payload: body, headers: headers(w, ts, signature) };
}
