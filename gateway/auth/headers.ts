/**
 * The header triple of a signed request (REST) or the envelope fields (WebSocket).
 *
 * Contract (interface.md Authentication "Headers"): X-API-Key / `apiKey` is the 64-hex Ed25519
 * public key, X-Timestamp / `timestamp` Unix ns as a decimal string, X-Signature / `signature`
 * 128 hex. `checkSignedHeaders` checks shape and the timestamp window in the order a client
 * can fix them: key, signature shape, timestamp. It does not verify the signature (that needs
 * the signed bytes, which depend on the route's scheme) and does not look the key up.
 *
 * Batches carry a signature per element: on REST the outer X-Signature must only be present
 * and non-empty (its value is not verified; absent or empty rejects every element with
 * `invalid order signature`, interface.md Scheme 1 rule 4); the WebSocket envelope of a batch
 * carries no signature at all. `outerSignature` selects the rule.
 */
import { checkEd25519Hex, isApiKeyHex } from './ed25519.ts';
import { AUTH_ERRORS, fail, ok, type AuthError, type AuthResult } from './errors.ts';
import { checkBatchSignatureHeader } from './scheme1.ts';
import { checkTimestamp, type ServerClocks } from './timestamp.ts';

export interface SignedHeaders {
  readonly apiKey?: unknown;
  readonly timestamp?: unknown;
  readonly signature?: unknown;
}

export interface CheckedHeaders {
  /** Lowercase key, the identity to look up. */
  readonly apiKey: string;
  /** The timestamp exactly as sent (what Scheme 2 signs). */
  readonly timestampText: string;
  /** The timestamp in ns (what Scheme 1's `ct` must equal). */
  readonly timestampNs: bigint;
  /** The outer signature as sent ('' when the rule is 'absent'). */
  readonly signature: string;
}

/**
 * How the outer signature is checked: 'verified' (single writes and Scheme 2: 128 hex, verified
 * by the caller), 'present' (REST batches: non-empty, not verified), 'absent' (WebSocket batches).
 */
export type OuterSignatureRule = 'verified' | 'present' | 'absent';

/** Reads the triple off Node's lowercase header map (a repeated header counts as absent). */
export function headersFromHttp(headers: Readonly<Record<string, string | string[] | undefined>>): SignedHeaders {
  return { apiKey: one(headers['x-api-key']), timestamp: one(headers['x-timestamp']), signature: one(headers['x-signature']) };
}

function one(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Checks the triple's shape and the timestamp window.
 *
 * @example checkSignedHeaders(headersFromHttp(request.headers), { wallNs, simNs })
 */
export function checkSignedHeaders(
  headers: SignedHeaders,
  clocks: ServerClocks,
  outerSignature: OuterSignatureRule = 'verified',
): AuthResult<CheckedHeaders> {
  const shapeError = signatureShapeError(headers, outerSignature);
  if (shapeError !== null) return fail(shapeError);
  const timestamp = checkTimestamp(headers.timestamp, clocks);
  if (!timestamp.ok) return timestamp;
  return ok({
    apiKey: (headers.apiKey as string).toLowerCase(),
    timestampText: typeof headers.timestamp === 'string' ? headers.timestamp : timestamp.value.toString(),
    timestampNs: timestamp.value,
    signature: typeof headers.signature === 'string' && outerSignature !== 'absent' ? headers.signature : '',
  });
}

function signatureShapeError(headers: SignedHeaders, rule: OuterSignatureRule): AuthError | null {
  switch (rule) {
    case 'verified':
      return checkEd25519Hex(headers.apiKey, headers.signature);
    case 'present':
      return isApiKeyHex(headers.apiKey) ? checkBatchSignatureHeader(headers.signature) : AUTH_ERRORS.invalidApiKey;
    case 'absent':
      return isApiKeyHex(headers.apiKey) ? null : AUTH_ERRORS.invalidApiKey;
  }
}
