/**
 * `npm run bench:fanout`: is the event loop still responsive under WebSocket fan-out, and what
 * do slow consumers cost? (issue 24, "Load and slow consumers").
 *
 * Set-up: perpsim's CLI in a child process (`serve --memory --no-rate-limits`, agents on, the
 * default realtime clock; bench/server-process.ts), so the RSS figures are the server's own
 * (read from /proc/<pid>/status). `BENCH_FANOUT_CONNECTIONS` (2,000) WebSocket connections,
 * opened from a worker thread of this process, each subscribe to BTC-USD's l2Orderbook,
 * l2OrderbookUpdates, trades and bbo; `BENCH_FANOUT_PAUSED` (500) of them stop reading their
 * TCP socket once subscribed and never read again (every fourth connection, so paused and
 * reading ones share addresses). Connections come 50 from each of 127.0.1.1, 127.0.1.2, ... (the
 * interface's 50 per IP; Linux routes all of 127/8 to lo). `--no-rate-limits` lets 100 orders/s
 * through from one address; everything else is the default server.
 *
 * Drive, `BENCH_FANOUT_DRIVE_MS` (30 s): `BENCH_FANOUT_ORDERS_PER_SEC` (100) signed REST
 * placeOrders per second, open loop (bench/gateway-orders.ts plan: 256 funded accounts, half the
 * orders rest and half fill, four markets, BTC-USD among them), each signed just before it is
 * sent; GET /health every 50 ms. Figures: /health latency p50/p99 and order acknowledgement
 * (send to 2xx reply) p50/p99; the server's RSS at start (before any socket), again after
 * `BENCH_FANOUT_WARM_MS` (10 s) of the same order flow with no socket (the warm start: what the
 * orders, the agents and compiled code keep without sockets), its peak during the drive, and after every socket closed (the lowest of the
 * samples over `BENCH_FANOUT_SETTLE_MS`, 15 s, sampled every 250 ms); the degraded notices and
 * 1008 closes the clients saw, reading and paused clients apart.
 *
 * Targets (issue 24): /health p99 ≤ 50 ms, acknowledgement p99 ≤ 100 ms, RSS ≤ 1 GB at peak and
 * within 20 % of its start after the sockets close. Bounded: connect, drive and settle each have
 * a deadline; loopback only. BENCH_QUICK=1 is a smoke run (200 connections, 5 s). Ends with one
 * JSON line {"bench":"fanout",...}.
 */
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import type { Socket } from 'node:net';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import WebSocket from 'ws';
import { envInt } from './env.ts';
import { benchWallets, DEPOSIT_USD, GTT_AHEAD_US, signOrders, type SignedRequest } from './gateway-orders.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const CONFIG = {
  connections: envInt('BENCH_FANOUT_CONNECTIONS', QUICK ? 200 : 2_000),
  paused: envInt('BENCH_FANOUT_PAUSED', QUICK ? 50 : 500),
  ordersPerSec: envInt('BENCH_FANOUT_ORDERS_PER_SEC', 100),
  driveMs: envInt('BENCH_FANOUT_DRIVE_MS', QUICK ? 5_000 : 30_000),
  settleMs: envInt('BENCH_FANOUT_SETTLE_MS', QUICK ? 3_000 : 15_000),
  /** The same order flow without any socket first, so that a second start figure holds what the orders and agents alone keep. */
  warmMs: envInt('BENCH_FANOUT_WARM_MS', QUICK ? 1_000 : 10_000),
};
const MARKET = 'BTC-USD';
const CHANNELS = ['l2Orderbook', 'l2OrderbookUpdates', 'trades', 'bbo'] as const;
const CONNECT_DEADLINE_MS = 120_000;
const HEALTH_EVERY_MS = 50;
const RSS_EVERY_MS = 250;
const MB = 1024 * 1024;
/** The interface's simultaneous (and new per minute) WebSocket connections per IP: --no-rate-limits lifts them, but the clients stay within them (as a real venue's would). */
const CONNECTIONS_PER_IP = 50;

// ---------------------------------------------------------------------------------------------
// Clients (worker thread).

