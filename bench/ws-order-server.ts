/**
 * One side of bench/ws-order-ab.ts: a perpsim built as bench:ws builds it (startServer from the
 * checkout TREE, or this file's: auth on, rate limits on, agents off, realtime clock), listening
 * on loopback. MODE=floor: the side answered is instead bench:ws's exact floor in this same
 * process (`wsOrderShaped…`): a WebSocket hello world that verifies each frame with this
 * perpsim's verifier against the frame's own Scheme 1 payload and answers with perpsim's reply
 * bytes (the frame's id spliced in). MODE=stub: perpsim's socket, but placeOrder's handle
 * replaced by the floor's work (the frame's signature verified against its own payload, then
 * the first real reply given again): what perpsim's WebSocket side costs above the floor,
 * without the shared order path. MODE=nolimits: perpsim with rate limits off (bench:gateway's
 * setting).
 *
 * IPC: `setup` funds and registers accounts; `payloads` hands the floor a round's Scheme 1
 * payloads (by timestamp); `template` its reply; `cpu` answers the main thread's CPU µs (the
 * event loop: bench:ws's `mainThreadCpuUsPerOrder`); `counts` starts (`on: true`) or reads and
 * stops the node-work counts of bench/node-work-counts.ts (COUNT=1); `alloc` starts or stops
 * the sampling heap profiler (ALLOC=1: bytes allocated by function, collected objects included).
 */
import { Session } from 'node:inspector';
import { WebSocketServer } from 'ws';
import { startNodeWorkCounts } from './node-work-counts.ts';
import { threadCpuUs } from './thread-cpu.ts';
import type { Server, ServerOptions } from '../sim/server.ts';

const tree = process.env.TREE ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const floorMode = process.env.MODE === 'floor';
const stubMode = process.env.MODE === 'stub';
const counter = process.env.COUNT === '1' ? startNodeWorkCounts() : undefined;
const { startServer } = (await import(tree + '/sim/server.ts')) as { startServer: (options: ServerOptions) => Promise<Server> };
// MODE=nolimits: rate limits off, as bench:gateway runs perpsim (the share of the limits' bookkeeping).
const server = await startServer({ port: 0, host: '127.0.0.1', clock: 'realtime', agents: false, rateLimits: process.env.MODE !== 'nolimits' });
const perpsimUrl = server.url.replace(/^http/, 'ws') + '/v1/ws';

const floor = { payloads: new Map<string, string>(), head: '', tail: '' };
let url = perpsimUrl;
if (stubMode) {
  const { OPERATIONS } = (await import(tree + '/gateway/operations/index.ts')) as { OPERATIONS: { name: string; handle: (state: unknown, request: { headers: Record<string, string> }) => unknown }[] };
  const op = OPERATIONS.find((o) => o.name === 'placeOrder')!;
  const real = op.handle;
  const verifier = server.state.verifier!;
  let first: Promise<unknown> | undefined;
  op.handle = (state, request) => {
    if (first === undefined) return (first = Promise.resolve(real(state, request)));
    const h = request.headers;
    return verifier.verify(h['x-api-key']!, h['x-signature']!, [floor.payloads.get(h['x-timestamp']!) ?? '']).then(() => first);
  };
}
let floorServer: WebSocketServer | undefined;
if (floorMode) {
  const verifier = server.state.verifier!;
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) =>
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { id: number; request: { apiKey: string; timestamp: string; signature: string } };
      const { request } = frame;
      void verifier.verify(request.apiKey, request.signature, [floor.payloads.get(request.timestamp) ?? '']).then((found) =>
        ws.send(found === 0 ? floor.head + frame.id + floor.tail : `{"method":"placeOrder","id":${frame.id},"status":401}`),
      );
    }),
  );
  floorServer = wss;
  url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`;
}

const session = process.env.ALLOC === '1' ? new Session() : undefined;
session?.connect();
const post = (method: string, params: object = {}): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => session!.post(method, params, (error, result) => (error ? reject(error) : resolve(result as Record<string, unknown>))));

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: Node[];
}

/** Bytes sampled per function (name and place), from a sampling heap profile. */
function allocationsByFunction(head: Node): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (n: Node): void => {
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(wt-[^/]+|base-[^/]+|main)\//, '')}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    if (n.selfSize > 0) out[key] = (out[key] ?? 0) + n.selfSize;
    for (const c of n.children) walk(c);
  };
  walk(head);
  return out;
}

type Message =
  | { kind: 'setup'; accounts: { address: string; apiKey: string }[] }
  | { kind: 'payloads'; entries: [string, string][] }
  | { kind: 'template'; head: string; tail: string }
  | { kind: 'cpu' }
  | { kind: 'counts'; on: boolean }
  | { kind: 'alloc'; on: boolean }
  | { kind: 'exit' };

process.on('message', (m: Message) => {
  void (async () => {
    switch (m.kind) {
      case 'setup':
        for (const { address, apiKey } of m.accounts) {
          for (let accountIndex = 0; accountIndex <= 9; accountIndex++) {
            const res = await server.app.inject({ method: 'POST', url: '/sim/deposit', payload: { address, accountIndex, amount: '10000000' } });
            if (res.statusCode !== 200) throw new Error(`deposit: ${res.statusCode} ${res.body}`);
          }
          const res = await server.app.inject({ method: 'POST', url: '/sim/apiKeys', payload: { address, publicKey: apiKey } });
          if (res.statusCode !== 200) throw new Error(`apiKeys: ${res.statusCode} ${res.body}`);
        }
        return process.send!({ kind: 'setup' });
      case 'payloads':
        floor.payloads = new Map(m.entries);
        return process.send!({ kind: 'payloads' });
      case 'template':
        floor.head = m.head;
        floor.tail = m.tail;
        return process.send!({ kind: 'template' });
      case 'cpu':
        return process.send!({ kind: 'cpu', us: threadCpuUs() });
      case 'counts':
        if (m.on) counter?.reset();
        return process.send!({ kind: 'counts', counts: m.on ? {} : Object.fromEntries(counter?.read() ?? []) });
      case 'alloc':
        if (session === undefined) return process.send!({ kind: 'alloc', bytes: {} });
        if (m.on) {
          await post('HeapProfiler.enable');
          await post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
          return process.send!({ kind: 'alloc', bytes: {} });
        }
        const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: { head: Node } };
        return process.send!({ kind: 'alloc', bytes: allocationsByFunction(profile.head) });
      case 'exit':
        floorServer?.close();
        await server.close();
        process.exit(0);
    }
  })();
});
process.send!({ kind: 'ready', url, perpsimUrl, pid: process.pid, tree });
