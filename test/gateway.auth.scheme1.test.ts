import { createHash } from 'node:crypto';
import * as ed from '@noble/ed25519';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNED_OPS } from '../engine/spec.ts';
import {
  AUTH_ERRORS,
  SCHEME1_KEYS,
  checkBatchSignatureHeader,
  goodTilTimeNs,
  scheme1Candidates,
  scheme1Payload,
  verifyScheme1,
  type OrderPayloadFields,
} from '../gateway/auth/index.ts';

ed.hashes.sha512 = (message) => new Uint8Array(createHash('sha512').update(message).digest());

const SECRET = new Uint8Array(32).fill(7);
const API_KEY = Buffer.from(ed.getPublicKey(SECRET)).toString('hex');
const OTHER_SECRET = new Uint8Array(32).fill(8);

function signHex(message: string, secret: Uint8Array = SECRET): string {
  return Buffer.from(ed.sign(new TextEncoder().encode(message), secret)).toString('hex');
}

const ADDRESS = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
const AD = '0xabcdef0123456789abcdef0123456789abcdef01';
const TS = 1_700_000_000_000_000_000n;
/** goodTilTime 1703456000000000 µs, beyond 2^53 once in ns. */
const G = 1_703_456_000_000_000_000n;

function order(overrides: Partial<OrderPayloadFields> = {}): OrderPayloadFields {
  return {
    address: ADDRESS,
    accountIndex: 0,
    clientTimeNs: TS,
    goodTilTimeNs: G,
    marketId: 1,
    priceTicks: 1_000_000,
    sizeQuantums: 150_000,
    reduceOnly: false,
    side: 0,
    timeInForce: 0,
    ...overrides,
  };
}

