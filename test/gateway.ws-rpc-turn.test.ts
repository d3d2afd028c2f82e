/**
 * How the WebSocket answers RPC calls (gateway/ws/server.ts): the replies of one event-loop
 * turn leave in one socket write, in the order they were answered; a call whose operation
 * throws is answered 500 with its id and method, and reaches the afterRpc hook (a request log)
 * with that status like any other call.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { attachWebSocket, type WsHooks, type WsRpcRecord } from '../gateway/ws/server.ts';
import { gateway } from './support/gateway-fixture.ts';

type Frame = Record<string, unknown>;

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Rig {
  client: WebSocket;
  frames: Frame[];
  /** Server-side socket writes since the connection opened. */
  writes(): number;
}

/** A gateway with the WebSocket attached, one client connected, and the server side of its socket watched. */
async function rig(hooks: WsHooks = {}): Promise<Rig> {
  const h = await gateway({ rateLimit: { enabled: false } });
  let serverSocket: Socket | undefined;
  let writes = 0;
  // Registered before the WebSocket's own upgrade listener: sees the socket first.
  h.app.server.on('upgrade', (_req, socket: Socket) => {
    serverSocket = socket;
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      writes++;
      return write(...args);
    }) as Socket['write'];
  });
  const ws = attachWebSocket(h.app, h.state, { periodicTickMs: 1_000_000, hooks });
  closers.push(() => h.app.close());
  closers.push(() => ws.close());
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  const client = new WebSocket(url.replace(/^http/, 'ws') + '/v1/ws', { perMessageDeflate: false });
  closers.push(() => client.terminate());
  const frames: Frame[] = [];
  client.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as Frame));
  await new Promise((resolve, reject) => {
    client.once('open', resolve);
    client.once('error', reject);
  });
  expect(serverSocket).toBeDefined();
  const opened = writes;
  return { client, frames, writes: () => writes - opened };
}

/** Client frames (masked, with a zero key: the payload as it is) for `texts`, as one buffer. */
function maskedFrames(texts: readonly string[]): Buffer {
  return Buffer.concat(
    texts.map((text) => {
      const payload = Buffer.from(text, 'utf8');
      if (payload.length >= 65_536) throw new Error('short frames only');
      const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff, 0, 0, 0, 0]);
      return Buffer.concat([head, payload]);
    }),
  );
}

async function until(predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('WebSocket RPC replies', () => {
  it('leave in one socket write when answered in the same event-loop turn, in the order answered', async () => {
    const { client, frames, writes } = await rig();
    const calls = [1, 2, 3, 4, 5].map((id) => JSON.stringify({ type: 'get', id, request: { type: 'time', payload: {} } }));
    // One TCP write: the server reads the five frames at once and answers them in one turn.
    (client as unknown as { _socket: Socket })._socket.write(maskedFrames(calls));
    await until(() => frames.length === 5);
    expect(frames.map((f) => [f.id, f.method, f.status])).toEqual([1, 2, 3, 4, 5].map((id) => [id, 'time', 200]));
    expect(writes()).toBe(1);
  });

  it('answer a call whose operation throws with 500, its id and method, and hand it to afterRpc with that status', async () => {
    const records: WsRpcRecord[] = [];
    const { client, frames } = await rig({ afterRpc: (record) => void records.push(record) });
    const time = OPERATIONS.find((op) => op.name === 'time')!;
    const handle = time.handle;
    time.handle = () => {
      throw new Error('boom');
    };
    try {
      client.send(JSON.stringify({ type: 'get', id: 9, request: { type: 'time', payload: {} } }));
      await until(() => frames.length === 1 && records.length === 1);
    } finally {
      time.handle = handle;
    }
    expect(frames[0]).toMatchObject({ id: 9, method: 'time', status: 500, error: { type: 'Internal', message: 'internal error' } });
    expect(records[0]).toMatchObject({ type: 'get', method: 'time', status: 500 });
    client.send(JSON.stringify({ type: 'get', id: 10, request: { type: 'time', payload: {} } }));
    await until(() => frames.length === 2 && records.length === 2);
    expect(frames[1]).toMatchObject({ id: 10, status: 200 });
    expect(records[1]).toMatchObject({ method: 'time', status: 200 });
  });
});
