import { describe, expect, it, vi } from 'vitest';
import { createFaults, routeFault, setFaults } from '../sim/faults.ts';
import type { Server } from '../sim/server.ts';
import { wallet } from './support/gateway-fixture.ts';
import { simHarness, type Json } from './support/sim-harness.ts';
import { connectClient, type Frame } from './support/ws-client.ts';

const sim = simHarness();
const call = sim.call;
const bot = wallet(0x51);

async function setFaultsOk(body: unknown): Promise<Json> {
  const res = await call('POST', '/sim/faults', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The statuses of n calls of GET /v1/time (502 or 429 when faulted). */
async function timeStatuses(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call('GET', '/v1/time')).status);
  return out;
}

/** A resting BTC-USD bid straight into the engine: one book change, one l2OrderbookUpdates delta. */
function restingBid(server: Server, priceTicks: number): void {
  server.exchange.submit({ type: 'placeOrder', address: bot.address, accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: 0, price: priceTicks, size: 100_000, reduceOnly: false, goodTilTime: server.exchange.clock() + 40 * 86_400_000_000 });
}

describe('POST /sim/faults: probability of Transmission (502) errors, in the interface\'s error shape', () => {
  it('answers an order write 502 with errorSource and errorType Transmission, and a read 502 with the bare error', async () => {
    await sim.start();
    await setFaultsOk({ routes: { placeOrder: { transmissionErrorRate: 1 }, '/v1/bbo/{market}': { transmissionErrorRate: 1 } } });
    const order = await call('POST', `/v1/placeOrder?address=${bot.address}`, { address: bot.address, accountIndex: 0, marketId: 1, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price: '1.0', goodTilTime: '1', timestamp: 1 });
    expect(order.status).toBe(502);
    expect(order.body).toEqual({ error: expect.stringContaining('transmission') as string, errorSource: 'Order', errorType: 'Transmission' });
    const bbo = await call('GET', '/v1/bbo/BTC-USD');
    expect(bbo.status).toBe(502);
    expect(Object.keys(bbo.body)).toEqual(['error']);
    expect((await call('GET', '/v1/time')).status).toBe(200);
  });

  it('faults only requests that pass validation: a malformed one still gets its 400', async () => {
    await sim.start();
    await setFaultsOk({ routes: { placeOrder: { transmissionErrorRate: 1 } } });
    const bad = await call('POST', '/v1/placeOrder', { address: 'nope' });
    expect(bad.status).toBe(400);
  });
});

describe('POST /sim/faults: probability of 429s with Retry-After and the rate-limit body', () => {
  it('answers 429 with reason, retryAfterMs, the order\'s clientId and a Retry-After header in whole seconds', async () => {
    await sim.start();
    await setFaultsOk({ routes: { cancelOrder: { rateLimitRate: 1, retryAfterMs: 1500 }, batchCancelOrders: { rateLimitRate: 1, rateLimitReason: 'account_empty' } } });
    const single = await call('POST', `/v1/cancelOrder?address=${bot.address}`, { address: bot.address, accountIndex: 0, marketId: 1, clientId: 'mine-1', timestamp: 1 });
    expect(single.status).toBe(429);
    expect(single.headers.get('retry-after')).toBe('2');
    expect(single.body).toEqual({ error: 'rate limited', reason: 'ip', retryAfterMs: 1500, clientId: 'mine-1' });
    const batch = await call('POST', `/v1/batchCancelOrders?address=${bot.address}`, { cancels: [{ address: bot.address, accountIndex: 0, marketId: 1, clientId: 'a', timestamp: 1, signature: 'ab'.repeat(64) }, { address: bot.address, accountIndex: 0, marketId: 1, orderId: '1f', timestamp: 1, signature: 'ab'.repeat(64) }] });
    expect(batch.status).toBe(429);
    expect(batch.body).toMatchObject({ reason: 'account_empty', retryAfterMs: 1000, clientIds: ['a', ''] });
  });
});

