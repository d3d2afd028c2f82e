import Big from 'big.js';
import fc from 'fast-check';
import { quoteOf as balanceOf } from '../engine/account.ts';
import { describe, expect, it } from 'vitest';
import { marketOf, positionOf } from '../engine/account.ts';
import { findAccount, type EngineEvent, type LeverageEvent, type PositionEvent, type TransferEvent } from '../engine/index.ts';
import { registerKey } from '../gateway/auth/keys.ts';
import { setNetwork } from '../gateway/auth/network.ts';
import { parseUsdQuantums } from '../gateway/operations/support/account-writes-common.ts';
import { DAY_US, gateway, placeOrderRequest, scheme2Headers, T0_US, USD, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';
import {
  DEV_KEYS,
  evmWallet,
  signCreateApiKey,
  signCreateApiKeyLegacy,
  signRevokeApiKey,
  signRevokeApiKeyLegacy,
  signTransfer,
  signWithdraw,
  tradingWallet,
  withdrawKeyHeaders,
} from './support/wallet-signing.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const owner = evmWallet(DEV_KEYS[0]);
const intruder = evmWallet(DEV_KEYS[1]);
/** `owner`'s address as the fixture's Wallet (for h.fund). */
const ownerWallet = tradingWallet(owner, 0xd0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOW_MS = T0_US / 1000;
const DAY_MS = 86_400_000;

function recordEvents(h: GatewayHarness): EngineEvent[] {
  const events: EngineEvent[] = [];
  h.exchange.listeners.add((batch) => events.push(...batch));
  return events;
}

function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}

async function post(h: GatewayHarness, url: string, payload: Record<string, unknown>, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return h.app.inject({ method: 'POST', url, payload, headers });
}

/** A Scheme 2 write signed by `w` exactly as a venue client sends it. */
async function scheme2(h: GatewayHarness, w: Wallet, action: string, body: Record<string, unknown>) {
  return post(h, `/v1/${action}?address=${w.address}`, body, scheme2Headers(h, w, action, body as never));
}

/** Opens `size` BTC long for `buyer` against `seller` at 97,000. */
async function openLong(h: GatewayHarness, buyer: Wallet, seller: Wallet, size: string): Promise<void> {
  const ask = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, seller, { side: 'SELL', quantity: size, price: '97000.0' }) });
  expect(ask.statusCode).toBe(202);
  const bid = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, buyer, { side: 'BUY', quantity: size, price: '97000.0' }) });
  expect(bid.statusCode).toBe(202);
  expect(positionOf(findAccount(h.exchange.engine.accounts, buyer.address, 0)!, h.exchange.engine.markets.get(1)!.slot)).toBeGreaterThan(0);
}

function btcAccountMarket(h: GatewayHarness, address: string, accountIndex = 0) {
  const holder = findAccount(h.exchange.engine.accounts, address, accountIndex);
  return holder === undefined ? undefined : marketOf(holder, h.exchange.engine.markets.get(1)!.slot);
}

function quoteOf(h: GatewayHarness, address: string, accountIndex = 0): bigint | undefined {
  const account = findAccount(h.exchange.engine.accounts, address, accountIndex);
  return account === undefined ? undefined : balanceOf(account);
}

