/**
 * EIP-712 typed-data wallet signatures: API key registration and revocation, withdraw, transfer.
 *
 * Contract (supplement §5):
 * - API key domain `{name: "Arcus API Key", version: "1", chainId}` with NO verifyingContract;
 *   type `CreateApiKey(string apiWalletName,string apiWalletPublicKey,uint256 validUntil,uint8 accountIndex)`,
 *   where index 0 may drop `accountIndex`; with a nonce
 *   `CreateApiKey(string apiWalletName,string apiWalletPublicKey,uint256 validUntil,string nonce,uint8 accountIndex)`,
 *   index 0 again optionally without `accountIndex`.
 * - Withdraw domain `{name: "Arcus Withdraw", version: "1", chainId, verifyingContract}`,
 *   `Withdraw(address ethereumAddress,uint8 accountIndex,uint256 amount,string nonce)`.
 * - Transfer domain `{name: "Arcus Transfer", version: "1", chainId, verifyingContract}`,
 *   `Transfer(address ethereumAddress,uint8 fromAccountIndex,uint8 toAccountIndex,uint256 amount,string nonce)`.
 * - RevokeApiKey: the venue's type is unpublished (supplement §12). perpsim's choice, under the
 *   API key domain: `RevokeApiKey(string apiWalletName,string apiWalletPublicKey)`, extended the
 *   way CreateApiKey is (validUntil left out, since a revoke has none):
 *   `RevokeApiKey(string apiWalletName,string apiWalletPublicKey,uint8 accountIndex)` for a
 *   non-zero index (index 0 may use either), and with a nonce
 *   `RevokeApiKey(string apiWalletName,string apiWalletPublicKey,string nonce,uint8 accountIndex)`
 *   (index 0 may drop `accountIndex`). EIP-191 revoke (`eip191.ts`) is the published form.
 *
 * Every function answers the recovered signer as a lowercase address, or null for a malformed
 * signature or message; it never throws. Recovery always yields some address, so the caller
 * compares it with the claimed one. Where several type forms are possible (create, revoke),
 * give `claimedAddress`: the first form recovering it wins; otherwise the first form's signer
 * is returned (and the caller's comparison fails).
 *
 * Forms with a nonce are tried first when a nonce is sent; the forms without one are tried
 * after them, because a request that carries no nonce at all is accepted too, so an unsigned
 * nonce weakens nothing (it stays single-use at the gateway).
 */
import type * as Viem from 'viem';
import type { Address } from './address.ts';
import { normalizeAddress } from './address.ts';
import type { WalletDomainConfig } from './chains.ts';
import { loadViem, normalizeWalletSignature } from './wallet-signature.ts';

export const API_KEY_DOMAIN_NAME = 'Arcus API Key';
export const WITHDRAW_DOMAIN_NAME = 'Arcus Withdraw';
export const TRANSFER_DOMAIN_NAME = 'Arcus Transfer';
export const DOMAIN_VERSION = '1';

export interface TypedField {
  readonly name: string;
  readonly type: string;
}

export interface TypedDataDomain {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract?: Address;
}

/** One typed-data payload a wallet may have signed. */
export interface TypedDataForm {
  readonly domain: TypedDataDomain;
  readonly types: { readonly [type: string]: readonly TypedField[] };
  readonly primaryType: string;
  readonly message: { readonly [field: string]: unknown };
}

const NAME: TypedField = { name: 'apiWalletName', type: 'string' };
const PUBLIC_KEY: TypedField = { name: 'apiWalletPublicKey', type: 'string' };
const VALID_UNTIL: TypedField = { name: 'validUntil', type: 'uint256' };
const NONCE: TypedField = { name: 'nonce', type: 'string' };
const ACCOUNT_INDEX: TypedField = { name: 'accountIndex', type: 'uint8' };

/** CreateApiKey's four published forms. */
export const CREATE_API_KEY_TYPES = {
  withIndex: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL, ACCOUNT_INDEX] },
  withoutIndex: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL] },
  nonceWithIndex: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL, NONCE, ACCOUNT_INDEX] },
  nonceWithoutIndex: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL, NONCE] },
} as const;

/** RevokeApiKey: perpsim's choice (the venue's is unpublished), see the module comment. */
export const REVOKE_API_KEY_TYPES = {
  withIndex: { RevokeApiKey: [NAME, PUBLIC_KEY, ACCOUNT_INDEX] },
  withoutIndex: { RevokeApiKey: [NAME, PUBLIC_KEY] },
  nonceWithIndex: { RevokeApiKey: [NAME, PUBLIC_KEY, NONCE, ACCOUNT_INDEX] },
  nonceWithoutIndex: { RevokeApiKey: [NAME, PUBLIC_KEY, NONCE] },
} as const;

