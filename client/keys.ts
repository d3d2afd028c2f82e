/**
 * Keys: the Ed25519 API key that signs requests, and the wallet (a viem account) that registers
 * it and authorizes withdrawals and transfers.
 *
 * Ed25519 runs on @noble/ed25519's async API, whose SHA-512 is WebCrypto's: the same code runs in
 * browsers and Node without configuring a hash. The public key as 64 lowercase hex digits is the
 * API key (interface.md Authentication rule 4); signatures are 128 lowercase hex digits.
 *
 * Wallet signatures are EIP-712 typed data in the domains of supplement §5: API keys under
 * `{name: "Arcus API Key", version: "1", chainId}` (no verifyingContract), withdrawals and
 * transfers under `{name: "Arcus Withdraw" / "Arcus Transfer", version: "1", chainId,
 * verifyingContract}`, sent as `{r, s, v}` hex. The venue's RevokeApiKey typed data is
 * unpublished; its legacy EIP-191 form (`{"apiWalletName":…,"apiWalletPublicKey":…}`, index 0)
 * is published, so that is what `signRevokeApiKey` uses for index 0. Other indices use perpsim's
 * RevokeApiKey type (docs/decisions.md), the only form a non-zero index has.
 */
import * as ed from '@noble/ed25519';
import { parseSignature, type Hex, type LocalAccount } from 'viem';

/** What signs requests: the SDK needs only these two members (e.g. a node:crypto signer for load tests). */
export interface RequestSigner {
  /** The API key: the raw public key, 64 lowercase hex. */
  readonly publicKey: string;
  /** Ed25519 over the UTF-8 bytes of `message`, as 128 lowercase hex. */
  sign(message: string): Promise<string>;
}

const encoder = new TextEncoder();

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]*$/.test(clean) || clean.length % 2 !== 0) throw new TypeError('not hex');
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** An Ed25519 key pair held in memory. */
export class ApiKey implements RequestSigner {
  private constructor(
    readonly secretKey: Uint8Array,
    readonly publicKey: string,
  ) {}

  /** A fresh random key pair (WebCrypto's random source). */
  static async generate(): Promise<ApiKey> {
    return ApiKey.fromSecret(ed.utils.randomSecretKey());
  }

  /** The key pair of a 32-byte secret (bytes or 64 hex digits). */
  static async fromSecret(secret: Uint8Array | string): Promise<ApiKey> {
    const bytes = typeof secret === 'string' ? fromHex(secret) : secret;
    if (bytes.length !== 32) throw new TypeError('an Ed25519 secret key is 32 bytes');
    return new ApiKey(bytes, toHex(await ed.getPublicKeyAsync(bytes)));
  }

  /** The secret as 64 hex digits, to store the key. */
  get secretHex(): string {
    return toHex(this.secretKey);
  }

  async sign(message: string): Promise<string> {
    return toHex(await ed.signAsync(encoder.encode(message), this.secretKey));
  }
}

// ---------------------------------------------------------------------------------------------
// Wallet signatures

/** A wallet that signs typed data and messages: a viem local account (or anything shaped like one). */
export type WalletAccount = Pick<LocalAccount, 'address' | 'signTypedData' | 'signMessage'>;

/** The venue's networks (supplement §5): chainId, and the BridgeVault for withdraw / transfer. */
export interface Network {
  chainId: number;
  /** Null where unpublished (mainnet): wallet-signed withdrawals and transfers need one. */
  verifyingContract: Hex | null;
}

export const NETWORKS = {
  mainnet: { chainId: 4663, verifyingContract: null },
  testnet: { chainId: 46630, verifyingContract: '0xe0166c85fcb29ea6d21915dd0dc54387e8d17915' },
  staging: { chainId: 421614, verifyingContract: '0xe91f43c1ad084463db129034fb7b93545dfe1d4e' },
} as const satisfies Record<string, Network>;

/** `{r, s, v}` as the venue takes it (supplement §5), `v` 27/28 as hex. A type alias so it is JSON. */
export type WalletSignature = {
  r: Hex;
  s: Hex;
  v: Hex;
};

export function rsv(signature: Hex): WalletSignature {
  const { r, s, v, yParity } = parseSignature(signature);
  const recovery = v ?? BigInt(27 + yParity);
  return { r, s, v: `0x${recovery.toString(16)}` };
}

const NAME = { name: 'apiWalletName', type: 'string' } as const;
const PUBLIC_KEY = { name: 'apiWalletPublicKey', type: 'string' } as const;
const VALID_UNTIL = { name: 'validUntil', type: 'uint256' } as const;
const NONCE = { name: 'nonce', type: 'string' } as const;
const ACCOUNT_INDEX = { name: 'accountIndex', type: 'uint8' } as const;

