/**
 * Two sides' signed placeOrder over WebSocket RPC, each in its own process: `A=<side>
 * B=<side> node --import tsx bench/ws-order-ab.ts`. A side is a checkout (perpsim as bench:ws
 * builds it, from bench/ws-order-server.ts: the real verifier and its thread, rate limits on,
 * realtime clock) or `floor:<checkout>` (bench:ws's exact floor, `wsOrderShaped…`, in a
 * process of its own: the same frames verified by that checkout's verifier, answered with
 * perpsim's reply bytes) or `stub:<checkout>` (perpsim's socket with placeOrder's handle doing
 * only the floor's work: bench/ws-order-server.ts) or `nolimits:<checkout>` (rate limits off, as
 * bench:gateway runs perpsim). This process is the client: CONNECTIONS (default 4) connections to
 * each side, open for the whole run, each keeping at most WINDOW (32) posts in flight, sending
 * the same pre-signed frames to both (CHUNK, default 4,000, a round, fresh accounts and
 * timestamps each round) at RATE frames/s (default 12,000, about bench:ws's unpaced order rate: the same pace for both, since a loop's
 * cost per frame depends on its rate), the order of the two flipping every round; ROUNDS
 * (default 6) after a warm-up round. Each chunk is timed by the receiving side's main-thread CPU
 * (the event loop: bench:ws's `mainThreadCpuUsPerOrder`). Prints each side's median µs a frame
 * and A/B. Judge a change both ways round.
 *
 * The differential profile, the same frames and pace on both sides: PERF=1 records each side's
 * main thread over the measured rounds (`perf record -e cpu-clock`, node `--perf-basic-prof`;
 * files /tmp/ws-order-ab-<A|B>.data, read with `perf report -i … --no-children --sort sym`);
 * COUNT=1 prints the node work per frame of each side (bench/node-work-counts.ts: promises and
 * other async resources, ticks, emits, writes, GCs); ALLOC=1 the bytes allocated per frame by
 * function (V8's sampling heap profiler, collected objects included; samples are estimates).
 *
 * The fan-out of an order's events to account subscriptions (bench:ws's RPC pass has none):
 * SUBSCRIBE=orders,account makes each RPC connection subscribe to those channels of the account
 * it trades in the round (before the round's timing; unsubscribed after), so each order's own
 * events go back to its sender as channel_data; OBSERVERS=n adds n idle connections per side,
 * each subscribed to those channels of an address that never trades (other bots' sockets), or
 * with OBSERVE_MARKET=ETH-USD to that market's l2OrderbookUpdates and trades (another book's
 * readers).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, createPublicKey, sign as signBytes, type KeyObject } from 'node:crypto';
import { loadavg } from 'node:os';
import WebSocket from 'ws';
import { envInt } from './env.ts';

const A = process.env.A;
const B = process.env.B;
if (!A || !B) throw new Error('set A and B to the two sides to compare (a checkout, or floor:<checkout>)');
const CHUNK = envInt('CHUNK', 4_000);
const ROUNDS = envInt('ROUNDS', 6);
const RATE = envInt('RATE', 12_000);
const CONNECTIONS = envInt('CONNECTIONS', 4);
const WINDOW = envInt('WINDOW', 32);
const PERF = process.env.PERF === '1';
const COUNT = process.env.COUNT === '1';
const ALLOC = process.env.ALLOC === '1';
/**
 * Account channels each RPC connection subscribes to for the account it trades this round
 * (comma-separated; none by default); SUBSCRIBE_A / SUBSCRIBE_B set one side's own (a
 * differential profile of the fan-out on one tree).
 */
