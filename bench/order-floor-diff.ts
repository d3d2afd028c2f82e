/**
 * perpsim's signed placeOrder against bench:gateway's order-shaped floor, chunk by chunk, in one
 * process (as bench:gateway runs them): `node --import tsx bench/order-floor-diff.ts`. Each
 * round the load generator (gateway-load.ts, 16 connections, RATE orders/s) sends CHUNK
 * pre-signed orders to perpsim, then the very same requests to the floor (a fastify hello world
 * that verifies each with the gateway's verifier and answers with placeOrder's status, headers
 * and reply bytes), the order flipping every round. Each chunk is timed by this process's main
 * thread CPU. STRACE=1: the main thread is also traced (`strace -c -p`, its own rounds, CPU
 * figures then inflated) and the syscalls per request of each side printed. COUNT=1: node's own
 * work per request counted (below). ONLY_PERPSIM=1 / SKIP_PERPSIM=1: one side only, for a
 * `perf record` of each (docs/benchmarks.md, "The excess over the order-shaped floor").
 */
import { Session } from 'node:inspector/promises';
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { ask, startLoad, stopLoad } from './gateway-driver.ts';
import { envInt } from './env.ts';
import { startNodeWorkCounts } from './node-work-counts.ts';
import { benchWallets, orderPayloads, signOrders } from './gateway-orders.ts';
import { startOrderServer, type PlanClock } from './order-path-server.ts';
import { threadCpuUs } from './thread-cpu.ts';
import { startServer } from '../sim/server.ts';

const CHUNK = envInt('CHUNK', 8_000);
const ROUNDS = envInt('ROUNDS', 6);
const RATE = envInt('RATE', 6_000);
const STRACE = process.env.STRACE === '1';
/**
 * COUNT=1: counts, per request, the node work each side causes on the main thread
 * (bench/node-work-counts.ts): listeners added and removed (by event name), events emitted,
 * nextTicks, socket writes and corks, async resources (promises included) created, GCs.
 * Deterministic, unlike CPU.
 */
const COUNT = process.env.COUNT === '1';
/**
 * ALLOC=1: V8's sampling heap profiler over each side's chunks (collected objects kept, so it is
 * all the garbage made): bytes allocated per request on the main thread, and perpsim's top
 * allocating functions (where V8 attributes them after inlining). Like COUNT, it does not move
 * with the machine's load.
 */
const ALLOC = process.env.ALLOC === '1';
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
const session = ALLOC ? new Session() : undefined;
if (session !== undefined) {
  session.connect();
  await session.post('HeapProfiler.enable');
}
async function sampled<T>(run: () => Promise<T>): Promise<[T, Map<string, number>]> {
  if (session === undefined) return [await run(), new Map()];
  await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as { samplingInterval: number });
  const result = await run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const byFunction = new Map<string, number>();
  const walk = (node: ProfileNode): void => {
    if (node.selfSize > 0) {
      const key = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop() ?? ''}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
      byFunction.set('(total)', (byFunction.get('(total)') ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head as unknown as ProfileNode);
  return [result, byFunction];
}
const allocs: Map<string, number>[][] = [];
const counter = COUNT ? startNodeWorkCounts() : undefined;

const wallets = benchWallets();
const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };
const server = await startOrderServer(startServer, wallets, plan);
const { baseNs, goodTilTimeUs } = plan;

// The floor, as bench:gateway builds it.
const floor = { payloads: new Map<string, string>(), status: 202, headers: {} as Record<string, string>, body: '' };
/**
 * FLOORS (comma-separated, default `plain`): `plain` is bench:gateway's floor; `onresponse` adds
 * a no-op onResponse hook (as perpsim's request log has); `hooks` adds no-op onRequest,
 * preHandler, onSend and onResponse hooks (perpsim's four); `hooks-async` answers from an async
 * function awaiting the verification as perpsim's sequencer does; `hooks3` has the hooks but
 * onResponse.
 */