describe('Scheme 1: the signed bytes are the compact JSON object, keys in alphabetical order, no whitespace', () => {
  it('lists each operation\'s keys in alphabetical order, as the interface table does', () => {
    for (const keys of Object.values(SCHEME1_KEYS)) {
      const names = keys.map((k) => k.key);
      expect(names).toEqual([...names].sort());
    }
    expect(SCHEME1_KEYS[SIGNED_OPS.placeOrder].map((k) => k.key)).toEqual(['ad', 'ai', 'c', 'ct', 'g', 'm', 'op', 'p', 'q', 'r', 's', 't', 'v']);
    expect(SCHEME1_KEYS[SIGNED_OPS.cancelOrder].map((k) => k.key)).toEqual(['ad', 'ai', 'c', 'ct', 'id', 'm', 'op', 'v']);
    expect(SCHEME1_KEYS[SIGNED_OPS.modifyOrder].map((k) => k.key)).toEqual(['ad', 'ai', 'c', 'ct', 'g', 'id', 'm', 'op', 'p', 'q', 'r', 's', 't', 'v']);
    expect(SCHEME1_KEYS[SIGNED_OPS.tpslPlace]).toEqual(SCHEME1_KEYS[SIGNED_OPS.placeOrder]);
    expect(SCHEME1_KEYS[SIGNED_OPS.withdraw].map((k) => k.key)).toEqual(['ad', 'ai', 'ct', 'n', 'op', 'q', 'v']);
  });

  it('placeOrder (op 1) without a client id omits c', () => {
    expect(scheme1Payload(SIGNED_OPS.placeOrder, order())).toBe(
      `{"ad":"${AD}","ai":0,"ct":1700000000000000000,"g":1703456000000000000,"m":1,"op":1,"p":1000000,"q":150000,"r":0,"s":0,"t":0,"v":1}`,
    );
  });

  it('placeOrder (op 1) with a client id puts c after ai', () => {
    const payload = scheme1Payload(SIGNED_OPS.placeOrder, order({ clientId: 'my-order-42', accountIndex: 3, side: 1, reduceOnly: true, timeInForce: 3 }));
    expect(payload).toBe(
      `{"ad":"${AD}","ai":3,"c":"my-order-42","ct":1700000000000000000,"g":1703456000000000000,"m":1,"op":1,"p":1000000,"q":150000,"r":1,"s":1,"t":3,"v":1}`,
    );
  });

  it('an empty client id counts as absent', () => {
    expect(scheme1Payload(SIGNED_OPS.placeOrder, order({ clientId: '' }))).toBe(scheme1Payload(SIGNED_OPS.placeOrder, order()));
  });

  it('untriggered TPSL place (op 4) has the placeOrder keys with op 4', () => {
    expect(scheme1Payload(SIGNED_OPS.tpslPlace, order({ reduceOnly: 1, side: 1, timeInForce: 2, priceTicks: 0 }))).toBe(
      `{"ad":"${AD}","ai":0,"ct":1700000000000000000,"g":1703456000000000000,"m":1,"op":4,"p":0,"q":150000,"r":1,"s":1,"t":2,"v":1}`,
    );
  });

  it('cancelOrder (op 2) by server order id: id, no c', () => {
    const payload = scheme1Payload(SIGNED_OPS.cancelOrder, { address: ADDRESS, accountIndex: 0, clientTimeNs: TS, orderId: '0x1f2e3d', marketId: 2 });
    expect(payload).toBe(`{"ad":"${AD}","ai":0,"ct":1700000000000000000,"id":"0x1f2e3d","m":2,"op":2,"v":1}`);
  });

  it('cancelOrder (op 2) by client id: c, no id', () => {
    const payload = scheme1Payload(SIGNED_OPS.cancelOrder, { address: ADDRESS, accountIndex: 1, clientId: 'my-order-42', clientTimeNs: TS, marketId: 2 });
    expect(payload).toBe(`{"ad":"${AD}","ai":1,"c":"my-order-42","ct":1700000000000000000,"m":2,"op":2,"v":1}`);
  });

  it('modifyOrder (op 3): id always, c when the order has one, g/r/s/t echo the resting order', () => {
    const payload = scheme1Payload(SIGNED_OPS.modifyOrder, { ...order({ clientId: 'my-order-42', priceTicks: 999_990, sizeQuantums: 300_000 }), orderId: '0x1f2e3d' });
    expect(payload).toBe(
      `{"ad":"${AD}","ai":0,"c":"my-order-42","ct":1700000000000000000,"g":1703456000000000000,"id":"0x1f2e3d","m":1,"op":3,"p":999990,"q":300000,"r":0,"s":0,"t":0,"v":1}`,
    );
    const withoutClientId = scheme1Payload(SIGNED_OPS.modifyOrder, { ...order(), orderId: '0x1f2e3d' });
    expect(withoutClientId).toBe(
      `{"ad":"${AD}","ai":0,"ct":1700000000000000000,"g":1703456000000000000,"id":"0x1f2e3d","m":1,"op":3,"p":1000000,"q":150000,"r":0,"s":0,"t":0,"v":1}`,
    );
  });

  it('API-key withdraw (op 5): ad, ai, ct, n, op, q, v with q in quote quantums', () => {
    const payload = scheme1Payload(SIGNED_OPS.withdraw, { address: ADDRESS, accountIndex: 0, clientTimeNs: TS, nonce: 'w-0001', amountQuantums: '25000000000' });
    expect(payload).toBe(`{"ad":"${AD}","ai":0,"ct":1700000000000000000,"n":"w-0001","op":5,"q":25000000000,"v":1}`);
  });

  it('a missing required key or a value of the wrong kind is a programming error (TypeError)', () => {
    expect(() => scheme1Payload(SIGNED_OPS.modifyOrder, { ...order(), orderId: '' })).toThrow(TypeError);
    expect(() => scheme1Payload(SIGNED_OPS.placeOrder, order({ priceTicks: 10.5 }))).toThrow(TypeError);
    expect(() => scheme1Payload(SIGNED_OPS.placeOrder, order({ address: '0x1234' }))).toThrow(TypeError);
  });
});

