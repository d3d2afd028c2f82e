/**
 * `npm run fuzz`: hostile input against a real server process on loopback. Every route of the
 * OpenAPI document (/openapi.json: the venue's /v1 routes and the /sim control API) gets
 * fuzzed requests over HTTP, and WebSocket connections get fuzzed frames (subscriptions, RPC
 * posts and gets shaped by the operations' schemas, frames that are not JSON). The request parts
 * come from test/support/fuzz-inputs.ts, the generators of the CI fuzz test
 * (test/gateway.fuzz.test.ts), fed with the OpenAPI document's schemas instead of the
 * operation table.
 *
 * What is checked on every reply: no 5xx (over the socket: no status ≥ 500 but 501, the
 * documented "REST only"), JSON, the error shape (REST: an object with a string `error`, known
 * `errorType` / `errorSource` / `rejectionReason`; WebSocket: `error.type` and `error.message`
 * strings), `Retry-After` on a 429, no reply later than `timeoutMs` (a hang), no socket closed by
 * the server with 1011. Afterwards /health must answer. Reported: counts by status, breaches
 * (the first 20 printed), hangs, the server's RSS at start, peak and after 5 s idle, and one JSON
 * line {"bench":"fuzz",...}; exit code 1 on any breach or hang.
 *
 * Settings (environment): FUZZ_REQUESTS (100,000), FUZZ_FRAMES (20,000), FUZZ_SEED,
 * FUZZ_CONCURRENCY (32 requests in flight), FUZZ_MAX_SECONDS (900: past it no new request is
 * sent, and the report says `truncated`), FUZZ_TIMEOUT_MS (10,000 per reply), FUZZ_SKIP
 * ("POST /sim/snapshot,GET /v1/trades": routes left out, to find what holds memory).
 *
 * Not fuzzed in the main mix: POST /sim/faults (its job is to make the venue misbehave: 5xx,
 * dropped replies), and /sim/reset and /sim/restore (they would throw the seeded keys and
 * orders away): these get a few hostile requests each at the very end.
 */
import * as ed from '@noble/ed25519';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import WebSocket from 'ws';
import { ERROR_SOURCES, ERROR_TYPES, REJECTION_REASONS } from '../engine/spec.ts';
import { createExchange } from '../gateway/read-models/exchange.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { placeOrderRequest, wallet, type GatewayHarness, type Wallet } from '../test/support/gateway-fixture.ts';
import { headerSet, hex, hostileValue, jsonBody, jsonText, pathText, queryText, shaped, type FuzzWorld, type JsonSchema, type Tree } from '../test/support/fuzz-inputs.ts';
import { envInt } from './env.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface FuzzOptions {
  requests: number;
  frames: number;
  seed: number;
  concurrency: number;
  maxSeconds: number;
  timeoutMs: number;
  /** More routes to leave out, as "METHOD /path" (FUZZ_SKIP, comma-separated): to find what holds memory. */
  skip?: readonly string[];
  log?: (line: string) => void;
}

export interface FuzzReport {
  bench: 'fuzz';
  requests: number;
  frames: number;
  routes: number;
  /** Requests the client library would not send (header or path characters it refuses). */
  unsendable: number;
  statuses: Record<string, number>;
  wsReplies: Record<string, number>;
  breaches: number;
  hangs: number;
  firstBreaches: string[];
  seconds: number;
  requestsPerSecond: number;
  rssStartMB: number;
  rssPeakMB: number;
  rssEndMB: number;
  /** rssEndMB / rssStartMB: the baseline is the same server before the fuzz. */
  rssEndOverStart: number;
  truncated: boolean;
}

interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  /** With `:param` segments (fuzz-inputs' pathText). */
  path: string;
  query: JsonSchema | undefined;
  body: JsonSchema | undefined;
}

interface Running {
  child: ChildProcess;
  url: string;
  /** The server's stderr so far (a crash's stack trace). */
  stderr(): string;
}

/** `perpsim serve` on a free port: state in memory, rate limits off (429s would mask the handlers), virtual clock. */
function startServer(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'serve', '--memory', '--port', '0', '--no-rate-limits', '--clock', 'virtual', '--log-level', 'info'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === 'perpsim listening') resolve({ child, url: entry.url!, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`perpsim exited (${String(code)}) before listening: ${stderr}`)));
  });
}

