/**
 * The WebSocket at /v1/ws under load, against an in-process server on loopback.
 *
 * (a) Signed placeOrder over WebSocket RPC. Orders are signed before timing (Scheme 1 op 1 with
 *     node:crypto, one account and one connection each, distinct timestamps), then sent over
 *     `BENCH_WS_CONNECTIONS` connections, each keeping `BENCH_WS_WINDOW` posts in flight (the
 *     interface allows 50 per connection). Figures: orders acknowledged (status 202) per second
 *     and the send-to-reply latency p50 / p99. Baseline, same run, same messages: single-core
 *     Ed25519 verifies/s through gateway/auth `verifyEd25519` (sodium-native; node:crypto where
 *     it cannot load) — the ceiling a gateway that verifies every order on one core cannot pass.
 *     Also CPU µs per order: the server's process (verification threads included), its main
 *     thread alone, and the clients' thread (bench/thread-cpu.ts), for docs/decisions.md
 *     "Event-loop cost per signed order".
 * (b) Fan-out. `BENCH_WS_SUBSCRIBERS` connections each subscribe to l2OrderbookUpdates and
 *     trades of ETH-USD while the main thread drives the book at `BENCH_WS_CHANGES_PER_SEC`
 *     changes/s offered for `BENCH_WS_DRIVE_MS` (resting GTT placements and cancels of one maker
 *     within 200 ticks of the oracle, at most 200 resting; one in 20 is a small IOC from a taker
 *     that trades), one command per macrotask as requests would arrive. Figures: channel_data
 *     frames delivered per second (counted by the clients, from the drive's start to the last
 *     frame), the share of the frames the book changes called for, degraded frames, and the
 *     server's event-loop delay p99 while driving (perf_hooks monitorEventLoopDelay).
 *
 * (c) The event-loop baseline of issue 20, measured in the same run: a fastify hello-world
 *     `POST /` answering a constant, driven by autocannon in a child process (bench/gateway-load.ts,
 *     16 connections, the body of a signed placeOrder, as `npm run bench:gateway` does) for
 *     `BENCH_WS_HELLO_SECONDS` (default 4) after a 1 s warm-up; its main-thread CPU per request
 *     is the unit of the target "WS RPC event-loop CPU per signed order ≤ 1.2 × hello world".
 *     A second hello-world pass after (a), paced at (a)'s order rate (autocannon overallRate),
 *     gives the same ratio at the same request rate. And (a)'s frames again against a WebSocket
 *     hello world on the server's thread (each frame parsed and answered with a constant 202),
 *     at once and after the gateway's verifier: the socket's and the verification's share. The
 *     exact floor (`wsOrderShaped…`): each frame verified against its own key, signature and
 *     Scheme 1 payload by the gateway's verifier, answered with perpsim's reply bytes.
 *     Then (a) again with half the orders, signed anew, while `BENCH_WS_WATCHERS` (default 100)
 *     idle connections each watch the orders and account channels of an address that does not
 *     trade (other bots' sockets, from 127.0.3.x): the fan-out must not make them cost per order.
 *
 * Clients run in a worker thread (the other core), so the server's thread carries only the
 * server. WebSocket limits are the interface's (50 connections and 50 new connections a minute
 * per IP, 100 subscriptions per connection, 1,000 per IP): sim/server.ts has no option to
 * allowlist an IP and the socket applies its limits to every IP, so fan-out connections come
 * from 50 per loopback address, 127.0.1.1, 127.0.1.2, ... (Linux routes all of 127/8 to lo).
 *
 * Bounded: every loop has a deadline; the whole run stays under about a minute. BENCH_QUICK=1
 * is a smoke run of a few seconds. Ends with one JSON line:
 * {"bench":"ws","signedOrdersPerSec":…,"verifyBaselinePerSec":…,"fanoutFramesPerSec":…,"eventLoopLagP99Ms":…,
 * "mainThreadCpuUsPerOrder":…,"helloWorldMainThreadCpuUsPerReq":…,"p99Ms":…,…,"mainThreadCpuUsPerOrderWithWatchers":…}.
 */
import { createPrivateKey, createPublicKey, sign as signBytes, type KeyObject } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';
import { envInt } from './env.ts';
import { threadCpuUs } from './thread-cpu.ts';

const QUICK = process.env.BENCH_QUICK === '1';

const CONFIG = {
  orders: envInt('BENCH_WS_ORDERS', QUICK ? 1_000 : 20_000),
  connections: envInt('BENCH_WS_CONNECTIONS', QUICK ? 2 : 4),
  window: envInt('BENCH_WS_WINDOW', 32),
  subscribers: envInt('BENCH_WS_SUBSCRIBERS', QUICK ? 100 : 1_000),
  changesPerSec: envInt('BENCH_WS_CHANGES_PER_SEC', 10_000),
  driveMs: envInt('BENCH_WS_DRIVE_MS', QUICK ? 1_000 : 10_000),
  helloSeconds: envInt('BENCH_WS_HELLO_SECONDS', QUICK ? 1 : 4),
  watchers: envInt('BENCH_WS_WATCHERS', QUICK ? 20 : 100),
};
/** The target of issue 20: WS RPC event-loop CPU per signed order ≤ 1.2 × hello world's per request. */
const TARGET_RPC_VS_HELLO = 1.2;

