/**
 * Wallet-side signing for tests, written from the supplement (§1 op 5, §5) rather than from the
 * gateway's code: EIP-712 typed data with viem's `signTypedData`, legacy EIP-191 with
 * `signMessage`, and the API-key withdraw's Scheme 1 op 5 payload. Domains and types are
 * spelled out here literally, so a test fails if the gateway's drift from the published ones.
 */
import { parseSignature, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { GatewayHarness, Wallet } from './gateway-fixture.ts';
import { wallet } from './gateway-fixture.ts';

/** Testnet (supplement §5): chainId 46630 and its BridgeVault. */
export const TESTNET_CHAIN_ID = 46630;
export const TESTNET_VAULT = '0xe0166c85fcb29ea6d21915dd0dc54387e8d17915';

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

export interface Rsv {
  r: string;
  s: string;
  v: string;
}

/** viem's 65-byte signature as the `{r, s, v}` clients send, `v` as "0x1b" / "0x1c". */
export function rsv(signature: Hex): Rsv {
  const { r, s, v } = parseSignature(signature);
  return { r, s, v: `0x${Number(v).toString(16)}` };
}

const WITHDRAW_TYPES = {
  Withdraw: [
    { name: 'ethereumAddress', type: 'address' },
    { name: 'accountIndex', type: 'uint8' },
    { name: 'amount', type: 'uint256' },
    { name: 'nonce', type: 'string' },
  ],
} as const;

const TRANSFER_TYPES = {
  Transfer: [
    { name: 'ethereumAddress', type: 'address' },
    { name: 'fromAccountIndex', type: 'uint8' },
    { name: 'toAccountIndex', type: 'uint8' },
    { name: 'amount', type: 'uint256' },
    { name: 'nonce', type: 'string' },
  ],
} as const;

export interface WithdrawFields {
  ethereumAddress: string;
  accountIndex: number;
  amount: bigint;
  nonce: string;
}

/** EIP-712 Withdraw in `{name: "Arcus Withdraw", version: "1", chainId, verifyingContract}`. */
export async function signWithdraw(signer: EvmWallet, fields: WithdrawFields): Promise<Rsv> {
  const signature = await signer.account.signTypedData({
    domain: { name: 'Arcus Withdraw', version: '1', chainId: TESTNET_CHAIN_ID, verifyingContract: TESTNET_VAULT },
    types: WITHDRAW_TYPES,
    primaryType: 'Withdraw',
    message: { ...fields, ethereumAddress: fields.ethereumAddress as Hex },
  });
  return rsv(signature);
}

export interface TransferFields {
  ethereumAddress: string;
  fromAccountIndex: number;
  toAccountIndex: number;
  amount: bigint;
  nonce: string;
}

/** EIP-712 Transfer in `{name: "Arcus Transfer", version: "1", chainId, verifyingContract}`. */
export async function signTransfer(signer: EvmWallet, fields: TransferFields): Promise<Rsv> {
  const signature = await signer.account.signTypedData({
    domain: { name: 'Arcus Transfer', version: '1', chainId: TESTNET_CHAIN_ID, verifyingContract: TESTNET_VAULT },
    types: TRANSFER_TYPES,
    primaryType: 'Transfer',
    message: { ...fields, ethereumAddress: fields.ethereumAddress as Hex },
  });
  return rsv(signature);
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
export async function signCreateApiKey(signer: EvmWallet, fields: KeyFields): Promise<Rsv> {
  const domain = { name: 'Arcus API Key', version: '1', chainId: TESTNET_CHAIN_ID };
  const base = { apiWalletName: fields.apiWalletName, apiWalletPublicKey: fields.publicKey, validUntil: fields.validUntil };
  const signature =
    fields.nonce === undefined
      ? await signer.account.signTypedData({
          domain,
          types: {
            CreateApiKey: [
              { name: 'apiWalletName', type: 'string' },
              { name: 'apiWalletPublicKey', type: 'string' },
              { name: 'validUntil', type: 'uint256' },
              { name: 'accountIndex', type: 'uint8' },
            ],
          },
          primaryType: 'CreateApiKey',
          message: { ...base, accountIndex: fields.accountIndex },
        })
      : await signer.account.signTypedData({
          domain,
          types: {
            CreateApiKey: [
              { name: 'apiWalletName', type: 'string' },
              { name: 'apiWalletPublicKey', type: 'string' },
              { name: 'validUntil', type: 'uint256' },
              { name: 'nonce', type: 'string' },
              { name: 'accountIndex', type: 'uint8' },
            ],
          },
          primaryType: 'CreateApiKey',
          message: { ...base, nonce: fields.nonce, accountIndex: fields.accountIndex },
        });
  return rsv(signature);
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

/** Legacy EIP-191 personal_sign over `{"apiWalletName":…,"apiWalletPublicKey":…}`. */
export async function signRevokeApiKeyLegacy(signer: EvmWallet, fields: { apiWalletName: string; publicKey: string }): Promise<Rsv> {
  const text = `{"apiWalletName":${JSON.stringify(fields.apiWalletName)},"apiWalletPublicKey":${JSON.stringify(fields.publicKey)}}`;
  return rsv(await signer.account.signMessage({ message: text }));
}

let tick = 0;

/**
 * Header triple of an API-key withdraw (supplement §1 op 5): Ed25519 over
 * `{"ad":…,"ai":…,"ct":…,"n":…,"op":5,"q":…,"v":1}` with `ct` = X-Timestamp.
 */
export function withdrawKeyHeaders(h: GatewayHarness, w: Wallet, fields: { accountIndex: number; amount: bigint; nonce: string }): Record<string, string> {
  const ts = (BigInt(h.now.us) * 1000n + BigInt(500 + (++tick % 400))).toString();
  const payload = `{"ad":"${w.address.toLowerCase()}","ai":${fields.accountIndex},"ct":${ts},"n":${JSON.stringify(fields.nonce)},"op":5,"q":${fields.amount},"v":1}`;
  return { 'x-api-key': w.apiKey, 'x-timestamp': ts, 'x-signature': h.sign(payload, w), 'content-type': 'application/json' };
}
