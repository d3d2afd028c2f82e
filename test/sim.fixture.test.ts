/**
 * perpsim as a bot's CI fixture, through REST and WebSocket only: start the server in process on
 * a random port, fund an account through /sim/deposit, register a key, place and cancel signed
 * orders, move the oracle until the account is liquidated, advance the clock across a funding
 * hour and see the payment, reset and see a clean state.
 */
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { scheme1Payload, scheme2Message } from '../gateway/auth/index.ts';
import { wallet, type Wallet } from './support/gateway-fixture.ts';
import { simHarness } from './support/sim-harness.ts';
import { connectClient } from './support/ws-client.ts';

const sim = simHarness();

let nonce = 0;

async function call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, body: reply } = await sim.call(method, path, body, headers);
  return { status, body: reply };
}

async function simTimeNs(): Promise<bigint> {
  return BigInt((await call('GET', '/sim/clock')).body.timeUs as number) * 1000n + BigInt(++nonce);
}

function sign(w: Wallet, message: string): string {
  return Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
}

/** A signed ETH-USD limit order (tick 0.01, step 0.0000001), exactly as a venue client builds it. */
async function placeOrder(w: Wallet, side: 'BUY' | 'SELL', price: string, quantity: string, tif: 'GTT' | 'IOC' = 'GTT'): Promise<{ status: number; body: Record<string, unknown> }> {
  const ts = await simTimeNs();
  const gtt = String(ts / 1000n + 40n * 86_400_000_000n);
  const priceTicks = Math.round(Number(price) * 100);
  const sizeQuantums = Math.round(Number(quantity) * 1e7);
  const message = scheme1Payload(1, { address: w.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(gtt) * 1000n, marketId: 2, priceTicks, sizeQuantums, reduceOnly: false, side: side === 'BUY' ? 0 : 1, timeInForce: tif === 'GTT' ? 0 : 2 });
  return call('POST', `/v1/placeOrder?address=${w.address}`, { address: w.address, accountIndex: 0, marketId: 2, orderSide: side, orderType: 'LIMIT', timeInForce: tif, quantity, price, goodTilTime: gtt, timestamp: Number(ts) }, { 'x-api-key': w.apiKey, 'x-timestamp': ts.toString(), 'x-signature': sign(w, message) });
}

async function cancelOrder(w: Wallet, orderId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const ts = await simTimeNs();
  const message = scheme1Payload(2, { address: w.address, accountIndex: 0, clientTimeNs: ts, orderId, marketId: 2 });
  return call('POST', `/v1/cancelOrder?address=${w.address}`, { address: w.address, accountIndex: 0, marketId: 2, orderId, timestamp: Number(ts) }, { 'x-api-key': w.apiKey, 'x-timestamp': ts.toString(), 'x-signature': sign(w, message) });
}

describe('a bot\'s integration tests run against perpsim exactly as against the venue\'s testnet', () => {
  it('funds, trades, gets liquidated, pays funding and resets to a clean state through REST and WebSocket only', async () => {
    const server = await sim.start();
    const bot = wallet(0x71);
    const whale = wallet(0x72);
    for (const w of [bot, whale]) {
      expect((await call('POST', '/sim/apiKeys', { address: w.address, publicKey: w.apiKey })).status).toBe(200);
    }
    expect((await call('POST', '/sim/deposit', { address: bot.address, amount: '500' })).status).toBe(200);
    expect((await call('POST', '/sim/deposit', { address: whale.address, amount: '1000000' })).status).toBe(200);

    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'subscribe', channel: 'orders', id: bot.address });
    ws.send({ type: 'subscribe', channel: 'account', id: bot.address });
    await ws.next((f) => f.type === 'subscribed' && f.channel === 'account');

    // Place and cancel a resting order: 202 ACK, then OPEN and CANCELED on the orders channel.
    const resting = await placeOrder(bot, 'BUY', '3300.00', '0.1');
    expect(resting).toMatchObject({ status: 202, body: { status: 'ACK' } });
    const orderId = resting.body.orderId as string;
    expect((await cancelOrder(bot, orderId)).status).toBe(202);
    await ws.next((f) => f.channel === 'orders' && (f.contents as { orderId?: string; status?: string }).orderId === orderId && (f.contents as { status: string }).status === 'CANCELED');

    // A leveraged long: the whale's ask, the bot lifts it (1.25 ETH at 3400 on 500 USD, ~8.5x).
    expect((await placeOrder(whale, 'SELL', '3400.00', '1.25')).status).toBe(202);
    expect((await placeOrder(bot, 'BUY', '3400.00', '1.25', 'IOC')).status).toBe(202);
    const positions = (await call('GET', `/v1/positions?address=${bot.address}`)).body.positions as Record<string, Record<string, unknown>>;
    expect(positions['2']).toMatchObject({ side: 'LONG', size: '1.25' });

    // Funding: fix a rate, cross the hour, see the payment on REST.
    expect((await call('POST', '/sim/funding', { market: 'ETH-USD', rate1h: '0.0001' })).status).toBe(200);
    expect((await call('POST', '/sim/clock', { advanceMs: 3_600_000 })).status).toBe(200);
    const funding = (await call('GET', `/v1/funding?address=${bot.address}`)).body.fundingPayments as Record<string, string>[];
    expect(funding).toHaveLength(1);
    expect(funding[0]).toMatchObject({ marketDisplayName: 'ETH-USD', size: '1.25', fundingRate: '0.0001' });
    expect(Number(funding[0]!.payment)).toBeLessThan(0);

    // The oracle falls until the bot is liquidated: a LIQUIDATION update on the account channel.
    for (const price of ['3300', '3200', '3100', '3050', '3020']) {
      expect((await call('POST', '/sim/oracle', { market: 'ETH-USD', price })).status).toBe(200);
    }
    await ws.next((f) => f.channel === 'account' && (f.contents as { type?: string }).type === 'LIQUIDATION');
    const after = (await call('GET', `/v1/positions?address=${bot.address}`)).body.positions as Record<string, unknown>;
    expect(after['2']).toBeUndefined();

    // Scheme 2 writes work too: cancel-all answers CANCEL_ALL_ACKNOWLEDGED.
    const ts = (await simTimeNs()).toString();
    const body = { address: whale.address, accountIndex: 0 };
    const res = await call('POST', '/v1/cancelAllOrders', body, { 'x-api-key': whale.apiKey, 'x-timestamp': ts, 'x-signature': sign(whale, scheme2Message(ts, 'cancelAllOrders', body)) });
    expect(res).toMatchObject({ status: 202, body: { status: 'CANCEL_ALL_ACKNOWLEDGED' } });

    // Reset: a clean state — the accounts, keys and orders are gone, a fresh subscription sees nothing.
    expect((await call('POST', '/sim/reset')).status).toBe(200);
    expect((await call('GET', `/v1/account?address=${bot.address}`)).status).toBe(404);
    expect(((await call('GET', `/v1/orders?address=${whale.address}`)).body.orders as unknown[]).length).toBe(0);
    expect((await placeOrder(whale, 'SELL', '3400.00', '0.1')).status).toBe(401);
    const fresh = await connectClient(server.url, sim.sockets);
    fresh.send({ type: 'subscribe', channel: 'orders', id: whale.address });
    const snapshot = await fresh.next((f) => f.type === 'subscribed' && f.channel === 'orders');
    expect(JSON.stringify(snapshot.contents)).not.toContain('OPEN');
  });
});