/** WebSocket limits of the interface: simultaneous (and new per minute) connections per IP. */
const CONNECTIONS_PER_IP = 50;
const RPC_DEADLINE_MS = 25_000;
const CONNECT_DEADLINE_MS = 20_000;
const DRAIN_DEADLINE_MS = 10_000;
const RSS_LIMIT_BYTES = 4 * 1024 ** 3;
const DAY_US = 86_400_000_000;

// ---------------------------------------------------------------------------------------------
// Messages between the server's thread and the clients' worker.

interface RpcConnection {
  localAddress: string;
  /** Serialized post frames; the frame at index i carries id i. */
  frames: string[];
}

type ToWorker =
  | { kind: 'rpc'; url: string; window: number; connections: RpcConnection[] }
  /** `total` connections, `perIp` from each of 127.0.1.1, 127.0.1.2, ... */
  | { kind: 'subscribe'; url: string; market: string; total: number; perIp: number }
  /** `total` idle connections, `perIp` from each of `ipBase`1, `ipBase`2, ..., connection i subscribed to `channels` of its own address that never trades. */
  | { kind: 'watch'; url: string; total: number; perIp: number; ipBase: string; channels: string[] }
  | { kind: 'counts' }
  | { kind: 'close' };

interface RpcReport {
  kind: 'rpc';
  acked: number;
  /** Replies by status other than 202, and the first such reply. */
  others: Record<string, number>;
  firstOther: string | undefined;
  /** The last 202 reply as received (the order-shaped hello world answers with its bytes). */
  lastAcked: string | undefined;
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time of the clients' thread during the pass, µs. */
  clientCpuUs: number;
}

interface SubscribeReport {
  kind: 'subscribed';
  connections: number;
  subscriptions: number;
  failures: number;
  firstFailure: string | undefined;
  elapsedMs: number;
}

interface Counts {
  kind: 'counts';
  book: number;
  trades: number;
  degraded: number;
  errors: number;
  /** Epoch ms (performance.timeOrigin + now) of the last channel_data frame; 0 when none. */
  lastFrameAt: number;
}

type FromWorker = RpcReport | SubscribeReport | Counts | { kind: 'watching'; connections: number; subscriptions: number; failures: number; firstFailure: string | undefined } | { kind: 'closed' };

/** The address watcher `i` subscribes to: 0xee…ee with `i` in its last two bytes (never funded, never trades). */
const watchedAddress = (i: number): string => '0x' + 'ee'.repeat(18) + i.toString(16).padStart(4, '0');

const epochMs = (): number => performance.timeOrigin + performance.now();

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---------------------------------------------------------------------------------------------
// The worker: WebSocket clients.

function open(url: string, localAddress: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress, perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
}

async function runRpc(task: Extract<ToWorker, { kind: 'rpc' }>): Promise<RpcReport> {
  const sockets = await Promise.all(task.connections.map((c) => open(task.url, c.localAddress)));
  const total = task.connections.reduce((n, c) => n + c.frames.length, 0);
  const latencies = new Float64Array(total);
  let replies = 0;
  let acked = 0;
  const others: Record<string, number> = {};
  let firstOther: string | undefined;
  let lastAcked: Buffer | undefined;
  const start = performance.now();
  const cpuStart = threadCpuUs();
  await Promise.all(
    sockets.map(
      (ws, k) =>
        new Promise<void>((resolve) => {
          const frames = task.connections[k]!.frames;
          const sentAt = new Float64Array(frames.length);
          let next = 0;
          let done = 0;
          const deadline = setTimeout(resolve, RPC_DEADLINE_MS);
          const sendOne = (): void => {
            const i = next++;
            sentAt[i] = performance.now();
            ws.send(frames[i]!);
          };
          ws.on('message', (data: Buffer) => {
            const reply = JSON.parse(data.toString('utf8')) as { id?: unknown; status?: unknown };
            if (typeof reply.id !== 'number') return;
            latencies[replies++] = performance.now() - sentAt[reply.id]!;
            if (reply.status === 202) {
              acked++;
              lastAcked = data;
            } else {
              others[String(reply.status)] = (others[String(reply.status)] ?? 0) + 1;
              firstOther ??= data.toString('utf8').slice(0, 300);
            }
            if (next < frames.length) sendOne();
            if (++done === frames.length) {
              clearTimeout(deadline);
              resolve();
            }
          });
          while (next < Math.min(task.window, frames.length)) sendOne();
        }),
    ),
  );
  const elapsedMs = performance.now() - start;
  const clientCpuUs = threadCpuUs() - cpuStart;
  for (const ws of sockets) ws.terminate();
  const sorted = latencies.subarray(0, replies).sort();
  return { kind: 'rpc', acked, others, firstOther, lastAcked: lastAcked?.toString('utf8'), elapsedMs, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), clientCpuUs };
}

/**
 * Opens `total` connections to `url`, `perIp` from each of `ipBase`1, `ipBase`2, ... (one
 * address at a time, its connections together), until the connect deadline counted from
 * `start`; `opened` gets each connection and its index among those opened.
 */
