/**
 * Hex strings at the edge: shape checks and decoding that never throw.
 *
 * Contract: `Buffer.from(text, 'hex')` silently stops at the first bad character, so every
 * decode here checks the whole string first and answers null on anything malformed. Upper and
 * lower case digits are both accepted (the interface asks clients for lowercase; perpsim
 * accepts liberally, supplement §12).
 */

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** True when `value` is a string of exactly `chars` hex digits (no `0x`). */
export function isHexOfLength(value: unknown, chars: number): value is string {
  return typeof value === 'string' && value.length === chars && HEX_DIGITS.test(value);
}

/** Drops one leading `0x` / `0X`. */
export function strip0x(value: string): string {
  return value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
}

/** Decodes an even-length hex string without prefix; null when malformed. */
export function hexToBytes(value: string): Uint8Array | null {
  if (value.length % 2 !== 0 || !HEX_DIGITS.test(value)) return null;
  return Buffer.from(value, 'hex');
}