function apiKeyDomain(network: Network): { name: string; version: string; chainId: number } {
  return { name: 'Arcus API Key', version: '1', chainId: network.chainId };
}

export interface CreateApiKeyMessage {
  apiWalletName: string;
  /** 64 hex, no 0x. */
  publicKey: string;
  /** Epoch ms. */
  validUntil: bigint;
  /** 0-9, or 255 for every subaccount. */
  accountIndex: number;
  nonce?: string | undefined;
}

/** CreateApiKey typed data, `accountIndex` always in the type, the nonce form when a nonce is given. */
export async function signCreateApiKey(wallet: WalletAccount, network: Network, message: CreateApiKeyMessage): Promise<WalletSignature> {
  const values = { apiWalletName: message.apiWalletName, apiWalletPublicKey: message.publicKey, validUntil: message.validUntil, accountIndex: message.accountIndex };
  const signature =
    message.nonce === undefined
      ? await wallet.signTypedData({ domain: apiKeyDomain(network), types: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL, ACCOUNT_INDEX] }, primaryType: 'CreateApiKey', message: values })
      : await wallet.signTypedData({
          domain: apiKeyDomain(network),
          types: { CreateApiKey: [NAME, PUBLIC_KEY, VALID_UNTIL, NONCE, ACCOUNT_INDEX] },
          primaryType: 'CreateApiKey',
          message: { ...values, nonce: message.nonce },
        });
  return rsv(signature);
}

/** Revocation: EIP-191 for index 0 (the published form), perpsim's RevokeApiKey type otherwise. */
export async function signRevokeApiKey(wallet: WalletAccount, network: Network, message: Omit<CreateApiKeyMessage, 'validUntil' | 'nonce'>): Promise<WalletSignature> {
  if (message.accountIndex === 0) {
    const text = `{"apiWalletName":${JSON.stringify(message.apiWalletName)},"apiWalletPublicKey":${JSON.stringify(message.publicKey)}}`;
    return rsv(await wallet.signMessage({ message: text }));
  }
  const signature = await wallet.signTypedData({
    domain: apiKeyDomain(network),
    types: { RevokeApiKey: [NAME, PUBLIC_KEY, ACCOUNT_INDEX] },
    primaryType: 'RevokeApiKey',
    message: { apiWalletName: message.apiWalletName, apiWalletPublicKey: message.publicKey, accountIndex: message.accountIndex },
  });
  return rsv(signature);
}

function vaultDomain(name: string, network: Network): { name: string; version: string; chainId: number; verifyingContract: Hex } {
  if (network.verifyingContract === null) throw new TypeError(`${name}: this network has no published verifyingContract; pass one in the client's network option`);
  return { name, version: '1', chainId: network.chainId, verifyingContract: network.verifyingContract };
}

/** EIP-712 Withdraw; `amount` in quote quantums; `ethereumAddress` must be the wallet's own for the venue to accept it. */
export async function signWithdraw(wallet: WalletAccount, network: Network, message: { ethereumAddress: string; accountIndex: number; amount: bigint; nonce: string }): Promise<WalletSignature> {
  const signature = await wallet.signTypedData({
    domain: vaultDomain('Arcus Withdraw', network),
    types: {
      Withdraw: [
        { name: 'ethereumAddress', type: 'address' },
        { name: 'accountIndex', type: 'uint8' },
        { name: 'amount', type: 'uint256' },
        { name: 'nonce', type: 'string' },
      ],
    },
    primaryType: 'Withdraw',
    message: { ...message, ethereumAddress: message.ethereumAddress as Hex },
  });
  return rsv(signature);
}

/** EIP-712 Transfer between two subaccounts of `ethereumAddress` (the wallet's own); `amount` in quote quantums. */
export async function signTransfer(
  wallet: WalletAccount,
  network: Network,
  message: { ethereumAddress: string; fromAccountIndex: number; toAccountIndex: number; amount: bigint; nonce: string },
): Promise<WalletSignature> {
  const signature = await wallet.signTypedData({
    domain: vaultDomain('Arcus Transfer', network),
    types: {
      Transfer: [
        { name: 'ethereumAddress', type: 'address' },
        { name: 'fromAccountIndex', type: 'uint8' },
        { name: 'toAccountIndex', type: 'uint8' },
        { name: 'amount', type: 'uint256' },
        { name: 'nonce', type: 'string' },
      ],
    },
    primaryType: 'Transfer',
    message: { ...message, ethereumAddress: message.ethereumAddress as Hex },
  });
  return rsv(signature);
}