describe('Scheme 1: only ad is lowercased; c and id are signed exactly as sent', () => {
  it('lowercases ad (and writes the 0x prefix), keeps the case of c and id', () => {
    const payload = scheme1Payload(SIGNED_OPS.cancelOrder, {
      address: 'ABCDEF0123456789ABCDEF0123456789ABCDEF01',
      accountIndex: 0,
      clientId: 'MyOrder-1',
      clientTimeNs: TS,
      orderId: '0xAbC',
      marketId: 1,
    });
    expect(payload).toBe(`{"ad":"${AD}","ai":0,"c":"MyOrder-1","ct":1700000000000000000,"id":"0xAbC","m":1,"op":2,"v":1}`);
  });
});

describe('Scheme 1: integers as plain digits; ct and g (ns) exceed 2^53 and stay exact', () => {
  it('writes bigint, digit-string and safe-number values exactly', () => {
    const ct = 1_700_000_000_123_456_789n;
    const payload = scheme1Payload(SIGNED_OPS.placeOrder, order({ clientTimeNs: ct, goodTilTimeNs: '1703456789123456789', sizeQuantums: 1_000_000_000_000n }));
    expect(payload).toContain('"ct":1700000000123456789,');
    expect(payload).toContain('"g":1703456789123456789,');
    expect(payload).toContain('"q":1000000000000,');
    expect(payload).not.toMatch(/e\+?\d/);
  });

  it('refuses a JS number beyond 2^53 (it has already lost digits)', () => {
    expect(() => scheme1Payload(SIGNED_OPS.placeOrder, order({ clientTimeNs: 1.7e18 }))).toThrow(TypeError);
  });
});

describe('Conventions: g equals the request goodTilTime (µs) times 1000', () => {
  it('converts a µs string to ns', () => {
    expect(goodTilTimeNs('1703456789123456')).toBe(1_703_456_789_123_456_000n);
    expect(goodTilTimeNs(1_703_456_789_123_456n)).toBe(1_703_456_789_123_456_000n);
  });

  it('answers null for something that is not a non-negative integer', () => {
    expect(goodTilTimeNs('1.5')).toBeNull();
    expect(goodTilTimeNs('-1')).toBeNull();
    expect(goodTilTimeNs(Number.MAX_SAFE_INTEGER * 4)).toBeNull();
  });
});

describe('Scheme 1: a signature by the key over the payload verifies; tampered ones fail', () => {
  const fields = order({ clientId: 'abc-1' });
  const payload = scheme1Payload(SIGNED_OPS.placeOrder, fields);
  const signature = signHex(payload);

  it('verifies a @noble/ed25519 signature over the exact payload', () => {
    expect(verifyScheme1(API_KEY, signature, SIGNED_OPS.placeOrder, fields)).toBe(payload);
  });

  it('fails when a signed value differs (price, timestamp, op)', () => {
    expect(verifyScheme1(API_KEY, signature, SIGNED_OPS.placeOrder, { ...fields, priceTicks: 1_000_001 })).toBeNull();
    expect(verifyScheme1(API_KEY, signature, SIGNED_OPS.placeOrder, { ...fields, clientTimeNs: TS + 1n })).toBeNull();
    expect(verifyScheme1(API_KEY, signature, SIGNED_OPS.tpslPlace, fields)).toBeNull();
  });

  it('fails when the signature is altered or made by another key', () => {
    const flipped = (signature[0] === '0' ? '1' : '0') + signature.slice(1);
    expect(verifyScheme1(API_KEY, flipped, SIGNED_OPS.placeOrder, fields)).toBeNull();
    expect(verifyScheme1(API_KEY, signHex(payload, OTHER_SECRET), SIGNED_OPS.placeOrder, fields)).toBeNull();
  });

  it('fails (without throwing) on a malformed key or signature', () => {
    expect(verifyScheme1(API_KEY.slice(2), signature, SIGNED_OPS.placeOrder, fields)).toBeNull();
    expect(verifyScheme1(API_KEY, signature.slice(2), SIGNED_OPS.placeOrder, fields)).toBeNull();
  });

  it('verifies cancel and API-key withdraw payloads too', () => {
    const cancel = { address: ADDRESS, accountIndex: 0, clientTimeNs: TS, orderId: '0x1f', marketId: 1 };
    expect(verifyScheme1(API_KEY, signHex(scheme1Payload(SIGNED_OPS.cancelOrder, cancel)), SIGNED_OPS.cancelOrder, cancel)).not.toBeNull();
    const withdraw = { address: ADDRESS, accountIndex: 0, clientTimeNs: TS, nonce: 'n1', amountQuantums: 1_000_000_000n };
    expect(verifyScheme1(API_KEY, signHex(scheme1Payload(SIGNED_OPS.withdraw, withdraw)), SIGNED_OPS.withdraw, withdraw)).not.toBeNull();
  });
});