/** Resident set of a process, MB (Linux /proc; 0 elsewhere). */
function rssMB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Math.round(Number(m[1]) / 1024);
  } catch {
    return 0;
  }
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on the keep-alive agent; 'hang' past the timeout, 'unsendable' when Node refuses to write it. */
function send(agent: http.Agent, base: URL, method: string, path: string, headers: Record<string, string | string[]>, body: string | undefined, timeoutMs: number): Promise<Reply | 'hang' | 'unsendable' | 'down'> {
  return new Promise((resolve) => {
    let req: http.ClientRequest;
    try {
      req = http.request({ agent, host: base.hostname, port: base.port, method, path, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } });
    } catch {
      return resolve('unsendable');
    }
    const timer = setTimeout(() => {
      req.destroy();
      resolve('hang');
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', () => {
        clearTimeout(timer);
        resolve('hang');
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Node's own refusals (invalid header characters) surface here too.
      resolve(err.code?.startsWith('ERR_') === true ? 'unsendable' : err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'down' : 'hang');
    });
    try {
      req.end(body);
    } catch {
      clearTimeout(timer);
      resolve('unsendable');
    }
  });
}

const ERROR_TYPE_SET: ReadonlySet<string> = new Set(ERROR_TYPES);
const ERROR_SOURCE_SET: ReadonlySet<string> = new Set(ERROR_SOURCES);
const REJECTION_REASON_SET: ReadonlySet<string> = new Set(REJECTION_REASONS);