describe('setLeverage (supplement §4, §12): "REST 200 APPLIED / 422 REJECTED (prior leverage kept)"', () => {
  async function ready() {
    const h = await gateway();
    h.fund(alice, 1000n);
    h.key(alice);
    return h;
  }

  it('applies an in-range leverage: 200 {requestId (UUID), address, accountIndex, marketId, leverage, status: APPLIED}; the leverage event carries the requestId', async () => {
    const h = await ready();
    const events = recordEvents(h);
    const res = await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 10 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ requestId: expect.stringMatching(UUID), address: alice.address, accountIndex: 0, marketId: 1, leverage: 10, status: 'APPLIED' });
    const [event] = ofType(events, 'leverage') as LeverageEvent[];
    expect(event).toMatchObject({ marketId: 1, leverage: 10, status: 'APPLIED', requestId: body.requestId });
    expect(btcAccountMarket(h, alice.address)?.leverage).toBe(10);
  });

  it('"marginMode? (when isolated sent)": isolated true switches the market and echoes ISOLATED', async () => {
    const h = await ready();
    const res = await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 5, isolated: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ leverage: 5, status: 'APPLIED', marginMode: 'ISOLATED' });
    expect(btcAccountMarket(h, alice.address)?.isolated).toBe(true);
  });

  it('a leverage the collateral cannot carry is 422 REJECTED UNDERCOLLATERALIZED, prior leverage kept', async () => {
    const h = await ready();
    h.fund(bob, 100_000n);
    h.key(bob);
    await openLong(h, alice, bob, '0.1');
    const events = recordEvents(h);
    const res = await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 2 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      requestId: expect.stringMatching(UUID),
      address: alice.address,
      accountIndex: 0,
      marketId: 1,
      leverage: 40,
      status: 'REJECTED',
      rejectReason: 'UNDERCOLLATERALIZED',
    });
    expect(ofType(events, 'leverage')).toMatchObject([{ status: 'REJECTED', rejectReason: 'UNDERCOLLATERALIZED', leverage: 40 }]);
  });

  it('switching cross → isolated with an open position is 422 HAS_OPEN_POSITION, marginMode stays CROSS', async () => {
    const h = await ready();
    h.fund(bob, 100_000n);
    h.key(bob);
    await openLong(h, alice, bob, '0.01');
    const res = await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 20, isolated: true });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 'REJECTED', rejectReason: 'HAS_OPEN_POSITION', leverage: 40, marginMode: 'CROSS' });
  });

  it('"400 (unknown/offline market, range)": checked before the engine, no event', async () => {
    const h = await ready();
    const events = recordEvents(h);
    const cases: [Record<string, unknown>, string][] = [
      [{ marketId: 999, leverage: 5 }, 'unknown market'],
      [{ marketId: 11, leverage: 2 }, 'market is offline'],
      [{ marketId: 1, leverage: 41 }, 'leverage must be an integer from 1 to 40'],
      [{ marketId: 1, leverage: 0 }, 'leverage must be an integer from 1 to 40'],
    ];
    for (const [fields, error] of cases) {
      const res = await scheme2(h, alice, 'setLeverage', { address: alice.address, ...fields });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error });
    }
    expect((await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 2.5 })).statusCode).toBe(400);
    expect(ofType(events, 'leverage')).toEqual([]);
  });

  it('Scheme 2: a tampered body is 401 invalid signature; a replayed request is 409', async () => {
    const h = await ready();
    const body = { address: alice.address, marketId: 1, leverage: 10 };
    const headers = scheme2Headers(h, alice, 'setLeverage', body);
    const tampered = await post(h, `/v1/setLeverage?address=${alice.address}`, { ...body, leverage: 11 }, headers);
    expect(tampered.statusCode).toBe(401);
    expect(tampered.json()).toEqual({ error: 'invalid signature' });
    expect((await post(h, `/v1/setLeverage?address=${alice.address}`, body, headers)).statusCode).toBe(200);
    expect((await post(h, `/v1/setLeverage?address=${alice.address}`, body, headers)).statusCode).toBe(409);
  });
});