export const WITHDRAW_TYPES = {
  Withdraw: [
    { name: 'ethereumAddress', type: 'address' },
    { name: 'accountIndex', type: 'uint8' },
    { name: 'amount', type: 'uint256' },
    { name: 'nonce', type: 'string' },
  ],
} as const;

export const TRANSFER_TYPES = {
  Transfer: [
    { name: 'ethereumAddress', type: 'address' },
    { name: 'fromAccountIndex', type: 'uint8' },
    { name: 'toAccountIndex', type: 'uint8' },
    { name: 'amount', type: 'uint256' },
    { name: 'nonce', type: 'string' },
  ],
} as const;

export interface CreateApiKeyMessage {
  readonly apiWalletName: string;
  /** The body's `publicKey`, exactly as sent (64 hex, no 0x). */
  readonly apiWalletPublicKey: string;
  /** Epoch ms. */
  readonly validUntil: bigint;
  /** 0-9 or 255 (every subaccount). */
  readonly accountIndex: number;
  readonly nonce?: string | undefined;
}

export interface RevokeApiKeyMessage {
  readonly apiWalletName: string;
  readonly apiWalletPublicKey: string;
  readonly accountIndex: number;
  readonly nonce?: string | undefined;
}

export interface WithdrawMessage {
  readonly ethereumAddress: string;
  readonly accountIndex: number;
  /** Quote quantums (1e9 = 1 USD). */
  readonly amount: bigint;
  readonly nonce: string;
}

export interface TransferMessage {
  readonly ethereumAddress: string;
  readonly fromAccountIndex: number;
  readonly toAccountIndex: number;
  readonly amount: bigint;
  readonly nonce: string;
}

/** The API key domain: no verifyingContract. */
export function apiKeyDomain(chainId: number): TypedDataDomain {
  return { name: API_KEY_DOMAIN_NAME, version: DOMAIN_VERSION, chainId };
}

/** The Withdraw or Transfer domain; null when the network has no verifyingContract configured. */
export function vaultDomain(name: typeof WITHDRAW_DOMAIN_NAME | typeof TRANSFER_DOMAIN_NAME, config: WalletDomainConfig): TypedDataDomain | null {
  const contract = config.verifyingContract === null ? null : normalizeAddress(config.verifyingContract);
  if (contract === null) return null;
  return { name, version: DOMAIN_VERSION, chainId: config.chainId, verifyingContract: contract };
}

/** The CreateApiKey forms a wallet may have signed for `message`, in the order they are tried. */
export function createApiKeyForms(message: CreateApiKeyMessage, chainId: number): TypedDataForm[] {
  const domain = apiKeyDomain(chainId);
  const base = { apiWalletName: message.apiWalletName, apiWalletPublicKey: message.apiWalletPublicKey, validUntil: message.validUntil };
  const withIndex = { ...base, accountIndex: message.accountIndex };
  const forms: TypedDataForm[] = [];
  const push = (types: TypedDataForm['types'], values: TypedDataForm['message']): void => {
    forms.push({ domain, types, primaryType: 'CreateApiKey', message: values });
  };
  if (message.nonce !== undefined && message.nonce !== '') {
    const nonce = message.nonce;
    if (message.accountIndex === 0) push(CREATE_API_KEY_TYPES.nonceWithoutIndex, { ...base, nonce });
    push(CREATE_API_KEY_TYPES.nonceWithIndex, { ...withIndex, nonce });
  }
  if (message.accountIndex === 0) push(CREATE_API_KEY_TYPES.withoutIndex, base);
  push(CREATE_API_KEY_TYPES.withIndex, withIndex);
  return forms;
}

/** The RevokeApiKey forms (perpsim's choice of type) for `message`, in the order they are tried. */
export function revokeApiKeyForms(message: RevokeApiKeyMessage, chainId: number): TypedDataForm[] {
  const domain = apiKeyDomain(chainId);
  const base = { apiWalletName: message.apiWalletName, apiWalletPublicKey: message.apiWalletPublicKey };
  const withIndex = { ...base, accountIndex: message.accountIndex };
  const forms: TypedDataForm[] = [];
  const push = (types: TypedDataForm['types'], values: TypedDataForm['message']): void => {
    forms.push({ domain, types, primaryType: 'RevokeApiKey', message: values });
  };
  if (message.nonce !== undefined && message.nonce !== '') {
    const nonce = message.nonce;
    if (message.accountIndex === 0) push(REVOKE_API_KEY_TYPES.nonceWithoutIndex, { ...base, nonce });
    push(REVOKE_API_KEY_TYPES.nonceWithIndex, { ...withIndex, nonce });
  }
  if (message.accountIndex === 0) push(REVOKE_API_KEY_TYPES.withoutIndex, base);
  push(REVOKE_API_KEY_TYPES.withIndex, withIndex);
  return forms;
}