const FLOORS = (process.env.FLOORS ?? 'plain').split(',');
async function startFloor(kind: string): Promise<string> {
  const app = Fastify({ logger: false });
  if (kind === 'onresponse' || kind === 'hooks' || kind === 'hooks-async') app.addHook('onResponse', (_req, _reply, done) => done());
  if (kind.startsWith('hooks') || kind === 'hooks3') {
    app.addHook('onRequest', (_req, _reply, done) => done());
    app.addHook('preHandler', (_req, _reply, done) => done());
    app.addHook('onSend', (_req, _reply, payload, done) => done(null, payload));
  }
  const verify = (h: Record<string, unknown>): Promise<number> => server.state.verifier!.verify(h['x-api-key'] as string, h['x-signature'] as string, [floor.payloads.get(h['x-timestamp'] as string) ?? '']);
  if (kind === 'hooks-async') {
    app.post('/v1/placeOrder', async (request, reply) => {
      const found = await (async () => await verify(request.headers))();
      return reply.code(found === 0 ? floor.status : 401).headers(floor.headers).send(floor.body);
    });
  } else {
    app.post('/v1/placeOrder', (request, reply) => verify(request.headers).then((found) => reply.code(found === 0 ? floor.status : 401).headers(floor.headers).send(floor.body)));
  }
  // `thrash`: plain, plus reads spread over 16 MB after each reply (the order pass's working set
  // between two requests, roughly): for perf, to see whether node's own http work costs more when
  // the caches were emptied in between.
  if (kind === 'thrash') {
    app.addHook('onResponse', (_req, _reply, done) => {
      for (let i = 0; i < 150; i++) thrashSum += thrashArea[(Math.imul(i + thrashSum, 2654435761) >>> 0) & (thrashArea.length - 1)]!;
      done();
    });
  }
  floorApps.push(app);
  return app.listen({ host: '127.0.0.1', port: 0 });
}
const thrashArea = new Int32Array(4 << 20).fill(1);
let thrashSum = 0;
const floorApps: Array<ReturnType<typeof Fastify>> = [];
const floorUrls: string[] = [];
for (const kind of FLOORS) floorUrls.push(await startFloor(kind));
const sampleIndex = (ROUNDS + 2) * CHUNK;
const next = signOrders(wallets, { first: sampleIndex, count: 1, baseNs, goodTilTimeUs })[0]!;
const sample = await server.app.inject({ method: 'POST', url: next.path, headers: next.headers, payload: next.body });
if (sample.statusCode !== 202) throw new Error(`sample placeOrder: ${sample.statusCode} ${sample.body}`);
floor.body = sample.body;
for (const [name, value] of Object.entries(sample.headers)) {
  if (!['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name) && typeof value === 'string') floor.headers[name] = value;
}

async function traced<T>(run: () => Promise<T>): Promise<[T, Map<string, number>]> {
  const st = spawn('strace', ['-c', '-p', String(process.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  st.stderr.on('data', (d: Buffer) => (text += d.toString()));
  await new Promise((r) => setTimeout(r, 400));
  const result = await run();
  const done = new Promise((r) => st.once('exit', r));
  st.kill('SIGINT');
  await done;
  const calls = new Map<string, number>();
  for (const l of text.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(l);
    if (m !== null && m[2] !== 'total') calls.set(m[2]!, Number(m[1]));
  }
  return [result, calls];
}

const SKIP = process.env.SKIP_PERPSIM === '1';
const ONLY = process.env.ONLY_PERPSIM === '1';
const names = ['perpsim', ...FLOORS.map((f) => `floor ${f}`)];
const urls = [server.url, ...floorUrls];
const us: number[][] = names.map(() => []);
const sys: Map<string, number>[][] = names.map(() => []);
const cnt: Map<string, number>[][] = names.map(() => []);
const load = startLoad();
try {
  for (let round = 0; round <= ROUNDS; round++) {
    const signed = await ask(load, { kind: 'sign', options: { first: round * CHUNK, count: CHUNK, baseNs: baseNs.toString(), goodTilTimeUs } });
    if (signed.kind !== 'signed') throw new Error('sign failed');
    floor.payloads = orderPayloads(wallets, { first: round * CHUNK, count: CHUNK, baseNs, goodTilTimeUs });
    const order = names.map((_, k) => k);
    for (const k of round % 2 === 0 ? order : order.reverse()) {
      if ((SKIP && k === 0) || (ONLY && k > 0)) continue;
      const go = () => ask(load, { kind: 'run', target: { url: urls[k]!, connections: 16, source: { kind: 'signed', rate: RATE } } });
      counter?.reset();
      const before = threadCpuUs();
      const [r, calls] = STRACE && round > 0 ? await traced(go) : ALLOC && round > 0 ? await sampled(go) : [await go(), new Map<string, number>()];
      const used = threadCpuUs() - before;
      if (r.kind !== 'result') throw new Error('run failed');
      const ok = (r.statuses['202'] ?? 0) + (r.statuses['200'] ?? 0);
      if (ok !== CHUNK) throw new Error(`${names[k]}: ${ok} of ${CHUNK} answered 2xx (${JSON.stringify(r.statuses)})`);
      if (round > 0) {
        us[k]!.push(used / CHUNK);
        sys[k]!.push(calls);
        if (counter !== undefined) cnt[k]!.push(counter.read());
        if (ALLOC) (allocs[k] ??= []).push(calls);
      }
    }
  }
} finally {
  await stopLoad(load);
  for (const app of floorApps) await app.close();
  await server.close();
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}, chunk ${CHUNK} at ${RATE}/s, ${ROUNDS} rounds${STRACE ? ' (straced: CPU inflated)' : ''}`);
for (const k of names.keys()) if (us[k]!.length > 0) console.log(`${names[k]}: median ${median(us[k]!).toFixed(2)} µs a request (${us[k]!.map((u) => u.toFixed(1)).join(' ')})`);
if (STRACE) {
  const all = new Set(sys.flat().flatMap((m) => [...m.keys()]));
  console.log(`syscalls per request (median of rounds): ${names.join(' / ')}`);
  for (const name of [...all].sort()) {
    const per = (k: number): number => median(sys[k]!.map((m) => (m.get(name) ?? 0) / CHUNK));
    console.log(`  ${name.padEnd(16)} ${names.map((_, k) => per(k).toFixed(3).padStart(7)).join(' ')}`);
  }
}
if (COUNT) {
  const all = new Set(cnt.flat().flatMap((m) => [...m.keys()]));
  console.log(`node work per request (median of rounds): ${names.join(' / ')}`);
  for (const name of [...all].sort()) {
    const per = (k: number): number => median(cnt[k]!.map((m) => (m.get(name) ?? 0) / CHUNK));
    const row = names.map((_, k) => per(k));
    if (row.some((v) => v >= 0.01)) console.log(`  ${name.padEnd(40)} ${row.map((v) => v.toFixed(2).padStart(7)).join(' ')}`);
  }
}
if (ALLOC) {
  const per = (k: number, name: string): number => median((allocs[k] ?? []).map((m) => (m.get(name) ?? 0) / CHUNK));
  console.log(`bytes allocated per request (median of rounds): ${names.map((n, k) => `${n} ${per(k, '(total)').toFixed(0)}`).join(' / ')}`);
  // By allocating function, perpsim against the first floor (where both allocate, the excess is the first column less the second).
  const fns = new Set([...(allocs[0] ?? []), ...(allocs[1] ?? [])].flatMap((m) => [...m.keys()]));
  fns.delete('(total)');
  const top = [...fns].map((n) => [n, per(0, n), per(1, n)] as const).sort((a, b) => b[1] - b[2] - (a[1] - a[2])).slice(0, envInt('TOP', 30));
  for (const [name, bytes, floorBytes] of top) console.log(`  ${bytes.toFixed(0).padStart(6)} ${floorBytes.toFixed(0).padStart(6)}  ${name}`);
}
console.log(JSON.stringify({ bench: 'order-floor-diff', chunk: CHUNK, rounds: ROUNDS, rate: RATE, strace: STRACE, load: +loadavg()[0]!.toFixed(2), perpsimUsPerOrder: SKIP ? null : +median(us[0]!).toFixed(2), floorUsPerReq: Object.fromEntries(FLOORS.map((f, k) => [f, ONLY ? null : +median(us[k + 1]!).toFixed(2)])) }));
