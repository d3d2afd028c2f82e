import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type Server } from '../sim/server.ts';
import { wallet } from './support/gateway-fixture.ts';
import { connectClient, type Client } from './support/ws-client.ts';
import { priceToTicks } from '../engine/index.ts';
import { scheme1Payload } from '../gateway/auth/index.ts';
import * as ed from '@noble/ed25519';

let server: Server | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const s of sockets) s.close();
  sockets.length = 0;
  await server?.close();
  server = undefined;
});

async function client(): Promise<Client> {
  return connectClient(server!.url, sockets);
}

function deposit(address: string, usd: bigint): void {
  server!.exchange.submit({ type: 'deposit', address, accountIndex: 0, amount: usd * 1_000_000_000n });
}

function rest(side: 0 | 1, address: string, price: string, size: number, tif: 0 | 2 = 0): void {
  const ms = server!.exchange.engine.markets.get(2)!;
  server!.exchange.submit({ type: 'placeOrder', address, accountIndex: 0, marketId: 2, side, orderType: 0, tif, price: priceToTicks(ms.spec, price)!, size, reduceOnly: false, goodTilTime: server!.exchange.clock() + 40 * 86_400_000_000 });
}

describe('subscribe gets a subscribed reply whose contents are the snapshot; updates arrive as channel_data', () => {
  it('bbo and l2OrderbookUpdates: snapshot, then deltas with absolute sizes and contiguous lastSequenceId', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const maker = wallet(0x31).address;
    deposit(maker, 1_000_000n);
    rest(0, maker, '3390.00', 10_000_000);
    const c = await client();
    c.send({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: 'eth-usd' });
    const snap = await c.next((f) => f.type === 'subscribed');
    expect(snap).toMatchObject({ channel: 'l2OrderbookUpdates', id: 'ETH-USD', contents: { bids: [['3390.00', '1.0']], asks: [] } });
    const base = (snap.contents as { lastSequenceId: number }).lastSequenceId;
    rest(1, maker, '3410.00', 20_000_000);
    rest(0, maker, '3390.00', 10_000_000);
    const deltas = [await c.next((f) => f.type === 'channel_data' && (f.contents as { asks: unknown[] }).asks.length > 0), await c.next((f) => f.type === 'channel_data' && (f.contents as { bids: unknown[] }).bids.length > 0)];
    expect(deltas.map((d) => (d.contents as { lastSequenceId: number }).lastSequenceId)).toEqual([base + 1, base + 2]);
    expect((deltas[0]!.contents as { asks: unknown }).asks).toEqual([['3410.00', '2.0']]);
    expect((deltas[1]!.contents as { bids: unknown }).bids).toEqual([['3390.00', '2.0']]);
  });

  it('account channels echo the lowercase address and accountIndex on every frame; orders updates follow the lifecycle', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const alice = wallet(0x41).address;
    const bob = wallet(0x42).address;
    deposit(alice, 1_000_000n);
    deposit(bob, 1_000_000n);
    const c = await client();
    c.send({ type: 'subscribe', channel: 'orders', id: alice.toUpperCase().replace('0X', '0x') });
    const snap = await c.next((f) => f.type === 'subscribed');
    expect(snap).toMatchObject({ channel: 'orders', id: alice, accountIndex: 0, contents: { isSnapshot: true, orders: [] } });
    rest(1, alice, '3400.00', 10_000_000);
    rest(0, bob, '3400.00', 4_000_000, 2);
    await c.next((f) => (f.contents as { status?: string }).status === 'PARTIALLY_FILLED');
    const statuses = c.frames.filter((f) => f.type === 'channel_data').map((f) => (f.contents as { status: string }).status);
    expect(statuses).toEqual(['OPEN', 'PARTIALLY_FILLED']);
    expect(c.frames.every((f) => f.accountIndex === 0)).toBe(true);
  });

  it('refuses wrong-channel parameters, unknown channels, and an unsubscribe that does not repeat the identity', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const c = await client();
    c.send({ type: 'subscribe', channel: 'bbo', id: 'BTC-USD', accountIndex: 1 });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ status: 400, error: { type: 'InvalidRequest' } });
    c.send({ type: 'subscribe', channel: 'nope' });
    await c.next((f) => f.type === 'error' && String((f.error as { message: string }).message).includes('unknown channel'));
    c.send({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD', nLevels: 50 });
    await c.next((f) => f.type === 'subscribed');
    c.send({ type: 'unsubscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD' });
    await c.next((f) => f.type === 'error' && String((f.error as { message: string }).message).includes('not subscribed'));
    c.send({ type: 'unsubscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD', nLevels: 50 });
    expect(await c.next((f) => f.type === 'unsubscribed')).toMatchObject({ channel: 'l2OrderbookUpdates', id: 'BTC-USD' });
  });
});

describe('WebSocket RPC: post and get with the client id echoed; 202 for order mutations; TPSL and createApiKey are not over the socket', () => {
  it('places a signed order over the socket and reads the book with get', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const alice = wallet(0x51);
    deposit(alice.address, 100_000n);
    await fetch(server.url + '/sim/apiKeys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: alice.address, publicKey: alice.apiKey }) });
    const now = server.exchange.clock();
    const ts = BigInt(now) * 1000n;
    const gtt = String(now + 40 * 86_400_000_000);
    const message = scheme1Payload(1, { address: alice.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(gtt) * 1000n, marketId: 2, priceTicks: 339_000, sizeQuantums: 10_000_000, reduceOnly: false, side: 0, timeInForce: 0 });
    const signature = Buffer.from(ed.sign(new TextEncoder().encode(message), alice.secret)).toString('hex');
    const c = await client();
    c.send({ type: 'post', id: 7, request: { type: 'placeOrder', apiKey: alice.apiKey, timestamp: ts.toString(), signature, payload: { address: alice.address, accountIndex: 0, marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price: '3390.00', goodTilTime: gtt, timestamp: Number(ts) } } });
    expect(await c.next((f) => f.id === 7)).toMatchObject({ method: 'placeOrder', id: 7, status: 202, result: { status: 'ACK' } });
    c.send({ type: 'get', id: 8, request: { type: 'l2orderbook', payload: { market: 'ETH-USD' } } });
    expect(await c.next((f) => f.id === 8)).toMatchObject({ status: 200, result: { bids: [['3390.00', '1.0']] } });
    c.send({ type: 'post', id: 9, request: { type: 'createApiKey', payload: {} } });
    expect(await c.next((f) => f.id === 9)).toMatchObject({ status: 501, error: { type: 'NotImplemented' } });
    c.send({ type: 'post', id: 10, request: { type: 'placeOrder', payload: { tpslType: 'STOP_LOSS' } } });
    expect(await c.next((f) => f.id === 10)).toMatchObject({ status: 501, error: { type: 'NotImplemented' } });
    c.send({ type: 'post', id: 11, request: { type: 'placeOrder', apiKey: alice.apiKey, timestamp: ts.toString(), signature: '00'.repeat(64), payload: { address: alice.address, accountIndex: 0, marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price: '3390.00', goodTilTime: gtt } } });
    expect(await c.next((f) => f.id === 11)).toMatchObject({ status: 401, error: { message: 'invalid signature' } });
  });
});

describe('the server sends close code 1001 before draining connections on restart', () => {
  it('closes with 1001', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const ws = new WebSocket(server.url.replace('http', 'ws') + '/v1/ws');
    await new Promise((resolve) => ws.on('open', resolve));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await server.close();
    server = undefined;
    expect(await closed).toBe(1001);
  });
});