describe('POST /sim/faults: per-route added latency', () => {
  it('holds a faulted call for latencyMs before it goes on', async () => {
    vi.useFakeTimers();
    try {
      const server = await sim.start();
      const faults = createFaults();
      expect(setFaults(faults, server.state, { routes: { time: { latencyMs: 500 } } })).toBeUndefined();
      let settled = false;
      const pending = routeFault(faults, '/v1/time', undefined).then((r) => {
        settled = true;
        return r;
      });
      await vi.advanceTimersByTimeAsync(499);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      expect(await pending).toBeUndefined();
      // Other routes are not held.
      expect(await routeFault(faults, '/v1/mids', undefined)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('delays the REST route and its WebSocket method, while other routes answer at once', async () => {
    const server = await sim.start();
    await setFaultsOk({ routes: { time: { latencyMs: 1500 } } });
    let slowDone = false;
    const slow = call('GET', '/v1/time').then((r) => {
      slowDone = true;
      return r;
    });
    expect((await call('GET', '/v1/mids')).status).toBe(200);
    expect(slowDone).toBe(false);
    expect((await slow).status).toBe(200);
    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'get', id: 1, request: { type: 'time', payload: {} } });
    ws.send({ type: 'get', id: 2, request: { type: 'mids', payload: {} } });
    await ws.next((f) => f.id === 1, 10_000);
    const order = ws.frames.filter((f) => f.id === 1 || f.id === 2).map((f) => f.id);
    expect(order).toEqual([2, 1]);
  });
});

describe('POST /sim/faults is seeded: deterministic for a seed', () => {
  it('gives the n-th call of a route the same fault for the same seed, whatever other routes do', async () => {
    await sim.start();
    // One rule for every route: each route still draws from its own stream.
    const body = { seed: 42, routes: { '*': { transmissionErrorRate: 0.5 } } };
    await setFaultsOk(body);
    const first = await timeStatuses(24);
    expect(new Set(first)).toEqual(new Set([200, 502]));
    await setFaultsOk(body);
    const second: number[] = [];
    for (let i = 0; i < 24; i++) {
      await call('GET', '/v1/mids'); // traffic elsewhere does not shift the route's stream
      second.push((await call('GET', '/v1/time')).status);
    }
    expect(second).toEqual(first);
    await setFaultsOk({ ...body, seed: 43 });
    expect(await timeStatuses(24)).not.toEqual(first);
  });
});

describe('DELETE /sim/faults clears; GET /sim/faults shows the current ones', () => {
  it('shows the faults with defaults filled in, by route path, then none after DELETE', async () => {
    await sim.start();
    expect((await call('GET', '/sim/faults')).body).toEqual({ faults: null });
    await setFaultsOk({ routes: { trade: { latencyMs: 5 }, '*': { rateLimitRate: 1 } }, ws: { closeRate: 0.5, sequenceGap: { market: 'btc-usd' } } });
    expect((await call('GET', '/sim/faults')).body).toEqual({
      faults: {
        seed: 1,
        routes: {
          '/v1/trade/:tradeId': { latencyMs: 5, transmissionErrorRate: 0, rateLimitRate: 0, retryAfterMs: 1000, rateLimitReason: 'ip' },
          '/v1/trade': { latencyMs: 5, transmissionErrorRate: 0, rateLimitRate: 0, retryAfterMs: 1000, rateLimitReason: 'ip' },
          '*': { latencyMs: 0, transmissionErrorRate: 0, rateLimitRate: 1, retryAfterMs: 1000, rateLimitReason: 'ip' },
        },
        ws: { closeRate: 0.5, dropRate: 0, sequenceGapRate: 0, sequenceGap: { market: 'BTC-USD' } },
      },
    });
    expect((await call('GET', '/v1/time')).status).toBe(429);
    expect((await call('DELETE', '/sim/faults')).body).toEqual({ faults: null });
    expect((await call('GET', '/sim/faults')).body).toEqual({ faults: null });
    expect((await call('GET', '/v1/time')).status).toBe(200);
  });
});

describe('faults apply to /v1 REST routes and WebSocket, never to /sim routes', () => {
  it('leaves the control API alone under a fault on every route', async () => {
    await sim.start();
    await setFaultsOk({ routes: { '*': { transmissionErrorRate: 1 } } });
    expect((await call('GET', '/v1/time')).status).toBe(502);
    expect((await call('GET', '/sim/clock')).status).toBe(200);
    expect((await call('POST', '/sim/deposit', { address: bot.address, amount: '1' })).status).toBe(200);
    expect((await call('GET', '/sim/journal')).status).toBe(200);
  });

  it('answers a WebSocket RPC call of a faulted route with the injected status and error type', async () => {
    const server = await sim.start();
    await setFaultsOk({ routes: { cancelAllOrders: { transmissionErrorRate: 1 }, l2OrderBook: { rateLimitRate: 1 } } });
    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'post', id: 1, request: { type: 'cancelAllOrders', payload: { address: bot.address, accountIndex: 0 }, apiKey: bot.apiKey, timestamp: '1', signature: 'ab' } });
    ws.send({ type: 'get', id: 2, request: { type: 'l2orderbook', payload: { market: 'BTC-USD' } } });
    expect(await ws.next((f) => f.id === 1)).toMatchObject({ method: 'cancelAllOrders', status: 502, error: { type: 'Transmission', errorSource: 'Cancel' } });
    expect(await ws.next((f) => f.id === 2)).toMatchObject({ status: 429, error: { type: 'RateLimited', message: 'rate limited', reason: 'ip', retryAfterMs: 1000 } });
  });
});