type ToWorker = { kind: 'connect'; url: string; total: number; paused: number } | { kind: 'counts' } | { kind: 'close' };

interface Counts {
  kind: 'counts';
  connections: number;
  subscribed: number;
  failures: number;
  firstFailure: string | undefined;
  /** channel_data frames and bytes the reading clients received. */
  frames: number;
  bytes: number;
  /** degraded notices seen by reading clients (paused ones read none). */
  readersDegraded: number;
  /** Closes by reason: 1008 (slow consumer), other codes. */
  closed1008: number;
  closedOther: number;
  pausedClosed: number;
  open: number;
}

function runWorker(): void {
  const port = parentPort!;
  const sockets: { ws: WebSocket; paused: boolean }[] = [];
  const counts: Counts = { kind: 'counts', connections: 0, subscribed: 0, failures: 0, firstFailure: undefined, frames: 0, bytes: 0, readersDegraded: 0, closed1008: 0, closedOther: 0, pausedClosed: 0, open: 0 };
  const TYPE_AT = '{"type":"'.length;

  const openOne = (url: string, paused: boolean, localAddress: string): Promise<void> =>
    new Promise((resolve) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, localAddress });
      let subscribed = 0;
      let settled = false;
      const done = (): void => {
        if (settled) return;
        settled = true;
        resolve();
      };
      ws.on('message', (data: Buffer) => {
        const type = data[TYPE_AT];
        if (type === 0x63 /* c: channel_data */) {
          counts.frames++;
          counts.bytes += data.length;
        } else if (type === 0x73 /* s: subscribed */) {
          counts.subscribed++;
          if (++subscribed === CHANNELS.length) {
            if (paused) (ws as unknown as { _socket: Socket })._socket.pause();
            done();
          }
        } else if (type === 0x64 /* d: degraded */) {
          counts.readersDegraded++;
        } else if (type === 0x65 /* e: error */) {
          counts.failures++;
          counts.firstFailure ??= data.toString('utf8').slice(0, 200);
          done();
        }
      });
      ws.once('open', () => {
        counts.connections++;
        counts.open++;
        sockets.push({ ws, paused });
        for (const channel of CHANNELS) ws.send(JSON.stringify({ type: 'subscribe', channel, id: MARKET }));
      });
      ws.once('close', (code) => {
        if (counts.connections > 0 && sockets.some((s) => s.ws === ws)) counts.open--;
        if (code === 1008) counts.closed1008++;
        else counts.closedOther++;
        if (paused) counts.pausedClosed++;
        done();
      });
      ws.once('error', (error) => {
        counts.failures++;
        counts.firstFailure ??= String(error);
        done();
      });
    });

  port.on('message', (task: ToWorker) => {
    switch (task.kind) {
      case 'connect':
        void (async () => {
          const start = performance.now();
          // 50 at a time, each 50 from its own loopback address (the socket's 50 connections per IP).
          for (let i = 0; i < task.total && performance.now() - start < CONNECT_DEADLINE_MS; i += CONNECTIONS_PER_IP) {
            const localAddress = `127.0.1.${i / CONNECTIONS_PER_IP + 1}`;
            const batch = Array.from({ length: Math.min(CONNECTIONS_PER_IP, task.total - i) }, (_, k) => openOne(task.url, (i + k) % 4 === 0 && Math.floor((i + k) / 4) < task.paused, localAddress));
            await Promise.all(batch);
          }
          port.postMessage({ ...counts });
        })();
        return;
      case 'counts':
        port.postMessage({ ...counts });
        return;
      case 'close':
        // A paused socket cannot complete a closing handshake: every socket is destroyed.
        for (const s of sockets) s.ws.terminate();
        sockets.length = 0;
        setTimeout(() => port.postMessage({ ...counts }), 200);
        return;
      default: {
        const never: never = task;
        throw new Error(`unknown task ${JSON.stringify(never)}`);
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The bench (main thread): the order flow, the probes, the memory samples.

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

interface HttpReply {
  status: number;
  body: string;
}

function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body?: string): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

async function control(agent: http.Agent, url: string, path: string, body: unknown): Promise<void> {
  const reply = await request(agent, url + path, 'POST', { 'content-type': 'application/json' }, JSON.stringify(body));
  if (reply.status !== 200) throw new Error(`${path}: HTTP ${reply.status} ${reply.body}`);
}

function startClients(): { ask(task: ToWorker): Promise<Counts>; stop(): Promise<void> } {
  // tsx's loader hooks do not reach worker threads on Node 20: the worker registers them itself.
  const worker = new Worker(`import { register } from 'tsx/esm/api'; register(); await import(${JSON.stringify(import.meta.url)});`, { eval: true });
  const waiting: ((c: Counts) => void)[] = [];
  worker.on('message', (c: Counts) => waiting.shift()?.(c));
  worker.on('error', (error) => {
    console.error('client worker failed:', error);
    process.exitCode = 1;
  });
  return {
    ask: (task) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        worker.postMessage(task);
      }),
    stop: async () => void (await worker.terminate()),
  };
}

interface Samples {
  rss: number[];
  heap: number[];
  /** The server's V8 heap as committed (heapTotal) and its memory outside the heap that V8 knows of (external). */
  heapTotal: number[];
  external: number[];
  /** The server's event-loop delay per probe period, ms. */
  loopP99: number[];
  loopMax: number[];
}

function sampleMemory(server: ServerProcess, into: Samples): () => void {
  let last: ReturnType<ServerProcess['memory']>;
  const timer = setInterval(() => {
    into.rss.push(server.rssBytes());
    const m = server.memory();
    if (m !== undefined && m !== last) {
      last = m;
      into.heap.push(m.heapUsed);
      into.heapTotal.push(m.heapTotal);
      into.external.push(m.external);
      into.loopP99.push(m.loopDelayP99Ms);
      into.loopMax.push(m.loopDelayMaxMs);
    }
  }, RSS_EVERY_MS);
  return () => clearInterval(timer);
}

async function main(): Promise<void> {
  // BENCH_SERVER_NODE_ARGS: node options for the server's process, e.g. --cpu-prof to profile it.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  // BENCH_SERVER_ROOT: run another checkout's server (e.g. the code before a change, as a baseline).
  const root = process.env.BENCH_SERVER_ROOT;
  const server = await startServerProcess(['--memory', '--port', '0', '--no-rate-limits'], { nodeArgs, ...(root !== undefined && root !== '' && { root }) });
  const clients = startClients();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    console.log(`fan-out: ${CONFIG.connections.toLocaleString('en-US')} connections × ${CHANNELS.join(', ')} of ${MARKET} (${CONFIG.paused} never read once subscribed), ${CONFIG.ordersPerSec} signed orders/s for ${CONFIG.driveMs / 1000} s; server pid ${server.pid} (child process: RSS is its own)`);
    const wallets = benchWallets();
    for (const w of wallets) {
      await control(agent, server.url, '/sim/deposit', { address: w.address, amount: DEPOSIT_USD });
      await control(agent, server.url, '/sim/apiKeys', { address: w.address, publicKey: w.apiKey });
    }
    // Start: the funded server, before any socket, after a second's rest.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssStart = server.rssBytes();
    const memoryStart = server.memory();
    const heapStart = memoryStart?.heapUsed ?? 0;

    // The order flow: open loop at ordersPerSec; acknowledgements are timed only when `measured`.
    const health: number[] = [];
    const acks: number[] = [];
    const statuses: Record<string, number> = {};
    let firstRefusal: string | undefined;
    let sent = 0;
    const inflight = new Set<Promise<void>>();
    const track = (p: Promise<void>): void => {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };
    const goodTilTimeUs = Date.now() * 1000 + GTT_AHEAD_US;
    let batch: SignedRequest[] = [];
    const driveOrders = (durationMs: number, measured: boolean): Promise<void> =>
      new Promise<void>((resolve) => {
      const from = performance.now();
      const first = sent;
      const tick = (): void => {
        const elapsed = performance.now() - from;
        if (elapsed >= durationMs) return resolve();
        const due = first + Math.floor((elapsed / 1000) * CONFIG.ordersPerSec);
        while (sent < due) {
          if (batch.length === 0) {
            // One second's orders, signed now: their timestamps stay inside the 30 s window.
            const count = CONFIG.ordersPerSec;
            batch = signOrders(wallets, { first: sent, count, baseNs: BigInt(Date.now()) * 1_000_000n - BigInt(sent), goodTilTimeUs }).reverse();
          }
          const order = batch.pop()!;
          sent++;
          const t = performance.now();
          track(
            request(agent, server.url + order.path, 'POST', order.headers, order.body).then(
              (reply) => {
                statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
                if (reply.status >= 200 && reply.status < 300) {
                  if (measured) acks.push(performance.now() - t);
                } else firstRefusal ??= `${reply.status} ${reply.body.slice(0, 200)}`;
              },
              (error: Error) => {
                statuses.failed = (statuses.failed ?? 0) + 1;
                firstRefusal ??= String(error);
              },
            ),
          );
        }
        setTimeout(tick, 2);
      };
      tick();
    });

    // Warm-up: the same flow with no socket, then a second start figure (what orders and agents alone keep).
    await driveOrders(CONFIG.warmMs, false);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssWarm = server.rssBytes();
    const heapWarm = server.memory()?.heapUsed ?? 0;

    const peak: Samples = { rss: [], heap: [], heapTotal: [], external: [], loopP99: [], loopMax: [] };
    const stopPeak = sampleMemory(server, peak);
    const connectStart = performance.now();
    const connected = await clients.ask({ kind: 'connect', url: server.url.replace(/^http/, 'ws') + '/v1/ws', total: CONFIG.connections, paused: CONFIG.paused });
    console.log(`  ${connected.connections} connections, ${connected.subscribed} subscriptions in ${((performance.now() - connectStart) / 1000).toFixed(1)} s${connected.failures > 0 ? `; ${connected.failures} failures (${connected.firstFailure})` : ''}`);

    // Drive: orders open loop, /health probes, until driveMs.
    const sentBefore = sent;
    for (const key of Object.keys(statuses)) delete statuses[key];
    firstRefusal = undefined;
    const cpuStart = server.cpuMs();
    const driveStart = performance.now();
    const healthTimer = setInterval(() => {
      const t = performance.now();
      track(
        request(healthAgent, server.url + '/health', 'GET', {}).then(
          () => void health.push(performance.now() - t),
          () => void health.push(30_000),
        ),
      );
    }, HEALTH_EVERY_MS);
    await driveOrders(CONFIG.driveMs, true);
    clearInterval(healthTimer);
    const serverCpuShare = (server.cpuMs() - cpuStart) / (performance.now() - driveStart);
    // The deadline's timer is unref'd: once everything else is done it must not hold the process for 30 s.
    await Promise.race([Promise.allSettled([...inflight]), new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
    const driveCounts = await clients.ask({ kind: 'counts' });
    stopPeak();

    // Every socket closes; the server settles.
    const after: Samples = { rss: [], heap: [], heapTotal: [], external: [], loopP99: [], loopMax: [] };
    const closing = await clients.ask({ kind: 'close' });
    const stopAfter = sampleMemory(server, after);
    await new Promise((resolve) => setTimeout(resolve, CONFIG.settleMs));
    stopAfter();

    const rssPeak = Math.max(rssStart, ...peak.rss);
    const rssAfter = Math.min(...after.rss.filter((r) => r > 0));
    const acked = acks.length;
    const figures = {
      connections: connected.connections,
      paused: CONFIG.paused,
      ordersSent: sent - sentBefore,
      ordersAcked: acked,
      healthP50Ms: round(percentile(health, 50)),
      healthP99Ms: round(percentile(health, 99)),
      ackP50Ms: round(percentile(acks, 50)),
      ackP99Ms: round(percentile(acks, 99)),
      rssStartMb: round(rssStart / MB),
      rssPeakMb: round(rssPeak / MB),
      rssAfterCloseMb: round(rssAfter / MB),
      rssAfterToStart: round(rssAfter / rssStart, 2),
      rssWarmStartMb: round(rssWarm / MB),
      rssAfterToWarmStart: round(rssAfter / rssWarm, 2),
      heapWarmStartMb: round(heapWarm / MB),
      heapStartMb: round(heapStart / MB),
      heapPeakMb: round(Math.max(0, ...peak.heap) / MB),
      heapAfterCloseMb: round(Math.min(...after.heap) / MB),
      heapTotalStartMb: round((memoryStart?.heapTotal ?? 0) / MB),
      heapTotalAfterCloseMb: round(Math.min(...after.heapTotal) / MB),
      externalStartMb: round((memoryStart?.external ?? 0) / MB),
      externalAfterCloseMb: round(Math.min(...after.external) / MB),
      serverLoopDelayP99Ms: round(percentile(peak.loopP99, 50)),
      serverLoopDelayMaxMs: round(Math.max(0, ...peak.loopMax)),
      serverCpuCores: round(serverCpuShare, 2),
      serverCpuMsPer1kFrames: round((serverCpuShare * CONFIG.driveMs) / Math.max(1, driveCounts.frames / 1000), 2),
      loadAverage: round(loadavg()[0]!, 1),
      framesToReaders: driveCounts.frames,
      readerMbPerSec: round(driveCounts.bytes / MB / (CONFIG.driveMs / 1000)),
      readersDegraded: driveCounts.readersDegraded,
      closedSlowConsumer: driveCounts.closed1008,
      pausedClosedByServer: driveCounts.pausedClosed,
    };
    console.log(`  orders                      ${sent - sentBefore} sent (after ${sentBefore} in the warm-up), ${acked} acknowledged ${JSON.stringify(statuses)}${firstRefusal === undefined ? '' : `; first refusal: ${firstRefusal}`}`);
    console.log(`  /health latency             p50 ${figures.healthP50Ms} ms, p99 ${figures.healthP99Ms} ms (${health.length} probes; target p99 ≤ 50 ms)`);
    console.log(`  order acknowledgement       p50 ${figures.ackP50Ms} ms, p99 ${figures.ackP99Ms} ms (target p99 ≤ 100 ms)`);
    console.log(`  server event loop           delay p99 ${figures.serverLoopDelayP99Ms} ms (median of the half-second periods' p99), max ${figures.serverLoopDelayMaxMs} ms`);
    console.log(`  server RSS                  start ${figures.rssStartMb} MB, peak ${figures.rssPeakMb} MB (target ≤ 1,024), after close ${figures.rssAfterCloseMb} MB = ${figures.rssAfterToStart} × start (target ≤ 1.2); ${figures.rssAfterToWarmStart} × the start after the warm-up without sockets (${figures.rssWarmStartMb} MB)`);
    console.log(`  server heap used            start ${figures.heapStartMb} MB, peak ${figures.heapPeakMb} MB, after close ${figures.heapAfterCloseMb} MB (committed ${figures.heapTotalStartMb} → ${figures.heapTotalAfterCloseMb} MB; external ${figures.externalStartMb} → ${figures.externalAfterCloseMb} MB)`);
    console.log(`  server CPU                  ${figures.serverCpuCores} cores busy during the drive, ${figures.serverCpuMsPer1kFrames} ms per 1,000 frames delivered (load average ${figures.loadAverage} on ${availableParallelism()} cores)`);
    console.log(`  reading clients             ${figures.framesToReaders.toLocaleString('en-US')} channel frames, ${figures.readerMbPerSec} MB/s, ${figures.readersDegraded} degraded notices`);
    console.log(`  slow consumers              ${figures.closedSlowConsumer} closed with 1008 during the drive (${figures.pausedClosedByServer} of the paused ones); ${closing.open} open when the clients closed`);
    console.log(JSON.stringify({ bench: 'fanout', ...figures }));
  } finally {
    agent.destroy();
    healthAgent.destroy();
    await clients.stop();
    await server.stop();
  }
}

if (isMainThread) await main();
else runWorker();
