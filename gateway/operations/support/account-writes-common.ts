/**
 * What the account writes share (setLeverage, adjustIsolatedMargin, withdraw, transfer,
 * createApiKey, revokeApiKey): schemas of their common fields, the Scheme 2 check and replay
 * slot, the wallet checks of the key routes, and the money parsers. A wallet `signature` is
 * `{r, s, v}` or 65-byte hex (400 when malformed); quote quantums are an integer string (or
 * integer); USD amounts a signed decimal of at most 9 places (or a number).
 * Spec: interface.md Authentication "Scheme 2"; supplement §5, §12 (accept liberally).
 */
import { Type } from 'typebox';
import { LIMITS } from '../../../engine/spec.ts';
import { AUTH_ERRORS, normalizeWalletSignature, type Hex, type KeySigner } from '../../auth/index.ts';
import { fail, type Refusal } from '../../contract/errors.ts';
import { isNonceSpent } from '../../auth/nonces.ts';
import type { GatewayState, OperationRequest } from '../../contract/operation.ts';
import { isReplayed, takeReplaySlot } from '../../auth/replay.ts';
import { requestIdOf } from '../../http/request-id.ts';
import { isReply, verifyScheme2Signature, type SignedContext } from './common.ts';
import { andThen, type Maybe } from '../../shared/maybe.ts';

/** `{r, s, v}` hex, or a 65-byte hex string; shape checked by `walletSignature`. */
export const WALLET_SIGNATURE = Type.Union([
  Type.Object(
    {
      r: Type.String({ minLength: 1, maxLength: 66 }),
      s: Type.String({ minLength: 1, maxLength: 66 }),
      v: Type.Union([Type.String({ minLength: 1, maxLength: 22 }), Type.Integer({ minimum: 0 })]),
    },
    { additionalProperties: true },
  ),
  Type.String({ minLength: 1, maxLength: 132 }),
]);

/** Withdraw and transfer nonces: 1-64 characters. */
export const TRANSFER_NONCE = Type.String({ minLength: 1, maxLength: 64 });

/** An integer number of quote quantums: digits, or a JSON integer. */
export const QUANTUMS = Type.Union([Type.String({ pattern: '^[0-9]{1,30}$' }), Type.Integer({ minimum: 0 })]);

/** A subaccount 0-9. */
export const SUBACCOUNT = Type.Integer({ minimum: 0, maximum: LIMITS.subaccountMax });

/** A signed dollar amount: "-40.5", "+10", "3"; a JSON number is accepted too. */
export const USD_AMOUNT = Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()]);

/** Collateral (USDG) has 6 decimals: one base unit is 1,000 quote quantums (supplement §13). */
export const QUANTUMS_PER_COLLATERAL_UNIT = LIMITS.quoteQuantumsPerUsd / 1_000_000n;

/** The signature as a 65-byte hex string, or the 400 reply for a malformed one. */
export function walletSignature(value: unknown): Hex | Refusal {
  const normalized = normalizeWalletSignature(value);
  return normalized === null ? fail(AUTH_ERRORS.malformedWalletSignature.status, AUTH_ERRORS.malformedWalletSignature.error) : normalized;
}

/** Quote quantums from an integer string or number; null when not a non-negative integer. */
export function parseQuantums(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value === 'string' && /^[0-9]{1,30}$/.test(value)) return BigInt(value);
  return null;
}

const USD_TEXT = /^([+-]?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * A signed dollar amount in quote quantums (1e9 = 1 USD); null when it is not a decimal or has
 * more than 9 decimals (below one quantum).
 *
 * @example parseUsdQuantums('-40.5') // -40_500_000_000n
 */
export function parseUsdQuantums(value: unknown): bigint | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
    // The shortest form of a small number has an exponent ("1.5e-9"): written out at 9 decimals it
    // must still be that number, or it had more than 9 decimals (toFixed would round it).
    if (/e/i.test(text)) {
      text = value.toFixed(9);
      if (Number(text) !== value) return null;
    }
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return null;
  }
  const match = USD_TEXT.exec(text);
  if (match === null) return null;
  const [, sign, whole, fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > 9) return null;
  const quantums = BigInt(whole!) * LIMITS.quoteQuantumsPerUsd + BigInt(trimmed.padEnd(9, '0') || '0');
  return sign === '-' ? -quantums : quantums;
}

/**
 * setLeverage and adjustIsolatedMargin up to their turn (sequencer.ts): the route's own field
 * checks, then the Scheme 2 signature (401).
 */
