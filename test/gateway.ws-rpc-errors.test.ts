/**
 * Every answer to a WebSocket post/get carries the call's `id` and `method`, refusals included,
 * so a client can match it: malformed payloads are 400 (never 500), and even an internal error
 * names the call it belongs to.
 */
import WebSocket from 'ws';
import { describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { wallet } from './support/gateway-fixture.ts';
import { simHarness } from './support/sim-harness.ts';
import { connectClient, type Frame } from './support/ws-client.ts';

const sim = simHarness();
const alice = wallet(0x6e);

describe('WebSocket RPC validation errors are 400 with the call\'s id and method', () => {
  it('batchPlaceOrders whose orders is not an array, and payloads that are not objects', async () => {
    const server = await sim.start();
    const c = await connectClient(server.url, sim.sockets);
    const envelope = { apiKey: alice.apiKey, timestamp: String(BigInt(server.exchange.clock()) * 1000n) };
    const calls: [string, unknown][] = [
      ['batchPlaceOrders', { orders: 'x' }],
      ['batchPlaceOrders', { orders: 5 }],
      ['batchPlaceOrders', { orders: { a: 1 } }],
      ['batchPlaceOrders', { orders: null }],
      ['batchPlaceOrders', { orders: [null, 'x', 7] }],
      ['batchPlaceOrders', 'x'],
      ['batchCancelOrders', { cancels: 'x' }],
      ['batchModifyOrders', { modifies: 3 }],
      ['placeOrder', 'x'],
      ['placeOrder', [1, 2]],
      ['placeOrder', 5],
      ['cancelOrder', true],
    ];
    let id = 100;
    for (const [method, payload] of calls) {
      id++;
      c.send({ type: 'post', id, request: { type: method, payload, ...envelope } });
      const frame = await c.next((f: Frame) => f.id === id);
      expect({ method, payload, frame: { id: frame.id, method: frame.method, status: frame.status } }).toEqual({ method, payload, frame: { id, method, status: 400 } });
      expect(frame.error).toMatchObject({ type: 'InvalidRequest' });
    }
  });

  it('a request that is not an object, or an id that is not a number, is answered with what was sent', async () => {
    const server = await sim.start();
    const c = await connectClient(server.url, sim.sockets);
    c.send({ type: 'post', id: 7, request: 'placeOrder' });
    expect(await c.next((f: Frame) => f.id === 7)).toMatchObject({ id: 7, status: 400 });
    c.send({ type: 'get', id: 'abc', request: { type: 'mids', payload: {} } });
    expect(await c.next((f: Frame) => f.id === 'abc')).toMatchObject({ id: 'abc', method: 'mids', status: 400, error: { message: 'post and get messages need a numeric id' } });
  });

  it('an id too large for a double (1e999) is refused with a reply that is still JSON, id null', async () => {
    const server = await sim.start();
    const ws = new WebSocket(server.url.replace('http', 'ws') + '/v1/ws');
    sim.sockets.push(ws);
    const texts: string[] = [];
    ws.on('message', (data: Buffer) => texts.push(data.toString()));
    await new Promise((resolve, reject) => {
      ws.on('open', resolve);
      ws.on('error', reject);
    });
    ws.send('{"type":"get","id":1e999,"request":{"type":"time","payload":{}}}');
    ws.send('{"type":"get","id":-1e999,"request":{"type":"mids","payload":{}}}');
    ws.send('{"type":"get","id":1e300,"request":{"type":"time","payload":{}}}');
    await vi.waitFor(() => expect(texts).toHaveLength(3));
    const frames = texts.map((t) => JSON.parse(t) as Frame);
    const byMethod = (m: string, id: unknown) => frames.find((f) => f.method === m && f.id === id);
    expect(byMethod('time', null)).toMatchObject({ status: 400, error: { type: 'InvalidRequest', message: 'the id must be a finite number' } });
    expect(byMethod('mids', null)).toMatchObject({ status: 400, error: { type: 'InvalidRequest', message: 'the id must be a finite number' } });
    expect(byMethod('time', 1e300)).toMatchObject({ status: 200 });
  });

  it('an internal error still names the call (500 with id and method)', async () => {
    const server = await sim.start();
    const c = await connectClient(server.url, sim.sockets);
    const time = OPERATIONS.find((op) => op.name === 'time')!;
    const handle = time.handle;
    time.handle = () => {
      throw new Error('boom');
    };
    try {
      c.send({ type: 'get', id: 9, request: { type: 'time', payload: {} } });
      expect(await c.next((f: Frame) => f.id === 9)).toMatchObject({ id: 9, method: 'time', status: 500, error: { type: 'Internal' } });
    } finally {
      time.handle = handle;
    }
    c.send({ type: 'get', id: 10, request: { type: 'time', payload: {} } });
    expect(await c.next((f: Frame) => f.id === 10)).toMatchObject({ id: 10, status: 200 });
  });
});