describe('adjustIsolatedMargin (interface: "amount is a decimal string of dollars; positive moves cross margin to the isolated leg, negative the reverse; zero gives 400")', () => {
  async function isolatedAlice() {
    const h = await gateway();
    h.fund(alice, 1000n);
    h.key(alice);
    expect((await scheme2(h, alice, 'setLeverage', { address: alice.address, marketId: 1, leverage: 10, isolated: true })).statusCode).toBe(200);
    return h;
  }

  it('zero gives 400', async () => {
    const h = await isolatedAlice();
    for (const amount of ['0', '-0.0', '0.000']) {
      const res = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'amount must not be zero' });
    }
    expect((await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: '1.5x' })).statusCode).toBe(400);
  });

  it('moves margin in and out: 200 {requestId, address, accountIndex, marketId, amount, status: APPLIED}; the position update carries the requestId', async () => {
    const h = await isolatedAlice();
    const events = recordEvents(h);
    const add = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: '100' });
    expect(add.statusCode).toBe(200);
    const body = add.json();
    expect(body).toEqual({ requestId: expect.stringMatching(UUID), address: alice.address, accountIndex: 0, marketId: 1, amount: '100', status: 'APPLIED' });
    expect(btcAccountMarket(h, alice.address)?.isolatedMargin).toBe(100n * USD);
    expect(quoteOf(h, alice.address)).toBe(900n * USD);
    expect((ofType(events, 'position') as PositionEvent[])[0]?.requestId).toBe(body.requestId);

    const back = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: '-40.5' });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ amount: '-40.5', status: 'APPLIED' });
    expect(btcAccountMarket(h, alice.address)?.isolatedMargin).toBe(59_500_000_000n);
  });

  it('perpsim: more than the pool (or free collateral) is 422 REJECTED UNDERCOLLATERALIZED, nothing moves', async () => {
    const h = await isolatedAlice();
    const res = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: '5000' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 'REJECTED', rejectReason: 'UNDERCOLLATERALIZED', amount: '5000' });
    expect(quoteOf(h, alice.address)).toBe(1000n * USD);
  });

  it('an amount sent as a JSON number keeps its value: 1e-7 moves 100 quantums, 1.5e-9 (below a quantum) is 400', async () => {
    const h = await isolatedAlice();
    const small = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: 1.5e-9 });
    expect(small.statusCode).toBe(400);
    expect(small.json()).toEqual({ error: 'amount must be a decimal number of dollars with at most 9 decimals' });
    const res = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 1, amount: 1e-7 });
    expect(res.statusCode).toBe(200);
    expect(btcAccountMarket(h, alice.address)?.isolatedMargin).toBe(100n);
  });

  it('a market not in isolated mode is 400', async () => {
    const h = await isolatedAlice();
    const res = await scheme2(h, alice, 'adjustIsolatedMargin', { address: alice.address, accountIndex: 0, marketId: 2, amount: '10' });
    expect(res.statusCode).toBe(400);
  });
});