export function verifiedScheme2Write<T>(state: GatewayState, request: OperationRequest, checks: () => T | Refusal): Maybe<T | Refusal> {
  const checked = checks();
  if (typeof checked === 'object' && checked !== null && isReply(checked)) return checked;
  return andThen(verifyScheme2Signature(state, request, (checked as { ctx: SignedContext }).ctx), (refused) => refused ?? checked);
}

/**
 * The last check of setLeverage and adjustIsolatedMargin, in their turn: the replay slot (409),
 * taken at once because neither route is charged; the request id the engine and the reply know
 * the request by. It follows the route's own field checks: once the slot is taken, the client
 * cannot resend the same signed request with the fields fixed.
 */
export function admitScheme2Write(state: GatewayState, ctx: SignedContext, operation: string): string | Refusal {
  const { signature, timestampText } = ctx.headers;
  if (isReplayed(state, signature)) return fail(409, 'replayed request');
  takeReplaySlot(state, signature);
  return requestIdOf(operation, ctx.address, ctx.accountIndex, timestampText, signature);
}

// ---------------------------------------------------------------------------------------------
// createApiKey / revokeApiKey

/** The API key: 64 hex digits (supplement §5: no `0x`; a `0x` prefix is tolerated). */
export const API_PUBLIC_KEY = Type.String({ pattern: '^(0x|0X)?[0-9a-fA-F]{64}$' });

/** Key scope: one subaccount 0-9, or 255 for all of them. */
export const KEY_ACCOUNT_INDEX = Type.Union([SUBACCOUNT, Type.Literal(LIMITS.allSubaccountsIndex)]);

/** apiWalletName: 1-64 characters. */
export const API_WALLET_NAME = Type.String({ minLength: 1, maxLength: 64 });

/** Key-route nonce: at most 64 characters; empty means none. */
export const KEY_NONCE = Type.String({ maxLength: 64 });

/** The nonce as a nanosecond time must lie in [now − 48 h, now + 24 h] (supplement §5). */
const NONCE_PAST_NS = 48n * 3_600_000_000_000n;
const NONCE_FUTURE_NS = 24n * 3_600_000_000_000n;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * The 400 reply for a key-route nonce that is neither a nanosecond time within −48 h / +24 h
 * of the server (either of its clocks, as for X-Timestamp) nor a UUID; null when it is fine.
 */
export function keyNonceError(state: GatewayState, nonce: string): Refusal | null {
  if (UUID.test(nonce)) return null;
  if (!/^[0-9]{1,32}$/.test(nonce)) return fail(400, 'nonce must be a nanosecond timestamp or a UUID');
  const ns = BigInt(nonce);
  const { wallNs, simNs } = state.clocks();
  const inside = (clock: bigint): boolean => ns >= clock - NONCE_PAST_NS && ns <= clock + NONCE_FUTURE_NS;
  return inside(wallNs) || inside(simNs) ? null : fail(400, 'nonce timestamp must be within 48 hours before and 24 hours after the server time');
}

/**
 * What createApiKey and revokeApiKey check alike, in their documented order: nonce format
 * (400), signature shape (400), signer (401), nonce replay (409). `recover` runs only with auth
 * on. The nonce is returned unspent: each route spends it only once its own key check passed,
 * so a refused request leaves it usable.
 */
export async function checkKeyWallet(
  state: GatewayState,
  address: string,
  sent: { signature: unknown; nonce?: string },
  recover: (signature: Hex, nonce: string | undefined, chainId: number) => Promise<KeySigner | null>,
): Promise<{ nonce: string | undefined } | Refusal> {
  // Empty means none (KEY_NONCE): such a nonce is neither checked, signed nor spent.
  const nonce = sent.nonce === undefined || sent.nonce === '' ? undefined : sent.nonce;
  if (nonce !== undefined) {
    const bad = keyNonceError(state, nonce);
    if (bad !== null) return bad;
  }
  const signature = walletSignature(sent.signature);
  if (typeof signature !== 'string') return signature;
  if (state.config.auth) {
    const signer = await recover(signature, nonce, state.network.chainId);
    if (signer?.signer !== address) return fail(AUTH_ERRORS.invalidSignature.status, AUTH_ERRORS.invalidSignature.error);
  }
  if (nonce !== undefined && isNonceSpent(state, address, nonce)) return fail(409, 'nonce already used');
  return { nonce };
}

/** The key as stored and echoed: lowercase, without `0x`. */
export function apiKeyOf(publicKey: string): string {
  return publicKey.replace(/^0x/i, '').toLowerCase();
}
