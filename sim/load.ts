/**
 * `perpsim load`: an open-loop order-flow generator for any running perpsim, built on the client
 * SDK (`perpsim/client`).
 *
 * What it does: registers fresh Ed25519 keys (node:crypto, for signing speed) for `accounts`
 * new addresses through /sim/apiKeys and funds them through /sim/deposit; subscribes to each
 * account's `orders` channel on one socket; then for `durationS` seconds sends `rate` order
 * writes per second — whatever the replies do, so a slow server builds a backlog instead of
 * slowing the load — drawn from `mix`: `place` (a passive GTT limit 0.1-0.5 % off the oracle),
 * `cancel` and `modify` (a live order of the account; a place when it has none), `ioc` (an IOC
 * crossing 1 % through the oracle). Accounts take turns. An account with `maxOpen` resting orders
 * cancels one instead of placing another: places outnumber cancels in the mix, and without that
 * the accounts would fill the book up to the venue's open-order cap (1,000 per account and
 * market) within minutes and from then on have their places refused (OPEN_ORDER_CAP_EXCEEDED) —
 * a flow whose state grows, then one that is mostly refused, neither a steady one. Afterwards it waits up to `drainS` for
 * replies and events, cancels what is left, and reports:
 * - orders sent and acknowledged (2xx and not REJECTED), and per second of the sending window;
 * - latency percentiles (p50, p90, p99, p99.9) from send to the acknowledgement, and from send
 *   to the `orders` event that answers the write (a place: the first update of its clientId; a
 *   cancel: its CANCELED; a modify: the next update of its orderId); "send" is just before the
 *   SDK signs and sends, so signing (tens of µs on node:crypto) is included; event latency
 *   counts acknowledged writes only;
 * - refusals by reason: the rejectionReason of a REJECTED order, else the errorType, else the
 *   HTTP status (with the rate-limit bucket for a 429).
 *
 * Draws come from a seeded PRNG, so the same `seed` sends the same order stream.
 */
import { generateKeyPairSync, randomBytes, sign as ed25519Sign } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import Big from 'big.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiError, Client, fromUnits, type ChannelFrame, type Market, type Order, type RequestSigner } from '../client/index.ts';
import { createPrng, type Prng } from './prng.ts';

export const ACTIONS = ['place', 'cancel', 'modify', 'ioc'] as const;
export type Action = (typeof ACTIONS)[number];
export type Mix = Readonly<Record<Action, number>>;

export interface LoadOptions {
  /** perpsim's base URL. */
  url: string;
  /** Order writes per second. */
  rate: number;
  durationS: number;
  mix: Mix;
  accounts: number;
  market: string;
  transport: 'rest' | 'ws';
  seed: number;
  /** USD deposited into each account. */
  depositUsd: string;
  /** How long to wait for outstanding replies and events after sending stops. */
  drainS: number;
  /** Resting orders an account keeps at most: past it a `place` becomes a `cancel` (default DEFAULT_MAX_OPEN). */
  maxOpen?: number;
  controlToken?: string;
  /** Called about once a second while sending. */
  progress?: (progress: Progress) => void;
}

export interface Progress {
  elapsedS: number;
  sent: number;
  acknowledged: number;
  refused: number;
  events: number;
  inFlight: number;
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
}

export interface LoadReport {
  url: string;
  market: string;
  transport: 'rest' | 'ws';
  accounts: number;
  /** The sending window, s. */
  durationS: number;
  sent: number;
  acknowledged: number;
  refused: number;
  /** Network or protocol failures (no reply from the venue). */
  failed: number;
  sentPerS: number;
  acknowledgedPerS: number;
  sentByAction: Record<Action, number>;
  ackLatencyMs: Percentiles;
  eventLatencyMs: Percentiles;
  refusals: Record<string, number>;
}

/**
 * REST connections the generator keeps open to the server at most. The global fetch opens a
 * connection per request in flight, without bound: a server that fell behind held ten
 * thousand of them (docs/performance-log.md "Memory after the fan-out and under the soak"). Requests
 * past the pool wait in its queue, their latency still counted from send: the load stays open-loop.
 */
