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
});
