/**
 * Scheme 2: the legacy message signed by non-order routes.
 *
 * Contract (interface.md Authentication "Scheme 2", supplement §1):
 * - signature = Ed25519 over `timestamp + action + canonical_json(body)`, no delimiters; a
 *   request with no body signs `timestamp + action`. The timestamp is written as the client
 *   sent it (X-Timestamp / envelope `timestamp`, decimal digits).
 * - `action` is the final path segment on REST (cancelAllOrders, setLeverage, scheduleCancel,
 *   adjustIsolatedMargin, affiliate POSTs) and the request `type` over WebSocket. For the
 *   notifications paths the path itself is the action, verbatim (the colon suffix of
 *   `/v1/api-meta/notifications:markSeen` included).
 * - Signed GETs (affiliate reads) sign `<ts><last path segment>`, no body and no `{}`.
 * - The HTTP method and the query string are not signed.
 *
 * Accepting liberally (supplement §12), verification tries, in order: the canonical body; the
 * raw body bytes exactly as received when they differ (a client that signed what it sent,
 * e.g. a number written `1.0`); and for an empty object body, no body at all. For the
 * notifications paths it tries the full path (without query) first, then its last segment.
 */
import { canonicalJson, type JsonValue } from './canonical-json.ts';
import { verifyEd25519 } from './ed25519.ts';

/** Paths under this prefix are signed verbatim rather than by their last segment. */
export const VERBATIM_ACTION_PREFIX = '/v1/api-meta/notifications';

export interface Scheme2Request {
  /** The timestamp exactly as sent (digits) or as parsed. */
  readonly timestamp: string | bigint;
  /** REST: the request path (query allowed, it is dropped). Give this or `action`. */
  readonly path?: string | undefined;
  /** WebSocket: the request `type`. Takes precedence over `path`. */
  readonly action?: string | undefined;
  /** The parsed body; undefined or null when the request has none. */
  readonly body?: JsonValue | undefined;
  /** The body as received, when available (REST). */
  readonly rawBody?: string | undefined;
}

/** The path without query string, fragment or trailing slashes. */
export function requestPath(path: string): string {
  let end = path.length;
  const query = path.search(/[?#]/);
  if (query >= 0) end = query;
  while (end > 1 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/** The final path segment: `/v1/cancelAllOrders?address=0x…` → `cancelAllOrders`. */
export function lastPathSegment(path: string): string {
  const clean = requestPath(path);
  return clean.slice(clean.lastIndexOf('/') + 1);
}

/** Actions a REST path may have been signed with, preferred first. */
export function scheme2Actions(path: string): string[] {
  const clean = requestPath(path);
  const last = lastPathSegment(clean);
  return clean.startsWith(VERBATIM_ACTION_PREFIX) && clean !== last ? [clean, last] : [last];
}

/** The action of a REST path: the final segment, or the verbatim path for notifications. */
export function scheme2Action(path: string): string {
  return scheme2Actions(path)[0]!;
}

/**
 * The Scheme 2 message for one action and body.
 *
 * @example scheme2Message('1700000000000000000', 'cancelAllOrders', { marketId: 1, address: '0xab…', accountIndex: 0 })
 *   // '1700000000000000000cancelAllOrders{"accountIndex":0,"address":"0xab…","marketId":1}'
 */
export function scheme2Message(timestamp: string | bigint, action: string, body?: JsonValue): string {
  const head = `${timestamp.toString()}${action}`;
  return body === undefined || body === null ? head : head + canonicalJson(body);
}

/** The message of a signed GET: `<ts><last path segment>`. */
export function signedGetMessage(timestamp: string | bigint, path: string): string {
  return `${timestamp.toString()}${lastPathSegment(path)}`;
}

/** Every message a valid signature may cover, preferred first and without repeats. */
export function scheme2Candidates(request: Scheme2Request): string[] {
  const actions = request.action !== undefined ? [request.action] : scheme2Actions(request.path ?? '');
  const bodies: string[] = [];
  const { body, rawBody } = request;
  if (body === undefined || body === null) {
    bodies.push('');
  } else {
    const canonical = canonicalJson(body);
    bodies.push(canonical);
    if (rawBody !== undefined && rawBody !== canonical && rawBody.length > 0) bodies.push(rawBody);
    if (canonical === '{}') bodies.push('');
  }
  const out = new Set<string>();
  const ts = request.timestamp.toString();
  for (const action of actions) for (const text of bodies) out.add(ts + action + text);
  return [...out];
}

/**
 * Verifies a Scheme 2 signature.
 *
 * @returns The message the signature covers, or null (answer `AUTH_ERRORS.invalidSignature`).
 */
export function verifyScheme2(apiKeyHex: string, signatureHex: string, request: Scheme2Request): string | null {
  for (const message of scheme2Candidates(request)) {
    if (verifyEd25519(apiKeyHex, message, signatureHex)) return message;
  }
  return null;
}

/** Verifies a signed GET (`<ts><last path segment>`); returns the message or null. */
export function verifySignedGet(apiKeyHex: string, signatureHex: string, timestamp: string | bigint, path: string): string | null {
  const message = signedGetMessage(timestamp, path);
  return verifyEd25519(apiKeyHex, message, signatureHex) ? message : null;
}