describe('supplement §12: the clientId is verified as sent, then lowercased', () => {
  const fields = order({ clientId: 'MyOrder-1' });

  it('accepts a signature over c exactly as sent', () => {
    const payload = scheme1Payload(SIGNED_OPS.placeOrder, fields);
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.placeOrder, fields)).toBe(payload);
  });

  it('accepts a signature over the lowercased c while the body keeps the original case', () => {
    const lowered = scheme1Payload(SIGNED_OPS.placeOrder, { ...fields, clientId: 'myorder-1' });
    expect(verifyScheme1(API_KEY, signHex(lowered), SIGNED_OPS.placeOrder, fields)).toBe(lowered);
  });

  it('rejects any other case change', () => {
    const upper = scheme1Payload(SIGNED_OPS.placeOrder, { ...fields, clientId: 'MYORDER-1' });
    expect(verifyScheme1(API_KEY, signHex(upper), SIGNED_OPS.placeOrder, fields)).toBeNull();
  });

  it('tries the sent case first and adds no lowercase candidate when there is nothing to lower', () => {
    expect(scheme1Candidates(SIGNED_OPS.placeOrder, fields)).toHaveLength(2);
    expect(scheme1Candidates(SIGNED_OPS.placeOrder, fields)[0]).toContain('"c":"MyOrder-1"');
    expect(scheme1Candidates(SIGNED_OPS.placeOrder, order({ clientId: 'lower-1' }))).toHaveLength(1);
  });

  it('applies to cancel by client id', () => {
    const cancel = { address: ADDRESS, accountIndex: 0, clientId: 'Cx-9', clientTimeNs: TS, marketId: 1 };
    const lowered = scheme1Payload(SIGNED_OPS.cancelOrder, { ...cancel, clientId: 'cx-9' });
    expect(verifyScheme1(API_KEY, signHex(lowered), SIGNED_OPS.cancelOrder, cancel)).toBe(lowered);
  });
});

