import { parseSignature, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  ARCUS_NETWORKS,
  CREATE_API_KEY_TYPES,
  REVOKE_API_KEY_TYPES,
  TRANSFER_TYPES,
  WITHDRAW_TYPES,
  apiKeyDomain,
  legacyCreateApiKeyText,
  legacyRevokeApiKeyText,
  normalizeWalletSignature,
  recoverApiKeyCreator,
  recoverApiKeyRevoker,
  recoverCreateApiKeySigner,
  recoverLegacyCreateApiKeySigner,
  recoverLegacyRevokeApiKeySigner,
  recoverRevokeApiKeySigner,
  recoverTransferSigner,
  recoverWithdrawSigner,
  walletDomainConfig,
  type CreateApiKeyMessage,
} from '../gateway/auth/index.ts';

// Well-known development keys (anvil/hardhat accounts 1 and 2): never funded anywhere real.
const WALLET = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const INTRUDER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const ADDRESS = WALLET.address.toLowerCase();
const TESTNET = walletDomainConfig('testnet');
const API_KEY = 'c5'.repeat(32);

/** viem's 65-byte signature as the {r, s, v} object clients send, v as 27/28. */
function rsv(signature: Hex): { r: string; s: string; v: number } {
  const { r, s, v } = parseSignature(signature);
  return { r, s, v: Number(v) };
}

const create: CreateApiKeyMessage = { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n, accountIndex: 3 };

describe('chain ids and contracts (supplement §5): mainnet 4663, testnet 46630, staging 421614', () => {
  it('holds the published values and applies overrides', () => {
    expect(ARCUS_NETWORKS.mainnet.chainId).toBe(4663);
    expect(ARCUS_NETWORKS.testnet).toEqual({ chainId: 46630, verifyingContract: '0xe0166c85fcb29ea6d21915dd0dc54387e8d17915' });
    expect(ARCUS_NETWORKS.staging.chainId).toBe(421614);
    expect(walletDomainConfig('mainnet', { verifyingContract: '0x0000000000000000000000000000000000000001' })).toEqual({
      chainId: 4663,
      verifyingContract: '0x0000000000000000000000000000000000000001',
    });
  });
});

describe('EIP-712 CreateApiKey: domain {name: "Arcus API Key", version: "1", chainId} with no verifyingContract', () => {
  it('recovers the wallet from the four-field type (accountIndex 3)', async () => {
    const signature = await WALLET.signTypedData({
      domain: { name: 'Arcus API Key', version: '1', chainId: 46630 },
      types: CREATE_API_KEY_TYPES.withIndex,
      primaryType: 'CreateApiKey',
      message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n, accountIndex: 3 },
    });
    expect(await recoverCreateApiKeySigner(create, rsv(signature), 46630, ADDRESS)).toBe(ADDRESS);
  });

  it('index 0 may drop accountIndex, or keep it', async () => {
    const message = { ...create, accountIndex: 0 };
    const domain = apiKeyDomain(46630);
    const without = await WALLET.signTypedData({ domain, types: CREATE_API_KEY_TYPES.withoutIndex, primaryType: 'CreateApiKey', message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n } });
    const withIndex = await WALLET.signTypedData({ domain, types: CREATE_API_KEY_TYPES.withIndex, primaryType: 'CreateApiKey', message: { ...message } });
    expect(await recoverCreateApiKeySigner(message, rsv(without), 46630, ADDRESS)).toBe(ADDRESS);
    expect(await recoverCreateApiKeySigner(message, rsv(withIndex), 46630, ADDRESS)).toBe(ADDRESS);
  });

  it('a non-zero index must be signed: the three-field type does not authorize index 3', async () => {
    const without = await WALLET.signTypedData({ domain: apiKeyDomain(46630), types: CREATE_API_KEY_TYPES.withoutIndex, primaryType: 'CreateApiKey', message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n } });
    expect(await recoverCreateApiKeySigner(create, rsv(without), 46630, ADDRESS)).not.toBe(ADDRESS);
  });

  it('accepts the nonce variants (index 0 without accountIndex, index 5 with it)', async () => {
    const domain = apiKeyDomain(46630);
    const nonce = '1700000000000000000';
    const zero = await WALLET.signTypedData({ domain, types: CREATE_API_KEY_TYPES.nonceWithoutIndex, primaryType: 'CreateApiKey', message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n, nonce } });
    const five = await WALLET.signTypedData({ domain, types: CREATE_API_KEY_TYPES.nonceWithIndex, primaryType: 'CreateApiKey', message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n, nonce, accountIndex: 5 } });
    expect(await recoverCreateApiKeySigner({ ...create, accountIndex: 0, nonce }, rsv(zero), 46630, ADDRESS)).toBe(ADDRESS);
    expect(await recoverCreateApiKeySigner({ ...create, accountIndex: 5, nonce }, rsv(five), 46630, ADDRESS)).toBe(ADDRESS);
    expect(await recoverCreateApiKeySigner({ ...create, accountIndex: 5, nonce: 'other' }, rsv(five), 46630, ADDRESS)).not.toBe(ADDRESS);
  });

  it('fails for a wrong chainId, a wrong signer, a changed field, or a domain with verifyingContract', async () => {
    const message = { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n, accountIndex: 3 };
    const good = await WALLET.signTypedData({ domain: apiKeyDomain(46630), types: CREATE_API_KEY_TYPES.withIndex, primaryType: 'CreateApiKey', message });
    expect(await recoverCreateApiKeySigner(create, rsv(good), 4663, ADDRESS)).not.toBe(ADDRESS);
    expect(await recoverCreateApiKeySigner({ ...create, validUntil: 1_800_000_000_001n }, rsv(good), 46630, ADDRESS)).not.toBe(ADDRESS);
    const intruder = await INTRUDER.signTypedData({ domain: apiKeyDomain(46630), types: CREATE_API_KEY_TYPES.withIndex, primaryType: 'CreateApiKey', message });
    expect(await recoverCreateApiKeySigner(create, rsv(intruder), 46630, ADDRESS)).toBe(INTRUDER.address.toLowerCase());
    const withContract = await WALLET.signTypedData({
      domain: { ...apiKeyDomain(46630), verifyingContract: ARCUS_NETWORKS.testnet.verifyingContract },
      types: CREATE_API_KEY_TYPES.withIndex,
      primaryType: 'CreateApiKey',
      message,
    });
    expect(await recoverCreateApiKeySigner(create, rsv(withContract), 46630, ADDRESS)).not.toBe(ADDRESS);
  });
});

