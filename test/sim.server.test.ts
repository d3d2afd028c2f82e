import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../sim/server.ts';
import { wallet } from './support/gateway-fixture.ts';
import { scheme1Payload } from '../gateway/auth/index.ts';
import * as ed from '@noble/ed25519'; // sha512 is set up by the gateway fixture

let server: Server | undefined;
import { levelCount } from '../engine/book.ts';
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server!.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server!.url + path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('npm start: a live exchange with moving prices and a filled order book', () => {
  it('quotes at least 20 levels a side on every ONLINE market as soon as it starts, and moves prices', async () => {
    server = await startServer({ port: 0, feedMs: 50, tickMs: 20 });
    for (const ms of server.exchange.engine.markets.values()) {
      if (ms.spec.status !== 'ONLINE') continue;
      expect(levelCount(ms.book.bids)).toBeGreaterThanOrEqual(20);
      expect(levelCount(ms.book.asks)).toBeGreaterThanOrEqual(20);
    }
    const btc = server.exchange.engine.markets.get(1)!;
    const start = btc.oraclePrice;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(btc.oraclePrice).not.toBe(start);
  });
});

describe('a bot\'s test suite funds accounts, registers keys, moves prices and time over HTTP', () => {
  it('deposits through /sim/deposit, registers a key through /sim/apiKeys and trades with it', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const alice = wallet(0xa1);
    expect((await get(`/v1/account?address=${alice.address}`)).status).toBe(404);
    expect((await post('/sim/deposit', { address: alice.address, amount: '2500.5' })).body).toMatchObject({ netQuoteBalance: '2500.5' });
    expect((await get(`/v1/account?address=${alice.address}`)).body).toMatchObject({ netQuoteBalance: '2500.5' });
    expect((await post('/sim/apiKeys', { address: alice.address, publicKey: alice.apiKey })).body).toMatchObject({ apiKey: alice.apiKey, allSubaccounts: true });

    const time = (await get('/sim/clock')).body.timeUs as number;
    const ts = BigInt(time) * 1000n;
    const gtt = String(time + 40 * 86_400_000_000);
    const message = scheme1Payload(1, { address: alice.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(gtt) * 1000n, marketId: 2, priceTicks: 330000, sizeQuantums: 10_000_000, reduceOnly: false, side: 0, timeInForce: 0 });
    const signature = Buffer.from(ed.sign(new TextEncoder().encode(message), alice.secret)).toString('hex');
    const placed = await post(`/v1/placeOrder?address=${alice.address}`, { address: alice.address, accountIndex: 0, marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price: '3300.00', goodTilTime: gtt, timestamp: Number(ts) }, { 'x-api-key': alice.apiKey, 'x-timestamp': ts.toString(), 'x-signature': signature });
    expect(placed.status).toBe(202);
    expect(placed.body).toMatchObject({ status: 'ACK', marketDisplayName: 'ETH-USD' });
  });

  it('sets oracle prices through /sim/oracle and moves a virtual clock through /sim/clock', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    expect((await post('/sim/oracle', { market: 'btc-usd', price: '100000.0' })).status).toBe(200);
    const btc = ((await get('/v1/markets?market=1')).body.markets as Record<string, unknown>[])[0]!;
    expect(btc.oraclePrice).toBe('100000.0');
    const before = (await get('/sim/clock')).body.timeUs as number;
    const after = (await post('/sim/clock', { advanceMs: 3_600_000 })).body.timeUs as number;
    expect(after - before).toBe(3_600_000_000);
    expect((await post('/sim/clock', { advanceMs: 1, mode: 'virtual' })).status).toBe(400);
    expect((await post('/sim/oracle', { market: 'NOPE', price: '1' })).status).toBe(400);
  });
});

describe('POST /sim/funding, /sim/liquidate and /sim/halt move the market for a test', () => {
  it('fixes a funding rate, halts a market and force-liquidates an account', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    expect((await post('/sim/funding', { market: 'ETH-USD', rate1h: '0.0001' })).body).toMatchObject({ market: 'ETH-USD', rate1h: '0.0001' });
    expect(server.exchange.engine.markets.get(2)!.funding.rate).toBe(100_000_000n);
    expect((await post('/sim/funding', { market: 'ETH-USD', rate1h: '1' })).status).toBe(400);
    expect((await post('/sim/halt', { market: 2, halted: true })).body).toEqual({ market: 'ETH-USD', halted: true });
    expect(server.exchange.engine.markets.get(2)!.halted).toBe(true);
    const alice = wallet(0x61).address;
    expect((await post('/sim/liquidate', { address: alice })).status).toBe(400);
  });
});


describe('the control API answers loopback callers, or callers with the control token', () => {
  it('refuses /sim without the configured token (401) and from another host (403); /v1 routes pass', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false, controlToken: 'secret' });
    expect((await server.app.inject({ method: 'GET', url: '/sim/clock' })).statusCode).toBe(401);
    const withToken = await server.app.inject({ method: 'GET', url: '/sim/clock', headers: { authorization: 'Bearer secret' } });
    expect(withToken.statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/v1/time' })).statusCode).toBe(200);
    await server.close();
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const remote = await server.app.inject({ method: 'GET', url: '/sim/clock', remoteAddress: '10.1.2.3' });
    expect(remote.statusCode).toBe(403);
    expect(remote.json()).toEqual({ error: 'the control API answers loopback callers only' });
    expect((await server.app.inject({ method: 'GET', url: '/v1/time', remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
  });
});

describe('no reply leaves before the changes so far are durable', () => {
  it('a failed commit turns the reply into a 503 Unavailable', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    server.state.committed = () => Promise.reject(new Error('disk full'));
    const res = await server.app.inject({ method: 'GET', url: '/v1/time' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ error: 'the change could not be made durable; the exchange stops accepting writes', errorType: 'Unavailable' });
  });
});
