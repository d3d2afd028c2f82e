/**
 * The venue's error bodies (interface.md "Error body", supplement §10), as reply data, and the
 * gateway's error table.
 *
 * Contract: every refusal the gateway sends is built here, so the shapes stay exact: `error`
 * always; `errorSource` + `errorType` on structured order errors; `rejectionReason` only on
 * the 200 path; `code` only for region blocks. Each refusal's status, errorType and message is
 * written once, as an entry of `ERRORS` (authentication's are in auth/errors.ts), and call
 * sites name the entry: `refuse(ERRORS.priceNotOnTick, 'Order')`.
 */
import type { ErrorSource, ErrorType } from '../../engine/spec.ts';
import { AUTH_ERRORS } from '../auth/errors.ts';
import type { ErrorBody } from './reply-schema.ts';

export type { ErrorBody };

export interface Reply<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
}

/**
 * One refusal: its status, its errorType when it is a structured order/cancel error (the
 * errorSource comes from the operation), and its message, a function of the values it quotes.
 */
export interface ErrorDef<A extends readonly unknown[] = []> {
  readonly status: number;
  readonly errorType?: ErrorType;
  readonly code?: 'GEO_RESTRICTED';
  readonly message: (...args: A) => string;
}

function def(status: number, errorType: ErrorType | undefined, message: string): ErrorDef;
function def<A extends readonly unknown[]>(status: number, errorType: ErrorType | undefined, message: (...args: A) => string): ErrorDef<A>;
function def(status: number, errorType: ErrorType | undefined, message: string | ((...args: never[]) => string)): ErrorDef<never[]> {
  const text = message;
  return { status, ...(errorType === undefined ? {} : { errorType }), message: typeof text === 'string' ? () => text : text };
}

export const ERRORS = {
  // Order and cancel writes (placeOrder, modifyOrder, cancelOrder, their batches, cancelAllOrders, scheduleCancel).
  unknownMarket: def(400, 'InvalidRequest', 'unknown market'),
  invalidTimeInForce: def(400, 'InvalidRequest', (tif: string) => `invalid timeInForce: ${tif}`),
  invalidSide: def(400, 'InvalidRequest', (side: string) => `invalid side: ${side}`),
  invalidTpslType: def(400, 'InvalidRequest', 'tpslType must be STOP_LOSS or TAKE_PROFIT'),
  invalidGrouping: def(400, 'InvalidRequest', 'grouping must be entryTpsl, partialTpsl or positionTpsl'),
  priceNotOnTick: def(400, 'Tick', 'price is not a multiple of tick size'),
  quantityNotOnStep: def(400, 'Tick', 'quantity is not a multiple of step size'),
  stopPriceNotOnTick: def(400, 'Tick', 'stopPrice is not a multiple of tick size'),
  goodTilTimeRequired: def(400, 'InvalidRequest', 'goodTilTime is required'),
  invalidGoodTilTime: def(400, 'InvalidRequest', 'invalid goodTilTime'),
  invalidOrderId: def(400, 'InvalidRequest', 'invalid orderId'),
  targetBoth: def(400, 'InvalidRequest', 'exactly one of orderId or clientId is required, not both'),
  targetNeither: def(400, 'InvalidRequest', 'exactly one of orderId or clientId is required'),
  kindMismatch: def(400, 'InvalidRequest', (kind: string, named: 'orderId' | 'clientId') => `kind is ${kind} but the body names the order by ${named}`),
  requestExpired: def(400, 'InvalidRequest', 'request expired: validUntil has passed'),
  batchAccountsDiffer: def(400, 'InvalidRequest', 'all elements must share address and accountIndex'),
  accountIndexRequired: def(400, 'InvalidRequest', 'accountIndex is required'),
  batchElementInvalid: def(400, 'InvalidRequest', (where: string, error: string) => `${where}: ${error}`),
  scheduleTimeOutOfRange: def(400, 'InvalidRequest', 'time must be 5 seconds to 5 minutes in the future (epoch microseconds)'),
  engineLimited: def(429, undefined, (error: string) => error),
  replayed: def(409, undefined, 'replayed request'),
  invalidAddress: def(AUTH_ERRORS.invalidAddress.status, undefined, AUTH_ERRORS.invalidAddress.error),
  invalidSignature: def(AUTH_ERRORS.invalidSignature.status, undefined, AUTH_ERRORS.invalidSignature.error),
  invalidOrderSignature: def(AUTH_ERRORS.invalidOrderSignature.status, undefined, AUTH_ERRORS.invalidOrderSignature.error),
  // Account reads.
  noAccountActivity: def(404, undefined, 'this account has no activity yet'),
  // Every route (app.ts).
  notFound: def(404, undefined, 'not found'),
  internal: def(500, 'Internal', 'internal error'),
  notDurable: def(503, 'Unavailable', 'the change could not be made durable; the exchange stops accepting writes'),
  geoRestricted: { status: 403, code: 'GEO_RESTRICTED', message: () => 'this operation is not available in your region' } as ErrorDef,
} as const;

export type ErrorName = keyof typeof ERRORS;

/**
 * The reply of a table entry. `source` is the operation's errorSource: given, an entry with an
 * errorType is a structured order/cancel error; without it only `error` (and `errorType` for the
 * 5xx entries, which carry it everywhere) is sent.
 */
export function refuse<A extends readonly unknown[]>(entry: ErrorDef<A>, source: ErrorSource | undefined, ...args: A): Refusal {
  const body: ErrorBody = { error: entry.message(...args) };
  if (entry.code !== undefined) body.code = entry.code;
  const errorType = entry.errorType;
  if (source !== undefined && errorType !== undefined && entry.status < 500) {
    body.errorSource = source;
    body.errorType = errorType;
  } else if (errorType !== undefined && entry.status >= 500) body.errorType = errorType;
  return { status: entry.status, body };
}

/** The engine refused the command's input: its errorType and message, as a structured error. */
export function engineInvalid(source: ErrorSource, result: { errorType: ErrorType; error: string }): Refusal {
  return orderError(source, result.errorType, result.error);
}

/** A refusal: a 4xx/5xx reply whose body is the error body. */
export type Refusal = Reply<ErrorBody>;

export function fail(status: number, error: string, extra: Omit<ErrorBody, 'error'> = {}): Refusal {
  return { status, body: { error, ...extra } satisfies ErrorBody };
}

/** A structured order/cancel error (400 unless said): errorSource + errorType. */
export function orderError(source: ErrorSource, errorType: ErrorType, error: string, status = 400): Refusal {
  return fail(status, error, { errorSource: source, errorType });
}

export const badRequest = (error: string): Refusal => fail(400, error);
export const unauthorized = (error: string): Refusal => fail(401, error);
export const forbidden = (error: string): Refusal => fail(403, error);
export const notFound = (error: string): Refusal => fail(404, error);
export const conflict = (error: string): Refusal => fail(409, error);

export function ok<B>(body: B, status = 200): Reply<B> {
  return { status, body };
}