const channelList = (text: string | undefined): string[] => (text ?? '').split(',').filter((c) => c !== '');
const SUBSCRIBE = channelList(process.env.SUBSCRIBE);
const subscribeOf = (side: { name: string }): string[] => (process.env[`SUBSCRIBE_${side.name}`] === undefined ? SUBSCRIBE : channelList(process.env[`SUBSCRIBE_${side.name}`]));
/** Idle connections per side, each subscribed to SUBSCRIBE (or orders and account) of an address that never trades: other bots' sockets. */
const OBSERVERS = envInt('OBSERVERS', 0);
/** OBSERVE_MARKET=ETH-USD: observers subscribe to that market's l2OrderbookUpdates and trades instead (the orders trade BTC-USD). */
const OBSERVE_MARKET = process.env.OBSERVE_MARKET;
/** Observer connections per loopback address (the interface allows 50 per IP): 127.0.2.1, 127.0.2.2, ... */
const OBSERVERS_PER_IP = 40;
const RUN_DEADLINE_MS = 60_000;
const DAY_US = 86_400_000_000;
const FIRST_SEED = 0x20;
if ((ROUNDS + 1) * CONNECTIONS + FIRST_SEED > 255) throw new Error('at most 223 accounts: lower ROUNDS or CONNECTIONS');
if (CHUNK / CONNECTIONS > 10_000) throw new Error('at most 10,000 orders per connection a round (1,000 resting per subaccount and market)');

interface Side {
  name: string;
  spec: string;
  child: ChildProcess;
  pid: number;
  url: string;
  perpsimUrl: string;
  floor: boolean;
  sockets: WebSocket[];
  observers: WebSocket[];
  us: number[];
  counts: Record<string, number>[];
  alloc: Record<string, number>[];
  perf?: ChildProcess;
}

/** Waits for the child's next message of `kind`. */
function expect<T>(child: ChildProcess, kind: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`side exited (${code})`));
    const onMessage = (m: { kind: string }): void => {
      if (m.kind !== kind) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function ask<T>(side: Side, message: { kind: string; [field: string]: unknown }): Promise<T> {
  const reply = expect<T>(side.child, message.kind);
  side.child.send(message);
  return reply;
}

function open(url: string, localAddress?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, localAddress });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function start(name: string, spec: string): Promise<Side> {
  const mode = /^(floor|stub|nolimits):/.exec(spec)?.[1] ?? 'perpsim';
  const floor = mode === 'floor' || mode === 'stub';
  const tree = mode === 'perpsim' ? spec : spec.slice(mode.length + 1);
  // --perf-basic-prof also writes a V8 log: in /tmp, not the working directory.
  const execArgv = [...(PERF ? ['--perf-basic-prof', '--logfile=/tmp/ws-order-ab-%p.v8.log'] : []), '--import', 'tsx'];
  const env = { ...process.env, TREE: tree, MODE: mode };
  const child = fork(new URL('./ws-order-server.ts', import.meta.url), [], { execArgv, env, stdio: 'inherit' });
  const ready = await expect<{ url: string; perpsimUrl: string; pid: number }>(child, 'ready');
  return { name, spec, child, pid: ready.pid, url: ready.url, perpsimUrl: ready.perpsimUrl, floor, sockets: [], observers: [], us: [], counts: [], alloc: [] };
}

/** An Ed25519 key from a one-byte seed, on node:crypto (as bench:ws): the private KeyObject and the API key hex. */
function apiKeyPair(seed: number): { privateKey: KeyObject; apiKey: string } {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.alloc(32, seed)]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, apiKey: spki.subarray(spki.length - 32).toString('hex') };
}

interface Account {
  address: string;
  apiKey: string;
  privateKey: KeyObject;
}

const accounts: Account[] = Array.from({ length: (ROUNDS + 2) * CONNECTIONS }, (_, i) => {
  const seed = FIRST_SEED + i;
  return { address: '0x' + seed.toString(16).padStart(2, '0').repeat(20), ...apiKeyPair(seed) };
});

const { scheme1Payload } = await import('../gateway/auth/index.ts');

interface Round {
  /** Per connection, its frames; the frame at index i carries id i. */
  frames: string[][];
  /** Scheme 1 payloads by timestamp (the floor's jobs). */
  payloads: [string, string][];
}