describe('EIP-712 Withdraw: domain {name: "Arcus Withdraw", version: "1", chainId, verifyingContract}', () => {
  const message = { ethereumAddress: ADDRESS, accountIndex: 2, amount: 25_000_000_000n, nonce: 'w-1' };
  const sign = (chainId: number, contract: `0x${string}`): Promise<Hex> =>
    WALLET.signTypedData({
      domain: { name: 'Arcus Withdraw', version: '1', chainId, verifyingContract: contract },
      types: WITHDRAW_TYPES,
      primaryType: 'Withdraw',
      message: { ...message, ethereumAddress: WALLET.address },
    });

  it('round-trips on testnet, whatever the case of the body address', async () => {
    const signature = await sign(46630, ARCUS_NETWORKS.testnet.verifyingContract);
    expect(await recoverWithdrawSigner(message, rsv(signature), TESTNET)).toBe(ADDRESS);
    expect(await recoverWithdrawSigner({ ...message, ethereumAddress: ADDRESS.toUpperCase().replace('0X', '0x') }, rsv(signature), TESTNET)).toBe(ADDRESS);
  });

  it('fails for a wrong chainId, a wrong contract, a changed amount or a wrong signer', async () => {
    const signature = await sign(46630, ARCUS_NETWORKS.testnet.verifyingContract);
    expect(await recoverWithdrawSigner(message, rsv(signature), walletDomainConfig('testnet', { chainId: 4663 }))).not.toBe(ADDRESS);
    expect(await recoverWithdrawSigner(message, rsv(signature), walletDomainConfig('staging'))).not.toBe(ADDRESS);
    expect(await recoverWithdrawSigner({ ...message, amount: 25_000_000_001n }, rsv(signature), TESTNET)).not.toBe(ADDRESS);
    const intruder = await INTRUDER.signTypedData({
      domain: { name: 'Arcus Withdraw', version: '1', chainId: 46630, verifyingContract: ARCUS_NETWORKS.testnet.verifyingContract },
      types: WITHDRAW_TYPES,
      primaryType: 'Withdraw',
      message: { ...message, ethereumAddress: WALLET.address },
    });
    expect(await recoverWithdrawSigner(message, rsv(intruder), TESTNET)).not.toBe(ADDRESS);
  });

  it('answers null when the network has no verifyingContract (mainnet unpublished) or a field overflows its type', async () => {
    const signature = await sign(46630, ARCUS_NETWORKS.testnet.verifyingContract);
    expect(await recoverWithdrawSigner(message, rsv(signature), walletDomainConfig('mainnet'))).toBeNull();
    expect(await recoverWithdrawSigner({ ...message, accountIndex: 256 }, rsv(signature), TESTNET)).toBeNull();
  });
});