async function openMany(url: string, total: number, perIp: number, ipBase: string, start: number, opened: (ws: WebSocket, n: number) => void): Promise<{ failures: number; firstFailure: string | undefined }> {
  let failures = 0;
  let firstFailure: string | undefined;
  let n = 0;
  for (let i = 0; i < total; i += perIp) {
    const results = await Promise.allSettled(Array.from({ length: Math.min(perIp, total - i) }, () => open(url, `${ipBase}${i / perIp + 1}`)));
    for (const result of results) {
      if (result.status === 'rejected') {
        failures++;
        firstFailure ??= String(result.reason);
      } else {
        opened(result.value, n++);
      }
    }
    if (performance.now() - start > CONNECT_DEADLINE_MS) break;
  }
  return { failures, firstFailure };
}

/** `{"type":"channel_data","channel":"` — the byte after it tells l2OrderbookUpdates from trades. */
const CHANNEL_AT = '{"type":"channel_data","channel":"'.length;
/** `{"type":"` — the byte after it tells the frame type (c, s, d, e, u). */
const TYPE_AT = '{"type":"'.length;

function runWorker(): void {
  const port = parentPort!;
  const fanout: WebSocket[] = [];
  const counts: Counts = { kind: 'counts', book: 0, trades: 0, degraded: 0, errors: 0, lastFrameAt: 0 };
  const reply = (message: FromWorker): void => port.postMessage(message);

  const subscribeAll = async (task: Extract<ToWorker, { kind: 'subscribe' }>): Promise<SubscribeReport> => {
    const start = performance.now();
    let subscriptions = 0;
    let failures = 0;
    let firstFailure: string | undefined;
    const onFrame = (data: Buffer): void => {
      const type = data[TYPE_AT];
      if (type === 0x63 /* c */) {
        if (data[CHANNEL_AT] === 0x74 /* t */) counts.trades++;
        else counts.book++;
        counts.lastFrameAt = epochMs();
      } else if (type === 0x73 /* s */) {
        subscriptions++;
      } else if (type === 0x64 /* d */) {
        counts.degraded++;
      } else {
        counts.errors++;
        firstFailure ??= data.toString('utf8').slice(0, 200);
      }
    };
    const opened = await openMany(task.url, task.total, task.perIp, '127.0.1.', start, (ws) => {
      fanout.push(ws);
      ws.on('message', onFrame);
      ws.send(JSON.stringify({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: task.market }));
      ws.send(JSON.stringify({ type: 'subscribe', channel: 'trades', id: task.market }));
    });
    failures += opened.failures;
    firstFailure ??= opened.firstFailure;
    while (subscriptions + counts.errors < fanout.length * 2 && performance.now() - start < CONNECT_DEADLINE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { kind: 'subscribed', connections: fanout.length, subscriptions, failures, firstFailure, elapsedMs: performance.now() - start };
  };

  const watch = async (task: Extract<ToWorker, { kind: 'watch' }>): Promise<FromWorker> => {
    const start = performance.now();
    let subscriptions = 0;
    let failures = 0;
    let firstFailure: string | undefined;
    const onFrame = (data: Buffer): void => {
      if (data[TYPE_AT] === 0x73 /* s */) subscriptions++;
      else if (data[TYPE_AT] === 0x65 /* e */) firstFailure ??= data.toString('utf8').slice(0, 200);
    };
    let connections = 0;
    const opened = await openMany(task.url, task.total, task.perIp, task.ipBase, start, (ws, n) => {
      connections++;
      fanout.push(ws);
      ws.on('message', onFrame);
      for (const channel of task.channels) ws.send(JSON.stringify({ type: 'subscribe', channel, id: watchedAddress(n), accountIndex: 0 }));
    });
    failures += opened.failures;
    firstFailure ??= opened.firstFailure;
    while (subscriptions < connections * task.channels.length && firstFailure === undefined && performance.now() - start < CONNECT_DEADLINE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { kind: 'watching', connections, subscriptions, failures, firstFailure };
  };

  port.on('message', (task: ToWorker) => {
    switch (task.kind) {
      case 'watch':
        void watch(task).then(reply);
        return;
      case 'rpc':
        void runRpc(task).then(reply);
        return;
      case 'subscribe':
        void subscribeAll(task).then(reply);
        return;
      case 'counts':
        reply({ ...counts });
        return;
      case 'close':
        for (const ws of fanout) ws.terminate();
        fanout.length = 0;
        reply({ kind: 'closed' });
        return;
      default: {
        const never: never = task;
        throw new Error(`unknown task ${JSON.stringify(never)}`);
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The server's thread.

interface Clients {
  ask<K extends FromWorker['kind']>(task: ToWorker, kind: K): Promise<Extract<FromWorker, { kind: K }>>;
  stop(): Promise<void>;
}

function startClients(): Clients {
  // tsx's loader hooks do not reach worker threads on Node 20: the worker registers them itself.
  const worker = new Worker(`import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(import.meta.url)});`, { eval: true });
  const waiting: { kind: string; resolve: (m: FromWorker) => void }[] = [];
  worker.on('message', (message: FromWorker) => {
    const i = waiting.findIndex((w) => w.kind === message.kind);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(message);
  });
  worker.on('error', (error) => {
    console.error('client worker failed:', error);
    process.exitCode = 1;
  });
  return {
    ask: (task, kind) =>
      new Promise((resolve) => {
        waiting.push({ kind, resolve: resolve as (m: FromWorker) => void });
        worker.postMessage(task);
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/** An Ed25519 key from a 32-byte seed, on node:crypto: the private KeyObject and the API key hex. */
function apiKeyPair(seed: number): { privateKey: KeyObject; apiKey: string } {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, seed)]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, apiKey: spki.subarray(spki.length - 32).toString('hex') };
}

async function control(url: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
}

interface SignedOrders {
  signedOrdersPerSec: number;
  verifyBaselinePerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU µs per order: the server's process (verification threads included), its main thread (the event loop), the clients' thread. */
  serverCpuUsPerOrder: number;
  mainThreadCpuUsPerOrder: number;
  clientCpuUsPerOrder: number;
  /** The same frames answered by a WebSocket hello world (parse, answer a constant 202), and by one that first waits for the gateway's verifier. */
  wsHelloWorld: EchoPass;
  wsHelloWorldVerified: EchoPass;
  /** The exact floor: each frame verified against its own Scheme 1 payload, answered with the bytes of perpsim's reply to it. */
  wsHelloWorldOrderShaped: EchoPass;
  replyBytes: number;
  /** The pass again (half the orders, signed anew) with `watchers` idle connections watching other accounts: CPU µs per order of the main thread. */
  withWatchers: { watchers: number; mainThreadCpuUsPerOrder: number };
}

interface EchoPass {
  perSec: number;
  mainThreadCpuUsPerFrame: number;
}

/** A WebSocket hello world's answer to one parsed frame: its verification job (none: at once), and its reply text. */
interface HelloAnswer {
  verify?(frame: { id: number; request: { apiKey: string; timestamp: string; signature: string } }): Promise<number>;
  reply(id: number, found: number): string;
}

/**
 * A WebSocket hello world on the server's thread: each frame parsed and answered, at once or
 * after the gateway's verifier has answered its job. The floor under the WS RPC figure, at about
 * the order pass's rate when verified.
 */
async function benchWsHelloWorld(clients: Clients, connections: RpcConnection[], answer: HelloAnswer): Promise<EchoPass> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) =>
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Parameters<NonNullable<HelloAnswer['verify']>>[0];
      if (answer.verify === undefined) ws.send(answer.reply(frame.id, 0));
      else void answer.verify(frame).then((found) => ws.send(answer.reply(frame.id, found)));
    }),
  );
  try {
    const mainCpu = threadCpuUs();
    const report = await clients.ask({ kind: 'rpc', url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/`, window: CONFIG.window, connections }, 'rpc');
    const mainCpuUs = threadCpuUs() - mainCpu;
    if (report.firstOther !== undefined) throw new Error(`the WebSocket hello world answered ${report.firstOther}`);
    return { perSec: Math.round(report.acked / (report.elapsedMs / 1000)), mainThreadCpuUsPerFrame: Math.round(mainCpuUs / Math.max(1, report.acked)) };
  } finally {
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}

async function benchSignedOrders(clients: Clients): Promise<SignedOrders> {
  const { startServer } = await import('../sim/server.ts');
  const { scheme1Payload, verifyEd25519 } = await import('../gateway/auth/index.ts');
  const server = await startServer({ port: 0, host: '127.0.0.1', clock: 'realtime', agents: false });
  try {
    const perConnection = Math.ceil(CONFIG.orders / CONFIG.connections);
    // The pass with watchers adds half as many again, on the same accounts.
    if (perConnection * 1.5 > 10 * 1_000) throw new Error('at most 6,666 orders per connection (1,000 resting per subaccount and market over both passes)');
    const keys: { privateKey: KeyObject; apiKey: string; address: string }[] = [];
    for (let k = 0; k < CONFIG.connections; k++) {
      const { privateKey, apiKey } = apiKeyPair(0x90 + k);
      const address = '0x' + (0x90 + k).toString(16).repeat(20);
      // The engine caps resting orders at 1,000 per account and market: spread each connection's
      // orders over the address's ten subaccounts (each with its own margin and order pool).
      for (let accountIndex = 0; accountIndex <= 9; accountIndex++) await control(server.url, '/sim/deposit', { address, accountIndex, amount: '10000000' });
      await control(server.url, '/sim/apiKeys', { address, publicKey: apiKey });
      keys.push({ privateKey, apiKey, address });
    }
    /** `total` orders over the connections, signed now (their timestamps from the wall clock). */
    const signPass = (total: number): { signed: { apiKey: string; message: string; signature: string; timestamp: string }[]; connections: RpcConnection[] } => {
      const signed: { apiKey: string; message: string; signature: string; timestamp: string }[] = [];
      const connections: RpcConnection[] = [];
      const baseNs = BigInt(Date.now()) * 1_000_000n;
      const goodTilTime = String(Date.now() * 1000 + 40 * DAY_US);
      const each = Math.ceil(total / keys.length);
      for (const { privateKey, apiKey, address } of keys) {
        const frames: string[] = [];
        for (let i = 0; i < each && signed.length < total; i++) {
          // Resting BTC-USD orders that never cross: bids 90,000-94,999.9, asks 99,000.1-104,000.
          const side = (i % 2) as 0 | 1;
          const accountIndex = Math.floor(i / 2) % 10;
          const priceTicks = side === 0 ? 900_000 + ((i * 7919) % 50_000) : 990_001 + ((i * 7919) % 50_000);
          const ts = baseNs + BigInt(signed.length);
          const message = scheme1Payload(1, { address, accountIndex, clientTimeNs: ts, goodTilTimeNs: BigInt(goodTilTime) * 1000n, marketId: 1, priceTicks, sizeQuantums: 100_000, reduceOnly: false, side, timeInForce: 0 });
          const signature = signBytes(null, Buffer.from(message, 'utf8'), privateKey).toString('hex');
          signed.push({ apiKey, message, signature, timestamp: ts.toString() });
          const payload = { address, accountIndex, marketId: 1, orderSide: side === 0 ? 'BUY' : 'SELL', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '0.001', price: (priceTicks / 10).toFixed(1), goodTilTime, timestamp: Number(ts) };
          frames.push(JSON.stringify({ type: 'post', id: i, request: { type: 'placeOrder', apiKey, timestamp: ts.toString(), signature, payload } }));
        }
        connections.push({ localAddress: '127.0.0.1', frames });
      }
      return { signed, connections };
    };
    const { signed, connections } = signPass(CONFIG.orders);

    // Baseline: the gateway's verify on the same messages, one core, after a warm-up pass.
    const verifyAll = (n: number): void => {
      for (let i = 0; i < n; i++) {
        const s = signed[i % signed.length]!;
        if (!verifyEd25519(s.apiKey, s.message, s.signature)) throw new Error('a signed order failed to verify');
      }
    };
    verifyAll(Math.min(1_000, signed.length));
    const t = performance.now();
    verifyAll(signed.length);
    const verifyBaselinePerSec = Math.round(signed.length / ((performance.now() - t) / 1000));

    // The process figure counts the clients' worker too: its own figure is taken out.
    const processCpu = process.cpuUsage();
    const mainCpu = threadCpuUs();
    const report = await clients.ask({ kind: 'rpc', url: server.url.replace(/^http/, 'ws') + '/v1/ws', window: CONFIG.window, connections }, 'rpc');
    const mainCpuUs = threadCpuUs() - mainCpu;
    const used = process.cpuUsage(processCpu);
    if (report.firstOther !== undefined) console.log(`  non-202 replies ${JSON.stringify(report.others)}; first: ${report.firstOther}`);
    const per = (us: number): number => Math.round(us / Math.max(1, report.acked));
    const first = signed[0]!;
    const verifier = server.state.verifier!;
    const constant = (id: number, found: number): string => `{"method":"placeOrder","id":${id},"status":${found === 0 ? 202 : 401},"result":{"hello":"world"}}`;
    const wsHelloWorld = await benchWsHelloWorld(clients, connections, { reply: constant });
    const wsHelloWorldVerified = await benchWsHelloWorld(clients, connections, { verify: () => verifier.verify(first.apiKey, first.signature, [first.message]), reply: constant });
    // The exact floor: each frame's own job (its key, signature and Scheme 1 payload, found by
    // its timestamp), and perpsim's reply to it as bytes (a 202 of the order pass, the frame's id
    // spliced in).
    const sample = report.lastAcked;
    const idAt = sample?.match(/^(\{"method":"placeOrder","id":)[0-9]+(,"status":202,.*)$/s);
    if (idAt === null || idAt === undefined) throw new Error(`unexpected placeOrder reply frame: ${sample?.slice(0, 200)}`);
    const [, head, tail] = idAt as unknown as [string, string, string];
    const payloads = new Map(signed.map((s) => [s.timestamp, s.message]));
    const wsHelloWorldOrderShaped = await benchWsHelloWorld(clients, connections, {
      verify: ({ request }) => verifier.verify(request.apiKey, request.signature, [payloads.get(request.timestamp) ?? '']),
      reply: (id, found) => (found === 0 ? head + id + tail : constant(id, found)),
    });
    // Other bots' sockets: idle connections each watching the orders and account channels of an
    // address that does not trade. The fan-out offers them none of these orders' events.
    const wsUrl = server.url.replace(/^http/, 'ws') + '/v1/ws';
    const watching = await clients.ask({ kind: 'watch', url: wsUrl, total: CONFIG.watchers, perIp: 25, ipBase: '127.0.3.', channels: ['orders', 'account'] }, 'watching');
    if (watching.firstFailure !== undefined) throw new Error(`watchers: ${watching.firstFailure}`);
    const again = signPass(Math.floor(CONFIG.orders / 2));
    const watchedCpu = threadCpuUs();
    const watched = await clients.ask({ kind: 'rpc', url: wsUrl, window: CONFIG.window, connections: again.connections }, 'rpc');
    const watchedCpuUs = threadCpuUs() - watchedCpu;
    await clients.ask({ kind: 'close' }, 'closed');
    if (watched.firstOther !== undefined) console.log(`  non-202 replies with watchers ${JSON.stringify(watched.others)}; first: ${watched.firstOther}`);
    return {
      withWatchers: { watchers: watching.connections, mainThreadCpuUsPerOrder: Math.round(watchedCpuUs / Math.max(1, watched.acked)) },
      wsHelloWorld,
      wsHelloWorldVerified,
      wsHelloWorldOrderShaped,
      replyBytes: Buffer.byteLength(sample!),
      signedOrdersPerSec: Math.round(report.acked / (report.elapsedMs / 1000)),
      verifyBaselinePerSec,
      p50Ms: report.p50Ms,
      p99Ms: report.p99Ms,
      serverCpuUsPerOrder: per(used.user + used.system - report.clientCpuUs),
      mainThreadCpuUsPerOrder: per(mainCpuUs),
      clientCpuUsPerOrder: per(report.clientCpuUs),
    };
  } finally {
    await server.close();
  }
}

interface Fanout {
  subscribers: number;
  offeredPerSec: number;
  changesPerSec: number;
  framesPerSec: number;
  delivered: number;
  expected: number;
  degraded: number;
  lagP99Ms: number;
  lagMaxMs: number;
}

async function benchFanout(clients: Clients): Promise<Fanout> {
  const { startServer } = await import('../sim/server.ts');
  const { createPrng } = await import('../sim/prng.ts');
  const server = await startServer({ port: 0, host: '127.0.0.1', clock: 'realtime', agents: false });
  try {
    const exchange = server.exchange;
    const ms = exchange.engine.markets.get(2)!;
    const maker = '0x' + 'b1'.repeat(20);
    const taker = '0x' + 'b2'.repeat(20);
    await control(server.url, '/sim/deposit', { address: maker, amount: '100000000' });
    await control(server.url, '/sim/deposit', { address: taker, amount: '100000000' });

    const addresses = Math.ceil(CONFIG.subscribers / CONNECTIONS_PER_IP);
    const sub = await clients.ask({ kind: 'subscribe', url: server.url.replace(/^http/, 'ws') + '/v1/ws', market: ms.spec.displayName, total: CONFIG.subscribers, perIp: CONNECTIONS_PER_IP }, 'subscribed');
    console.log(`  ${sub.connections} connections from ${addresses} loopback addresses, ${sub.subscriptions} subscriptions in ${(sub.elapsedMs / 1000).toFixed(1)} s${sub.failures > 0 ? `; ${sub.failures} refused (${sub.firstFailure})` : ''}`);
    if (sub.connections === 0) throw new Error(`no subscriber connected: ${sub.firstFailure ?? ''}`);

    // What the clients should receive: one frame per book delta and per trades event, each.
    let bookEvents = 0;
    let tradeEvents = 0;
    const counter = (events: readonly { type: string; marketId?: number }[]): void => {
      for (const e of events) {
        if (e.marketId !== ms.spec.id) continue;
        if (e.type === 'book') bookEvents++;
        else if (e.type === 'trades') tradeEvents++;
      }
    };
    exchange.listeners.add(counter);

    const rng = createPrng(42);
    const mid = ms.oraclePrice;
    const resting: number[] = [];
    const goodTilTime = exchange.clock() + 40 * DAY_US;
    let ops = 0;
    const change = (): void => {
      ops++;
      if (ops % 20 === 0) {
        const side = rng.next() < 0.5 ? 0 : 1;
        exchange.submit({ type: 'placeOrder', address: taker, accountIndex: 0, marketId: ms.spec.id, side, orderType: 0, tif: 2, price: side === 0 ? mid + 300 : mid - 300, size: 1_000_000, reduceOnly: false, goodTilTime });
      } else if (resting.length >= 200 || (resting.length > 0 && rng.next() < 0.5)) {
        const [orderId] = resting.splice(rng.int(resting.length), 1);
        exchange.submit({ type: 'cancelOrder', address: maker, accountIndex: 0, marketId: ms.spec.id, orderId });
      } else {
        const side = rng.next() < 0.5 ? 0 : 1;
        const price = side === 0 ? mid - 1 - rng.int(200) : mid + 1 + rng.int(200);
        const r = exchange.submit({ type: 'placeOrder', address: maker, accountIndex: 0, marketId: ms.spec.id, side, orderType: 0, tif: 0, price, size: 1_000_000 + rng.int(10_000_000), reduceOnly: false, goodTilTime });
        if (r.kind === 'order' && (r.status === 'OPEN' || r.status === 'PARTIALLY_FILLED')) resting.push(r.orderId);
      }
    };

    const lag = monitorEventLoopDelay({ resolution: 5 });
    const driveStartAt = epochMs();
    const start = performance.now();
    lag.enable();
    let stoppedEarly = '';
    await new Promise<void>((resolve) => {
      // One command per macrotask, as requests arrive; paced to the offered rate.
      const step = (): void => {
        const elapsed = performance.now() - start;
        if (elapsed >= CONFIG.driveMs) return resolve();
        if ((ops & 255) === 0 && process.memoryUsage().rss > RSS_LIMIT_BYTES) {
          stoppedEarly = 'resident memory above 4 GB';
          return resolve();
        }
        if (ops < Math.floor((elapsed / 1000) * CONFIG.changesPerSec)) {
          change();
          setImmediate(step);
        } else {
          setTimeout(step, 1);
        }
      };
      step();
    });
    const driveMs = performance.now() - start;
    lag.disable();
    exchange.listeners.delete(counter);
    if (stoppedEarly !== '') console.log(`  drive stopped early: ${stoppedEarly}`);

    // Drain: frames still in socket buffers keep arriving; wait until the count settles.
    let counts = await clients.ask({ kind: 'counts' }, 'counts');
    const drainStart = performance.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await clients.ask({ kind: 'counts' }, 'counts');
      const settled = now.book + now.trades === counts.book + counts.trades;
      counts = now;
      if (settled || performance.now() - drainStart > DRAIN_DEADLINE_MS) break;
    }
    await clients.ask({ kind: 'close' }, 'closed');
    const delivered = counts.book + counts.trades;
    const spanMs = Math.max(driveMs, counts.lastFrameAt - driveStartAt);
    return {
      subscribers: sub.connections,
      offeredPerSec: CONFIG.changesPerSec,
      changesPerSec: Math.round(ops / (driveMs / 1000)),
      framesPerSec: Math.round(delivered / (spanMs / 1000)),
      delivered,
      expected: (bookEvents + tradeEvents) * sub.connections,
      degraded: counts.degraded,
      lagP99Ms: Number((lag.percentile(99) / 1e6).toFixed(2)),
      lagMaxMs: Number((lag.max / 1e6).toFixed(2)),
    };
  } finally {
    await server.close();
  }
}

interface HelloWorld {
  perSec: number;
  mainThreadCpuUsPerReq: number;
  p99Ms: number;
}

/** (c): fastify hello world POST under autocannon (a child process), CPU per request of this thread. */
/** `rate`: requests per second in all (autocannon overallRate), for the pass paced at the signed orders' rate. */
async function benchHelloWorld(rate?: number): Promise<HelloWorld> {
  const { default: Fastify } = await import('fastify');
  const { count, drive, is2xx, perSec, startLoad, stopLoad } = await import('./gateway-driver.ts');
  const { benchWallets, GTT_AHEAD_US, signOrders } = await import('./gateway-orders.ts');
  const nowUs = Date.now() * 1000;
  const body = signOrders(benchWallets(), { first: 0, count: 1, baseNs: BigInt(nowUs) * 1000n, goodTilTimeUs: nowUs + GTT_AHEAD_US })[0]!.body;
  const load = startLoad();
  const hello = Fastify({ logger: false });
  hello.post('/', async () => ({ hello: 'world' }));
  try {
    const url = await hello.listen({ host: '127.0.0.1', port: 0 });
    const source = (durationS: number) => ({ kind: 'fixed' as const, method: 'POST' as const, path: '/', headers: { 'content-type': 'application/json' }, body, durationS, ...(rate === undefined ? {} : { rate }) });
    await drive(load, { url, connections: 16, source: source(1) });
    const run = await drive(load, { url, connections: 16, source: source(CONFIG.helloSeconds) });
    return { perSec: perSec(count(run, is2xx), run), mainThreadCpuUsPerReq: Math.round(run.mainThreadCpuUs / Math.max(1, run.responses)), p99Ms: run.p99Ms };
  } finally {
    await stopLoad(load);
    await hello.close();
  }
}

async function main(): Promise<void> {
  const clients = startClients();
  try {
    console.log(`(c) fastify hello world POST / (autocannon, 16 connections, ${CONFIG.helloSeconds} s): the event-loop baseline`);
    const c = await benchHelloWorld();
    console.log(`  ${c.perSec.toLocaleString('en-US').padStart(10)} req/s, p99 ${c.p99Ms.toFixed(2)} ms, main thread CPU ${c.mainThreadCpuUsPerReq} µs/req`);
    console.log(`(a) signed placeOrder over WS RPC: ${CONFIG.orders.toLocaleString('en-US')} orders, ${CONFIG.connections} connections, ${CONFIG.window} in flight each`);
    const a = await benchSignedOrders(clients);
    console.log(`  acknowledged (202)          ${a.signedOrdersPerSec.toLocaleString('en-US').padStart(10)} orders/s   latency p50 ${a.p50Ms.toFixed(2)} ms, p99 ${a.p99Ms.toFixed(2)} ms`);
    console.log(`  verifyEd25519, one core     ${a.verifyBaselinePerSec.toLocaleString('en-US').padStart(10)} verifies/s (orders/s = ${(a.signedOrdersPerSec / a.verifyBaselinePerSec).toFixed(2)} × verifies/s)`);
    console.log(`  CPU per order               server ${a.serverCpuUsPerOrder} µs (its main thread ${a.mainThreadCpuUsPerOrder} µs), clients ${a.clientCpuUsPerOrder} µs`);
    console.log(`  WebSocket hello world       ${a.wsHelloWorld.perSec.toLocaleString('en-US').padStart(10)} frames/s, main thread CPU ${a.wsHelloWorld.mainThreadCpuUsPerFrame} µs/frame (the same frames answered with a constant)`);
    console.log(`  the same, verified          ${a.wsHelloWorldVerified.perSec.toLocaleString('en-US').padStart(10)} frames/s, main thread CPU ${a.wsHelloWorldVerified.mainThreadCpuUsPerFrame} µs/frame (after the gateway's verifier answers)`);
    const exact = a.wsHelloWorldOrderShaped;
    console.log(`  the exact floor             ${exact.perSec.toLocaleString('en-US').padStart(10)} frames/s, main thread CPU ${exact.mainThreadCpuUsPerFrame} µs/frame (each frame's own job verified, answered with perpsim's ${a.replyBytes}-byte reply)`);
    console.log(`  the order path's own work above it ${a.mainThreadCpuUsPerOrder - exact.mainThreadCpuUsPerFrame} µs/order`);
    console.log(`  with ${a.withWatchers.watchers} idle connections watching other accounts: main thread CPU ${a.withWatchers.mainThreadCpuUsPerOrder} µs/order`);
    const rpcRatio = a.mainThreadCpuUsPerOrder / c.mainThreadCpuUsPerReq;
    console.log(`  target event-loop CPU per signed order <= ${TARGET_RPC_VS_HELLO} x hello world's per request: ${rpcRatio.toFixed(2)} x (${a.mainThreadCpuUsPerOrder} / ${c.mainThreadCpuUsPerReq} µs): ${rpcRatio <= TARGET_RPC_VS_HELLO ? 'met' : 'NOT met'}`);
    // Hello world paced at the signed orders' rate: a loop's cost per request depends on its rate.
    const paced = await benchHelloWorld(a.signedOrdersPerSec);
    const pacedRatio = a.mainThreadCpuUsPerOrder / paced.mainThreadCpuUsPerReq;
    console.log(`  hello world POST / at ${a.signedOrdersPerSec.toLocaleString('en-US')}/s: main thread CPU ${paced.mainThreadCpuUsPerReq} µs/req; the order against it ${pacedRatio.toFixed(2)} x`);
    console.log(`(b) fan-out: ${CONFIG.subscribers.toLocaleString('en-US')} subscribers to l2OrderbookUpdates + trades of ETH-USD, ${CONFIG.changesPerSec.toLocaleString('en-US')} book changes/s offered for ${CONFIG.driveMs / 1000} s`);
    const b = await benchFanout(clients);
    console.log(`  book changes applied        ${b.changesPerSec.toLocaleString('en-US').padStart(10)} /s (offered ${b.offeredPerSec.toLocaleString('en-US')})`);
    console.log(`  frames delivered            ${b.framesPerSec.toLocaleString('en-US').padStart(10)} /s (${b.delivered.toLocaleString('en-US')} of ${b.expected.toLocaleString('en-US')} due, ${b.degraded} degraded frames)`);
    console.log(`  event-loop delay            p99 ${b.lagP99Ms} ms, max ${b.lagMaxMs} ms`);
    console.log(
      JSON.stringify({
        bench: 'ws',
        signedOrdersPerSec: a.signedOrdersPerSec,
        verifyBaselinePerSec: a.verifyBaselinePerSec,
        fanoutFramesPerSec: b.framesPerSec,
        eventLoopLagP99Ms: b.lagP99Ms,
        mainThreadCpuUsPerOrder: a.mainThreadCpuUsPerOrder,
        serverCpuUsPerOrder: a.serverCpuUsPerOrder,
        clientCpuUsPerOrder: a.clientCpuUsPerOrder,
        p99Ms: Number(a.p99Ms.toFixed(2)),
        helloWorldMainThreadCpuUsPerReq: c.mainThreadCpuUsPerReq,
        helloWorldPerSec: c.perSec,
        mainThreadCpuVsHelloWorld: Number(rpcRatio.toFixed(2)),
        helloWorldAtOrderRateMainThreadCpuUsPerReq: paced.mainThreadCpuUsPerReq,
        mainThreadCpuVsHelloWorldAtOrderRate: Number(pacedRatio.toFixed(2)),
        wsHelloWorldMainThreadCpuUsPerFrame: a.wsHelloWorld.mainThreadCpuUsPerFrame,
        wsHelloWorldPerSec: a.wsHelloWorld.perSec,
        wsHelloWorldVerifiedMainThreadCpuUsPerFrame: a.wsHelloWorldVerified.mainThreadCpuUsPerFrame,
        wsHelloWorldVerifiedPerSec: a.wsHelloWorldVerified.perSec,
        // The exact floor: the order frames, each verified on its own, answered with perpsim's reply bytes.
        wsOrderShapedHelloWorldMainThreadCpuUsPerFrame: exact.mainThreadCpuUsPerFrame,
        wsOrderShapedHelloWorldPerSec: exact.perSec,
        placeOrderReplyFrameBytes: a.replyBytes,
        mainThreadCpuOverOrderShapedUsPerOrder: a.mainThreadCpuUsPerOrder - exact.mainThreadCpuUsPerFrame,
        mainThreadCpuVsOrderShapedHelloWorld: Number((a.mainThreadCpuUsPerOrder / exact.mainThreadCpuUsPerFrame).toFixed(2)),
        // The pass again with idle connections watching other accounts' orders and account channels.
        watchers: a.withWatchers.watchers,
        mainThreadCpuUsPerOrderWithWatchers: a.withWatchers.mainThreadCpuUsPerOrder,
      }),
    );
  } finally {
    await clients.stop();
  }
}

if (isMainThread) await main();
else runWorker();