describe('parseUsdQuantums: a dollar amount as a JSON number', () => {
  it('is the exact quantums of the decimal the number denotes (its shortest form), or null past 9 decimals or from 1e21 on', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1e6, max: 1e6 }).chain((k) => fc.constantFrom(k * 1e-9, k * 1e-10, k / 3))), (x) => {
        const quantums = new Big(x).times(1_000_000_000);
        const exact = Math.abs(x) < 1e21 && quantums.eq(quantums.round(0, Big.roundDown));
        expect(parseUsdQuantums(x)).toBe(exact ? BigInt(quantums.toFixed(0)) : null);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('withdraw, EIP-712 form (supplement §5): "202 {withdrawalId, ethereumAddress, accountIndex, amount, status: PENDING, submittedAt}; outcome on accountTransferUpdates by withdrawalId"', () => {
  it('withdraws to self; the transfer event with the withdrawalId completes', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const events = recordEvents(h);
    const fields = { ethereumAddress: owner.address, accountIndex: 0, amount: 40n * USD, nonce: 'w-1' };
    const res = await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: '40000000000', nonce: 'w-1', signature: await signWithdraw(owner, fields) });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({ withdrawalId: expect.any(String), ethereumAddress: owner.address, accountIndex: 0, amount: '40000000000', status: 'PENDING', submittedAt: T0_US });
    const [event] = ofType(events, 'transfer') as TransferEvent[];
    expect(event).toMatchObject({ kind: 'withdrawal', status: 'COMPLETED', amount: 40n * USD, address: owner.address, accountIndex: 0 });
    expect(String(event!.operationId)).toBe(body.withdrawalId);
    expect(quoteOf(h, owner.address)).toBe(60n * USD);
  });

  it('insufficient funds: still 202 PENDING, the outcome is a REJECTED transfer event and the balance is kept', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 10n);
    const events = recordEvents(h);
    const fields = { ethereumAddress: owner.address, accountIndex: 0, amount: 50n * USD, nonce: 'w-2' };
    const res = await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(50n * USD), nonce: 'w-2', signature: await signWithdraw(owner, fields) });
    expect(res.statusCode).toBe(202);
    expect(res.json().status).toBe('PENDING');
    expect(ofType(events, 'transfer')).toMatchObject([{ kind: 'withdrawal', status: 'REJECTED', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL', operationId: Number(res.json().withdrawalId) }]);
    expect(quoteOf(h, owner.address)).toBe(10n * USD);
  });

  it('"Minimum amount: 1e9 quote quantums; must be exactly representable in collateral base units": 400', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    for (const amount of [999_999_999n, 1_000_000_001n]) {
      const signature = await signWithdraw(owner, { ethereumAddress: owner.address, accountIndex: 0, amount, nonce: `m-${amount}` });
      const res = await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(amount), nonce: `m-${amount}`, signature });
      expect(res.statusCode).toBe(400);
    }
    const exact = await signWithdraw(owner, { ethereumAddress: owner.address, accountIndex: 0, amount: USD, nonce: 'm-ok' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(USD), nonce: 'm-ok', signature: exact })).statusCode).toBe(202);
  });

  it('"Replayed withdrawal nonces are rejected": the same nonce again is 409', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const fields = { ethereumAddress: owner.address, accountIndex: 0, amount: 2n * USD, nonce: 'n-1' };
    const payload = { ethereumAddress: owner.address, amount: String(2n * USD), nonce: 'n-1', signature: await signWithdraw(owner, fields) };
    expect((await post(h, '/v1/withdraw', payload)).statusCode).toBe(202);
    const again = await post(h, '/v1/withdraw', payload);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'nonce already used' });
  });

  it('"To self only": a signature by another wallet is 401; no signature and no key is 401', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const fields = { ethereumAddress: owner.address, accountIndex: 0, amount: 2n * USD, nonce: 'x-1' };
    const stolen = await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(2n * USD), nonce: 'x-1', signature: await signWithdraw(intruder, fields) });
    expect(stolen.statusCode).toBe(401);
    expect(stolen.json()).toEqual({ error: 'invalid signature' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(2n * USD), nonce: 'x-2' })).statusCode).toBe(401);
    expect(quoteOf(h, owner.address)).toBe(100n * USD);
  });

  it('the domain follows the gateway network: a testnet signature does not verify on staging', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    setNetwork(h.state, 'staging');
    const fields = { ethereumAddress: owner.address, accountIndex: 0, amount: 2n * USD, nonce: 's-1' };
    const res = await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(2n * USD), nonce: 's-1', signature: await signWithdraw(owner, fields) });
    expect(res.statusCode).toBe(401);
  });
});

describe('withdraw, API-key form (interface Authentication rule 5; supplement §1 op 5): "A key can carry a withdraw permission"', () => {
  it('a key with the withdraw permission signs {ad, ai, ct, n, op: 5, q, v}: 202', async () => {
    const h = await gateway();
    h.fund(alice, 100n, 2);
    registerKey(h.state.keys, { apiKey: alice.apiKey, address: alice.address, accountIndex: undefined, apiWalletName: 'ops', permissions: ['trade', 'withdraw'], validUntil: 0, createdAt: T0_US });
    const events = recordEvents(h);
    const headers = withdrawKeyHeaders(h, alice, { accountIndex: 2, amount: 5n * USD, nonce: 'k-1' });
    const res = await post(h, `/v1/withdraw?address=${alice.address}`, { ethereumAddress: alice.address, amount: String(5n * USD), nonce: 'k-1', accountIndex: 2 }, headers);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ ethereumAddress: alice.address, accountIndex: 2, amount: '5000000000', status: 'PENDING' });
    expect(ofType(events, 'transfer')).toMatchObject([{ kind: 'withdrawal', status: 'COMPLETED', accountIndex: 2 }]);
    const tampered = withdrawKeyHeaders(h, alice, { accountIndex: 2, amount: 5n * USD, nonce: 'k-2' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: alice.address, amount: String(6n * USD), nonce: 'k-2', accountIndex: 2 }, tampered)).statusCode).toBe(401);
  });

  it('a trade-only key is 403; another address is 403 (to self only)', async () => {
    const h = await gateway();
    h.fund(alice, 100n);
    h.key(alice);
    const headers = withdrawKeyHeaders(h, alice, { accountIndex: 0, amount: 5n * USD, nonce: 'k-3' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: alice.address, amount: String(5n * USD), nonce: 'k-3' }, headers)).statusCode).toBe(403);
    registerKey(h.state.keys, { apiKey: bob.apiKey, address: bob.address, accountIndex: undefined, apiWalletName: 'ops', permissions: ['trade', 'withdraw'], validUntil: 0, createdAt: T0_US });
    const other = withdrawKeyHeaders(h, bob, { accountIndex: 0, amount: 5n * USD, nonce: 'k-4' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: alice.address, amount: String(5n * USD), nonce: 'k-4' }, other)).statusCode).toBe(403);
    expect(quoteOf(h, alice.address)).toBe(100n * USD);
  });
});

