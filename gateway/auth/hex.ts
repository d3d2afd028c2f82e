/**
 * Hex strings at the edge: shape checks and decoding that never throw.
 *
 * Contract: `Buffer.from(text, 'hex')` silently stops at the first bad character, so every
 * decode here checks the whole string first and answers null on anything malformed. Upper and
 * lower case digits are both accepted (the interface asks clients for lowercase; perpsim
 * accepts liberally, supplement §12).
 */

/** Hex digit classes by character code: 1 for 0-9 and a-f, 2 for A-F, 0 for anything else. */
const HEX_CLASS = new Uint8Array(128);
for (const c of '0123456789abcdef') HEX_CLASS[c.charCodeAt(0)] = 1;
for (const c of 'ABCDEF') HEX_CLASS[c.charCodeAt(0)] = 2;

/**
 * Whether `value` from `start` on is all hex digits: 0 when it is not, 1 when it is and none is
 * uppercase (an empty run included), 3 or 2 when some are. A character loop rather than
 * `/^[0-9a-fA-F]*$/`: every signed request checks an API key, a signature and an address, and
 * the loop takes about half the regular expression's time (test/gateway.auth.hex-shapes.test.ts
 * pins the two to each other).
 */
export function hexRunCase(value: string, start: number): number {
  let seen = 0;
  for (let i = start; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const k = c < 128 ? HEX_CLASS[c]! : 0;
    if (k === 0) return 0;
    seen |= k;
  }
  return seen === 0 ? 1 : seen;
}

/** True when `value` is a string of exactly `chars` hex digits (no `0x`). */
export function isHexOfLength(value: unknown, chars: number): value is string {
  return typeof value === 'string' && value.length === chars && hexRunCase(value, 0) !== 0;
}

/** Drops one leading `0x` / `0X`. */
export function strip0x(value: string): string {
  return value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
}

/** Decodes an even-length hex string without prefix; null when malformed. */
export function hexToBytes(value: string): Uint8Array | null {
  if (value.length % 2 !== 0 || hexRunCase(value, 0) === 0) return null;
  return Buffer.from(value, 'hex');
}
