/**
 * EVM addresses as the interface spells them.
 *
 * Contract: an address is accepted with an optional `0x`/`0X` prefix and exactly 40 hex digits
 * of any case (interface.md "Conventions"); it leaves normalized as `0x` + 40 lowercase digits,
 * which is also the form of the signed payload's `ad` and the form compared with a recovered
 * wallet signer.
 */

import { hexRunCase } from './hex.ts';

export type Address = `0x${string}`;

/**
 * `0x` + 40 lowercase hex digits, or null when `value` is not an address (`/^(0x|0X)?[0-9a-fA-F]{40}$/`,
 * checked by a character loop). An address already in that form is answered as it is: no new string.
 */
export function normalizeAddress(value: unknown): Address | null {
  if (typeof value !== 'string') return null;
  let start: number;
  if (value.length === 40) start = 0;
  else if (value.length === 42 && value.charCodeAt(0) === 0x30 && (value.charCodeAt(1) | 0x20) === 0x78) start = 2;
  else return null;
  const digits = hexRunCase(value, start);
  if (digits === 0) return null;
  if (digits === 1 && start === 2 && value.charCodeAt(1) === 0x78) return value as Address;
  return `0x${value.slice(start).toLowerCase()}`;
}