describe('EIP-712 Transfer: domain {name: "Arcus Transfer", version: "1", chainId, verifyingContract}', () => {
  const message = { ethereumAddress: ADDRESS, fromAccountIndex: 0, toAccountIndex: 4, amount: 5_000_000_000n, nonce: 't-9' };

  it('round-trips on testnet and fails on another chain or with swapped indexes', async () => {
    const signature = await WALLET.signTypedData({
      domain: { name: 'Arcus Transfer', version: '1', chainId: 46630, verifyingContract: ARCUS_NETWORKS.testnet.verifyingContract },
      types: TRANSFER_TYPES,
      primaryType: 'Transfer',
      message: { ...message, ethereumAddress: WALLET.address },
    });
    expect(await recoverTransferSigner(message, rsv(signature), TESTNET)).toBe(ADDRESS);
    expect(await recoverTransferSigner(message, rsv(signature), walletDomainConfig('testnet', { chainId: 421614 }))).not.toBe(ADDRESS);
    expect(await recoverTransferSigner({ ...message, fromAccountIndex: 4, toAccountIndex: 0 }, rsv(signature), TESTNET)).not.toBe(ADDRESS);
  });

  it('is not interchangeable with a Withdraw signature (different domain name and type)', async () => {
    const withdraw = await WALLET.signTypedData({
      domain: { name: 'Arcus Withdraw', version: '1', chainId: 46630, verifyingContract: ARCUS_NETWORKS.testnet.verifyingContract },
      types: WITHDRAW_TYPES,
      primaryType: 'Withdraw',
      message: { ethereumAddress: WALLET.address, accountIndex: 0, amount: 5_000_000_000n, nonce: 't-9' },
    });
    expect(await recoverTransferSigner(message, rsv(withdraw), TESTNET)).not.toBe(ADDRESS);
  });
});

describe('EIP-712 RevokeApiKey (perpsim\'s choice: RevokeApiKey(string apiWalletName,string apiWalletPublicKey) under the API key domain)', () => {
  it('round-trips the base type and the accountIndex / nonce extensions', async () => {
    const domain = apiKeyDomain(46630);
    const base = { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY };
    const plain = await WALLET.signTypedData({ domain, types: REVOKE_API_KEY_TYPES.withoutIndex, primaryType: 'RevokeApiKey', message: base });
    expect(await recoverRevokeApiKeySigner({ ...base, accountIndex: 0 }, rsv(plain), 46630, ADDRESS)).toBe(ADDRESS);
    const indexed = await WALLET.signTypedData({ domain, types: REVOKE_API_KEY_TYPES.nonceWithIndex, primaryType: 'RevokeApiKey', message: { ...base, nonce: 'r-1', accountIndex: 7 } });
    expect(await recoverRevokeApiKeySigner({ ...base, accountIndex: 7, nonce: 'r-1' }, rsv(indexed), 46630, ADDRESS)).toBe(ADDRESS);
    expect(await recoverRevokeApiKeySigner({ ...base, accountIndex: 7 }, rsv(plain), 46630, ADDRESS)).not.toBe(ADDRESS);
  });
});

describe('signature {r, s, v}: 0x optional; v 0/1, 27/28, EIP-155, or "0x1b"/"0x1c"', () => {
  it('normalizes every spelling of v to the same 65-byte signature', async () => {
    const signature = await WALLET.signMessage({ message: 'hello' });
    const { r, s, yParity } = parseSignature(signature);
    const expected = `${r}${s.slice(2)}${yParity === 0 ? '1b' : '1c'}`;
    const spellings: unknown[] = [
      yParity,
      27 + yParity,
      `0x${(27 + yParity).toString(16)}`,
      String(27 + yParity),
      `0x${yParity}`,
      BigInt(27 + yParity),
      46630 * 2 + 35 + yParity, // EIP-155 style
      421614 * 2 + 35 + yParity,
    ];
    for (const v of spellings) expect(normalizeWalletSignature({ r, s, v })).toBe(expected);
    expect(normalizeWalletSignature({ r: r.slice(2), s: s.slice(2).toUpperCase(), v: 27 + yParity })).toBe(expected);
    expect(normalizeWalletSignature(signature)).toBe(expected);
  });

  it('left-pads r and s written without leading zeros (Python hex())', () => {
    expect(normalizeWalletSignature({ r: '0x1', s: '0xabc', v: '0x1c' })).toBe(`0x${'1'.padStart(64, '0')}${'abc'.padStart(64, '0')}1c`);
  });

  it('answers null for a malformed signature, and recovery answers null too', async () => {
    for (const bad of [null, 'zz', { r: '0x', s: '0x1', v: 27 }, { r: `0x${'1'.repeat(65)}`, s: '0x1', v: 27 }, { r: '0x1', s: '0x1', v: 29 }, { r: '0x1', s: '0x1', v: 'x' }, { r: '0x1', s: '0x1' }]) {
      expect(normalizeWalletSignature(bad)).toBeNull();
    }
    expect(await recoverCreateApiKeySigner(create, { r: 'nope', s: '0x1', v: 27 }, 46630, ADDRESS)).toBeNull();
  });

  it('recovers the same signer from the {r, s, v} and the EIP-155 forms', async () => {
    const signature = await WALLET.signTypedData({ domain: apiKeyDomain(46630), types: CREATE_API_KEY_TYPES.withIndex, primaryType: 'CreateApiKey', message: { ...create } });
    const { r, s, yParity } = parseSignature(signature);
    expect(await recoverCreateApiKeySigner(create, { r, s, v: yParity }, 46630, ADDRESS)).toBe(ADDRESS);
    expect(await recoverCreateApiKeySigner(create, { r, s, v: 46630 * 2 + 35 + yParity }, 46630, ADDRESS)).toBe(ADDRESS);
  });
});

