/**
 * Ed25519 verification of API-key signatures, on sodium-native (libsodium), or node:crypto
 * where sodium-native cannot be loaded.
 *
 * Contract: the API key is the raw 32-byte Ed25519 public key as 64 hex characters; the
 * signature is 64 bytes as 128 hex characters (interface.md Authentication, "Headers"). The
 * interface asks for lowercase hex; uppercase is accepted (supplement §12, accept liberally).
 * `verifyEd25519` never throws: a malformed key, a malformed signature or a key that does not
 * import all answer false. `checkEd25519Hex` tells the gateway which error to answer for
 * malformed input before it spends a verification.
 *
 * node:crypto needs a KeyObject, built from the raw key behind the fixed DER SPKI header of an
 * Ed25519 public key (RFC 8410). Building one costs about as much as a verification, so
 * KeyObjects are cached per API key (lowercased), least recently inserted evicted first.
 * `bench/ed25519.bench.ts` compares this path with @noble/ed25519; `npm run bench:gateway`
 * measured libsodium at 2.7× node:crypto here (docs/decisions.md), so it verifies when present.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';

interface Sodium {
  crypto_sign_verify_detached(signature: Buffer, message: Buffer, publicKey: Buffer): boolean;
}

const sodium: Sodium | undefined = (() => {
  try {
    return createRequire(import.meta.url)('sodium-native') as Sodium;
  } catch {
    return undefined;
  }
})();

/** Which implementation verifies (for benchmarks and logs). */
export const ED25519_BACKEND: 'sodium-native' | 'node:crypto' = sodium === undefined ? 'node:crypto' : 'sodium-native';
const rawKeys = new Map<string, Buffer>();
import { AUTH_ERRORS, type AuthError } from './errors.ts';
import { hexToBytes, isHexOfLength } from './hex.ts';

/** SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (33 bytes: 0 unused bits + 32-byte key) }. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export const API_KEY_HEX_LENGTH = 64;
export const SIGNATURE_HEX_LENGTH = 128;

/** Cached KeyObjects; a Map iterates in insertion order, so the first key is the oldest. */
const keyCache = new Map<string, KeyObject>();
let keyCacheCapacity = 10_000;

/** Sets how many KeyObjects are kept (and drops the cache). */
export function configureEd25519KeyCache(capacity: number): void {
  keyCacheCapacity = Math.max(1, Math.floor(capacity));
  keyCache.clear();
}

export function clearEd25519KeyCache(): void {
  keyCache.clear();
}

/** True when `value` is a well-formed API key: 64 hex characters. */
export function isApiKeyHex(value: unknown): value is string {
  return isHexOfLength(value, API_KEY_HEX_LENGTH);
}

/** True when `value` is a well-formed Ed25519 signature: 128 hex characters. */
export function isSignatureHex(value: unknown): value is string {
  return isHexOfLength(value, SIGNATURE_HEX_LENGTH);
}

/**
 * The error to answer for a malformed key or signature, or null when both are well formed.
 * An absent or malformed key is 401 (interface: "missing or invalid key"); an absent signature
 * is 401, a present one that is not 128 hex characters is 400.
 */
export function checkEd25519Hex(apiKey: unknown, signature: unknown): AuthError | null {
  if (!isApiKeyHex(apiKey)) return AUTH_ERRORS.invalidApiKey;
  if (signature === undefined || signature === null || signature === '') return AUTH_ERRORS.missingSignature;
  if (!isSignatureHex(signature)) return AUTH_ERRORS.malformedSignature;
  return null;
}

/** The cached node:crypto public key of an API key, or null when it is malformed. */
export function ed25519PublicKey(apiKeyHex: string): KeyObject | null {
  if (!isApiKeyHex(apiKeyHex)) return null;
  const id = apiKeyHex.toLowerCase();
  const cached = keyCache.get(id);
  if (cached !== undefined) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(id, 'hex')]), format: 'der', type: 'spki' });
  } catch {
    return null;
  }
  if (keyCache.size >= keyCacheCapacity) {
    const oldest = keyCache.keys().next();
    if (oldest.done !== true) keyCache.delete(oldest.value);
  }
  keyCache.set(id, key);
  return key;
}

/**
 * Verifies an Ed25519 signature made by an API key.
 *
 * @param apiKeyHex - The API key (raw public key, 64 hex).
 * @param message - The signed bytes; a string is taken as UTF-8.
 * @param signatureHex - 128 hex.
 * @returns true only for a valid signature; false for a bad one or any malformed input.
 * @example verifyEd25519(apiKey, '{"ad":"0xab…",…}', signature)
 */
export function verifyEd25519(apiKeyHex: string, message: Uint8Array | string, signatureHex: string): boolean {
  if (!isSignatureHex(signatureHex)) return false;
  const key = ed25519PublicKey(apiKeyHex);
  if (key === null) return false;
  const signature = hexToBytes(signatureHex);
  if (signature === null) return false;
  const bytes = typeof message === 'string' ? Buffer.from(message, 'utf8') : message;
  try {
    if (sodium !== undefined) {
      let raw = rawKeys.get(apiKeyHex);
      if (raw === undefined) {
        raw = Buffer.from(apiKeyHex, 'hex');
        if (rawKeys.size >= keyCacheCapacity) rawKeys.clear();
        rawKeys.set(apiKeyHex, raw);
      }
      return sodium.crypto_sign_verify_detached(Buffer.from(signature), Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), raw);
    }
    return verify(null, bytes, key, signature);
  } catch {
    return false;
  }
}
