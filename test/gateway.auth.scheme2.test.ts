import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  lastPathSegment,
  scheme2Action,
  scheme2Actions,
  scheme2Candidates,
  scheme2Message,
  signedGetMessage,
  verifyScheme2,
  verifySignedGet,
} from '../gateway/auth/index.ts';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

const SECRET = new Uint8Array(32).fill(11);
const API_KEY = Buffer.from(ed.getPublicKey(SECRET)).toString('hex');

function signHex(message: string): string {
  return Buffer.from(ed.sign(new TextEncoder().encode(message), SECRET)).toString('hex');
}

const ADDRESS = '0xab5801a7d398351b8be11c439e05c5b3259aec9b';
const TS = '1700000000000000000';

describe('canonical_json: keys sorted lexicographically at every level, arrays in order, no whitespace', () => {
  it('sorts nested object keys and keeps array order', () => {
    const value = { b: { d: 1, c: [{ z: 1, a: 2 }, 3, [2, 1]] }, a: 'x', A: null };
    expect(canonicalJson(value)).toBe('{"A":null,"a":"x","b":{"c":[{"a":2,"z":1},3,[2,1]],"d":1}}');
  });

  it('agrees with JSON.stringify on an already sorted object', () => {
    const value = { accountIndex: 0, address: ADDRESS, flag: true, ids: [{ created_at_ns: '1', notification_id: 'n' }], marketId: 1, note: 'a "quoted"\nline' };
    expect(canonicalJson(value)).toBe(JSON.stringify(value));
  });

  it('writes bigints and integral numbers as plain digits, never in exponent form', () => {
    expect(canonicalJson({ ns: 1_703_456_789_123_456_789n, big: 1e21, neg: -5, zero: -0 })).toBe(
      '{"big":1000000000000000000000,"neg":-5,"ns":1703456789123456789,"zero":0}',
    );
  });

  it('leaves out undefined properties, writes null and booleans', () => {
    expect(canonicalJson({ b: undefined, a: null, c: false })).toBe('{"a":null,"c":false}');
  });

  it('refuses non-finite numbers', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(TypeError);
  });
});

describe('Scheme 2: signature over timestamp + action + canonical_json(body), no delimiters', () => {
  const body = { marketId: 1, address: ADDRESS, accountIndex: 0 };
  const expected = `1700000000000000000cancelAllOrders{"accountIndex":0,"address":"${ADDRESS}","marketId":1}`;

  it('builds the supplement §1 example byte for byte', () => {
    expect(scheme2Message(TS, 'cancelAllOrders', body)).toBe(expected);
    expect(scheme2Message(1_700_000_000_000_000_000n, 'cancelAllOrders', body)).toBe(expected);
  });

  it('verifies a signature over it whatever the key order of the received body; the query is not signed', () => {
    const signature = signHex(expected);
    expect(verifyScheme2(API_KEY, signature, { timestamp: TS, path: `/v1/cancelAllOrders?address=${ADDRESS}`, body })).toBe(expected);
    expect(verifyScheme2(API_KEY, signature, { timestamp: TS, path: '/v1/cancelAllOrders', body: { accountIndex: 0, marketId: 1, address: ADDRESS } })).toBe(expected);
  });

  it('rejects a changed body, timestamp or action', () => {
    const signature = signHex(expected);
    expect(verifyScheme2(API_KEY, signature, { timestamp: TS, path: '/v1/cancelAllOrders', body: { ...body, marketId: 2 } })).toBeNull();
    expect(verifyScheme2(API_KEY, signature, { timestamp: '1700000000000000001', path: '/v1/cancelAllOrders', body })).toBeNull();
    expect(verifyScheme2(API_KEY, signature, { timestamp: TS, path: '/v1/scheduleCancel', body })).toBeNull();
  });

  it('signs nested bodies canonically (markSeen ids)', () => {
    const markSeen = { ids: [{ notification_id: 'b', created_at_ns: '1700000000000000002' }], address: ADDRESS };
    expect(scheme2Message(TS, 'x', markSeen)).toBe(
      `${TS}x{"address":"${ADDRESS}","ids":[{"created_at_ns":"1700000000000000002","notification_id":"b"}]}`,
    );
  });
});

describe('Scheme 2: a request with no body signs timestamp + action', () => {
  it('writes nothing after the action', () => {
    expect(scheme2Message(TS, 'authenticate')).toBe(`${TS}authenticate`);
    expect(scheme2Message(TS, 'authenticate', null)).toBe(`${TS}authenticate`);
  });

  it('over WebSocket the action is the request type', () => {
    const message = `${TS}authenticate`;
    expect(verifyScheme2(API_KEY, signHex(message), { timestamp: TS, action: 'authenticate' })).toBe(message);
  });

  it('accepts liberally: an empty-object body also verifies against a signature without a body', () => {
    const signature = signHex(`${TS}scheduleCancel`);
    expect(verifyScheme2(API_KEY, signature, { timestamp: TS, path: '/v1/scheduleCancel', body: {} })).toBe(`${TS}scheduleCancel`);
  });
});

describe('Scheme 2: action is the final camelCase path segment; notifications paths are signed verbatim', () => {
  it('takes the last segment, without query or trailing slash', () => {
    expect(scheme2Action('/v1/setLeverage')).toBe('setLeverage');
    expect(scheme2Action('/v1/affiliate/modifyCode?address=0x1')).toBe('modifyCode');
    expect(lastPathSegment('/v1/adjustIsolatedMargin/')).toBe('adjustIsolatedMargin');
  });

  it('uses the whole path for notifications, the colon suffix included, then the last segment as fallback', () => {
    expect(scheme2Actions('/v1/api-meta/notifications:markSeen')).toEqual(['/v1/api-meta/notifications:markSeen', 'notifications:markSeen']);
    expect(scheme2Actions('/v1/api-meta/notifications/tokens')).toEqual(['/v1/api-meta/notifications/tokens', 'tokens']);
    const body = { all: true };
    const message = `${TS}/v1/api-meta/notifications:markSeen{"all":true}`;
    expect(verifyScheme2(API_KEY, signHex(message), { timestamp: TS, path: '/v1/api-meta/notifications:markSeen', body })).toBe(message);
  });
});

describe('Scheme 2, accepting liberally: the body exactly as received also verifies', () => {
  it('accepts a signature over the raw bytes when they differ from the canonical form', () => {
    const rawBody = '{"address":"0xab5801a7d398351b8be11c439e05c5b3259aec9b","leverage":5.0,"marketId":1}';
    const signature = signHex(`${TS}setLeverage${rawBody}`);
    const request = { timestamp: TS, path: '/v1/setLeverage', body: JSON.parse(rawBody) as { leverage: number }, rawBody };
    expect(scheme2Candidates(request)).toHaveLength(2);
    expect(verifyScheme2(API_KEY, signature, request)).toBe(`${TS}setLeverage${rawBody}`);
  });
});

describe('signed GET: `<ts><last path segment>`, no `{}`', () => {
  it('builds and verifies the affiliate read message', () => {
    expect(signedGetMessage(TS, '/v1/affiliate/inviteCodes?address=0x1')).toBe(`${TS}inviteCodes`);
    expect(verifySignedGet(API_KEY, signHex(`${TS}inviteCodes`), TS, '/v1/affiliate/inviteCodes')).toBe(`${TS}inviteCodes`);
    expect(verifySignedGet(API_KEY, signHex(`${TS}inviteCodes{}`), TS, '/v1/affiliate/inviteCodes')).toBeNull();
  });
});
