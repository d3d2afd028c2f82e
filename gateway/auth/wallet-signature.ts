/**
 * Wallet (secp256k1) signatures as clients send them, normalized to 65 bytes.
 *
 * Contract (supplement §5): `signature` is `{r, s, v}` in hex, `0x` optional; `v` is 0/1,
 * 27/28, or EIP-155 style (`chainId·2 + 35 + bit`), as a number or a string (`"0x1b"`,
 * `"0x1c"`, `"27"`, `"1"`). `r` and `s` may come without leading zeros (Python's `hex(int)`
 * drops them), so each is left-padded to 32 bytes; more than 64 digits is malformed. A 65-byte
 * hex string (`0x` + r‖s‖v, what viem and ethers print) is accepted too. The result is
 * `0x` + r‖s‖v with v written 27/28, the form viem's recover functions take; null means
 * malformed (answer `AUTH_ERRORS.malformedWalletSignature`).
 */
import type * as Viem from 'viem';
import { strip0x } from './hex.ts';

export type Hex = `0x${string}`;

/** viem, which recovers the signers, takes a second or more to load: it loads on the first wallet signature, not at start-up (`npm start` has 2 s). */
export const loadViem = (): Promise<typeof Viem> => import('viem');

export interface WalletSignatureParts {
  readonly r: string;
  readonly s: string;
  readonly v: string | number | bigint;
}

const HEX_1_TO_64 = /^[0-9a-fA-F]{1,64}$/;
const HEX_130 = /^[0-9a-fA-F]{130}$/;

/**
 * `{r, s, v}` (or a 65-byte hex string) to a 65-byte `0x` signature with v 27/28; null when malformed.
 *
 * @example normalizeWalletSignature({ r: '0x1', s: '0x2', v: '0x1c' })
 *   // '0x0000…0001' + '0000…0002' + '1c'
 */
export function normalizeWalletSignature(value: unknown): Hex | null {
  if (typeof value === 'string') {
    const hex = strip0x(value);
    if (!HEX_130.test(hex)) return null;
    return assemble(hex.slice(0, 64), hex.slice(64, 128), BigInt(`0x${hex.slice(128)}`));
  }
  if (typeof value !== 'object' || value === null) return null;
  const { r, s, v } = value as Partial<Record<'r' | 's' | 'v', unknown>>;
  const rHex = word(r);
  const sHex = word(s);
  const vInt = recoveryValue(v);
  if (rHex === null || sHex === null || vInt === null) return null;
  return assemble(rHex, sHex, vInt);
}

/** The recovery bit (0 or 1) a `v` value stands for; null when it is none of the accepted forms. */
export function recoveryBit(v: bigint): 0 | 1 | null {
  if (v === 0n || v === 1n) return v === 0n ? 0 : 1;
  if (v === 27n || v === 28n) return v === 27n ? 0 : 1;
  if (v >= 35n) return (v - 35n) % 2n === 0n ? 0 : 1;
  return null;
}

function assemble(r: string, s: string, v: bigint): Hex | null {
  const bit = recoveryBit(v);
  if (bit === null) return null;
  return `0x${r.toLowerCase()}${s.toLowerCase()}${bit === 0 ? '1b' : '1c'}`;
}

function word(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const hex = strip0x(value);
  return HEX_1_TO_64.test(hex) ? hex.padStart(64, '0') : null;
}

function recoveryValue(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value >= 0n ? value : null;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value !== 'string') return null;
  if (/^0[xX][0-9a-fA-F]{1,16}$/.test(value)) return BigInt(`0x${value.slice(2)}`);
  if (/^[0-9]{1,20}$/.test(value)) return BigInt(value);
  return null;
}