/** The Withdraw payload; null when the address is malformed or no verifyingContract is configured. */
export function withdrawForm(message: WithdrawMessage, config: WalletDomainConfig): TypedDataForm | null {
  const domain = vaultDomain(WITHDRAW_DOMAIN_NAME, config);
  const ethereumAddress = normalizeAddress(message.ethereumAddress);
  if (domain === null || ethereumAddress === null) return null;
  return {
    domain,
    types: WITHDRAW_TYPES,
    primaryType: 'Withdraw',
    message: { ethereumAddress, accountIndex: message.accountIndex, amount: message.amount, nonce: message.nonce },
  };
}

/** The Transfer payload; null when the address is malformed or no verifyingContract is configured. */
export function transferForm(message: TransferMessage, config: WalletDomainConfig): TypedDataForm | null {
  const domain = vaultDomain(TRANSFER_DOMAIN_NAME, config);
  const ethereumAddress = normalizeAddress(message.ethereumAddress);
  if (domain === null || ethereumAddress === null) return null;
  return {
    domain,
    types: TRANSFER_TYPES,
    primaryType: 'Transfer',
    message: {
      ethereumAddress,
      fromAccountIndex: message.fromAccountIndex,
      toAccountIndex: message.toAccountIndex,
      amount: message.amount,
      nonce: message.nonce,
    },
  };
}

/**
 * The lowercase address that signed one typed-data form; null when the signature is malformed
 * or the message does not fit its types (e.g. accountIndex above 255).
 *
 * @param signature - `{r, s, v}` hex (any accepted `v`), or a 65-byte hex string.
 */
export async function recoverTypedDataSigner(form: TypedDataForm, signature: unknown): Promise<Address | null> {
  const normalized = normalizeWalletSignature(signature);
  if (normalized === null) return null;
  try {
    const parameters = { ...form, signature: normalized } as unknown as Parameters<typeof Viem.recoverTypedDataAddress>[0];
    const address = await (await loadViem()).recoverTypedDataAddress(parameters);
    return address.toLowerCase() as Address;
  } catch {
    return null;
  }
}

/**
 * Tries the forms in order: the first whose signer equals `claimedAddress` wins; without a
 * match, the first form's signer (or null when none recovers).
 */
export async function recoverFirstMatchingSigner(
  forms: readonly TypedDataForm[],
  signature: unknown,
  claimedAddress?: string,
): Promise<Address | null> {
  const claimed = claimedAddress === undefined ? null : normalizeAddress(claimedAddress);
  let first: Address | null = null;
  for (const form of forms) {
    const signer = await recoverTypedDataSigner(form, signature);
    if (signer === null) continue;
    if (claimed === null || signer === claimed) return signer;
    first ??= signer;
  }
  return first;
}

/** The wallet that signed a CreateApiKey typed-data payload (any of its forms). */
export function recoverCreateApiKeySigner(
  message: CreateApiKeyMessage,
  signature: unknown,
  chainId: number,
  claimedAddress?: string,
): Promise<Address | null> {
  return recoverFirstMatchingSigner(createApiKeyForms(message, chainId), signature, claimedAddress);
}

/** The wallet that signed a RevokeApiKey typed-data payload (perpsim's type, any of its forms). */
export function recoverRevokeApiKeySigner(
  message: RevokeApiKeyMessage,
  signature: unknown,
  chainId: number,
  claimedAddress?: string,
): Promise<Address | null> {
  return recoverFirstMatchingSigner(revokeApiKeyForms(message, chainId), signature, claimedAddress);
}

/** The wallet that signed a Withdraw payload; null also when no verifyingContract is configured. */
export async function recoverWithdrawSigner(message: WithdrawMessage, signature: unknown, config: WalletDomainConfig): Promise<Address | null> {
  const form = withdrawForm(message, config);
  return form === null ? null : recoverTypedDataSigner(form, signature);
}

/** The wallet that signed a Transfer payload; null also when no verifyingContract is configured. */
export async function recoverTransferSigner(message: TransferMessage, signature: unknown, config: WalletDomainConfig): Promise<Address | null> {
  const form = transferForm(message, config);
  return form === null ? null : recoverTypedDataSigner(form, signature);
}