describe('transfer (supplement §5): "fromAccountIndex, toAccountIndex (0-9, differ), amount (positive integer string), nonce (1-64), signature"', () => {
  it('moves collateral between subaccounts: 202 {transferId, ..., status: PENDING}; transferOut and transferIn complete', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const events = recordEvents(h);
    const fields = { ethereumAddress: owner.address, fromAccountIndex: 0, toAccountIndex: 3, amount: 25n * USD, nonce: 't-1' };
    const res = await post(h, '/v1/transfer', { ...fields, amount: String(fields.amount), signature: await signTransfer(owner, fields) });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({ transferId: expect.any(String), ethereumAddress: owner.address, fromAccountIndex: 0, toAccountIndex: 3, amount: '25000000000', status: 'PENDING', submittedAt: T0_US });
    expect(ofType(events, 'transfer')).toMatchObject([
      { kind: 'transferOut', status: 'COMPLETED', accountIndex: 0, counterpartyIndex: 3, operationId: Number(body.transferId) },
      { kind: 'transferIn', status: 'COMPLETED', accountIndex: 3, counterpartyIndex: 0, operationId: Number(body.transferId) },
    ]);
    expect(quoteOf(h, owner.address, 0)).toBe(75n * USD);
    expect(quoteOf(h, owner.address, 3)).toBe(25n * USD);
    // The nonce is single-use (shared with withdraw).
    expect((await post(h, '/v1/transfer', { ...fields, amount: String(fields.amount), signature: await signTransfer(owner, fields) })).statusCode).toBe(409);
  });

  it('equal indices or a zero amount are 400; another signer is 401', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const same = { ethereumAddress: owner.address, fromAccountIndex: 1, toAccountIndex: 1, amount: USD, nonce: 't-2' };
    expect((await post(h, '/v1/transfer', { ...same, amount: String(USD), signature: await signTransfer(owner, same) })).statusCode).toBe(400);
    const zero = { ethereumAddress: owner.address, fromAccountIndex: 0, toAccountIndex: 1, amount: 0n, nonce: 't-3' };
    expect((await post(h, '/v1/transfer', { ...zero, amount: '0', signature: await signTransfer(owner, zero) })).statusCode).toBe(400);
    const fields = { ethereumAddress: owner.address, fromAccountIndex: 0, toAccountIndex: 1, amount: USD, nonce: 't-4' };
    expect((await post(h, '/v1/transfer', { ...fields, amount: String(USD), signature: await signTransfer(intruder, fields) })).statusCode).toBe(401);
    expect(quoteOf(h, owner.address)).toBe(100n * USD);
  });
});

