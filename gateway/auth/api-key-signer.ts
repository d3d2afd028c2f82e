/**
 * Who authorized a createApiKey or revokeApiKey request: either signature form.
 *
 * Contract (supplement §12 "Key signatures": accept both for create and revoke): the EIP-712
 * forms (`eip712.ts`) are tried first, then the legacy EIP-191 message (`eip191.ts`, index 0
 * only). The answer is the lowercase signer matching `claimedAddress` when any form recovers it,
 * otherwise the first form's signer (so the caller's comparison fails: 401 "invalid signature",
 * supplement §5 "401 (signer ≠ address)"), or null when the signature is malformed (400).
 */
import type { Address } from './address.ts';
import { normalizeAddress } from './address.ts';
import { recoverLegacyCreateApiKeySigner, recoverLegacyRevokeApiKeySigner } from './eip191.ts';
import { recoverCreateApiKeySigner, recoverRevokeApiKeySigner, type CreateApiKeyMessage, type RevokeApiKeyMessage } from './eip712.ts';

export type KeySignatureScheme = 'eip712' | 'eip191';

export interface KeySigner {
  readonly signer: Address;
  readonly scheme: KeySignatureScheme;
}

/** The signer of a createApiKey request and the scheme that matched; null for a malformed signature. */
export async function recoverApiKeyCreator(
  message: CreateApiKeyMessage,
  signature: unknown,
  chainId: number,
  claimedAddress: string,
): Promise<KeySigner | null> {
  const typed = await recoverCreateApiKeySigner(message, signature, chainId, claimedAddress);
  return pick(typed, () => recoverLegacyCreateApiKeySigner(message, signature), claimedAddress);
}

/** The signer of a revokeApiKey request and the scheme that matched; null for a malformed signature. */
export async function recoverApiKeyRevoker(
  message: RevokeApiKeyMessage,
  signature: unknown,
  chainId: number,
  claimedAddress: string,
): Promise<KeySigner | null> {
  const typed = await recoverRevokeApiKeySigner(message, signature, chainId, claimedAddress);
  return pick(typed, () => recoverLegacyRevokeApiKeySigner(message, signature), claimedAddress);
}

async function pick(typed: Address | null, legacy: () => Promise<Address | null>, claimedAddress: string): Promise<KeySigner | null> {
  const claimed = normalizeAddress(claimedAddress);
  if (typed !== null && typed === claimed) return { signer: typed, scheme: 'eip712' };
  const personal = await legacy();
  if (personal !== null && personal === claimed) return { signer: personal, scheme: 'eip191' };
  if (typed !== null) return { signer: typed, scheme: 'eip712' };
  return personal === null ? null : { signer: personal, scheme: 'eip191' };
}
