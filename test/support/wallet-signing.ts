/**
 * Wallet-side signing for tests, written from the supplement (§1 op 5, §5) rather than from the
 * gateway's code: the SDK's EIP-712 signers (client/keys.ts, which spell the published domains and
 * types out literally, so a test fails if the gateway's drift from them), perpsim's RevokeApiKey
 * type for every index, legacy EIP-191 with `signMessage`, and the API-key withdraw's Scheme 1
 * op 5 payload.
 */
import { type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { GatewayHarness, Wallet } from './gateway-fixture.ts';
import { wallet } from './gateway-fixture.ts';
import {
  NETWORKS,
  rsv,
  signCreateApiKey as sdkSignCreateApiKey,
  signRevokeApiKey as sdkSignRevokeApiKey,
  signTransfer as sdkSignTransfer,
  signWithdraw as sdkSignWithdraw,
  withdrawPayload,
  type WalletSignature,
} from '../../client/index.ts';

/** Testnet (supplement §5): chainId 46630 and its BridgeVault. */
export const TESTNET_CHAIN_ID = 46630;

// Well-known development keys (anvil/hardhat accounts 1-3): never funded anywhere real.
export const DEV_KEYS = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;

export interface EvmWallet {
  account: PrivateKeyAccount;
  /** Lowercase 0x address. */
  address: string;
}

export function evmWallet(privateKey: Hex): EvmWallet {
  const account = privateKeyToAccount(privateKey);
  return { account, address: account.address.toLowerCase() };
}

/**
 * A trading identity whose master address is an EVM wallet: the Ed25519 half comes from the
 * fixture's `wallet(seed)`, the address from `evm` (what createApiKey binds together).
 */
export function tradingWallet(evm: EvmWallet, seed: number): Wallet {
  return { ...wallet(seed), address: evm.address };
}

export type Rsv = WalletSignature;

export interface WithdrawFields {
  ethereumAddress: string;
  accountIndex: number;
  amount: bigint;
  nonce: string;
}

/** EIP-712 Withdraw in `{name: "Arcus Withdraw", version: "1", chainId, verifyingContract}` (the SDK's signer). */
export function signWithdraw(signer: EvmWallet, fields: WithdrawFields): Promise<Rsv> {
  return sdkSignWithdraw(signer.account, NETWORKS.testnet, fields);
}

export interface TransferFields {
  ethereumAddress: string;
  fromAccountIndex: number;
  toAccountIndex: number;
  amount: bigint;
  nonce: string;
}

/** EIP-712 Transfer in `{name: "Arcus Transfer", version: "1", chainId, verifyingContract}` (the SDK's signer). */
export function signTransfer(signer: EvmWallet, fields: TransferFields): Promise<Rsv> {
  return sdkSignTransfer(signer.account, NETWORKS.testnet, fields);
}

export interface KeyFields {
  apiWalletName: string;
  publicKey: string;
  /** ms. */
  validUntil: bigint;
  accountIndex: number;
  nonce?: string;
}

/**
 * EIP-712 CreateApiKey in `{name: "Arcus API Key", version: "1", chainId}` (no
 * verifyingContract), always with `accountIndex` in the type; with `nonce` the nonce form.
 */
export function signCreateApiKey(signer: EvmWallet, fields: KeyFields): Promise<Rsv> {
  return sdkSignCreateApiKey(signer.account, NETWORKS.testnet, fields);
}

/** Legacy EIP-191 personal_sign over `{"apiWalletName":…,"apiWalletPublicKey":…,"validUntil":N}`. */
export async function signCreateApiKeyLegacy(signer: EvmWallet, fields: Omit<KeyFields, 'accountIndex' | 'nonce'>): Promise<Rsv> {
  const text = `{"apiWalletName":${JSON.stringify(fields.apiWalletName)},"apiWalletPublicKey":${JSON.stringify(fields.publicKey)},"validUntil":${fields.validUntil}}`;
  return rsv(await signer.account.signMessage({ message: text }));
}

/** perpsim's EIP-712 RevokeApiKey (the venue's is unpublished): name, key, accountIndex. */
export async function signRevokeApiKey(signer: EvmWallet, fields: Omit<KeyFields, 'validUntil' | 'nonce'>): Promise<Rsv> {
  const signature = await signer.account.signTypedData({
    domain: { name: 'Arcus API Key', version: '1', chainId: TESTNET_CHAIN_ID },
    types: {
      RevokeApiKey: [
        { name: 'apiWalletName', type: 'string' },
        { name: 'apiWalletPublicKey', type: 'string' },
        { name: 'accountIndex', type: 'uint8' },
      ],
    },
    primaryType: 'RevokeApiKey',
    message: { apiWalletName: fields.apiWalletName, apiWalletPublicKey: fields.publicKey, accountIndex: fields.accountIndex },
  });
  return rsv(signature);
}

/** Legacy EIP-191 personal_sign over `{"apiWalletName":…,"apiWalletPublicKey":…}` (the SDK's form for index 0). */
export function signRevokeApiKeyLegacy(signer: EvmWallet, fields: { apiWalletName: string; publicKey: string }): Promise<Rsv> {
  return sdkSignRevokeApiKey(signer.account, NETWORKS.testnet, { ...fields, accountIndex: 0 });
}

let tick = 0;

/**
 * Header triple of an API-key withdraw (supplement §1 op 5): Ed25519 over
 * `{"ad":…,"ai":…,"ct":…,"n":…,"op":5,"q":…,"v":1}` with `ct` = X-Timestamp.
 */
export function withdrawKeyHeaders(h: GatewayHarness, w: Wallet, fields: { accountIndex: number; amount: bigint; nonce: string }): Record<string, string> {
  const ts = (BigInt(h.now.us) * 1000n + BigInt(500 + (++tick % 400))).toString();
  const payload = withdrawPayload({ address: w.address, accountIndex: fields.accountIndex, clientTimeNs: BigInt(ts), nonce: fields.nonce, amountQuantums: fields.amount });
  return { 'x-api-key': w.apiKey, 'x-timestamp': ts, 'x-signature': h.sign(payload, w), 'content-type': 'application/json' };
}