describe('createApiKey (supplement §5): "202 {apiKey, address, createdAt (µs), allSubaccounts, accountIndex (single-index keys only), validUntil (ms)}"', () => {
  const trader = tradingWallet(owner, 0xc3);
  const validUntil = BigInt(NOW_MS + 30 * DAY_MS);

  async function create(h: GatewayHarness, extra: Record<string, unknown>, signature: unknown) {
    return post(h, '/v1/createApiKey', { address: owner.address, publicKey: trader.apiKey, apiWalletName: 'bot-1', signature, ...extra });
  }

  it('EIP-712: registers the key, which then signs a placeOrder', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 10_000n);
    const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0 });
    const res = await create(h, { validUntil: Number(validUntil) }, signature);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ apiKey: trader.apiKey, address: owner.address, createdAt: T0_US, allSubaccounts: false, accountIndex: 0, validUntil: Number(validUntil) });
    const order = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, trader, { quantity: '0.01', price: '96000.0' }) });
    expect(order.statusCode).toBe(202);
    expect(order.json().status).toBe('ACK');
  });

  it('accountIndex 255 makes an all-subaccount key: allSubaccounts true, no accountIndex', async () => {
    const h = await gateway();
    const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 255 });
    const res = await create(h, { validUntil: Number(validUntil), accountIndex: 255 }, signature);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ apiKey: trader.apiKey, address: owner.address, createdAt: T0_US, allSubaccounts: true, validUntil: Number(validUntil) });
  });

  it('EIP-191 legacy personal_sign (supplement §11: onboarding scripts) registers the key too', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 10_000n);
    const signature = await signCreateApiKeyLegacy(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil });
    const res = await create(h, { validUntil: Number(validUntil) }, signature);
    expect(res.statusCode).toBe(202);
    expect((await h.app.inject({ method: 'POST', ...placeOrderRequest(h, trader, { quantity: '0.01', price: '96000.0' }) })).statusCode).toBe(202);
  });

  it('"401 (signer ≠ address)"', async () => {
    const h = await gateway();
    const signature = await signCreateApiKey(intruder, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0 });
    const res = await create(h, { validUntil: Number(validUntil) }, signature);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid signature' });
    expect(h.state.keys.byKey.size).toBe(0);
  });

  it('"409 (key owned elsewhere, even expired)"; "Own key may be re-registered (renewal)"', async () => {
    const h = await gateway();
    const first = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0 });
    expect((await create(h, { validUntil: Number(validUntil) }, first)).statusCode).toBe(202);
    // Past its expiry the key still belongs to its owner.
    h.now.us += 31 * DAY_US;
    const later = BigInt(Math.floor(h.now.us / 1000) + 30 * DAY_MS);
    const stolen = await signCreateApiKey(intruder, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil: later, accountIndex: 0 });
    const conflict = await post(h, '/v1/createApiKey', { address: intruder.address, publicKey: trader.apiKey, apiWalletName: 'bot-1', validUntil: Number(later), signature: stolen });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: 'api key is registered to another address' });
    const renewal = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil: later, accountIndex: 0 });
    const renewed = await create(h, { validUntil: Number(later) }, renewal);
    expect(renewed.statusCode).toBe(202);
    expect(renewed.json().validUntil).toBe(Number(later));
    expect(h.state.keys.byKey.get(trader.apiKey)).toMatchObject({ status: 'ACTIVE', validUntil: Number(later) });
  });

  it('"nonce? … single-use → 409"; a nonce that is neither a ns time in −48 h/+24 h nor a UUID is 400', async () => {
    const h = await gateway();
    const nonce = String(BigInt(T0_US) * 1000n);
    const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0, nonce });
    expect((await create(h, { validUntil: Number(validUntil), nonce }, signature)).statusCode).toBe(202);
    const replay = await create(h, { validUntil: Number(validUntil), nonce }, signature);
    expect(replay.statusCode).toBe(409);
    expect(replay.json()).toEqual({ error: 'nonce already used' });
    const uuid = '3f1e2d4c-5b6a-4798-8a7b-6c5d4e3f2a1b';
    const withUuid = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0, nonce: uuid });
    expect((await create(h, { validUntil: Number(validUntil), nonce: uuid }, withUuid)).statusCode).toBe(202);
    const stale = String(BigInt(T0_US - 3 * DAY_US) * 1000n);
    const withStale = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0, nonce: stale });
    expect((await create(h, { validUntil: Number(validUntil), nonce: stale }, withStale)).statusCode).toBe(400);
  });

  it('"validUntil? (ms, [now+1d, now+180d], default now+14d)"', async () => {
    const h = await gateway();
    for (const bad of [BigInt(NOW_MS + DAY_MS / 2), BigInt(NOW_MS + 181 * DAY_MS)]) {
      const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil: bad, accountIndex: 0 });
      expect((await create(h, { validUntil: Number(bad) }, signature)).statusCode).toBe(400);
    }
    // perpsim: without validUntil the signed value is 0.
    const unsigned = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil: 0n, accountIndex: 0 });
    const res = await create(h, {}, unsigned);
    expect(res.statusCode).toBe(202);
    expect(res.json().validUntil).toBe(NOW_MS + 14 * DAY_MS);
  });

  it('"Keys created through the public createApiKey are trade-only": an API-key withdraw is 403', async () => {
    const h = await gateway();
    h.fund(ownerWallet, 100n);
    const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-1', publicKey: trader.apiKey, validUntil, accountIndex: 0 });
    expect((await create(h, { validUntil: Number(validUntil) }, signature)).statusCode).toBe(202);
    const headers = withdrawKeyHeaders(h, trader, { accountIndex: 0, amount: 5n * USD, nonce: 'k-9' });
    expect((await post(h, '/v1/withdraw', { ethereumAddress: owner.address, amount: String(5n * USD), nonce: 'k-9' }, headers)).statusCode).toBe(403);
  });
});

