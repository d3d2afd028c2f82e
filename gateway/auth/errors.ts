/**
 * The authentication module's error vocabulary, as plain data.
 *
 * Contract: every check in `gateway/auth/` that can refuse a request returns one of these
 * records instead of throwing. The gateway turns a record into an HTTP reply with `status` as
 * the status code and `{ error }` as the body (supplement §10: a bad signature answers
 * `{"error":"invalid signature"}` with 401), and into a WebSocket error with the same status.
 *
 * Status choices (interface.md "HTTP status codes"): 401 for a missing or invalid key, a bad
 * signature, a wrong-unit or out-of-window timestamp; 400 for input that is not even shaped
 * right (invalid hex address, a signature that is not hex of the right length); 403 for an
 * address that does not belong to the key. `invalidApiKey` is 401 even when the key is not hex,
 * because the interface names "missing or invalid key" under 401.
 */

export interface AuthError {
  readonly status: 400 | 401 | 403;
  readonly error: string;
}

export const AUTH_ERRORS = {
  /** X-API-Key (WS `apiKey`) absent, not 64 hex characters, or not a registered key. */
  invalidApiKey: { status: 401, error: 'invalid API key' },
  /** X-Signature (WS `signature`) absent or empty. */
  missingSignature: { status: 401, error: 'missing signature' },
  /** An Ed25519 signature that is not 128 hex characters. */
  malformedSignature: { status: 400, error: 'signature must be 128 lowercase hex characters' },
  /** A wallet signature that is not `{r, s, v}` hex (or a 65-byte hex string). */
  malformedWalletSignature: { status: 400, error: 'signature must be {r, s, v} hex' },
  /** Signature well formed but not made by the key (or the wallet) over the expected bytes. */
  invalidSignature: { status: 401, error: 'invalid signature' },
  /** Batch writes on REST: X-Signature absent or empty rejects every element (interface.md Scheme 1 rule 4). */
  invalidOrderSignature: { status: 401, error: 'invalid order signature' },
  /** X-Timestamp (WS `timestamp`) absent. */
  missingTimestamp: { status: 401, error: 'missing timestamp' },
  /** X-Timestamp not a decimal integer. */
  invalidTimestamp: { status: 401, error: 'invalid timestamp' },
  /** X-Timestamp at second, millisecond or microsecond scale (interface.md Authentication rule 1). */
  timestampNotNanoseconds: { status: 401, error: 'timestamp must be in nanoseconds' },
  /** X-Timestamp more than 30,000 ms from the server clock, either direction. */
  timestampOutOfWindow: { status: 401, error: 'timestamp out of window' },
  /** `address` not `^(0x|0X)?[0-9a-fA-F]{40}$` (interface.md Authentication rule 3). */
  invalidAddress: { status: 400, error: 'invalid address' },
  /** `address` is not the master address bound to the key (interface.md Authentication rule 3). */
  addressMismatch: { status: 403, error: 'address does not match the API key' },
} as const satisfies Record<string, AuthError>;

export type AuthErrorName = keyof typeof AUTH_ERRORS;

/** A check's outcome: the parsed value, or the refusal to send back. */
export type AuthResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: AuthError };

export function ok<T>(value: T): AuthResult<T> {
  return { ok: true, value };
}

export function fail<T = never>(error: AuthError): AuthResult<T> {
  return { ok: false, error };
}