describe('legacy EIP-191 personal_sign over the exact JSON strings of supplement §5 (index 0)', () => {
  const createLegacy = { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n };

  it('builds the create and revoke strings in the exact key order, no spaces', () => {
    expect(legacyCreateApiKeyText(createLegacy)).toBe(`{"apiWalletName":"bot-1","apiWalletPublicKey":"${API_KEY}","validUntil":1800000000000}`);
    expect(legacyRevokeApiKeyText(createLegacy)).toBe(`{"apiWalletName":"bot-1","apiWalletPublicKey":"${API_KEY}"}`);
  });

  it('recovers the wallet for create and revoke', async () => {
    const createSig = await WALLET.signMessage({ message: legacyCreateApiKeyText(createLegacy) });
    const revokeSig = await WALLET.signMessage({ message: legacyRevokeApiKeyText(createLegacy) });
    expect(await recoverLegacyCreateApiKeySigner(createLegacy, rsv(createSig))).toBe(ADDRESS);
    expect(await recoverLegacyRevokeApiKeySigner(createLegacy, rsv(revokeSig))).toBe(ADDRESS);
    expect(await recoverLegacyCreateApiKeySigner({ ...createLegacy, validUntil: 1 }, rsv(createSig))).not.toBe(ADDRESS);
  });

  it('covers subaccount 0 only', async () => {
    const createSig = await WALLET.signMessage({ message: legacyCreateApiKeyText(createLegacy) });
    expect(await recoverLegacyCreateApiKeySigner({ ...createLegacy, accountIndex: 0 }, rsv(createSig))).toBe(ADDRESS);
    expect(await recoverLegacyCreateApiKeySigner({ ...createLegacy, accountIndex: 1 }, rsv(createSig))).toBeNull();
  });
});

describe('supplement §12: createApiKey and revokeApiKey accept both EIP-712 and EIP-191', () => {
  const message = { ...create, accountIndex: 0 };

  it('reports which scheme authorized the request', async () => {
    const typed = await WALLET.signTypedData({ domain: apiKeyDomain(46630), types: CREATE_API_KEY_TYPES.withoutIndex, primaryType: 'CreateApiKey', message: { apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, validUntil: 1_800_000_000_000n } });
    const personal = await WALLET.signMessage({ message: legacyCreateApiKeyText(message) });
    expect(await recoverApiKeyCreator(message, rsv(typed), 46630, WALLET.address)).toEqual({ signer: ADDRESS, scheme: 'eip712' });
    expect(await recoverApiKeyCreator(message, rsv(personal), 46630, WALLET.address)).toEqual({ signer: ADDRESS, scheme: 'eip191' });
    const revoke = await WALLET.signMessage({ message: legacyRevokeApiKeyText(message) });
    expect(await recoverApiKeyRevoker({ apiWalletName: 'bot-1', apiWalletPublicKey: API_KEY, accountIndex: 0 }, rsv(revoke), 46630, ADDRESS)).toEqual({ signer: ADDRESS, scheme: 'eip191' });
  });

  it('answers a signer other than the claimed address when neither form was signed by it (401)', async () => {
    const personal = await INTRUDER.signMessage({ message: legacyCreateApiKeyText(message) });
    const out = await recoverApiKeyCreator(message, rsv(personal), 46630, ADDRESS);
    expect(out).not.toBeNull();
    expect(out!.signer).not.toBe(ADDRESS);
  });

  it('answers null for a malformed signature (400)', async () => {
    expect(await recoverApiKeyCreator(message, { r: '', s: '', v: '' }, 46630, ADDRESS)).toBeNull();
  });
});