describe('revokeApiKey (supplement §5): "{apiKey, address, revokedAt (µs), accountIndex}"; a revoked key is refused (401)', () => {
  const trader = tradingWallet(owner, 0xc4);
  const validUntil = BigInt(NOW_MS + 30 * DAY_MS);

  async function withKey() {
    const h = await gateway();
    h.fund(ownerWallet, 10_000n);
    const signature = await signCreateApiKey(owner, { apiWalletName: 'bot-2', publicKey: trader.apiKey, validUntil, accountIndex: 0 });
    expect((await post(h, '/v1/createApiKey', { address: owner.address, publicKey: trader.apiKey, apiWalletName: 'bot-2', validUntil: Number(validUntil), signature })).statusCode).toBe(202);
    expect((await h.app.inject({ method: 'POST', ...placeOrderRequest(h, trader, { quantity: '0.01', price: '96000.0' }) })).statusCode).toBe(202);
    return h;
  }

  it('EIP-191 legacy revoke, then the key answers 401', async () => {
    const h = await withKey();
    h.now.us += 1_000_000;
    const signature = await signRevokeApiKeyLegacy(owner, { apiWalletName: 'bot-2', publicKey: trader.apiKey });
    const res = await post(h, '/v1/revokeApiKey', { address: owner.address, publicKey: trader.apiKey, apiWalletName: 'bot-2', signature });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ apiKey: trader.apiKey, address: owner.address, revokedAt: T0_US + 1_000_000, accountIndex: 0 });
    const order = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, trader, { quantity: '0.01', price: '96000.0' }) });
    expect(order.statusCode).toBe(401);
  });

  it('EIP-712 revoke (perpsim\'s RevokeApiKey type), then 401 on a Scheme 2 write', async () => {
    const h = await withKey();
    const signature = await signRevokeApiKey(owner, { apiWalletName: 'bot-2', publicKey: trader.apiKey, accountIndex: 0 });
    expect((await post(h, '/v1/revokeApiKey', { address: owner.address, publicKey: trader.apiKey, apiWalletName: 'bot-2', accountIndex: 0, signature })).statusCode).toBe(200);
    expect((await scheme2(h, trader, 'setLeverage', { address: owner.address, marketId: 1, leverage: 5 })).statusCode).toBe(401);
  });

  it('another wallet\'s signature is 401; an unknown key is 404', async () => {
    const h = await withKey();
    const stolen = await signRevokeApiKeyLegacy(intruder, { apiWalletName: 'bot-2', publicKey: trader.apiKey });
    expect((await post(h, '/v1/revokeApiKey', { address: owner.address, publicKey: trader.apiKey, apiWalletName: 'bot-2', signature: stolen })).statusCode).toBe(401);
    const other = 'ab'.repeat(32);
    const unknown = await signRevokeApiKeyLegacy(owner, { apiWalletName: 'bot-2', publicKey: other });
    expect((await post(h, '/v1/revokeApiKey', { address: owner.address, publicKey: other, apiWalletName: 'bot-2', signature: unknown })).statusCode).toBe(404);
    expect(h.state.keys.byKey.get(trader.apiKey)?.status).toBe('ACTIVE');
  });
});