/** A round's frames: as bench:ws signs them (resting BTC-USD orders that never cross), connection k from account `first + k`. */
function signRound(first: number, perConnection: number): Round {
  const baseNs = BigInt(Date.now()) * 1_000_000n;
  const goodTilTime = String(Date.now() * 1000 + 40 * DAY_US);
  const frames: string[][] = [];
  const payloads: [string, string][] = [];
  for (let k = 0; k < CONNECTIONS; k++) {
    const { address, apiKey, privateKey } = accounts[first + k]!;
    const list: string[] = [];
    for (let i = 0; i < perConnection; i++) {
      const side = (i % 2) as 0 | 1;
      const accountIndex = Math.floor(i / 2) % 10;
      const priceTicks = side === 0 ? 900_000 + ((i * 7919) % 50_000) : 990_001 + ((i * 7919) % 50_000);
      const ts = baseNs + BigInt(k * perConnection + i);
      const message = scheme1Payload(1, { address, accountIndex, clientTimeNs: ts, goodTilTimeNs: BigInt(goodTilTime) * 1000n, marketId: 1, priceTicks, sizeQuantums: 100_000, reduceOnly: false, side, timeInForce: 0 });
      const signature = signBytes(null, Buffer.from(message, 'utf8'), privateKey).toString('hex');
      payloads.push([ts.toString(), message]);
      const payload = { address, accountIndex, marketId: 1, orderSide: side === 0 ? 'BUY' : 'SELL', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '0.001', price: (priceTicks / 10).toFixed(1), goodTilTime, timestamp: Number(ts) };
      list.push(JSON.stringify({ type: 'post', id: i, request: { type: 'placeOrder', apiKey, timestamp: ts.toString(), signature, payload } }));
    }
    frames.push(list);
  }
  return { frames, payloads };
}

/** Sends each (socket, frame) and waits for as many `subscribed` / `unsubscribed` answers per socket. */
function control(pairs: readonly [WebSocket, string][], type: 'subscribed' | 'unsubscribed'): Promise<void> {
  const want = new Map<WebSocket, number>();
  for (const [ws] of pairs) want.set(ws, (want.get(ws) ?? 0) + 1);
  return new Promise((resolve, reject) => {
    let left = pairs.length;
    if (left === 0) return resolve();
    const handlers = [...want.keys()].map((ws) => {
      const onMessage = (data: Buffer): void => {
        const text = data.toString('utf8');
        if (text.startsWith('{"type":"error"')) reject(new Error(`subscription refused: ${text.slice(0, 200)}`));
        if (!text.startsWith(`{"type":"${type}"`)) return;
        if (--left === 0) {
          handlers.forEach(([w, h]) => w.off('message', h));
          resolve();
        }
      };
      ws.on('message', onMessage);
      return [ws, onMessage] as const;
    });
    for (const [ws, frame] of pairs) ws.send(frame);
  });
}

const subscription = (type: 'subscribe' | 'unsubscribe', channel: string, address: string): string => JSON.stringify({ type, channel, id: address, accountIndex: 0 });

interface RunResult {
  acked: number;
  others: Record<string, number>;
  firstOther: string | undefined;
  lastAcked: string | undefined;
}

/** Sends every connection's frames at `RATE` frames/s in all, at most WINDOW in flight each; resolves when all are answered. */
function run(sockets: readonly WebSocket[], frames: readonly string[][]): Promise<RunResult> {
  const result: RunResult = { acked: 0, others: {}, firstOther: undefined, lastAcked: undefined };
  const total = frames.reduce((n, f) => n + f.length, 0);
  const next = frames.map(() => 0);
  const inFlight = frames.map(() => 0);
  let sent = 0;
  let answered = 0;
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const handlers = sockets.map((ws, k) => {
      const onMessage = (data: Buffer): void => {
        const text = data.toString('utf8');
        const reply = JSON.parse(text) as { id?: unknown; status?: unknown };
        if (typeof reply.id !== 'number') return;
        inFlight[k]!--;
        if (reply.status === 202) {
          result.acked++;
          result.lastAcked = text;
        } else {
          result.others[String(reply.status)] = (result.others[String(reply.status)] ?? 0) + 1;
          result.firstOther ??= text.slice(0, 300);
        }
        if (++answered === total) finish();
      };
      ws.on('message', onMessage);
      return onMessage;
    });
    const tick = (): void => {
      let due = Math.min(total, Math.floor(((performance.now() - start) * RATE) / 1000)) - sent;
      for (let progress = true; due > 0 && progress; ) {
        progress = false;
        for (let k = 0; k < sockets.length && due > 0; k++) {
          if (next[k]! >= frames[k]!.length || inFlight[k]! >= WINDOW) continue;
          sockets[k]!.send(frames[k]![next[k]!++]!);
          inFlight[k]!++;
          sent++;
          due--;
          progress = true;
        }
      }
    };
    const timer = setInterval(tick, 1);
    const deadline = setTimeout(() => {
      finish();
      reject(new Error(`${answered} of ${total} frames answered in ${RUN_DEADLINE_MS} ms`));
    }, RUN_DEADLINE_MS);
    function finish(): void {
      clearInterval(timer);
      clearTimeout(deadline);
      sockets.forEach((ws, k) => ws.off('message', handlers[k]!));
      resolve(result);
    }
  });
}

