/**
 * The SDK's keys and signing: Ed25519 key pairs, registration by EIP-712 wallet signature and by
 * /sim/apiKeys, revocation, and the exact bytes of Scheme 1 and Scheme 2 (interface.md
 * "Authentication", supplement §1) — checked against the interface's examples and against what
 * perpsim's gateway verifies.
 */
import * as ed from '@noble/ed25519';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, Client, cancelPayload, modifyPayload, placePayload, scheme2Message, withdrawPayload } from '../client/index.ts';
import { scheme1Payload } from '../gateway/auth/index.ts';
import { startServer, type Server } from '../sim/server.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer({ port: 0, agents: false });
});
afterAll(async () => {
  await server.close();
});

describe('key handling: generate an Ed25519 key pair', () => {
  it('the API key is the raw public key in 64 lowercase hex, signatures 128 lowercase hex that verify', async () => {
    const key = await ApiKey.generate();
    expect(key.publicKey).toMatch(/^[0-9a-f]{64}$/);
    const signature = await key.sign('hello');
    expect(signature).toMatch(/^[0-9a-f]{128}$/);
    expect(await ed.verifyAsync(Buffer.from(signature, 'hex'), new TextEncoder().encode('hello'), Buffer.from(key.publicKey, 'hex'))).toBe(true);
    const again = await ApiKey.fromSecret(key.secretHex);
    expect(again.publicKey).toBe(key.publicKey);
    expect(await again.sign('hello')).toBe(signature);
  });
});

describe('key handling: register with createApiKey and an EIP-712 signature from a viem account', () => {
  it('a single-subaccount key (default validity) signs orders at once and is listed by apiKeys', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const key = await ApiKey.generate();
    const client = new Client({ baseUrl: server.url, address: wallet.address, key });
    const reply = await client.createApiKey(wallet, key.publicKey, { apiWalletName: 'bot-1' });
    expect(reply).toMatchObject({ apiKey: key.publicKey, address: wallet.address.toLowerCase(), allSubaccounts: false, accountIndex: 0 });
    await client.sim.deposit(wallet.address, '1000');
    expect(await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3000.00', quantity: '0.1' })).toMatchObject({ status: 'ACK' });
    expect((await client.apiKeys()).apiKeys).toEqual([expect.objectContaining({ apiKey: key.publicKey, apiWalletName: 'bot-1', status: 'ACTIVE', permissions: ['trade'] })]);
  });

  it('an all-subaccount key with a nonce and validUntil; the nonce is single-use (409)', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const key = await ApiKey.generate();
    const client = new Client({ baseUrl: server.url, address: wallet.address, key, accountIndex: 4 });
    const validUntil = Date.now() + 30 * 86_400_000;
    const nonce = (BigInt(Date.now()) * 1_000_000n).toString();
    const reply = await client.createApiKey(wallet, key.publicKey, { apiWalletName: 'bot-all', accountIndex: 255, validUntil, nonce });
    expect(reply).toMatchObject({ allSubaccounts: true, validUntil });
    await client.sim.deposit(wallet.address, '1000', 4);
    expect(await client.cancelAllOrders()).toMatchObject({ status: 'CANCEL_ALL_ACKNOWLEDGED', accountIndex: 4 });
    await expect(client.createApiKey(wallet, key.publicKey, { apiWalletName: 'bot-all', accountIndex: 255, validUntil, nonce })).rejects.toMatchObject({ status: 409 });
  });

  it('another wallet cannot register a key for an address it does not own (401)', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const intruder = privateKeyToAccount(generatePrivateKey());
    const key = await ApiKey.generate();
    const client = new Client({ baseUrl: server.url });
    await expect(client.createApiKey({ ...intruder, address: owner.address }, key.publicKey, { apiWalletName: 'x' })).rejects.toMatchObject({ status: 401 });
  });

  it('revokeApiKey (EIP-191 at index 0, the published form) ends the key: signed requests answer 401', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const key = await ApiKey.generate();
    const client = new Client({ baseUrl: server.url, address: wallet.address, key });
    await client.createApiKey(wallet, key.publicKey, { apiWalletName: 'short-lived' });
    expect(await client.revokeApiKey(wallet, key.publicKey, { apiWalletName: 'short-lived' })).toMatchObject({ apiKey: key.publicKey, accountIndex: 0 });
    await expect(client.cancelAllOrders()).rejects.toMatchObject({ status: 401 });
  });

  it('revokeApiKey of a single non-zero subaccount key uses the typed-data form', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const key = await ApiKey.generate();
    const client = new Client({ baseUrl: server.url, address: wallet.address, key, accountIndex: 2 });
    await client.createApiKey(wallet, key.publicKey, { apiWalletName: 'sub-2', accountIndex: 2 });
    expect(await client.revokeApiKey(wallet, key.publicKey, { apiWalletName: 'sub-2', accountIndex: 2 })).toMatchObject({ accountIndex: 2 });
  });
});

