/**
 * EVM addresses as the interface spells them.
 *
 * Contract: an address is accepted with an optional `0x`/`0X` prefix and exactly 40 hex digits
 * of any case (interface.md "Conventions"); it leaves normalized as `0x` + 40 lowercase digits,
 * which is also the form of the signed payload's `ad` and the form compared with a recovered
 * wallet signer.
 */

const ADDRESS = /^(0x|0X)?[0-9a-fA-F]{40}$/;

export type Address = `0x${string}`;

/** `0x` + 40 lowercase hex digits, or null when `value` is not an address. */
export function normalizeAddress(value: unknown): Address | null {
  if (typeof value !== 'string' || !ADDRESS.test(value)) return null;
  return `0x${value.slice(value.length - 40).toLowerCase()}`;
}