export const LOAD_CONNECTIONS = 32;

/** fetch over node:http(s) with a keep-alive pool of `connections` sockets (`close` ends them). */
export function pooledFetch(baseUrl: string, connections: number): { fetch: typeof fetch; close(): void } {
  const secure = new URL(baseUrl).protocol === 'https:';
  const agent = new (secure ? https : http).Agent({ keepAlive: true, maxSockets: connections });
  const request = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = input instanceof Request ? input.url : input;
      const headers = Object.fromEntries(new Headers(init.headers));
      const req = (secure ? https : http).request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const replyHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) replyHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: replyHeaders }));
        });
      });
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
  return { fetch: request as typeof fetch, close: () => agent.destroy() };
}

export const DEFAULT_MIX: Mix = { place: 60, cancel: 25, modify: 10, ioc: 5 };

/** Resting orders per account at which places turn into cancels: a market maker's ladder, a tenth of the venue's cap. */
export const DEFAULT_MAX_OPEN = 100;

/**
 * `place=60,cancel=25,modify=10,ioc=5`: weights, any scale; actions left out weigh 0.
 *
 * @throws InvalidArgumentError on an unknown action, a negative or non-numeric weight, or all zero.
 */
export function parseMix(text: string): Mix {
  const mix: Record<Action, number> = { place: 0, cancel: 0, modify: 0, ioc: 0 };
  for (const part of text.split(',').filter((p) => p.trim().length > 0)) {
    const [name, weight] = part.split('=').map((s) => s.trim());
    if (!(ACTIONS as readonly string[]).includes(name ?? '')) throw new InvalidArgumentError(`unknown action "${name}" (expected ${ACTIONS.join(', ')}).`);
    const value = Number(weight);
    if (weight === undefined || weight === '' || !Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`weight of ${name} must be a non-negative number.`);
    mix[name as Action] = value;
  }
  if (ACTIONS.every((a) => mix[a] === 0)) throw new InvalidArgumentError('the mix needs at least one action with a positive weight, e.g. place=60,cancel=40.');
  return mix;
}

/** Nearest-rank percentiles of `samples` (ms), rounded to µs. */
export function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  // Ranks in integer per-mille: 99.9 / 100 is not exact in binary and would round a rank up.
  const at = (perMille: number): number => (sorted.length === 0 ? 0 : Math.round(sorted[Math.max(0, Math.ceil((perMille * sorted.length) / 1000) - 1)]! * 1000) / 1000);
  return { count: sorted.length, p50: at(500), p90: at(900), p99: at(990), p999: at(999) };
}

/** An Ed25519 key on node:crypto: the same signatures as the SDK's ApiKey, many times faster. */
function nodeKey(): RequestSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
  return { publicKey: raw, sign: async (message) => ed25519Sign(null, Buffer.from(message), privateKey).toString('hex') };
}

interface Trader {
  client: Client;
  address: string;
  /** Resting orders as the orders channel last showed them. */
  live: Map<string, Order>;
}

const LIVE = new Set(['OPEN', 'PARTIALLY_FILLED']);

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const pool = pooledFetch(options.url, LOAD_CONNECTIONS);
  try {
    return await loadThrough(options, pool.fetch);
  } finally {
    pool.close();
  }
}

