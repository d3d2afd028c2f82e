import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { scheme1Payload } from '../gateway/auth/index.ts';
import { addRecord, createRequestLog, listRecords } from '../sim/request-log.ts';
import { wallet, type Wallet } from './support/gateway-fixture.ts';
import { simHarness, type Json } from './support/sim-harness.ts';
import { connectClient } from './support/ws-client.ts';

const sim = simHarness();
const call = sim.call;

async function journal(query = ''): Promise<Json[]> {
  const res = await call('GET', `/sim/journal${query}`);
  expect(res.status).toBe(200);
  return res.body.requests as Json[];
}

/** A signed ETH-USD buy, as a venue client sends it. */
async function placeOrder(w: Wallet, price: string): Promise<{ status: number; body: Json }> {
  const ts = BigInt(sim.server.exchange.clock()) * 1000n;
  const gtt = String(sim.server.exchange.clock() + 40 * 86_400_000_000);
  const message = scheme1Payload(1, { address: w.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(gtt) * 1000n, marketId: 2, priceTicks: Math.round(Number(price) * 100), sizeQuantums: 10_000_000, reduceOnly: false, side: 0, timeInForce: 0 });
  const signature = Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
  return call('POST', `/v1/placeOrder?address=${w.address}`, { address: w.address, accountIndex: 0, marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price, goodTilTime: gtt, timestamp: Number(ts) }, { 'x-api-key': w.apiKey, 'x-timestamp': ts.toString(), 'x-signature': signature });
}

describe('GET /sim/journal: the requests perpsim received (method, path, body, status), for "did my bot send X" assertions', () => {
  it('records a signed order with its method, path, query, body as sent, status and signer, newest first', async () => {
    const server = await sim.start();
    const bot = wallet(0x31);
    await call('POST', '/sim/deposit', { address: bot.address, amount: '10000' });
    await call('POST', '/sim/apiKeys', { address: bot.address, publicKey: bot.apiKey });
    expect((await placeOrder(bot, '3300.00')).status).toBe(202);
    expect((await call('GET', `/v1/openOrders?address=${bot.address.toUpperCase().replace('0X', '0x')}`)).status).toBe(200);

    const [read, order] = await journal();
    expect(read).toMatchObject({ transport: 'rest', method: 'GET', path: '/v1/openOrders', status: 200, address: bot.address });
    expect(order).toMatchObject({
      transport: 'rest',
      method: 'POST',
      path: '/v1/placeOrder',
      query: { address: bot.address },
      status: 202,
      address: bot.address,
      body: { orderSide: 'BUY', price: '3300.00', quantity: '1', marketId: 2 },
    });
    expect(order!.id as number).toBeLessThan(read!.id as number);
    expect(order!.time).toBe(server.exchange.clock());
    // Bodies are parsed when first read: the record's keys keep the order of one made at once.
    expect(Object.keys(order!)).toEqual(['id', 'time', 'transport', 'method', 'path', 'query', 'body', 'status', 'address']);
    expect(await journal()).toEqual([read, order]);
  });

  it('records refused requests too: a bad signature (401) attributed to the key\'s owner, a body that is not JSON', async () => {
    const server = await sim.start();
    const bot = wallet(0x32);
    const other = wallet(0x33);
    await call('POST', '/sim/apiKeys', { address: bot.address, publicKey: bot.apiKey });
    // The key is the bot's: the request is the bot's whatever address it claims.
    const forged = await call('POST', '/v1/cancelAllOrders', { address: other.address, accountIndex: 0 }, { 'x-api-key': bot.apiKey, 'x-timestamp': String(BigInt(server.exchange.clock()) * 1000n), 'x-signature': 'ab'.repeat(64) });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect((await call('POST', '/v1/placeOrder', '{"not json')).status).toBe(400);
    const [broken, cancel] = await journal();
    expect(broken).toMatchObject({ path: '/v1/placeOrder', status: 400, body: '{"not json' });
    expect(broken!.address).toBeUndefined();
    expect(cancel).toMatchObject({ path: '/v1/cancelAllOrders', status: forged.status, address: bot.address, body: { address: other.address } });
  });

  it('takes its records without a listener on each response: node\'s own "finish" listener only, no "error" one', async () => {
    const server = await sim.start();
    const seen: Array<[number, number]> = [];
    // Fastify's routing runs in the server's 'request' listener; this one runs after it.
    server.app.server.on('request', (_req, res: import('node:http').ServerResponse) => seen.push([res.listenerCount('finish'), res.listenerCount('error')]));
    expect((await call('GET', '/v1/markets')).status).toBe(200);
    expect(seen).toEqual([[1, 0]]);
    expect((await journal())[0]).toMatchObject({ method: 'GET', path: '/v1/markets', status: 200 });
  });

  it('a venue request (/v1/...) passes the control guard and the log without fastify building its routeOptions', async () => {
    const server = await sim.start();
    const bot = wallet(0x35);
    await call('POST', '/sim/deposit', { address: bot.address, amount: '10000' });
    await call('POST', '/sim/apiKeys', { address: bot.address, publicKey: bot.apiKey });
    // Every read of request.routeOptions asks the route's instance for its version constraint.
    const app = server.app as unknown as { hasConstraintStrategy: (name: string) => boolean };
    const ask = app.hasConstraintStrategy;
    let reads = 0;
    app.hasConstraintStrategy = function (this: unknown, name: string) {
      reads++;
      return ask.call(this, name);
    };
    try {
      expect((await placeOrder(bot, '3300.00')).status).toBe(202);
      expect((await call('GET', '/v1/markets')).status).toBe(200);
      expect(reads).toBe(0);
      expect((await call('GET', '/sim/clock')).status).toBe(200);
      expect(reads).toBeGreaterThan(0);
    } finally {
      app.hasConstraintStrategy = ask;
    }
    expect((await journal()).slice(0, 2)).toMatchObject([{ path: '/v1/markets' }, { path: '/v1/placeOrder', status: 202 }]);
  });

  it('records WebSocket RPC calls with the method name as the path', async () => {
    const server = await sim.start();
    const bot = wallet(0x34);
    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'get', id: 7, request: { type: 'l2orderbook', payload: { market: 'BTC-USD', extra: 1 } } });
    ws.send({ type: 'post', id: 8, request: { type: 'cancelAllOrders', payload: { address: bot.address, accountIndex: 0 }, apiKey: bot.apiKey, timestamp: '1', signature: 'ab' } });
    await ws.next((f) => f.id === 8);
    await ws.next((f) => f.id === 7);
    const calls = await journal();
    expect(calls.find((r) => r.path === 'l2orderbook')).toMatchObject({ transport: 'ws', method: 'GET', status: 200, body: { market: 'BTC-USD', extra: 1 } });
    const post = calls.find((r) => r.path === 'cancelAllOrders');
    expect(post).toMatchObject({ transport: 'ws', method: 'POST', address: bot.address });
    expect(Object.keys(post!)).toEqual(['id', 'time', 'transport', 'method', 'path', 'body', 'status', 'address']);
    expect(post!.status).toBeGreaterThanOrEqual(400);
  });

  it('leaves out the control API, documentation and the OpenAPI document', async () => {
    const server = await sim.start();
    await call('GET', '/sim/clock');
    await fetch(server.url + '/openapi.json');
    await call('GET', '/v1/time');
    expect((await journal()).map((r) => r.path)).toEqual(['/v1/time']);
  });
});