describe('supplement §12: modify accepts the interface form, one of id/c, and the older form without g/r/s/t', () => {
  const modify = { ...order({ clientId: 'Mod-7', priceTicks: 999_000 }), orderId: '0x1f2e3d' };
  const body = `"ad":"${AD}","ai":0`;

  it('verifies the interface form (id and c, with g/r/s/t)', () => {
    const payload = scheme1Payload(SIGNED_OPS.modifyOrder, modify);
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, modify)).toBe(payload);
  });

  it('verifies the newer form naming only c, also when the gateway knows no orderId', () => {
    const payload = `{${body},"c":"Mod-7","ct":1700000000000000000,"g":1703456000000000000,"m":1,"op":3,"p":999000,"q":150000,"r":0,"s":0,"t":0,"v":1}`;
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, modify)).toBe(payload);
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, { ...modify, orderId: undefined })).toBe(payload);
  });

  it('verifies the newer form naming only id', () => {
    const payload = `{${body},"ct":1700000000000000000,"g":1703456000000000000,"id":"0x1f2e3d","m":1,"op":3,"p":999000,"q":150000,"r":0,"s":0,"t":0,"v":1}`;
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, modify)).toBe(payload);
  });

  it('verifies the older form without g/r/s/t, lowercased c included', () => {
    const payload = `{${body},"c":"mod-7","ct":1700000000000000000,"id":"0x1f2e3d","m":1,"op":3,"p":999000,"q":150000,"v":1}`;
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, modify)).toBe(payload);
  });

  it('still rejects a signature over another price', () => {
    const payload = scheme1Payload(SIGNED_OPS.modifyOrder, { ...modify, priceTicks: 998_000 });
    expect(verifyScheme1(API_KEY, signHex(payload), SIGNED_OPS.modifyOrder, modify)).toBeNull();
  });

  it('lists each distinct form once', () => {
    const candidates = scheme1Candidates(SIGNED_OPS.modifyOrder, modify);
    expect(new Set(candidates).size).toBe(candidates.length);
    // Six forms (interface, id only, c only, and the same three without g/r/s/t); the four with c
    // also lowercased.
    expect(candidates).toHaveLength(10);
  });
});

describe('Scheme 1 rule 4: on REST a batch\'s X-Signature must be present and non-empty, its value unchecked', () => {
  it('rejects every element with "invalid order signature" when absent or empty', () => {
    expect(checkBatchSignatureHeader(undefined)).toEqual(AUTH_ERRORS.invalidOrderSignature);
    expect(checkBatchSignatureHeader('')).toEqual({ status: 401, error: 'invalid order signature' });
  });

  it('accepts any non-empty value', () => {
    expect(checkBatchSignatureHeader('not-even-hex')).toBeNull();
  });
});

describe('Scheme 1: an order payload, whatever its values, is the compact sorted-key JSON', () => {
  it('matches a reference writer for any valid place / TPSL fields (ints as number, bigint or digits; c optional)', () => {
    const int = fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String));
    const fields = fc.record({
      address: fc.tuple(fc.constantFrom('0x', '0X', ''), fc.stringMatching(/^[0-9a-fA-F]{40}$/)).map(([prefix, hex]) => prefix + hex),
      accountIndex: fc.integer({ min: 0, max: 9 }),
      clientId: fc.option(fc.string(), { nil: undefined }),
      clientTimeNs: int,
      goodTilTimeNs: int,
      marketId: fc.integer({ min: 0, max: 1000 }),
      priceTicks: int,
      sizeQuantums: int,
      reduceOnly: fc.constantFrom(true, false, 0 as const, 1 as const),
      side: fc.constantFrom(0 as const, 1 as const),
      timeInForce: fc.constantFrom(0 as const, 1 as const, 2 as const, 3 as const),
    });
    fc.assert(
      fc.property(fields, fc.constantFrom(SIGNED_OPS.placeOrder, SIGNED_OPS.tpslPlace), (f, op) => {
        const digits = (v: number | bigint | string): string => BigInt(v).toString();
        const entries: [string, string][] = [
          ['ad', JSON.stringify('0x' + f.address.slice(-40).toLowerCase())],
          ['ai', String(f.accountIndex)],
          ...(f.clientId === undefined || f.clientId === '' ? [] : [['c', JSON.stringify(f.clientId)] as [string, string]]),
          ['ct', digits(f.clientTimeNs)],
          ['g', digits(f.goodTilTimeNs)],
          ['m', String(f.marketId)],
          ['op', String(op)],
          ['p', digits(f.priceTicks)],
          ['q', digits(f.sizeQuantums)],
          ['r', f.reduceOnly === true || f.reduceOnly === 1 ? '1' : '0'],
          ['s', String(f.side)],
          ['t', String(f.timeInForce)],
          ['v', '1'],
        ];
        expect(scheme1Payload(op, f)).toBe(`{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`);
      }),
      { numRuns: 300 },
    );
  });
});