async function loadThrough(options: LoadOptions, fetch: typeof globalThis.fetch): Promise<LoadReport> {
  const admin = new Client({ baseUrl: options.url, fetch, ...(options.controlToken !== undefined && { controlToken: options.controlToken }) });
  const market = await admin.market(options.market);
  const prng = createPrng(options.seed);
  const prices = priceDrawer(market, prng);

  const traders: Trader[] = [];
  for (let i = 0; i < options.accounts; i++) {
    const key = nodeKey();
    const address = `0x${randomBytes(20).toString('hex')}`;
    await admin.sim.registerApiKey(address, key.publicKey);
    await admin.sim.deposit(address, options.depositUsd);
    traders.push({ client: new Client({ baseUrl: options.url, address, key, fetch }), address, live: new Map() });
  }

  // Writes waiting for the orders event that answers them, by what that event will name. The
  // event may arrive before the reply: its time is kept until the reply says the write was
  // acknowledged (event latency counts acknowledged writes only; a refused write may have no
  // event, and a later event of its order would answer something else).
  const awaitingEvent = new Map<string, { start: number; acknowledged: boolean; eventAt?: number }>();
  const eventLatency: number[] = [];
  const ackLatency: number[] = [];
  const refusals: Record<string, number> = {};
  const sentByAction: Record<Action, number> = { place: 0, cancel: 0, modify: 0, ioc: 0 };
  let sent = 0;
  let acknowledged = 0;
  let refused = 0;
  let failed = 0;
  let events = 0;

  const onOrder = (trader: Trader, order: Order): void => {
    events++;
    const now = performance.now();
    const keys = [`m:${order.orderId}`, ...(order.status === 'CANCELED' ? [`x:${order.orderId}`] : []), ...(order.clientId !== undefined ? [`c:${trader.address}:${order.clientId}`] : [])];
    for (const key of keys) {
      const waiting = awaitingEvent.get(key);
      if (waiting === undefined || waiting.eventAt !== undefined) continue;
      waiting.eventAt = now;
      if (!waiting.acknowledged) continue;
      awaitingEvent.delete(key);
      eventLatency.push(now - waiting.start);
    }
    if (LIVE.has(order.status)) trader.live.set(order.orderId, order);
    else trader.live.delete(order.orderId);
  };
  const feed = new Client({ baseUrl: options.url });
  for (const trader of traders) {
    await feed.ws.subscribe({ channel: 'orders', id: trader.address }, (frame: ChannelFrame<'orders'>) => {
      if (frame.type === 'channel_data') onOrder(trader, frame.contents as Order);
    });
  }

  const refuse = (error: unknown): void => {
    if (!(error instanceof ApiError)) {
      failed++;
      const key = `failed: ${(error as Error).message}`;
      refusals[key] = (refusals[key] ?? 0) + 1;
      return;
    }
    refused++;
    const key = error.rejectionReason ?? error.errorType ?? (error.status === 429 ? `429 ${error.reason ?? 'rate limited'}` : `${error.status} ${error.message}`);
    refusals[key] = (refusals[key] ?? 0) + 1;
  };

  const inFlight = new Set<Promise<void>>();
  const maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN;
  let clientIds = 0;
  const dispatch = (trader: Trader): void => {
    let action = pickAction(options.mix, prng);
    const live = [...trader.live.values()];
    if ((action === 'cancel' || action === 'modify') && live.length === 0) action = 'place';
    else if (action === 'place' && live.length >= maxOpen) action = 'cancel';
    sentByAction[action]++;
    sent++;
    const writes = options.transport === 'ws' ? trader.client.ws : trader.client;
    const start = performance.now();
    let request: Promise<unknown>;
    let eventKey: string;
    if (action === 'cancel' || action === 'modify') {
      const target = live[prng.int(live.length)]!;
      // Not offered again before its event says what became of it.
      trader.live.delete(target.orderId);
      eventKey = `${action === 'cancel' ? 'x' : 'm'}:${target.orderId}`;
      awaitingEvent.set(eventKey, { start, acknowledged: false });
      request =
        action === 'cancel'
          ? writes.cancelOrder({ market: market.marketId, orderId: target.orderId })
          : writes.modifyOrder(target, { price: prices.passive(target.side === 'BUY' ? 'BUY' : 'SELL'), quantity: target.originalSize });
    } else {
      const side = prng.next() < 0.5 ? 'BUY' : 'SELL';
      const clientId = `load-${options.seed}-${++clientIds}`;
      eventKey = `c:${trader.address}:${clientId}`;
      awaitingEvent.set(eventKey, { start, acknowledged: false });
      request = writes.placeOrder(
        action === 'place'
          ? { market: market.marketId, side, price: prices.passive(side), quantity: prices.quantity, clientId }
          : { market: market.marketId, side, price: prices.crossing(side), quantity: prices.quantity, clientId, timeInForce: 'IOC' },
      );
    }
    const settled = request.then(
      () => {
        acknowledged++;
        ackLatency.push(performance.now() - start);
        const waiting = awaitingEvent.get(eventKey);
        if (waiting === undefined) return;
        waiting.acknowledged = true;
        if (waiting.eventAt === undefined) return;
        awaitingEvent.delete(eventKey);
        eventLatency.push(waiting.eventAt - start);
      },
      (error: unknown) => {
        ackLatency.push(performance.now() - start);
        awaitingEvent.delete(eventKey);
        refuse(error);
      },
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };

  const begin = performance.now();
  const windowMs = options.durationS * 1000;
  let turn = 0;
  let lastProgress = begin;
  const progress = (): Progress => ({ elapsedS: (performance.now() - begin) / 1000, sent, acknowledged, refused, events, inFlight: inFlight.size });
  for (;;) {
    const elapsed = performance.now() - begin;
    if (elapsed >= windowMs) break;
    const due = Math.floor((options.rate * elapsed) / 1000);
    while (sent < due) dispatch(traders[turn++ % traders.length]!);
    if (options.progress !== undefined && performance.now() - lastProgress >= 1000) {
      lastProgress = performance.now();
      options.progress(progress());
    }
    // A short sleep keeps the schedule within a few ms without spinning a core.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const sendingS = (performance.now() - begin) / 1000;

  const drainUntil = performance.now() + options.drainS * 1000;
  while ((inFlight.size > 0 || awaitingEvent.size > 0) && performance.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 10));
  options.progress?.(progress());

  for (const trader of traders) await trader.client.cancelAllOrders({ market: market.marketId }).catch(() => undefined);
  await Promise.all([feed.close(), ...traders.map((t) => t.client.close())]);

  return {
    url: options.url,
    market: market.marketDisplayName,
    transport: options.transport,
    accounts: options.accounts,
    durationS: round3(sendingS),
    sent,
    acknowledged,
    refused,
    failed,
    sentPerS: round3(sent / sendingS),
    acknowledgedPerS: round3(acknowledged / sendingS),
    sentByAction,
    ackLatencyMs: percentiles(ackLatency),
    eventLatencyMs: percentiles(eventLatency),
    refusals,
  };
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

function pickAction(mix: Mix, prng: Prng): Action {
  const total = ACTIONS.reduce((sum, a) => sum + mix[a], 0);
  let draw = prng.next() * total;
  for (const action of ACTIONS) {
    draw -= mix[action];
    if (draw < 0) return action;
  }
  return 'place';
}

/**
 * Prices drawn around the oracle in whole ticks of the market, written back as the venue's
 * decimals, and one order size worth about 20 USD (above the 5 USD minimum notional).
 */
function priceDrawer(market: Market, prng: Prng): { passive(side: 'BUY' | 'SELL'): string; crossing(side: 'BUY' | 'SELL'): string; quantity: string } {
  const reference = market.markPrice !== undefined && market.markPrice !== '0' ? market.markPrice : market.oraclePrice;
  if (reference === undefined || new Big(reference).lte(0)) throw new Error(`${market.marketDisplayName} has no oracle price to quote around`);
  const oracleTicks = Number(new Big(reference).div(market.tickSize).round(0).toFixed(0));
  const at = (fraction: number): string => fromUnits(Math.max(1, Math.round(oracleTicks * (1 + fraction))), market.tickSize);
  const steps = new Big(20).div(reference).div(market.stepSize).round(0, Big.roundUp);
  return {
    passive: (side) => at((side === 'BUY' ? -1 : 1) * (0.001 + prng.next() * 0.004)),
    crossing: (side) => at(side === 'BUY' ? 0.01 : -0.01),
    quantity: fromUnits(steps.toFixed(0), market.stepSize),
  };
}

/** The human report, one fact a line. */
export function formatReport(report: LoadReport): string {
  const latency = (p: Percentiles): string => `p50 ${p.p50} ms, p90 ${p.p90} ms, p99 ${p.p99} ms, p99.9 ${p.p999} ms (${p.count} samples)`;
  const lines = [
    `${report.url} ${report.market} over ${report.transport.toUpperCase()}, ${report.accounts} accounts, ${report.durationS} s`,
    `sent          ${report.sent} (${report.sentPerS}/s): ${ACTIONS.map((a) => `${a} ${report.sentByAction[a]}`).join(', ')}`,
    `acknowledged  ${report.acknowledged} (${report.acknowledgedPerS}/s); refused ${report.refused}; failed ${report.failed}`,
    `send → ACK    ${latency(report.ackLatencyMs)}`,
    `send → event  ${latency(report.eventLatencyMs)}`,
  ];
  const reasons = Object.entries(report.refusals).sort((a, b) => b[1] - a[1]);
  lines.push(reasons.length === 0 ? 'refusals      none' : `refusals      ${reasons.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
  return lines.join('\n');
}

function positive(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number.');
  return n;
}

function accountCount(text: string): number {
  const n = Number(text);
  // One socket carries every account's orders subscription: at most 100 per connection.
  if (!/^\d+$/.test(text) || n < 1 || n > 100) throw new InvalidArgumentError('expected an integer from 1 to 100.');
  return n;
}

interface LoadFlags {
  url: string;
  rate: number;
  duration: number;
  mix: Mix;
  accounts: number;
  market: string;
  transport: 'rest' | 'ws';
  seed: number;
  deposit: string;
  drain: number;
  maxOpen: number;
  controlToken?: string;
  json?: boolean;
}

/** Live progress: one rewritten line on a TTY, a plain line every 5 s otherwise (stderr). */
function progressPrinter(stream: NodeJS.WriteStream): (p: Progress) => void {
  let lastPlain = 0;
  return (p) => {
    const line = `${p.elapsedS.toFixed(1)} s  sent ${p.sent}  acked ${p.acknowledged}  refused ${p.refused}  events ${p.events}  in flight ${p.inFlight}`;
    if (stream.isTTY) {
      stream.write(`\r${line}\x1b[K`);
    } else if (p.elapsedS - lastPlain >= 5) {
      lastPlain = p.elapsedS;
      stream.write(`${line}\n`);
    }
  };
}

/** The `load` subcommand for the perpsim CLI. */
export function loadCommand(): Command {
  return new Command('load')
    .description('send signed order flow to a running perpsim and report throughput, latency and refusals')
    // Usage errors surface as CommanderError, which the CLI answers with exit code 2.
    .exitOverride()
    .option('--url <url>', 'base URL of the perpsim to load', 'http://127.0.0.1:8080')
    .option('--rate <n>', 'order writes per second', positive, 100)
    .option('--duration <s>', 'seconds of sending', positive, 10)
    .option('--mix <weights>', `actions and weights, e.g. ${Object.entries(DEFAULT_MIX).map(([a, w]) => `${a}=${w}`).join(',')}`, parseMix, DEFAULT_MIX)
    .option('--accounts <n>', 'accounts the flow is spread over (each funded and keyed through /sim)', accountCount, 4)
    .option('--market <name>', 'market to trade', 'ETH-USD')
    .addOption(new Option('--transport <kind>', 'REST requests or WebSocket RPC').choices(['rest', 'ws']).default('rest'))
    .option('--seed <n>', 'seed of the order stream', (text) => Math.trunc(positive(text)), 1)
    .option('--deposit <usd>', 'USD deposited into each account', '10000000')
    .option('--max-open <n>', 'resting orders an account keeps at most (past it, a place becomes a cancel)', (text) => Math.trunc(positive(text)), DEFAULT_MAX_OPEN)
    .option('--drain <s>', 'seconds to wait for outstanding replies and events', positive, 5)
    .option('--control-token <token>', 'the server\'s --control-token, for /sim')
    .option('--json', 'print the report as JSON')
    .action(async (flags: LoadFlags) => {
      const report = await runLoad({
        url: flags.url,
        rate: flags.rate,
        durationS: flags.duration,
        mix: flags.mix,
        accounts: flags.accounts,
        market: flags.market,
        transport: flags.transport,
        seed: flags.seed,
        depositUsd: flags.deposit,
        drainS: flags.drain,
        maxOpen: flags.maxOpen,
        ...(flags.controlToken !== undefined && { controlToken: flags.controlToken }),
        progress: progressPrinter(process.stderr),
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      process.stdout.write(flags.json === true ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
    });
}