const sides = [await start('A', A), await start('B', B)];
try {
  for (const side of sides) await ask(side, { kind: 'setup', accounts: accounts.map(({ address, apiKey }) => ({ address, apiKey })) });
  // The floor answers with perpsim's reply to an order: one frame to its own perpsim gives the bytes.
  const sample = signRound((ROUNDS + 1) * CONNECTIONS, 1).frames[0]!;
  for (const side of sides) {
    const ws = await open(side.perpsimUrl);
    const got = await run([ws], [sample]).catch((e: Error) => ({ acked: 0, firstOther: e.message, lastAcked: undefined }) as RunResult);
    ws.terminate();
    if (side.floor) {
      const parts = got.lastAcked?.match(/^(\{"method":"placeOrder","id":)[0-9]+(,"status":202,.*)$/s);
      if (parts === null || parts === undefined) throw new Error(`${side.name}: unexpected sample reply ${got.firstOther ?? got.lastAcked}`);
      await ask(side, { kind: 'template', head: parts[1], tail: parts[2] });
      // A stub's sample went through the real handle: its perpsim URL is the one answered.
    }
    side.sockets = await Promise.all(Array.from({ length: CONNECTIONS }, () => open(side.url)));
    side.observers = await Promise.all(Array.from({ length: OBSERVERS }, (_, i) => open(side.url, `127.0.2.${Math.floor(i / OBSERVERS_PER_IP) + 1}`)));
    const channels = SUBSCRIBE.length > 0 ? SUBSCRIBE : ['orders', 'account'];
    // Observer i watches an address no round trades: 0xee…ee with its index in the last bytes.
    const watch = (i: number): string[] =>
      OBSERVE_MARKET !== undefined
        ? ['l2OrderbookUpdates', 'trades'].map((channel) => JSON.stringify({ type: 'subscribe', channel, id: OBSERVE_MARKET }))
        : channels.map((channel) => subscription('subscribe', channel, '0x' + 'ee'.repeat(18) + i.toString(16).padStart(4, '0')));
    await control(side.observers.flatMap((ws, i) => watch(i).map((frame) => [ws, frame] as [WebSocket, string])), 'subscribed');
  }
  for (let round = 0; round <= ROUNDS; round++) {
    const signed = signRound(round * CONNECTIONS, Math.ceil(CHUNK / CONNECTIONS));
    const count = signed.frames.reduce((n, f) => n + f.length, 0);
    for (const side of sides) if (side.floor) await ask(side, { kind: 'payloads', entries: signed.payloads });
    if (round === 1 && PERF) {
      for (const side of sides) side.perf = spawn('perf', ['record', '-e', 'cpu-clock', ...(process.env.PERF_CALLGRAPH === '1' ? ['-g'] : []), '-t', String(side.pid), '-o', `/tmp/ws-order-ab-${side.name}.data`], { stdio: 'ignore' });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[k]!;
      if (round > 0 && COUNT) await ask(side, { kind: 'counts', on: true });
      if (round > 0 && ALLOC) await ask(side, { kind: 'alloc', on: true });
      const own = (type: 'subscribe' | 'unsubscribe'): [WebSocket, string][] => side.sockets.flatMap((ws, c) => subscribeOf(side).map((channel) => [ws, subscription(type, channel, accounts[round * CONNECTIONS + c]!.address)] as [WebSocket, string]));
      await control(own('subscribe'), 'subscribed');
      const before = (await ask<{ us: number }>(side, { kind: 'cpu' })).us;
      const r = await run(side.sockets, signed.frames);
      const used = (await ask<{ us: number }>(side, { kind: 'cpu' })).us - before;
      await control(own('unsubscribe'), 'unsubscribed');
      if (round > 0 && ALLOC) side.alloc.push((await ask<{ bytes: Record<string, number> }>(side, { kind: 'alloc', on: false })).bytes);
      if (round > 0 && COUNT) side.counts.push((await ask<{ counts: Record<string, number> }>(side, { kind: 'counts', on: false })).counts);
      if (r.acked !== count) throw new Error(`${side.name}: ${r.acked} of ${count} acknowledged (${JSON.stringify(r.others)}; first: ${r.firstOther})`);
      if (round > 0) side.us.push(used / count);
      if (process.env.VERBOSE === "1") console.error(`round ${round} ${side.name}: ${(used / count).toFixed(1)} µs a frame`);
    }
  }
} finally {
  for (const s of sides) {
    if (s.perf !== undefined) {
      const done = new Promise((resolve) => s.perf!.once('exit', resolve));
      s.perf.kill('SIGINT');
      await done;
    }
    for (const ws of [...s.sockets, ...s.observers]) ws.terminate();
    s.child.send({ kind: 'exit' });
  }
}
const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const frames = Math.ceil(CHUNK / CONNECTIONS) * CONNECTIONS;
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${frames} frames a round at ${RATE}/s, ${CONNECTIONS} connections, ${ROUNDS} rounds${sides.map((s) => (subscribeOf(s).length > 0 ? `; ${s.name}'s senders subscribed to ${subscribeOf(s).join(', ')}` : '')).join('')}${OBSERVERS > 0 ? `; ${OBSERVERS} observers` : ''}`);
for (const s of sides) console.log(`${s.name} ${s.spec}: median ${median(s.us).toFixed(2)} µs a frame (${s.us.map((u) => u.toFixed(1)).join(' ')})`);
// Each round's pair ran back to back (under the same load): the median of their ratios is the steadier figure.
const paired = median(sides[0]!.us.map((a, i) => a / sides[1]!.us[i]!));
console.log(`A/B ${(median(sides[0]!.us) / median(sides[1]!.us)).toFixed(3)} (medians); ${paired.toFixed(3)} (median of the rounds' ratios)`);
if (COUNT) {
  console.log('node work per frame (median of rounds): A / B');
  const names = new Set(sides.flatMap((s) => s.counts.flatMap((c) => Object.keys(c))));
  for (const name of [...names].sort()) {
    const row = sides.map((s) => median(s.counts.map((c) => (c[name] ?? 0) / frames)));
    if (row.some((v) => v >= 0.01)) console.log(`  ${name.padEnd(44)} ${row.map((v) => v.toFixed(2).padStart(8)).join(' ')}`);
  }
}
if (ALLOC) {
  console.log('bytes allocated per frame by function (sampled, median of rounds), top 40 by A + B: A / B');
  const names = new Set(sides.flatMap((s) => s.alloc.flatMap((c) => Object.keys(c))));
  const per = (s: Side, name: string): number => median(s.alloc.map((c) => (c[name] ?? 0) / frames));
  const rows = [...names].map((name) => ({ name, a: per(sides[0]!, name), b: per(sides[1]!, name) })).sort((x, y) => y.a + y.b - (x.a + x.b));
  const total = (s: Side): number => median(s.alloc.map((c) => Object.values(c).reduce((n, v) => n + v, 0) / frames));
  console.log(`  ${'all'.padEnd(70)} ${total(sides[0]!).toFixed(0).padStart(7)} ${total(sides[1]!).toFixed(0).padStart(7)}`);
  for (const r of rows.slice(0, 40)) console.log(`  ${r.name.slice(0, 70).padEnd(70)} ${r.a.toFixed(0).padStart(7)} ${r.b.toFixed(0).padStart(7)}`);
}
console.log(JSON.stringify({ bench: 'ws-order-ab', frames, rounds: ROUNDS, rate: RATE, connections: CONNECTIONS, subscribe: SUBSCRIBE, observers: OBSERVERS, load: +loadavg()[0]!.toFixed(2), aUsPerFrame: +median(sides[0]!.us).toFixed(2), bUsPerFrame: +median(sides[1]!.us).toFixed(2), aOverB: +(median(sides[0]!.us) / median(sides[1]!.us)).toFixed(3), aOverBPaired: +paired.toFixed(3) }));
process.exit(0);
