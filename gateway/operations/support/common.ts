/**
 * What many operations share: schemas of the common parameters, parsing the account selector,
 * and the signed-request checks (header triple, key, address) before an operation verifies its
 * own signature.
 */
import { Type } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { checkSignedHeaders, headersFromHttp, normalizeAddress, scheme1Candidates, scheme2Candidates, type CheckedHeaders, type JsonValue, type Scheme1Op, type Scheme1VerifyFieldsByOp } from '../../auth/index.ts';
import { verifyInline } from '../../auth/verifier.ts';
import { andThen, type Maybe } from '../../shared/maybe.ts';
import { fail, type Refusal, type Reply } from '../../contract/errors.ts';
import { keyFor, type ApiKeyRecord, type KeyPermission } from '../../auth/keys.ts';
import type { GatewayState, OperationRequest } from '../../contract/operation.ts';

export const ADDRESS_PATTERN = '^(0x|0X)?[0-9a-fA-F]{40}$';

/** Query of account-scoped reads: address required, accountIndex 0-9 (default 0). */
export const AccountQuery = Type.Object(
  {
    address: Type.String({ pattern: ADDRESS_PATTERN }),
    accountIndex: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax })),
  },
  { additionalProperties: true },
);

export interface AccountRef {
  address: string;
  accountIndex: number;
}

/** Lowercase 0x-prefixed address; null when it is not 40 hex digits. */
export function parseAddress(value: unknown): string | null {
  // normalizeAddress checks the same pattern (auth/address.ts).
  return normalizeAddress(value);
}

export function accountOf(query: Record<string, unknown>): AccountRef {
  return { address: parseAddress(query.address)!, accountIndex: Number(query.accountIndex ?? 0) };
}

export interface SignedContext {
  headers: CheckedHeaders;
  key: ApiKeyRecord;
  address: string;
  accountIndex: number;
}

/**
 * The checks every signed request shares: the header triple and timestamp window (401), the
 * address in the query and/or body (400 malformed, 403 mismatch with each other or the key).
 * `outer` is what the X-Signature header must be: verified later by the operation, or only
 * present (REST batches). `body` is where the body address is read (a batch element's own
 * body, say); the request's body by default.
 */
export function signedContext(
  state: GatewayState,
  request: OperationRequest,
  accountIndex: number,
  permission: KeyPermission = 'trade',
  outer: 'verified' | 'present' = 'verified',
  body: unknown = request.body,
): SignedContext | Refusal {
  const checked = checkSignedHeaders(headersFromHttp(request.headers), state.clocks(), outer);
  if (!checked.ok) return fail(checked.error.status, checked.error.error);
  const fromQuery = request.query.address;
  const fromBody = (body as Record<string, unknown> | undefined)?.address;
  if (fromQuery === undefined && fromBody === undefined) return fail(400, 'address is required');
  const queryAddress = fromQuery === undefined ? undefined : parseAddress(fromQuery);
  // The same text in both (what clients send) is parsed once.
  const bodyAddress = fromBody === undefined ? undefined : fromBody === fromQuery ? queryAddress : parseAddress(fromBody);
  if (queryAddress === null || bodyAddress === null) return fail(400, 'invalid address');
  if (queryAddress !== undefined && bodyAddress !== undefined && queryAddress !== bodyAddress) {
    return fail(403, 'address in the query and the body differ');
  }
  const address = (queryAddress ?? bodyAddress)!;
  const key = keyFor(state.keys, checked.value.apiKey, address, accountIndex, state.nowMs(), permission);
  if (!key.ok) return fail(key.status, key.error);
  // The key record's own string (keyFor checked it equals `address`): one string object per
  // wallet, its hash kept, so the maps keyed by it downstream (the engine's accounts, services,
  // account keys) find it by identity instead of hashing and comparing a fresh copy per request.
  return { headers: checked.value, key: key.key, address: key.key.address, accountIndex };
}

/**
 * The index of the candidate the signature covers (-1: none): on the state's worker threads, or
 * synchronously when it has none (sequencer.ts then answers synchronously too).
 */
function verifyCandidates(state: GatewayState, apiKey: string, signature: string, candidates: readonly string[]): Maybe<number> {
  const verifier = state.verifier;
  if (verifier !== undefined && verifier.threads > 0) return verifier.verify(apiKey, signature, candidates);
  return verifyInline(apiKey, signature, candidates);
}

/**
 * A Scheme 1 payload signature: true when it covers one of the payloads the fields allow
 * (clientId as sent or lowercased, modify forms; auth/scheme1.ts), or when auth is off.
 */
export function verifyScheme1Signature<O extends Scheme1Op>(state: GatewayState, apiKey: string, signature: string, op: O, fields: Scheme1VerifyFieldsByOp[O]): Maybe<boolean> {
  return withScheme1Signature(state, apiKey, signature, op, fields, (verified) => verified);
}

/**
 * `next(verified)` once the Scheme 1 check has answered (verifyScheme1Signature's answer is
 * `verified` itself). On worker threads `next` settles the verifier's own promise (verifyThen):
 * a `then` on it would cost a second promise and microtask turn, the order writes' hot path.
 */
export function withScheme1Signature<O extends Scheme1Op, R>(
  state: GatewayState,
  apiKey: string,
  signature: string,
  op: O,
  fields: Scheme1VerifyFieldsByOp[O],
  next: (verified: boolean) => Maybe<R>,
): Maybe<R> {
  if (!state.config.auth) return next(true);
  const candidates = scheme1Candidates(op, fields);
  const verifier = state.verifier;
  if (verifier === undefined || verifier.threads === 0) return next(verifyInline(apiKey, signature, candidates) >= 0);
  // Arrows written inline, not a named const: tsx (esbuild keepNames) wraps a named closure in __name().
  return verifier.verifyThen !== undefined
    ? verifier.verifyThen(apiKey, signature, candidates, (index) => next(index >= 0))
    : verifier.verify(apiKey, signature, candidates).then((index) => next(index >= 0));
}

/**
 * The Scheme 2 signature of a signed request: `timestamp + action + canonical_json(body)`, with
 * the body the client sent (parsed again from the raw bytes: schema validation may have coerced
 * values, `"5"` → 5, which would change the signed text). 401 `invalid signature` when it does
 * not verify; null when it does (or when auth is off).
 */
export function verifyScheme2Signature(state: GatewayState, request: OperationRequest, ctx: SignedContext): Maybe<Refusal | null> {
  if (!state.config.auth) return null;
  let candidates: string[];
  try {
    let sent: unknown = request.body;
    if (request.rawBody !== undefined && request.rawBody.length > 0) sent = JSON.parse(request.rawBody) as unknown;
    candidates = scheme2Candidates({
      timestamp: ctx.headers.timestampText,
      path: request.path,
      body: sent as JsonValue | undefined,
      rawBody: request.rawBody,
    });
  } catch {
    // A body with no canonical form (a number beyond double range, nesting past the stack)
    // cannot carry a valid signature.
    candidates = [];
  }
  const found = candidates.length === 0 ? -1 : verifyCandidates(state, ctx.key.apiKey, ctx.headers.signature, candidates);
  return andThen(found, (index) => (index < 0 ? fail(401, 'invalid signature') : null));
}

export function isReply(value: object): value is Reply {
  return 'status' in value && 'body' in value;
}