describe('GET /sim/journal filters by address (case-insensitive) and limit (1..1000, default 100)', () => {
  it('keeps only the requests attributable to the address, at most limit of them', async () => {
    await sim.start();
    const a = wallet(0x41).address;
    const b = wallet(0x42).address;
    for (let i = 0; i < 3; i++) await call('GET', `/v1/positions?address=${a}`);
    await call('GET', `/v1/positions?address=${b}`);
    await call('GET', '/v1/time');
    expect(await journal(`?address=${a.toUpperCase().replace('0X', '0x')}`)).toHaveLength(3);
    expect((await journal(`?address=${b}`)).map((r) => r.address)).toEqual([b]);
    expect((await journal('?limit=2')).map((r) => r.path)).toEqual(['/v1/time', '/v1/positions']);
    for (let i = 0; i < 110; i++) await call('GET', '/v1/time');
    expect(await journal()).toHaveLength(100);
  });

  it('answers 400 in the control API\'s error shape for a bad limit or address', async () => {
    await sim.start();
    for (const query of ['?limit=0', '?limit=1001', '?limit=x', '?address=0x12', '?address=nothex']) {
      const res = await call('GET', `/sim/journal${query}`);
      expect(res.status, query).toBe(400);
      expect(typeof res.body.error, query).toBe('string');
    }
  });
});

describe('the request log is a bounded ring buffer of configurable size', () => {
  it('keeps the newest records only', async () => {
    await sim.start({ requestLogSize: 3 });
    for (const path of ['/v1/time', '/v1/mids', '/v1/markets', '/v1/prices']) await call('GET', path);
    expect((await journal()).map((r) => r.path)).toEqual(['/v1/prices', '/v1/markets', '/v1/mids']);
    expect((await call('GET', '/sim/journal')).body).toMatchObject({ received: 4, capacity: 3 });
  });

  it('wraps around in place and refuses a size below 1', () => {
    const log = createRequestLog(2);
    for (let i = 0; i < 5; i++) addRecord(log, { time: i, transport: 'rest', method: 'GET', path: `/${i}`, body: null, status: 200 });
    expect(listRecords(log, 10).map((r) => [r.id, r.path])).toEqual([[5, '/4'], [4, '/3']]);
    expect(log.ring).toHaveLength(2);
    expect(() => createRequestLog(0)).toThrow(RangeError);
  });
});

describe('a body nested too deep to serialize is kept safely, and the journal keeps answering', () => {
  it('keeps a REST body nested 5,000 deep as its raw text; a WebSocket payload that deep is left out', async () => {
    const server = await sim.start();
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const text = `{"address":"0x${'11'.repeat(20)}","x":${deep}}`;
    expect((await call('POST', '/v1/placeOrder', text)).status).toBe(400);
    // Sent as text: the test client's JSON.stringify cannot write it either.
    const ws = new WebSocket(server.url.replace('http', 'ws') + '/v1/ws');
    sim.sockets.push(ws);
    await new Promise((resolve) => ws.once('open', resolve));
    const answered = new Promise((resolve) => ws.once('message', resolve));
    ws.send(`{"type":"post","id":3,"request":{"type":"placeOrder","payload":{"x":${deep}}}}`);
    await answered;
    const [rpc, rest] = await journal();
    expect(rpc).toMatchObject({ transport: 'ws', path: 'placeOrder', body: null });
    expect(rest).toMatchObject({ transport: 'rest', path: '/v1/placeOrder', status: 400, body: text });
    // Sixty-four levels still come back parsed.
    const nested = '['.repeat(63) + ']'.repeat(63);
    await call('POST', '/v1/placeOrder', `{"x":${nested}}`);
    expect((await journal())[0]!.body).toEqual(JSON.parse(`{"x":${nested}}`));
  });
});
