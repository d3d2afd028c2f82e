/**
 * Legacy EIP-191 `personal_sign` API key signatures.
 *
 * Contract (supplement §5, §11, §12): onboarding scripts sign createApiKey with EIP-191 over the
 * exact JSON string `{"apiWalletName":"…","apiWalletPublicKey":"…","validUntil":N}` and
 * revokeApiKey over `{"apiWalletName":"…","apiWalletPublicKey":"…"}` — that key order, no
 * spaces, strings as sent (JSON-escaped), `validUntil` the epoch-ms integer. The form covers
 * subaccount 0 only: the message does not name an index, so a request for any other
 * `accountIndex` gets null (it cannot have been authorized by this form).
 *
 * Functions answer the signer's lowercase address, or null; they never throw.
 */
import type { Address } from './address.ts';
import { loadViem, normalizeWalletSignature } from './wallet-signature.ts';

/** The only subaccount the legacy form covers. */
export const LEGACY_KEY_SIGNATURE_ACCOUNT_INDEX = 0;

export interface LegacyCreateApiKeyMessage {
  readonly apiWalletName: string;
  readonly apiWalletPublicKey: string;
  /** Epoch ms. */
  readonly validUntil: bigint | number;
  /** The request's accountIndex (default 0); anything else cannot be authorized by this form. */
  readonly accountIndex?: number | undefined;
}

export interface LegacyRevokeApiKeyMessage {
  readonly apiWalletName: string;
  readonly apiWalletPublicKey: string;
  readonly accountIndex?: number | undefined;
}

/** The exact string a legacy createApiKey signature covers. */
export function legacyCreateApiKeyText(message: LegacyCreateApiKeyMessage): string {
  const validUntil = typeof message.validUntil === 'bigint' ? message.validUntil.toString() : BigInt(message.validUntil).toString();
  return `{"apiWalletName":${JSON.stringify(message.apiWalletName)},"apiWalletPublicKey":${JSON.stringify(message.apiWalletPublicKey)},"validUntil":${validUntil}}`;
}

/** The exact string a legacy revokeApiKey signature covers. */
export function legacyRevokeApiKeyText(message: LegacyRevokeApiKeyMessage): string {
  return `{"apiWalletName":${JSON.stringify(message.apiWalletName)},"apiWalletPublicKey":${JSON.stringify(message.apiWalletPublicKey)}}`;
}

/** The lowercase address that `personal_sign`ed `text`; null for a malformed signature. */
export async function recoverPersonalSignSigner(text: string, signature: unknown): Promise<Address | null> {
  const normalized = normalizeWalletSignature(signature);
  if (normalized === null) return null;
  try {
    const address = await (await loadViem()).recoverMessageAddress({ message: text, signature: normalized });
    return address.toLowerCase() as Address;
  } catch {
    return null;
  }
}

/** The wallet that signed a legacy createApiKey message; null for a non-zero accountIndex. */
export async function recoverLegacyCreateApiKeySigner(message: LegacyCreateApiKeyMessage, signature: unknown): Promise<Address | null> {
  if (!coversIndex(message.accountIndex)) return null;
  if (typeof message.validUntil === 'number' && !Number.isSafeInteger(message.validUntil)) return null;
  return recoverPersonalSignSigner(legacyCreateApiKeyText(message), signature);
}

/** The wallet that signed a legacy revokeApiKey message; null for a non-zero accountIndex. */
export async function recoverLegacyRevokeApiKeySigner(message: LegacyRevokeApiKeyMessage, signature: unknown): Promise<Address | null> {
  if (!coversIndex(message.accountIndex)) return null;
  return recoverPersonalSignSigner(legacyRevokeApiKeyText(message), signature);
}

function coversIndex(accountIndex: number | undefined): boolean {
  return accountIndex === undefined || accountIndex === LEGACY_KEY_SIGNATURE_ACCOUNT_INDEX;
}