/** What is wrong with a REST reply, or null (interface.md "Error body"). */
export function restBreach(reply: Reply): string | null {
  if (reply.status >= 500) return `status ${reply.status}: ${reply.body.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    return `status ${reply.status}: not JSON: ${JSON.stringify(reply.body.slice(0, 200))}`;
  }
  if (reply.status >= 400) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return `status ${reply.status}: error body is not an object`;
    const f = body as Record<string, unknown>;
    if (typeof f.error !== 'string') return `status ${reply.status}: no string error: ${reply.body.slice(0, 200)}`;
    if ('errorType' in f && !ERROR_TYPE_SET.has(f.errorType as string)) return `unknown errorType ${JSON.stringify(f.errorType)}`;
    if ('errorSource' in f && !ERROR_SOURCE_SET.has(f.errorSource as string)) return `unknown errorSource ${JSON.stringify(f.errorSource)}`;
    if ('rejectionReason' in f && !REJECTION_REASON_SET.has(f.rejectionReason as string)) return `unknown rejectionReason ${JSON.stringify(f.rejectionReason)}`;
  }
  if (reply.status === 429 && reply.headers['retry-after'] === undefined) return '429 without Retry-After';
  return null;
}

/** What is wrong with a WebSocket frame from the server, or null. */
function wsBreach(text: string): string | null {
  let frame: Record<string, unknown>;
  try {
    frame = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `ws frame not JSON: ${text.slice(0, 200)}`;
  }
  const status = typeof frame.status === 'number' ? frame.status : undefined;
  if (status !== undefined && status >= 500 && status !== 501) return `ws status ${status}: ${text.slice(0, 200)}`;
  if (status !== undefined && status >= 400) {
    const error = frame.error as Record<string, unknown> | undefined;
    if (typeof error?.type !== 'string' || typeof error.message !== 'string') return `ws error frame without {type, message}: ${text.slice(0, 200)}`;
    if (frame.type !== 'error' && (!('id' in frame) || !('method' in frame))) return `ws RPC error frame without id and method: ${text.slice(0, 200)}`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The routes, from the OpenAPI document.

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export function routesOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Route[] {
  const routes: Route[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (upper !== 'GET' && upper !== 'POST' && upper !== 'DELETE' && upper !== 'PUT') continue;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      routes.push({
        method: upper,
        path: path.replace(/\{([A-Za-z]+)\}/g, ':$1'),
        query: query.length === 0 ? undefined : { type: 'object', properties: Object.fromEntries(query.map((p) => [p.name, p.schema ?? {}])), required: query.filter((p) => p.required === true).map((p) => p.name) },
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return routes;
}

/** Routes left out of the main mix (see the header). */
const LAST = new Set(['POST /sim/reset', 'POST /sim/restore']);
const SKIPPED = new Set(['POST /sim/faults']);

// ---------------------------------------------------------------------------------------------
// The world: funded, keyed accounts with resting orders and a trade.

async function json(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, { method, headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  return (await res.json()) as Record<string, unknown>;
}

export async function seedWorld(base: string, routes: readonly Route[]): Promise<FuzzWorld> {
  const wallets: Wallet[] = [wallet(0xf1), wallet(0xf2)];
  for (const w of wallets) {
    await json(base, 'POST', '/sim/deposit', { address: w.address, amount: '1000000' });
    await json(base, 'POST', '/sim/apiKeys', { address: w.address, publicKey: w.apiKey });
  }
  const specs = createExchange({ markets: defaultMarkets() }, () => 0);
  const nowUs = (await json(base, 'GET', '/sim/clock')).timeUs as number;
  const sign = (message: string, w: Wallet): string => Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
  const harness = { exchange: specs, now: { us: nowUs }, sign } as unknown as GatewayHarness;
  const orderIds: string[] = [];
  const clientIds = ['f-rest-1', 'f-rest-2', 'f-take-1', 'f-take-2'];
  const orders: [Wallet, 'BUY' | 'SELL', string][] = [[wallets[0]!, 'BUY', '60000'], [wallets[1]!, 'SELL', '150000'], [wallets[0]!, 'BUY', '97000'], [wallets[1]!, 'SELL', '96000']];
  for (const [i, [w, side, price]] of orders.entries()) {
    const r = placeOrderRequest(harness, w, { side, quantity: '0.01', price, clientId: clientIds[i]! });
    const reply = await json(base, 'POST', r.url, r.payload, r.headers);
    if (typeof reply.orderId === 'string') orderIds.push(reply.orderId);
  }
  const fills = (await json(base, 'GET', `/v1/fills?address=${wallets[0]!.address}`)) as { fills?: { tradeId?: string }[] };
  const markets = specs.engine.bySlot.map((ms) => ms.spec);
  const bodyOf = (path: string): JsonSchema | undefined => routes.find((r) => r.method === 'POST' && r.path === path)?.body;
  const itemSchemas: Record<string, JsonSchema> = {};
  for (const [field, path] of [['orders', '/v1/placeOrder'], ['cancels', '/v1/cancelOrder'], ['modifies', '/v1/modifyOrder']] as const) {
    const schema = bodyOf(path);
    if (schema !== undefined) itemSchemas[field] = schema;
  }
  return {
    addresses: wallets.map((w) => w.address),
    apiKeys: wallets.map((w) => w.apiKey),
    markets: [...markets.map((m) => m.displayName), ...markets.map((m) => String(m.id))],
    marketIds: markets.map((m) => m.id),
    orderIds,
    clientIds,
    tradeIds: (fills.fills ?? []).flatMap((f) => (f.tradeId === undefined ? [] : [f.tradeId])),
    nowUs,
    itemSchemas,
  };
}

// ---------------------------------------------------------------------------------------------
// Requests and frames.

interface Request {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: string | undefined;
}

/**
 * A route's requests: everything fuzzed at once (a third), or a registered key, an in-window
 * timestamp and a signature that does not verify around a shaped query and body (a third, so
 * the checks after the schema run), or no auth headers at all.
 */
function requestArb(route: Route, world: FuzzWorld): fc.Arbitrary<Request> {
  const stamp = BigInt(world.nowUs) * 1000n;
  return fc
    .record({
      kind: fc.integer({ min: 0, max: 2 }),
      path: pathText(route.path, world),
      query: queryText(route.query, world),
      hostileHeaders: headerSet(world),
      body: jsonBody(route.body, world),
      signature: hex(128),
      key: fc.constantFrom(...world.apiKeys),
      offsetNs: fc.integer({ min: 0, max: 1_000_000_000 }),
      otherMethod: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    })
    .map(({ kind, path, query, hostileHeaders, body, signature, key, offsetNs, otherMethod }) => {
      const method = otherMethod ? (route.method === 'GET' ? 'POST' : 'GET') : route.method;
      const headers: Record<string, string | string[]> =
        kind === 0 ? hostileHeaders : kind === 1 ? { 'x-api-key': key, 'x-timestamp': String(stamp + BigInt(offsetNs)), 'x-signature': signature, 'content-type': 'application/json' } : { 'content-type': 'application/json' };
      return { method, path: path + query, headers, body: method === 'GET' ? undefined : body };
    });
}

const CHANNELS = ['l2Orderbook', 'l2OrderbookUpdates', 'trades', 'bbo', 'markets', 'oraclePrices', 'exchangeAttributeUpdates', 'marketAttributes', 'predictedFunding', 'account', 'positions', 'userFills', 'orders', 'funding', 'accountAttributeUpdates', 'accountTransferUpdates', 'candles'];

/** A frame: a subscription, an RPC shaped by an operation's schema, or hostile text. */
export function frameArb(routes: readonly Route[], world: FuzzWorld): fc.Arbitrary<string> {
  const v1 = routes.filter((r) => r.path.startsWith('/v1/') && !r.path.includes(':'));
  const value = (tree: fc.Arbitrary<Tree>): fc.Arbitrary<Tree> => fc.oneof({ weight: 4, arbitrary: tree }, { weight: 1, arbitrary: hostileValue });
  const subscription = fc.record({
    type: value(fc.constantFrom('subscribe', 'unsubscribe')),
    channel: value(fc.constantFrom(...CHANNELS)),
    id: value(fc.constantFrom<Tree>(...world.markets, '1m:BTC-USD', '5m:ETH-USD', ...world.marketIds)),
    address: fc.option(value(fc.constantFrom(...world.addresses)), { nil: undefined }),
    accountIndex: fc.option(value(fc.integer({ min: 0, max: 10 })), { nil: undefined }),
    snapshot: fc.option(fc.boolean(), { nil: undefined }),
  }) as fc.Arbitrary<Tree>;
  const rpc = fc.constantFrom(...v1).chain((route) =>
    fc.record({
      type: value(fc.constant(route.method === 'GET' ? 'get' : 'post')),
      id: value(fc.integer({ min: 0, max: 1_000_000 })),
      request: fc.record({
        type: value(fc.constant(route.path.slice('/v1/'.length))),
        payload: shaped(route.body ?? route.query ?? { type: 'object', properties: {} }, world),
        apiKey: fc.option(value(fc.constantFrom(...world.apiKeys)), { nil: undefined }),
        timestamp: fc.option(value(fc.constant(String(BigInt(world.nowUs) * 1000n))), { nil: undefined }),
        signature: fc.option(value(hex(128)), { nil: undefined }),
      }),
    }) as fc.Arbitrary<Tree>,
  );
  return fc.oneof(
    { weight: 4, arbitrary: subscription.map(jsonText) },
    { weight: 5, arbitrary: rpc.map(jsonText) },
    { weight: 1, arbitrary: hostileValue.map(jsonText) },
    { weight: 1, arbitrary: jsonBody(undefined, world).map((t) => t ?? '') },
  );
}

// ---------------------------------------------------------------------------------------------

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const server = await startServer();
  const pid = server.child.pid!;
  const base = new URL(server.url);
  const started = Date.now();
  const deadline = started + options.maxSeconds * 1000;
  const statuses: Record<string, number> = {};
  const wsReplies: Record<string, number> = {};
  const firstBreaches: string[] = [];
  let breaches = 0;
  let hangs = 0;
  let unsendable = 0;
  let sent = 0;
  let framesSent = 0;
  let truncated = false;
  let down: string | undefined;
  const breach = (what: string): void => {
    breaches++;
    if (firstBreaches.length < 20) firstBreaches.push(what);
  };
  let rssPeakMB = 0;
  const sampler = setInterval(() => (rssPeakMB = Math.max(rssPeakMB, rssMB(pid))), 250);
  try {
    const doc = (await json(server.url, 'GET', '/openapi.json')) as unknown as Parameters<typeof routesOf>[0];
    const all = routesOf(doc);
    const world = await seedWorld(server.url, all);
    const rssStartMB = rssMB(pid);
    rssPeakMB = rssStartMB;
    const skipped = new Set([...SKIPPED, ...(options.skip ?? [])]);
    const mixed = all.filter((r) => !LAST.has(`${r.method} ${r.path}`) && !skipped.has(`${r.method} ${r.path}`));
    const last = all.filter((r) => LAST.has(`${r.method} ${r.path}`));
    log(`fuzz: ${all.length} routes (${mixed.length} in the mix, ${last.length} at the end, ${all.length - mixed.length - last.length} skipped); ${options.requests} requests, ${options.frames} frames`);

    // HTTP: one route after another (so the requests in flight are spread over the routes),
    // `concurrency` in flight; each route's requests sampled `batch` at a time.
    const generators = mixed.map((route) => ({ route, arb: requestArb(route, world), queue: [] as Request[], batches: 0 }));
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
    const fresh = new http.Agent({ keepAlive: false });
    const alive = (): boolean => server.child.exitCode === null && server.child.signalCode === null;
    /** One request; a reset on a reused keep-alive socket the server had just closed is sent once more on a fresh one. */
    const attempt = async (request: Request): Promise<Reply | 'hang' | 'unsendable' | 'down'> => {
      const reply = await send(agent, base, request.method, request.path, request.headers, request.body, options.timeoutMs);
      return reply === 'down' && alive() ? send(fresh, base, request.method, request.path, request.headers, request.body, options.timeoutMs) : reply;
    };
    const batch = 50;
    let n = 0;
    const next = (): Request | undefined => {
      if (n >= options.requests) return undefined;
      const g = generators[n++ % generators.length]!;
      if (g.queue.length === 0) g.queue = fc.sample(g.arb, { seed: options.seed + generators.indexOf(g) * 100_003 + g.batches++, numRuns: batch });
      return g.queue.pop();
    };
    const worker = async (): Promise<void> => {
      for (let request = next(); request !== undefined && down === undefined; request = next()) {
        if (Date.now() > deadline) {
          truncated = true;
          return;
        }
        const reply = await attempt(request);
        sent++;
        if (reply === 'unsendable') {
          unsendable++;
          continue;
        }
        if (!alive()) {
          down ??= `the server stopped (exit ${String(server.child.exitCode ?? server.child.signalCode)}) around request ${sent}: ${request.method} ${request.path.slice(0, 200)} body ${JSON.stringify((request.body ?? '').slice(0, 200))}\n${server.stderr().slice(-2000)}`;
          return;
        }
        if (reply === 'hang' || reply === 'down') {
          hangs++;
          breach(`no reply within ${options.timeoutMs} ms: ${request.method} ${request.path.slice(0, 200)} headers ${JSON.stringify(request.headers).slice(0, 300)} body ${JSON.stringify((request.body ?? '').slice(0, 200))}`);
          continue;
        }
        statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
        const wrong = restBreach(reply);
        if (wrong !== null) breach(`${wrong}\n  ${request.method} ${request.path.slice(0, 200)} body ${JSON.stringify((request.body ?? '').slice(0, 200))}`);
        if (sent % 10_000 === 0) log(`  ${sent} requests, ${Math.round((Date.now() - started) / 1000)} s, server RSS ${rssMB(pid)} MB`);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));

    // WebSocket: frames over a few connections, a window at a time, each window's answers awaited.
    const frames = fc.sample(frameArb(all, world), { seed: options.seed, numRuns: options.frames });
    const connections = 10;
    const per = Math.ceil(frames.length / connections);
    const wsWorker = async (slice: string[]): Promise<void> => {
      let i = 0;
      while (i < slice.length && Date.now() <= deadline) {
        const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v1/ws`);
        let answers = 0;
        let closed: number | undefined;
        ws.on('message', (data: Buffer) => {
          const text = data.toString('utf8');
          const wrong = wsBreach(text);
          if (wrong !== null) breach(wrong);
          let frame: { type?: string; status?: number } = {};
          try {
            frame = JSON.parse(text) as typeof frame;
          } catch {
            // reported above
          }
          if (frame.type === 'channel_data') return;
          answers++;
          const key = frame.status !== undefined ? String(frame.status) : String(frame.type);
          wsReplies[key] = (wsReplies[key] ?? 0) + 1;
        });
        ws.on('close', (code) => (closed = code));
        ws.on('error', () => {});
        await new Promise<void>((resolve) => {
          ws.once('open', () => resolve());
          ws.once('close', () => resolve());
        });
        if (closed !== undefined) {
          breach(`ws connection refused (close ${closed})`);
          return;
        }
        while (i < slice.length && closed === undefined) {
          const window = slice.slice(i, i + 25);
          const expected = answers + window.length;
          for (const text of window) ws.send(text);
          i += window.length;
          framesSent += window.length;
          const until = Date.now() + options.timeoutMs;
          while (answers < expected && closed === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
          if (answers < expected && closed === undefined) {
            hangs++;
            breach(`ws: ${expected - answers} of ${window.length} frames unanswered within ${options.timeoutMs} ms`);
            break;
          }
        }
        if (closed === 1011) breach('ws closed with 1011 (internal error)');
        else if (closed !== undefined) wsReplies[`close ${closed}`] = (wsReplies[`close ${closed}`] ?? 0) + 1;
        ws.terminate();
      }
    };
    await Promise.all(Array.from({ length: connections }, (_, k) => wsWorker(frames.slice(k * per, (k + 1) * per))));
    if (down === undefined && !alive()) {
      down = `the server stopped (exit ${String(server.child.exitCode ?? server.child.signalCode)}) during the WebSocket frames\n${server.stderr().slice(-2000)}`;
    }
    if (Date.now() > deadline) truncated = true;

    // The state-replacing routes, a few hostile requests each.
    for (const route of down === undefined ? last : []) {
      for (const request of fc.sample(requestArb(route, world), { seed: options.seed, numRuns: 10 })) {
        const reply = await attempt(request);
        sent++;
        if (reply === 'unsendable') unsendable++;
        else if (reply === 'hang' || reply === 'down') {
          hangs++;
          breach(`no reply within ${options.timeoutMs} ms: ${request.method} ${request.path.slice(0, 200)} headers ${JSON.stringify(request.headers).slice(0, 300)} body ${JSON.stringify((request.body ?? '').slice(0, 200))}`);
        } else {
          statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
          const wrong = restBreach(reply);
          if (wrong !== null) breach(`${wrong}\n  ${request.method} ${request.path.slice(0, 200)}`);
        }
      }
    }
    agent.destroy();
    const health = await send(new http.Agent(), base, 'GET', '/health', {}, undefined, options.timeoutMs);
    if (down !== undefined) {
      breaches++;
      firstBreaches.unshift(down);
    }
    if (typeof health === 'string' || health.status !== 200) breach(`GET /health after the fuzz: ${typeof health === 'string' ? health : health.status}`);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 5000));
    const rssEndMB = rssMB(pid);
    return {
      bench: 'fuzz',
      requests: sent,
      frames: framesSent,
      routes: all.length,
      unsendable,
      statuses,
      wsReplies,
      breaches,
      hangs,
      firstBreaches,
      seconds: Math.round(seconds * 10) / 10,
      requestsPerSecond: Math.round(sent / seconds),
      rssStartMB,
      rssPeakMB,
      rssEndMB,
      rssEndOverStart: rssStartMB > 0 ? Math.round((rssEndMB / rssStartMB) * 100) / 100 : 0,
      truncated,
    };
  } finally {
    clearInterval(sampler);
    if (process.env.FUZZ_SERVER_STDERR === '1') process.stderr.write(`server stderr:\n${server.stderr()}\n`);
    server.child.kill('SIGKILL');
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await runFuzz({
    requests: envInt('FUZZ_REQUESTS', 100_000),
    frames: envInt('FUZZ_FRAMES', 20_000),
    seed: envInt('FUZZ_SEED', 0x5eed),
    concurrency: envInt('FUZZ_CONCURRENCY', 32),
    maxSeconds: envInt('FUZZ_MAX_SECONDS', 900),
    timeoutMs: envInt('FUZZ_TIMEOUT_MS', 10_000),
    skip: (process.env.FUZZ_SKIP ?? '').split(',').filter((r) => r.length > 0),
  });
  for (const line of report.firstBreaches) process.stderr.write(`BREACH ${line}\n`);
  process.stdout.write(`requests ${report.requests} (${report.unsendable} unsendable) over ${report.routes} routes, ${report.frames} WebSocket frames, ${report.seconds} s; breaches ${report.breaches}, hangs ${report.hangs}; server RSS ${report.rssStartMB} → peak ${report.rssPeakMB} → ${report.rssEndMB} MB after 5 s idle\n`);
  const { firstBreaches: _omit, ...figures } = report;
  process.stdout.write(JSON.stringify(figures) + '\n');
  process.exit(report.breaches === 0 && report.hangs === 0 ? 0 : 1);
}
