/**
 * The WebSocket at /v1/ws (same port as REST), on the `ws` package.
 *
 * Frames (interface.md "Events", supplement §9): `subscribe`/`unsubscribe` answered by
 * `subscribed` (its contents the channel's snapshot) / `unsubscribed`; updates as
 * `channel_data` with channel, id and contents; `accountIndex` on every account-channel frame;
 * errors as an HTTP-like status plus {type, message}. RPC `post`/`get` reuse the REST operation
 * declarations — the same compiled schema, auth and handler — with the envelope's apiKey /
 * timestamp / signature standing in for the header triple.
 *
 * Fan-out: one exchange listener maps each command's events to the subscribers of their
 * channels. Periodic channels (l2Orderbook every 200 ms, account re-snapshots every 5 s) run on
 * the SIMULATED clock: a wall-clock timer (`periodicTickMs`, default 50 ms) sends a
 * subscription its next frame once the exchange clock has moved at least the channel's period
 * since its last one (or its subscribe). A virtual clock that does not move sends nothing; a
 * jump of several periods sends one frame, not a burst. One command's frames reach a connection
 * in event order across its subscriptions (channels.ts `Update.at`). A connection whose send
 * buffer grows past `maxBufferedBytes` gets one `degraded` frame and then loses updates until
 * it drains (the subscription is kept); the engine and other clients never wait for it.
 * Connections close with 1001 on shutdown.
 *
 * Writes: the frames a connection gets in one event-loop turn (the RPC replies whose
 * verifications came back together, one command's channel_data frames) leave in one socket
 * write: the socket is corked at the turn's first frame and uncorked once the turn's
 * callbacks and microtasks are done (`process.nextTick`). The bytes are the same frames in the
 * same order; only the number of writes changes (one write per frame cost the event loop more
 * than building the frame).
 */
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EngineEvent } from '../../engine/index.ts';
import { LIMITS } from '../../engine/spec.ts';
import { attachCandles, isTimeframe } from '../candles.ts';
import { historyOf } from '../history.ts';
import { resolveMarket } from '../markets.ts';
import type { Reply } from '../errors.ts';
import type { GatewayState, Operation } from '../operation.ts';
import { OPERATIONS } from '../operations/index.ts';
import { parseAddress } from '../operations/common.ts';
import {
  addSubscription,
  beginPost,
  closeConnection,
  endPost,
  openConnection,
  receiveFrame,
  removeSubscription,
  type WsConnectionState,
  type WsIpState,
} from '../rate-limit/index.ts';
import { CHANNELS, isChannelName, type Subscription, type Update } from './channels.ts';

const WS_PATH = '/v1/ws';

/** A serialized channel_data frame and the global sequence of the event it came from. */
interface Frame {
  at: number;
  text: string;
}

/** Channels whose updates depend only on the subscription's identity, never on its history. */
const SHARED_FRAMES: ReadonlySet<string> = new Set(['bbo', 'l2OrderbookUpdates', 'trades', 'markets', 'oraclePrices', 'predictedFunding']);

interface Connection {
  ws: WebSocket;
  ip: string;
  limits: WsConnectionState;
  subs: Map<string, Subscription>;
  degraded: boolean;
  /** The socket is corked until the end of this turn (see the module comment). */
  corked: boolean;
}

