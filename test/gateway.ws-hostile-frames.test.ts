/**
 * WebSocket frames whose fields are objects that cannot be printed (`{"toString":1}`: String()
 * throws on them) are refused with an error frame; the server stays up. One such frame used to
 * throw out of the message handler and end the process (found by `npm run fuzz`).
 */
import { describe, expect, it } from 'vitest';
import { connectClient } from './support/ws-client.ts';
import { simHarness } from './support/sim-harness.ts';

const sim = simHarness();

describe('WebSocket frames with unprintable field values', () => {
  it('answers an error frame for each and keeps serving', async () => {
    const server = await sim.start();
    const client = await connectClient(server.url, sim.sockets);
    const unprintable: unknown[] = [{ toString: 1 }, { valueOf: 1, toString: null }, JSON.parse('{"__proto__":1,"toString":[]}')];
    const frames = unprintable.flatMap((value) => [
      { type: value },
      { type: 'subscribe', channel: value },
      { type: 'unsubscribe', channel: value },
      { type: 'subscribe', channel: 'orders', id: '0x' + 'a'.repeat(40), market: value },
    ]);
    for (const frame of frames) client.send(frame);
    await client.next(() => client.frames.length >= frames.length, 5000).catch(() => undefined);
    expect(client.frames).toHaveLength(frames.length);
    for (const frame of client.frames) {
      expect(frame).toMatchObject({ type: 'error', status: 400 });
      expect(typeof (frame.error as { message?: unknown }).message).toBe('string');
    }
    expect((await sim.call('GET', '/health')).status).toBe(200);
  });

  it('answers an RPC whose method, key or market is unprintable, or a batch whose orders are not a list, below 500 with its id (400 for the malformed ones)', async () => {
    const server = await sim.start();
    const client = await connectClient(server.url, sim.sockets);
    client.send({ type: 'get', id: 7, request: { type: { toString: 1 } } });
    client.send({ type: 'post', id: 8, request: { type: 'batchPlaceOrders', payload: { orders: 'x' } } });
    client.send({ type: 'post', id: 9, request: { type: 'batchPlaceOrders', payload: { orders: { length: 1 } } } });
    client.send({ type: 'get', id: 10, request: { type: 'openOrders', payload: { address: '0x' + 'a'.repeat(40) }, apiKey: { toString: 1 }, timestamp: '1', signature: 'ab' } });
    client.send({ type: 'get', id: 11, request: { type: 'funding', payload: { address: '0x' + 'a'.repeat(40), market: { toString: 1 } } } });
    for (const id of [7, 8, 9, 10, 11]) {
      const reply = await client.next((f) => f.id === id, 5000);
      const status = reply.status as number;
      expect(status, JSON.stringify(reply)).toBeLessThan(500);
      if (id <= 9) expect(status).toBe(400);
      if (status >= 400) expect(typeof (reply.error as { message?: unknown }).message).toBe('string');
    }
  });
});
