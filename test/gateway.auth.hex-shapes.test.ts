/**
 * The shape checks a signed request passes on every call (gateway/auth/hex.ts, address.ts) are
 * written as character loops; these properties pin them to the regular expressions they
 * replace: hex digits of a given length (API key, signature), even-length hex decoding, and an
 * address normalized to `0x` + 40 lowercase digits, on strings near and far from valid ones
 * (every case, prefixes, non-ASCII code units whose low byte is a hex digit).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeAddress } from '../gateway/auth/address.ts';
import { hexToBytes, isHexOfLength } from '../gateway/auth/hex.ts';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;
const ADDRESS = /^(0x|0X)?[0-9a-fA-F]{40}$/;
const referenceAddress = (value: unknown): string | null =>
  typeof value !== 'string' || !ADDRESS.test(value) ? null : `0x${value.slice(value.length - 40).toLowerCase()}`;

/** Mostly hex digits, now and then something that is not one. */
const nearHexChar = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...'0123456789abcdefABCDEF') },
  { weight: 1, arbitrary: fc.constantFrom('g', 'G', 'x', 'X', ' ', '/', ':', '@', '`', '\u0130', '\u0161', '\uff10', '\u0100', '\u1030', '\u00e1', '\u0000') },
);
const nearHex = (min: number, max: number) => fc.array(nearHexChar, { minLength: min, maxLength: max }).map((cs) => cs.join(''));
const nearAddress = fc.oneof(
  nearHex(38, 43),
  fc.tuple(fc.constantFrom('0x', '0X', 'x0', '00'), nearHex(38, 42)).map(([p, s]) => p + s),
  fc.string(),
);

describe('hex and address shape checks', () => {
  it('accept exactly what the regular expressions accept', () => {
    fc.assert(
      fc.property(nearHex(0, 130), fc.constantFrom(0, 2, 40, 64, 128), (value, chars) => {
        expect(isHexOfLength(value, chars)).toBe(value.length === chars && HEX_DIGITS.test(value));
        const bytes = hexToBytes(value);
        if (value.length % 2 !== 0 || !HEX_DIGITS.test(value)) expect(bytes).toBeNull();
        else expect(Buffer.from(bytes!).toString('hex')).toBe(value.toLowerCase());
      }),
      { numRuns: 3000 },
    );
    for (let u = 0; u < 0x10000; u++) expect(isHexOfLength('a' + String.fromCharCode(u), 2)).toBe(HEX_DIGITS.test(String.fromCharCode(u)));
  });

  it('normalize addresses as the regular expression and lowercasing do', () => {
    fc.assert(fc.property(nearAddress, (value) => {
      expect(normalizeAddress(value)).toBe(referenceAddress(value));
    }), { numRuns: 5000 });
    for (const value of [undefined, null, 42, {}, ['0x' + 'a'.repeat(40)]]) expect(normalizeAddress(value)).toBeNull();
  });
});
