import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AUTH_ERRORS,
  checkEd25519Hex,
  checkSignedHeaders,
  clearEd25519KeyCache,
  configureEd25519KeyCache,
  ed25519PublicKey,
  headersFromHttp,
  verifyEd25519,
} from '../gateway/auth/index.ts';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

const SECRET = new Uint8Array(32).fill(3);
const API_KEY = Buffer.from(ed.getPublicKey(SECRET)).toString('hex');
const MESSAGE = '1700000000000000000setLeverage{"leverage":5}';
const SIGNATURE = Buffer.from(ed.sign(new TextEncoder().encode(MESSAGE), SECRET)).toString('hex');

describe('Ed25519 on node:crypto: the API key is the raw 32-byte public key in hex (64 chars), the signature 128 hex', () => {
  it('verifies a @noble/ed25519 signature, over a string or its UTF-8 bytes', () => {
    expect(API_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(SIGNATURE).toMatch(/^[0-9a-f]{128}$/);
    expect(verifyEd25519(API_KEY, MESSAGE, SIGNATURE)).toBe(true);
    expect(verifyEd25519(API_KEY, new TextEncoder().encode(MESSAGE), SIGNATURE)).toBe(true);
  });

  it('rejects another message or another key', () => {
    expect(verifyEd25519(API_KEY, `${MESSAGE} `, SIGNATURE)).toBe(false);
    const other = Buffer.from(ed.getPublicKey(new Uint8Array(32).fill(4))).toString('hex');
    expect(verifyEd25519(other, MESSAGE, SIGNATURE)).toBe(false);
  });

  it('accepts uppercase hex (accept liberally)', () => {
    expect(verifyEd25519(API_KEY.toUpperCase(), MESSAGE, SIGNATURE.toUpperCase())).toBe(true);
  });
});

describe('Ed25519: malformed keys and signatures return false, never throw', () => {
  it.each([
    ['a 63-character key', API_KEY.slice(1), SIGNATURE],
    ['a key with 0x', `0x${API_KEY}`, SIGNATURE],
    ['a non-hex key', `${API_KEY.slice(0, 63)}g`, SIGNATURE],
    ['a 32-byte string that is not a curve point', `${'ff'.repeat(31)}7f`, SIGNATURE],
    ['a 127-character signature', API_KEY, SIGNATURE.slice(1)],
    ['a non-hex signature', API_KEY, `${SIGNATURE.slice(0, 127)}z`],
    ['an all-zero signature', API_KEY, '0'.repeat(128)],
  ])('%s', (_name, key, signature) => {
    expect(() => verifyEd25519(key, MESSAGE, signature)).not.toThrow();
    expect(verifyEd25519(key, MESSAGE, signature)).toBe(false);
  });

  it('names the error: an absent or malformed key is 401, an absent signature 401, a malformed one 400', () => {
    expect(checkEd25519Hex(undefined, SIGNATURE)).toEqual({ status: 401, error: 'invalid API key' });
    expect(checkEd25519Hex('xyz', SIGNATURE)).toBe(AUTH_ERRORS.invalidApiKey);
    expect(checkEd25519Hex(API_KEY, '')).toEqual({ status: 401, error: 'missing signature' });
    expect(checkEd25519Hex(API_KEY, SIGNATURE.slice(2))).toEqual({ status: 400, error: 'signature must be 128 lowercase hex characters' });
    expect(checkEd25519Hex(API_KEY, SIGNATURE)).toBeNull();
  });
});

describe('Ed25519: KeyObjects are cached per API key', () => {
  afterEach(() => configureEd25519KeyCache(10_000));

  it('returns the same KeyObject for the same key in any case', () => {
    clearEd25519KeyCache();
    expect(ed25519PublicKey(API_KEY)).toBe(ed25519PublicKey(API_KEY.toUpperCase()));
  });

  it('evicts the oldest key beyond its capacity', () => {
    configureEd25519KeyCache(2);
    const keys = [5, 6, 7].map((n) => Buffer.from(ed.getPublicKey(new Uint8Array(32).fill(n))).toString('hex'));
    const first = ed25519PublicKey(keys[0]!);
    const second = ed25519PublicKey(keys[1]!);
    ed25519PublicKey(keys[2]!);
    expect(ed25519PublicKey(keys[1]!)).toBe(second);
    expect(ed25519PublicKey(keys[0]!)).not.toBe(first);
  });
});

describe('Headers: X-API-Key, X-Timestamp, X-Signature checked in that order', () => {
  const clocks = { wallNs: 1_700_000_000_000_000_000n, simNs: 1_700_000_000_000_000_000n };
  const headers = { 'x-api-key': API_KEY.toUpperCase(), 'x-timestamp': '1700000000000000000', 'x-signature': SIGNATURE };

  it('reads Node\'s header map and returns the lowercase key, the timestamp as sent and in ns', () => {
    expect(checkSignedHeaders(headersFromHttp(headers), clocks)).toEqual({
      ok: true,
      value: { apiKey: API_KEY, timestampText: '1700000000000000000', timestampNs: 1_700_000_000_000_000_000n, signature: SIGNATURE },
    });
  });

  it('answers the first problem a client can fix', () => {
    expect(checkSignedHeaders(headersFromHttp({ ...headers, 'x-api-key': undefined }), clocks)).toEqual({ ok: false, error: AUTH_ERRORS.invalidApiKey });
    expect(checkSignedHeaders(headersFromHttp({ ...headers, 'x-signature': 'abc' }), clocks)).toEqual({ ok: false, error: AUTH_ERRORS.malformedSignature });
    expect(checkSignedHeaders(headersFromHttp({ ...headers, 'x-timestamp': '1700000000000' }), clocks)).toEqual({ ok: false, error: AUTH_ERRORS.timestampNotNanoseconds });
  });

  it('REST batches need only a non-empty X-Signature; WebSocket batches none', () => {
    const batch = { ...headers, 'x-signature': 'anything' };
    expect(checkSignedHeaders(headersFromHttp(batch), clocks, 'present').ok).toBe(true);
    expect(checkSignedHeaders(headersFromHttp({ ...headers, 'x-signature': '' }), clocks, 'present')).toEqual({ ok: false, error: AUTH_ERRORS.invalidOrderSignature });
    expect(checkSignedHeaders({ apiKey: API_KEY, timestamp: '1700000000000000000' }, clocks, 'absent')).toMatchObject({ ok: true, value: { signature: '' } });
  });
});