describe('key handling: register with /sim/apiKeys against perpsim', () => {
  it('client.sim.registerApiKey binds the key without a wallet signature; the key trades every subaccount', async () => {
    const key = await ApiKey.generate();
    const address = '0x' + 'ab'.repeat(20);
    const client = new Client({ baseUrl: server.url, address, key, accountIndex: 7 });
    expect(await client.sim.registerApiKey(address, key.publicKey)).toMatchObject({ apiKey: key.publicKey, allSubaccounts: true, permissions: ['trade'] });
    await client.sim.deposit(address, '500', 7);
    expect(await client.placeOrder({ market: 'BTC-USD', side: 'SELL', price: '99000.0', quantity: '0.001' })).toMatchObject({ status: 'ACK', accountIndex: 7 });
  });
});

describe('signing: Scheme 1 and Scheme 2 exactly as interface.md says', () => {
  const ad = '0xABababababababababababababababababababAB';

  it('Scheme 2 reproduces the supplement §1 example byte for byte', () => {
    const body = { marketId: 1, address: '0xab', accountIndex: 0 };
    expect(scheme2Message(1700000000000000000n, 'cancelAllOrders', body)).toBe('1700000000000000000cancelAllOrders{"accountIndex":0,"address":"0xab","marketId":1}');
    expect(scheme2Message('1700000000000000000', 'inviteCodes')).toBe('1700000000000000000inviteCodes');
  });

  it('Scheme 1: compact JSON, keys sorted, ad lowercased, c / id as sent, empty optional keys left out, ns integers exact', () => {
    const order = { address: ad, accountIndex: 3, clientTimeNs: 1700000000000000123n, goodTilTimeUs: 1703456000000000n, marketId: 2, priceTicks: 340005n, sizeQuantums: 5_000_000n, reduceOnly: true, side: 'SELL', timeInForce: 'IOC' };
    expect(placePayload({ ...order, clientId: 'Bot-1' })).toBe(
      '{"ad":"0xabababababababababababababababababababab","ai":3,"c":"Bot-1","ct":1700000000000000123,"g":1703456000000000000,"m":2,"op":1,"p":340005,"q":5000000,"r":1,"s":1,"t":2,"v":1}',
    );
    expect(placePayload({ ...order, clientId: '' }, true)).toBe(
      '{"ad":"0xabababababababababababababababababababab","ai":3,"ct":1700000000000000123,"g":1703456000000000000,"m":2,"op":4,"p":340005,"q":5000000,"r":1,"s":1,"t":2,"v":1}',
    );
    expect(cancelPayload({ address: ad, accountIndex: 0, clientTimeNs: 1700000000000000000n, orderId: '1f', marketId: 1 })).toBe(
      '{"ad":"0xabababababababababababababababababababab","ai":0,"ct":1700000000000000000,"id":"1f","m":1,"op":2,"v":1}',
    );
    expect(withdrawPayload({ address: ad, accountIndex: 1, clientTimeNs: 1700000000000000000n, nonce: 'n-1', amountQuantums: 25_000_000_000n })).toBe(
      '{"ad":"0xabababababababababababababababababababab","ai":1,"ct":1700000000000000000,"n":"n-1","op":5,"q":25000000000,"v":1}',
    );
  });

  it('Scheme 1 payloads equal the bytes perpsim\'s gateway verifies, for every op and time in force', () => {
    const base = { address: ad, accountIndex: 9, clientTimeNs: 1800000000000000001n, marketId: 65535, priceTicks: 1n, sizeQuantums: 10n ** 12n, reduceOnly: false };
    const tifs = ['GTT', 'FOK', 'IOC', 'ALO'] as const;
    tifs.forEach((timeInForce, t) => {
      for (const [side, s] of [['BUY', 0], ['SELL', 1]] as const) {
        for (const clientId of [undefined, 'Mixed_Case-9']) {
          const fields = { ...base, clientId, side, timeInForce, goodTilTimeUs: 1_900_000_000_000_000n };
          const gateway = { ...base, clientId, side: s, timeInForce: t as 0 | 1 | 2 | 3, goodTilTimeNs: 1_900_000_000_000_000_000n };
          expect(placePayload(fields)).toBe(scheme1Payload(1, gateway));
          expect(placePayload(fields, true)).toBe(scheme1Payload(4, gateway));
          expect(modifyPayload({ ...fields, orderId: 'a1b2' })).toBe(scheme1Payload(3, { ...gateway, orderId: 'a1b2' }));
          expect(cancelPayload({ ...base, clientId, orderId: clientId === undefined ? 'a1b2' : undefined })).toBe(scheme1Payload(2, { ...base, clientId, orderId: clientId === undefined ? 'a1b2' : undefined }));
        }
      }
    });
  });
});