/** The socket under a `ws` WebSocket (its `_socket`, a net.Socket once open). */
function socketOf(ws: WebSocket): { cork(): void; uncork(): void } | undefined {
  return (ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket ?? undefined;
}

/** Ends the turn's cork: the frames buffered since its first one leave in one write. */
function flush(c: Connection): void {
  if (!c.corked) return;
  c.corked = false;
  socketOf(c.ws)?.uncork();
}

export interface WsOptions {
  maxBufferedBytes?: number;
  /** Wall-clock period of the timer that drives periodic channels (ms). */
  periodicTickMs?: number;
  hooks?: WsHooks;
}

/** One RPC call as answered: what a request log records. */
export interface WsRpcRecord {
  /** The envelope's type: post or get. */
  type: string;
  method: string;
  /** The payload as the client sent it (parsed again from the frame when called: validation coerces the one the call used). */
  payload: () => unknown;
  status: number;
  ip: string;
  apiKey: string | undefined;
}

/**
 * Where a simulator steps into the socket (fault injection, the request log); the gateway
 * itself never sets them. Connections are passed as opaque objects for per-connection state.
 */
export interface WsHooks {
  /** After validation, before an RPC call runs: a reply to answer instead (may also delay). */
  beforeRpc?(operation: Operation, payload: Record<string, unknown>): Reply | undefined | Promise<Reply | undefined>;
  /** Before any frame goes out: send it, or close the connection with 1001, or drop it. */
  beforeSend?(connection: object): 'send' | 'close' | 'drop';
  /** Whether this l2OrderbookUpdates delta (named by its event's global sequence) is withheld from this subscription. */
  withholdDelta?(connection: object, subscription: Subscription, globalSeq: number): boolean;
  /** Every RPC call once answered. */
  afterRpc?(record: WsRpcRecord): void;
}

/** The method a post/get frame names ('' when none), echoed with its id in every answer. */
function rpcMethodOf(msg: Record<string, unknown>): string {
  const request = msg.request;
  return request !== null && typeof request === 'object' ? String((request as Record<string, unknown>).type ?? '') : '';
}

/** RPC methods: REST operation names, plus the venue's aliases. */
const METHOD_ALIASES: Readonly<Record<string, string>> = { cancel: 'cancelOrder', l2orderbook: 'l2OrderBook' };
const NOT_OVER_WS = new Set(['createApiKey']);

function errorType(status: number): string {
  return status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'NotFound' : status === 429 ? 'RateLimited' : status === 501 ? 'NotImplemented' : status >= 500 ? 'Internal' : 'InvalidRequest';
}

/** A refusal as an RPC reply: the HTTP-like status and {type, message, …the body's other fields}. */
function errorFrame(result: Reply): { status: number; error: Record<string, unknown> } {
  const { error, errorType: type, ...rest } = result.body as Record<string, unknown>;
  return { status: result.status, error: { type: type ?? errorType(result.status), message: error, ...rest } };
}

export function attachWebSocket(app: FastifyInstance, state: GatewayState, options: WsOptions = {}): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: state.config.rateLimit.ws.maxFrameBytes });
  const connections = new Set<Connection>();
  const ips = new Map<string, WsIpState>();
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  // The REST routes' validator (gateway/validator.ts): one rule set for both.
  const ajv = app.schemaValidator;
  const serializer = app.replySerializer;
  const validators = new Map<Operation, ValidateFunction>();
  const byName = new Map(OPERATIONS.map((op) => [op.name, op] as const));

  const hooks = options.hooks ?? {};
  const sendText = (c: Connection, text: string): void => {
    if (c.ws.readyState !== c.ws.OPEN) return;
    const fate = hooks.beforeSend?.(c) ?? 'send';
    if (fate !== 'send') flush(c);
    if (fate === 'close') return c.ws.close(1001, 'fault injected');
    if (fate === 'drop') return c.ws.terminate();
    if (!c.corked) {
      const socket = socketOf(c.ws);
      if (socket !== undefined) {
        socket.cork();
        c.corked = true;
        process.nextTick(flush, c);
      }
    }
    if (c.ws.bufferedAmount > maxBuffered) {
      if (!c.degraded) {
        c.degraded = true;
        c.ws.send(JSON.stringify({ type: 'degraded', reason: 'slow consumer: updates dropped until the connection drains', retryAfterMs: 1000 }));
      }
      return;
    }
    c.degraded = false;
    c.ws.send(text);
  };
  const send = (c: Connection, frame: unknown): void => sendText(c, JSON.stringify(frame));

  const frameBase = (sub: Subscription): Record<string, unknown> => {
    const base: Record<string, unknown> = { channel: sub.channel };
    if (sub.id !== undefined) base.id = sub.id;
    if (sub.accountIndex !== undefined) base.accountIndex = sub.accountIndex;
    if (sub.sigFigs !== undefined) base.sigFigs = sub.sigFigs;
    if (sub.roundStep !== undefined) base.roundStep = sub.roundStep;
    if (CHANNELS[sub.channel].scope === 'account' && sub.market !== undefined) base.market = sub.market.spec.displayName;
    return base;
  };

  // The read models channels read (history, candles) must see a command's events before the
  // fan-out does: their listeners go first (both are idempotent).
  historyOf(state.exchange);
  attachCandles(state.exchange);
  // A connection gets one command's frames in event order across its subscriptions (stable:
  // frames of the same event keep the subscription order).
  const framesOf = (sub: Subscription, events: readonly EngineEvent[]): Frame[] =>
    CHANNELS[sub.channel].updates(state, sub, events).map((u: Update) => ({ at: u.at, text: JSON.stringify({ type: 'channel_data', ...frameBase(sub), contents: u.contents }) }));

  const listener = (events: readonly EngineEvent[]): void => {
    // Market-wide channels keep no per-subscription state: their frames are built and
    // serialized once per identity and shared by every connection that holds it.
    let shared: Map<string, Frame[]> | undefined;
    for (const c of connections) {
      // RPC-only connections (no subscription) cost the fan-out nothing.
      if (c.subs.size === 0) continue;
      shared ??= new Map();
      const out: Frame[] = [];
      for (const sub of c.subs.values()) {
        let frames: Frame[];
        if (SHARED_FRAMES.has(sub.channel)) {
          frames = shared.get(sub.key) ?? framesOf(sub, events);
          shared.set(sub.key, frames);
        } else {
          frames = framesOf(sub, events);
        }
        if (sub.channel === 'l2OrderbookUpdates' && hooks.withholdDelta !== undefined) {
          for (const f of frames) if (!hooks.withholdDelta(c, sub, f.at)) out.push(f);
        } else {
          for (const f of frames) out.push(f);
        }
      }
      if (out.length > 1) out.sort((a, b) => a.at - b.at);
      for (const f of out) sendText(c, f.text);
    }
  };
  state.exchange.listeners.add(listener);

  const periodic = setInterval(() => {
    const now = state.exchange.clock();
    for (const c of connections) {
      for (const sub of c.subs.values()) {
        const every = CHANNELS[sub.channel].periodic;
        if (every === undefined || now - sub.lastPeriodicAt < every.everyUs) continue;
        sub.lastPeriodicAt = now;
        const contents = every.contents(state, sub);
        if (contents !== undefined) send(c, { type: 'channel_data', ...frameBase(sub), contents });
      }
    }
  }, options.periodicTickMs ?? 50);
  periodic.unref();

  const fail = (c: Connection, status: number, message: string, extra: Record<string, unknown> = {}): void => {
    send(c, { type: 'error', status, error: { type: errorType(status), message }, ...extra });
  };

  const parseSubscription = (msg: Record<string, unknown>): Subscription | string => {
    if (!isChannelName(msg.channel)) return `unknown channel: ${String(msg.channel)}`;
    const channel = CHANNELS[msg.channel];
    const params = channel.params ?? {};
    const sub: Subscription = {
      channel: channel.name,
      key: '',
      id: undefined,
      market: undefined,
      address: undefined,
      accountIndex: undefined,
      nLevels: LIMITS.l2LevelsDefault,
      sigFigs: undefined,
      roundStep: undefined,
      nFills: LIMITS.userFillsSnapshotDefault,
      timeframe: undefined,
      lastPeriodicAt: state.exchange.clock(),
      seen: new Map(),
    };
    if (channel.scope === 'market') {
      if (msg.accountIndex !== undefined) return 'accountIndex is not a parameter of market channels';
      let selector = msg.id;
      if (params.timeframe === true) {
        const text = typeof msg.id === 'string' ? msg.id : '';
        const slash = text.lastIndexOf('/');
        const timeframe = text.slice(slash + 1);
        if (slash < 0 || !isTimeframe(timeframe)) return `${channel.name} id must be <market>/<timeframe>, timeframe one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 3d, 1w`;
        sub.timeframe = timeframe;
        selector = text.slice(0, slash);
      }
      const ms = resolveMarket(state.exchange, selector);
      if (ms === undefined) return `unknown market: ${String(selector)}`;
      sub.market = ms;
      sub.id = sub.timeframe === undefined ? ms.spec.displayName : `${ms.spec.displayName}/${sub.timeframe}`;
    } else if (channel.scope === 'account') {
      const address = parseAddress(msg.id);
      if (address === null) return 'id must be a 20-byte hex address';
      const index = msg.accountIndex ?? 0;
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) > LIMITS.subaccountMax) return 'accountIndex must be 0-9';
      sub.address = address;
      sub.id = address;
      sub.accountIndex = index as number;
      if (msg.market !== undefined) {
        if (params.market !== true) return `market is not a parameter of ${channel.name}`;
        const ms = resolveMarket(state.exchange, msg.market);
        if (ms === undefined) return `unknown market: ${String(msg.market)}`;
        sub.market = ms;
      }
    } else if (msg.id !== undefined && params.ignoresId !== true) {
      return `${channel.name} takes no id`;
    }
    if (msg.nFills !== undefined && params.nFills !== true) return `nFills is not a parameter of ${channel.name}`;
    if (params.nFills === true) {
      const n = msg.nFills ?? LIMITS.userFillsSnapshotDefault;
      if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > LIMITS.userFillsSnapshotMax) return 'nFills must be 1-500';
      sub.nFills = n as number;
    }
    if (params.book === true) {
      const n = msg.nLevels ?? LIMITS.l2LevelsDefault;
      if (!Number.isInteger(n) || (n as number) < LIMITS.l2LevelsMin || (n as number) > LIMITS.l2LevelsMax) return 'nLevels must be 1-100';
      sub.nLevels = n as number;
      if (msg.sigFigs !== undefined) {
        if (!Number.isInteger(msg.sigFigs) || (msg.sigFigs as number) < LIMITS.sigFigsMin || (msg.sigFigs as number) > LIMITS.sigFigsMax) return 'sigFigs must be 2-5';
        sub.sigFigs = msg.sigFigs as number;
      }
      if (msg.roundStep !== undefined) {
        if (![1, 2, 5].includes(msg.roundStep as number)) return 'roundStep must be 1, 2 or 5';
        if (msg.roundStep !== 1 && sub.sigFigs !== 5) return 'roundStep 2 or 5 needs sigFigs 5';
        sub.roundStep = msg.roundStep as number;
      }
    } else if (msg.nLevels !== undefined || msg.sigFigs !== undefined || msg.roundStep !== undefined) {
      return `book parameters are not parameters of ${channel.name}`;
    }
    const book = params.book === true ? [sub.nLevels, sub.sigFigs ?? '', sub.roundStep ?? ''] : [];
    sub.key = [sub.channel, sub.id ?? '', sub.accountIndex ?? '', sub.market?.spec.id ?? '', ...book].join('|');
    return sub;
  };

  const subscribe = (c: Connection, msg: Record<string, unknown>): void => {
    const sub = parseSubscription(msg);
    if (typeof sub === 'string') return fail(c, 400, sub);
    if (c.subs.has(sub.key)) return fail(c, 400, 'already subscribed');
    const ip = ips.get(c.ip)!;
    const added = addSubscription(ip, c.limits, state.config.rateLimit.ws);
    if (!added.accepted) return fail(c, 429, 'too many subscriptions');
    ips.set(c.ip, added.ip);
    c.limits = added.connection;
    c.subs.set(sub.key, sub);
    const channel = CHANNELS[sub.channel];
    channel.start?.(state, sub);
    const frame: Record<string, unknown> = { type: 'subscribed', ...frameBase(sub) };
    if (msg.snapshot !== false && channel.snapshot !== undefined) frame.contents = channel.snapshot(state, sub);
    else if (channel.ack !== undefined) frame.contents = channel.ack;
    send(c, frame);
  };

  const unsubscribe = (c: Connection, msg: Record<string, unknown>): void => {
    const sub = parseSubscription(msg);
    if (typeof sub === 'string') return fail(c, 400, sub);
    if (!c.subs.delete(sub.key)) return fail(c, 400, 'not subscribed (an unsubscribe repeats the subscription\'s parameters)');
    const removed = removeSubscription(ips.get(c.ip)!, c.limits);
    ips.set(c.ip, removed.ip);
    c.limits = removed.connection;
    send(c, { type: 'unsubscribed', ...frameBase(sub) });
  };

  const rpc = async (c: Connection, msg: Record<string, unknown>, text: string): Promise<void> => {
    const request = (msg.request ?? {}) as Record<string, unknown>;
    if (hooks.afterRpc === undefined) {
      await answerRpc(c, msg, request);
      return;
    }
    const status = await answerRpc(c, msg, request);
    // Validation coerced and stripped the payload in place: the frame still holds it as sent.
    const payload = (): unknown => ((JSON.parse(text) as { request?: { payload?: unknown } }).request ?? {}).payload;
    hooks.afterRpc({ type: String(msg.type), method: String(request.type ?? ''), payload, status, ip: c.ip, apiKey: request.apiKey === undefined ? undefined : String(request.apiKey) });
  };

  /** Answers one post/get call; returns the status it answered with. */
  const answerRpc = async (c: Connection, msg: Record<string, unknown>, request: Record<string, unknown>): Promise<number> => {
    const id = msg.id;
    const method = String(request.type ?? '');
    const reply = (frame: Record<string, unknown> & { status: number }): number => {
      send(c, { method, id, ...frame });
      return frame.status;
    };
    // Every answer echoes id and method as sent, refusals included, so the client can match it.
    if (typeof id !== 'number') return reply({ type: 'error', status: 400, error: { type: 'InvalidRequest', message: 'post and get messages need a numeric id' } });
    if (NOT_OVER_WS.has(method)) return reply({ status: 501, error: { type: 'NotImplemented', message: `${method} is REST only` } });
    const op = byName.get(METHOD_ALIASES[method] ?? method);
    if (op === undefined || (msg.type === 'get' && op.method !== 'GET') || (msg.type === 'post' && op.method !== 'POST')) {
      return reply({ status: 400, error: { type: 'InvalidRequest', message: `unknown method: ${method}` } });
    }
    const payload = (request.payload ?? {}) as Record<string, unknown>;
    if (op.name === 'placeOrder' || op.name === 'batchPlaceOrders') {
      // Not yet validated: `orders` may be anything (its schema answers 400 below).
      const elements = op.name === 'placeOrder' ? [payload] : Array.isArray(payload.orders) ? (payload.orders as unknown[]) : [];
      const tpsl = payload.grouping !== undefined || elements.some((e) => typeof e === 'object' && e !== null && ('tpslType' in e || 'tpsl_type' in e || 'stopPrice' in e));
      if (tpsl) return reply({ status: 501, error: { type: 'NotImplemented', message: 'TPSL orders are REST only' } });
    }
    const schema = op.schema?.body ?? op.schema?.querystring;
    if (schema !== undefined) {
      const validate = validators.get(op) ?? ajv.compile(schema);
      validators.set(op, validate);
      if (!validate(payload)) return reply({ status: 400, error: { type: 'InvalidRequest', message: ajv.errorsText(validate.errors) } });
    }
    const inflight = beginPost(c.limits, state.config.rateLimit.ws);
    if (inflight === undefined) return reply({ status: 429, error: { type: 'RateLimited', message: 'too many in-flight posts on this connection' } });
    c.limits = inflight;
    try {
      let injected = hooks.beforeRpc?.(op, payload);
      if (injected instanceof Promise) injected = await injected;
      if (injected !== undefined) return reply(errorFrame(injected));
      const batch = op.name.startsWith('batch');
      const headers: Record<string, string> = {};
      if (request.apiKey !== undefined) headers['x-api-key'] = String(request.apiKey);
      if (request.timestamp !== undefined) headers['x-timestamp'] = String(request.timestamp);
      // Batches carry no outer signature over the socket; the REST rule only wants one present.
      const signature = batch ? 'ws-batch' : request.signature;
      if (signature !== undefined) headers['x-signature'] = String(signature);
      const params: Record<string, string> = {};
      if (payload.market !== undefined) params.market = String(payload.market);
      if (payload.orderId !== undefined && op.method === 'GET') params.orderId = String(payload.orderId);
      const result = await op.handle(state, {
        body: op.method === 'POST' ? payload : undefined,
        query: op.method === 'GET' ? payload : { address: payload.address },
        params,
        headers,
        ip: c.ip,
        path: `/v1/${op.name}`,
        // Only Scheme 2 reads it: written when read.
        get rawBody() {
          return op.method === 'POST' ? JSON.stringify(payload) : undefined;
        },
      });
      // Like a REST reply, the answer waits until the change is durable.
      if (state.committed !== undefined) {
        try {
          await state.committed();
        } catch {
          return reply({ status: 503, error: { type: 'Unavailable', message: 'the change could not be made durable' } });
        }
      }
      const body = result.body as Record<string, unknown>;
      if (result.status >= 400) return reply(errorFrame(result));
      // setLeverage answers at once over the socket; its outcome follows on the account stream.
      if (op.name === 'setLeverage') return reply({ status: 202, result: { ...body, status: 'ACK' } });
      // A declared reply schema: the REST route's compiled serializer writes the result.
      const schema = op.response?.[String(result.status)];
      if (schema === undefined) return reply({ status: result.status, result: body });
      sendText(c, `{"method":${JSON.stringify(method)},"id":${JSON.stringify(id)},"status":${result.status},"result":${serializer.compile(schema)(body)}}`);
      return result.status;
    } finally {
      c.limits = endPost(c.limits);
    }
  };

  const onMessage = (c: Connection, data: Buffer): void => {
    let msg: Record<string, unknown>;
    const text = data.toString('utf8');
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw new Error('not an object');
    } catch {
      const counted = receiveFrame(ips.get(c.ip), 'malformed', state.nowMs(), state.config.rateLimit.ws);
      ips.set(c.ip, counted.ip);
      return fail(c, 400, 'malformed frame: expected a JSON object');
    }
    const type = String(msg.type);
    const kind = type === 'subscribe' || type === 'unsubscribe' || type === 'post' || type === 'get' ? type : 'malformed';
    const counted = receiveFrame(ips.get(c.ip), kind, state.nowMs(), state.config.rateLimit.ws);
    ips.set(c.ip, counted.ip);
    if (!counted.allowed) return fail(c, 429, 'too many messages', { retryAfterMs: counted.retryAfterMs });
    switch (kind) {
      case 'subscribe':
        return subscribe(c, msg);
      case 'unsubscribe':
        return unsubscribe(c, msg);
      case 'post':
      case 'get':
        void rpc(c, msg, text).catch(() => send(c, { method: rpcMethodOf(msg), id: msg.id, status: 500, error: { type: 'Internal', message: 'internal error' } }));
        return;
      default:
        return fail(c, 400, `unknown message type: ${type}`);
    }
  };

  app.server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) return socket.destroy();
    const ip = req.socket.remoteAddress ?? '';
    const opened = openConnection(ips.get(ip), state.nowMs(), state.config.rateLimit.ws);
    ips.set(ip, opened.ip);
    if (!opened.accepted) {
      socket.write('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n\r\n');
      return socket.destroy();
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const c: Connection = { ws, ip, limits: opened.connection, subs: new Map(), degraded: false, corked: false };
      connections.add(c);
      const lifetime = setTimeout(() => ws.close(1000, 'connection lifetime reached'), state.config.rateLimit.ws.connectionLifetimeMs);
      lifetime.unref();
      ws.on('message', (data: Buffer) => onMessage(c, data));
      ws.on('close', () => {
        clearTimeout(lifetime);
        connections.delete(c);
        ips.set(ip, closeConnection(ips.get(ip)!, c.limits));
      });
      ws.on('error', () => ws.terminate());
    });
  });

  return {
    close(): void {
      state.exchange.listeners.delete(listener);
      clearInterval(periodic);
      for (const c of connections) {
        flush(c);
        c.ws.close(1001, 'server shutting down');
      }
      wss.close();
    },
  };
}