describe('POST /sim/faults: closing (1001) or dropping WebSocket connections', () => {
  async function closeCode(server: Server, ws: { closeRate?: number; dropRate?: number }): Promise<number> {
    const client = await connectClient(server.url, sim.sockets);
    const socket = sim.sockets.at(-1)!;
    const closed = new Promise<number>((resolve) => socket.on('close', (code: number) => resolve(code)));
    await setFaultsOk({ ws });
    client.send({ type: 'subscribe', channel: 'bbo', id: 'BTC-USD' });
    return closed;
  }

  it('closes a connection with 1001 instead of sending a frame', async () => {
    const server = await sim.start();
    expect(await closeCode(server, { closeRate: 1 })).toBe(1001);
  });

  it('drops a connection without a close frame (the client sees 1006)', async () => {
    const server = await sim.start();
    expect(await closeCode(server, { dropRate: 1 })).toBe(1006);
  });
});

describe('POST /sim/faults: a deliberate l2OrderbookUpdates sequence gap', () => {
  const seqs = (frames: Frame[]): number[] => frames.map((f) => (f.contents as { lastSequenceId: number }).lastSequenceId);

  it('withholds the next delta of the market from a streaming subscriber, once', async () => {
    const server = await sim.start();
    server.exchange.submit({ type: 'deposit', address: bot.address, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD' });
    await ws.next((f) => f.type === 'subscribed');
    restingBid(server, 900_000);
    await ws.next(() => ws.data('l2OrderbookUpdates').length === 1);
    await setFaultsOk({ ws: { sequenceGap: { market: 'BTC-USD' } } });
    for (const price of [900_010, 900_020, 900_030]) restingBid(server, price);
    await ws.next(() => ws.data('l2OrderbookUpdates').length === 3);
    const [a, b, c] = seqs(ws.data('l2OrderbookUpdates'));
    expect([b! - a!, c! - b!]).toEqual([2, 1]);
    expect((await call('GET', '/sim/faults')).body).toMatchObject({ faults: { ws: { sequenceGapRate: 0 } } });
    expect(((await call('GET', '/sim/faults')).body.faults as { ws: Json }).ws.sequenceGap).toBeUndefined();
  });

  it('withholds deltas at sequenceGapRate, never the first one after a snapshot', async () => {
    const server = await sim.start();
    server.exchange.submit({ type: 'deposit', address: bot.address, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
    await setFaultsOk({ ws: { sequenceGapRate: 1 } });
    const ws = await connectClient(server.url, sim.sockets);
    ws.send({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD' });
    ws.send({ type: 'subscribe', channel: 'bbo', id: 'BTC-USD' });
    await ws.next((f) => f.type === 'subscribed' && f.channel === 'bbo');
    for (const price of [900_000, 900_010, 900_020]) restingBid(server, price);
    await ws.next(() => ws.data('bbo').length === 3);
    expect(ws.data('l2OrderbookUpdates')).toHaveLength(1);
  });
});

describe('POST /sim/faults validates its body: a clear 400 in the control API\'s error shape', () => {
  it('refuses unknown routes, non-/v1 routes, rates outside 0..1, unknown markets and unknown fields', async () => {
    await sim.start();
    const cases: [unknown, RegExp][] = [
      [{ routes: { nosuch: {} } }, /unknown route: nosuch/],
      [{ routes: { '/sim/clock': {} } }, /unknown route/],
      [{ routes: { root: { latencyMs: 1 } } }, /\/v1 routes only/],
      [{ routes: { time: {}, '/v1/time': {} } }, /named twice/],
      [{ routes: { time: { transmissionErrorRate: 1.5 } } }, /transmissionErrorRate/],
      [{ routes: { time: { latencyMs: -1 } } }, /latencyMs/],
      [{ routes: { time: { bogus: 1 } } }, /additional/],
      [{ ws: { sequenceGap: { market: 'NOPE-USD' } } }, /unknown market: NOPE-USD/],
      [{ ws: { closeRate: 'often' } }, /closeRate/],
      [{ seed: -1 }, /seed/],
      ['{"routes":', /JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/sim/faults', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(message);
    }
    expect((await call('GET', '/sim/faults')).body).toEqual({ faults: null });
  });
});
