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
 * channels, offering them only to the connections they can concern (an index by market and by
 * address: a market channel sends only its market's events, an account channel its account's).
 * Periodic channels (l2Orderbook every 200 ms, account re-snapshots every 5 s) run on the
 * SIMULATED clock: a wall-clock timer (`periodicTickMs`, default 50 ms) sends a
 * subscription its next frame once the exchange clock has moved at least the channel's period
 * since its last one (or its subscribe). A virtual clock that does not move sends nothing; a
 * jump of several periods sends one frame, not a burst. One command's frames reach a connection
 * in event order across its subscriptions (channels.ts `Update.at`). Channel frames are
 * serialized and UTF-8 encoded once per event and identity and the same bytes go to every
 * connection that holds it.
 *
 * Slow consumers (the send budget, `SendBudget`): bytes the socket has not yet handed to the
 * kernel (`ws.bufferedAmount`) and frames whose write has not completed are counted per
 * connection. Past either soft limit the connection is degraded: it gets one `degraded` frame
 * per subscription (frame base + reason + retryAfterMs; subscriptions kept) and no channel data
 * (periodic frames included) until it has drained to a quarter of the budget; then each
 * subscription gets a `subscribed` frame with a fresh snapshot (`resync: true`), so the book's
 * sequence ids continue from that snapshot. A connection still degraded after `degradedCloseMs`,
 * or whose queue passes `hardMaxBytes` (RPC replies and control frames are never dropped), is
 * closed with 1008 and its socket destroyed: what a slow consumer holds is bounded and returns
 * when it goes. The engine and other clients never wait for it. Connections close with 1001 on
 * shutdown.
 *
 * Writes: frames are WebSocket frames built here (`textFrame`: unmasked, unfragmented, no
 * extension: the server offers no permessage-deflate) and written to the connection's socket;
 * a server frame is the same bytes for every receiver, so a channel frame is serialized and
 * framed once per event and identity, and connections holding the same market-wide
 * subscriptions share one command's frames as one buffer (`plan`). Channel data waits up to
 * `coalesceMs` (20 ms) and leaves with the rest of that window's data in one write per
 * connection; any other frame (a reply, a snapshot, an error) writes the pending data first and
 * then itself at once, so a connection sees everything in the order it was produced. Replies
 * of one event-loop iteration leave together: gathered from the first (the connection's `turn`)
 * and written as one buffer by `setImmediate` (or before a close). The bytes are the same
 * frames in the same order; only the number of writes changes (a write per connection per
 * command was most of the fan-out's cost: bench/fanout.bench.ts, docs/decisions.md "Slow
 * consumers").
 */
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EngineEvent } from '../../engine/index.ts';
import { LIMITS } from '../../engine/spec.ts';
import { isTimeframe } from '../read-models/candles.ts';
import { resolveMarket } from '../read-models/markets.ts';
import type { Reply } from '../contract/errors.ts';
import type { GatewayState, Operation, OperationRequest } from '../contract/operation.ts';
import { OPERATIONS } from '../operations/index.ts';
import { parseAddress } from '../operations/support/common.ts';
import {
  addSubscription,
  beginPost,
  closeConnection,
  COUNTED_FRAME_KINDS,
  endPost,
  FRESH_WS_IP,
  ipScope,
  newConnectionState,
  openConnection,
  PRUNE_EVERY_MS,
  receiveFrame,
  removeSubscription,
  wsIpIsFresh,
  type WsConnectionState,
  type WsFrameKind,
  type WsIpState,
  type WsMessageResult,
} from '../rate-limit/index.ts';
import { CHANNELS, isChannelName, type Subscription, type Update } from './channels.ts';

const WS_PATH = '/v1/ws';

/** A channel_data frame, as WebSocket frame bytes, and the global sequence of the event it came from. */
interface Frame {
  at: number;
  data: Buffer;
}

/** One command's frames for a set of market-wide subscriptions, in event order, and all of them as one buffer. */
interface Plan {
  entries: { key: string; frame: Frame }[];
  bytes: Buffer;
}

const NO_FRAMES: Frame[] = [];

/** Channels whose updates depend only on the subscription's identity, never on its history. */
const SHARED_FRAMES: ReadonlySet<string> = new Set(['bbo', 'l2Orderbook', 'l2OrderbookUpdates', 'trades', 'markets', 'oraclePrices', 'predictedFunding']);

/** A final, unmasked WebSocket text frame (RFC 6455 §5.2) carrying `payload`. */
export function textFrame(payload: string): Buffer {
  const n = Buffer.byteLength(payload);
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + n);
  out[0] = 0x81;
  if (n < 126) {
    out[1] = n;
  } else if (n < 65_536) {
    out[1] = 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 127;
    out.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    out.writeUInt32BE(n >>> 0, 6);
  }
  out.write(payload, head, 'utf8');
  return out;
}

interface Connection {
  ws: WebSocket;
  ip: string;
  /** Whether the per-IP limits apply (not with rate limits off or an allowlisted IP); its IP's counters are in `ips` if so. */
  perIp: boolean;
  limits: WsConnectionState;
  subs: Map<string, Subscription>;
  /** Subscriptions of global channels (the connection is in the fan-out's `globalSubscribers` while any). */
  globalSubs: number;
  /** Market-channel subscriptions by market id, account-channel ones by address (the fan-out's index). */
  watched: Map<number | string, number>;
  /** The last command the fan-out offered this connection (`commandSeq`). */
  offered: number;
  /** The subscription keys in order when every subscription is market-wide (shares its frames); else undefined. */
  plan: string | undefined;
  /** Frames handed to the socket whose write has not completed (their callbacks pending). */
  queuedFrames: number;
  /** The write callback of every frame: counts it done. */
  written: () => void;
  /** Frame counts of the multi-frame writes not yet completed, oldest first, and their callback. */
  writes: number[];
  writtenMany: () => void;
  /** Wall-clock ms since the connection is over its send budget (no channel data); undefined: it is not. */
  degradedSince: number | undefined;
  /**
   * Frames of this event-loop iteration not yet handed to the socket (see the module comment):
   * they leave in one write at `setImmediate`; `turnBytes` their bytes, `turnFrames` their frames.
   * Empty: the next frame starts a turn.
   */
  turn: Buffer[];
  turnBytes: number;
  turnFrames: number;
  /** Channel data waiting for the coalescing flush: buffers, their bytes and frames. */
  pending: Buffer[];
  pendingBytes: number;
  pendingFrames: number;
}

/** A concatenation of pending parts made during one flush, shared by the connections whose parts are the same. */
interface Joined {
  parts: Buffer[];
  bytes: Buffer;
}

/** The concatenation of `parts` (`length` bytes): one made earlier in this flush of the very same parts, else a new one. */
function joinShared(joined: Map<Buffer, Joined[]>, parts: readonly Buffer[], length: number): Buffer {
  let candidates = joined.get(parts[0]!);
  if (candidates !== undefined) {
    for (const j of candidates) {
      if (j.parts.length !== parts.length || j.bytes.length !== length) continue;
      let same = true;
      for (let i = 1; i < parts.length && same; i++) same = j.parts[i] === parts[i];
      if (same) return j.bytes;
    }
  } else {
    candidates = [];
    joined.set(parts[0]!, candidates);
  }
  const bytes = Buffer.concat(parts, length);
  candidates.push({ parts: parts.slice(), bytes });
  return bytes;
}

/** The socket under a `ws` WebSocket (its `_socket`, a net.Socket once open). */
function socketOf(ws: WebSocket): Socket | undefined {
  return (ws as unknown as { _socket?: Socket })._socket ?? undefined;
}

/**
 * Ends the iteration's turn: the frames gathered since its first one leave in one socket write,
 * with one write callback (a socket write per frame, corked, cost a stream entry and a callback
 * each). Nothing is written once the connection is no longer open: data must not follow a close.
 */
function flush(c: Connection): void {
  const n = c.turn.length;
  if (n === 0) return;
  const bytes = n === 1 ? c.turn[0]! : Buffer.concat(c.turn, c.turnBytes);
  const frames = c.turnFrames;
  c.turn.length = 0;
  c.turnBytes = 0;
  c.turnFrames = 0;
  const socket = socketOf(c.ws);
  if (c.ws.readyState !== c.ws.OPEN || socket === undefined) {
    c.queuedFrames -= frames;
    return;
  }
  if (frames === 1) {
    socket.write(bytes, c.written);
  } else {
    // Callbacks run in write order: one bound function and a FIFO of frame counts, no closure per write.
    c.writes.push(frames);
    socket.write(bytes, c.writtenMany);
  }
}

/**
 * A connection's send budget (see the module comment). Defaults: `DEFAULT_SEND_BUDGET`; the
 * numbers and why are in docs/decisions.md ("Slow consumers").
 */
export interface SendBudget {
  /** Bytes queued in user space past which channel data stops. */
  maxBytes: number;
  /** Frames queued past which channel data stops. */
  maxFrames: number;
  /** Bytes queued past which the connection is closed (1008). */
  hardMaxBytes: number;
  /** How long a connection may stay degraded before it is closed (1008), ms. */
  degradedCloseMs: number;
  /** retryAfterMs of the degraded frame: how often the server looks whether the connection drained. */
  retryAfterMs: number;
}

export const DEFAULT_SEND_BUDGET: SendBudget = { maxBytes: 256 * 1024, maxFrames: 4_096, hardMaxBytes: 4 * 1024 * 1024, degradedCloseMs: 30_000, retryAfterMs: 1_000 };

/** Close code and reason of a slow consumer closed for good. */
export const SLOW_CONSUMER_CLOSE = { code: 1008, reason: 'slow consumer: send queue over budget' } as const;
const SLOW_CONSUMER_GRACE_MS = 1_000;

/** How long channel data may wait to leave with later data in one write, ms (docs/decisions.md "Slow consumers"). */
export const DEFAULT_COALESCE_MS = 20;
/** Connections whose pending data one event-loop turn of the window's flush writes. */
const FLUSH_CHUNK = 250;
/**
 * Socket writes per second the windows' flushes aim to stay under: a window that follows a
 * flush of n connections lasts at least n / FLUSH_WRITES_PER_SEC seconds, up to
 * MAX_COALESCE_MS (the periodic timer's period). A few connections keep the 20 ms window; 1,500
 * readers of one book get 50 ms (a write per connection per window is most of the fan-out's cost).
 */
const FLUSH_WRITES_PER_SEC = 30_000;
const MAX_COALESCE_MS = 50;

export interface WsOptions {
  sendBudget?: Partial<SendBudget>;
  /** Channel data coalescing window, ms; 0: the end of the event-loop iteration. Default DEFAULT_COALESCE_MS. */
  coalesceMs?: number;
  /** Wall-clock period of the timer that drives periodic channels (ms). */
  periodicTickMs?: number;
  hooks?: WsHooks;
  /**
   * Called once the open connections have fallen to a quarter of their peak, a peak of at least
   * `peak` (default MASS_CLOSE_PEAK): what those sockets used is garbage now, and the caller may
   * reclaim it (the simulator runs a memory-reducing GC: sim/reclaim.ts). The peak restarts there.
   */
  massClose?: { peak?: number; onClose: () => void };
}

/** The smallest peak of open connections whose fall to a quarter is a mass close (WsOptions.massClose). */
export const MASS_CLOSE_PEAK = 256;

/** One RPC call as answered: what a request log records. */
export interface WsRpcRecord {
  /** The envelope's type: post or get. */
  type: string;
  method: string;
  /**
   * The frame's text: the payload as the client sent it is its `request.payload` (validation
   * coerced the one the call used). A request log parses it only if it needs it.
   */
  frame: string;
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

/**
 * An RPC call as the operation sees it. `rawBody` is written when read (only Scheme 2 reads it):
 * a getter on the prototype, not one defined on every call's object (V8 defines such an
 * accessor through its runtime, about a microsecond a call).
 */
class RpcRequest implements OperationRequest {
  readonly body: unknown;
  readonly query: Record<string, unknown>;
  readonly params: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly ip: string;
  readonly path: string;
  readonly #payload: Record<string, unknown>;
  readonly #post: boolean;

  constructor(op: Operation, path: string, payload: Record<string, unknown>, params: Record<string, string>, headers: Record<string, string>, ip: string) {
    this.#post = op.method === 'POST';
    this.#payload = payload;
    this.body = this.#post ? payload : undefined;
    this.query = this.#post ? { address: payload.address } : payload;
    this.params = params;
    this.headers = headers;
    this.ip = ip;
    this.path = path;
  }

  get rawBody(): string | undefined {
    return this.#post ? JSON.stringify(this.#payload) : undefined;
  }
}

/** An order write with a TPSL element (REST only). Not yet validated: a batch's `orders` may be anything (its schema answers 400). */
function isTpsl(op: Operation, payload: Record<string, unknown>): boolean {
  if (payload.grouping !== undefined) return true;
  if (op.name === 'placeOrder') return isTpslElement(payload);
  return Array.isArray(payload.orders) && payload.orders.some(isTpslElement);
}

function isTpslElement(e: unknown): boolean {
  return typeof e === 'object' && e !== null && ('tpslType' in e || 'tpsl_type' in e || 'stopPrice' in e);
}

const INTERNAL_ERROR = { status: 500, error: { type: 'Internal', message: 'internal error' } } as const;

/** RPC methods: REST operation names, plus the venue's aliases. */
const METHOD_ALIASES: Readonly<Record<string, string>> = { cancel: 'cancelOrder', l2orderbook: 'l2OrderBook' };
const NOT_OVER_WS = new Set(['createApiKey']);

/** The path parameters of an RPC call that has none (most): never written to. */
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** A client's value for an error message: String() throws on objects like {"toString":1}. */
function printable(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function errorType(status: number): string {
  return status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'NotFound' : status === 429 ? 'RateLimited' : status === 501 ? 'NotImplemented' : status >= 500 ? 'Internal' : 'InvalidRequest';
}

/** A refusal as an RPC reply: the HTTP-like status and {type, message, …the body's other fields}. */
function errorFrame(result: Reply): { status: number; error: Record<string, unknown> } {
  const { error, errorType: type, ...rest } = result.body as Record<string, unknown>;
  return { status: result.status, error: { type: type ?? errorType(result.status), message: error, ...rest } };
}

/** One open connection's send queue, as `sendQueues()` reports it. */
export interface SendQueue {
  bufferedBytes: number;
  queuedFrames: number;
  degraded: boolean;
  subscriptions: number;
}

export interface WsHandle {
  /** The send queue of every open connection (tests and benches watch slow consumers with it). */
  sendQueues(): SendQueue[];
  /** How many IPs the per-IP limits hold counters for (tests watch that they are forgotten). */
  trackedIps(): number;
  close(): void;
}

export function attachWebSocket(app: FastifyInstance, state: GatewayState, options: WsOptions = {}): WsHandle {
  const wss = new WebSocketServer({ noServer: true, maxPayload: state.config.rateLimit.ws.maxFrameBytes });
  const connections = new Set<Connection>();
  /** Connections holding at least one subscription: with none, a command's events cost the fan-out nothing. */
  let subscribed = 0;
  /**
   * Who a command's events can concern: connections with a global subscription, and those
   * subscribed to a market channel of a market the events name or to an account channel of an
   * address they carry (a market channel sends only its market's events, an account channel
   * only its account's: channels.ts). The fan-out visits these, not every subscribed connection.
   */
  const globalSubscribers = new Set<Connection>();
  const byMarket = new Map<number, Set<Connection>>();
  const byAddress = new Map<string, Set<Connection>>();
  /** Adds (+1) or removes (-1) a subscription of `c` in the fan-out's index. */
  const index = (c: Connection, sub: Subscription, by: 1 | -1): void => {
    const scope = CHANNELS[sub.channel].scope;
    if (scope === 'global') {
      c.globalSubs += by;
      if (c.globalSubs > 0) globalSubscribers.add(c);
      else globalSubscribers.delete(c);
      return;
    }
    const key = scope === 'market' ? sub.market!.spec.id : sub.address!;
    const sets: Map<number | string, Set<Connection>> = scope === 'market' ? byMarket : byAddress;
    const n = (c.watched.get(key) ?? 0) + by;
    let set = sets.get(key);
    if (n > 0) {
      c.watched.set(key, n);
      if (set === undefined) sets.set(key, (set = new Set()));
      set.add(c);
    } else {
      c.watched.delete(key);
      set?.delete(c);
      if (set?.size === 0) sets.delete(key);
    }
  };
  /** Takes a closed connection out of the index. */
  const unindex = (c: Connection): void => {
    globalSubscribers.delete(c);
    for (const key of c.watched.keys()) {
      const sets: Map<number | string, Set<Connection>> = typeof key === 'number' ? byMarket : byAddress;
      const set = sets.get(key);
      set?.delete(c);
      if (set?.size === 0) sets.delete(key);
    }
    c.watched.clear();
  };
  /** Numbers the fan-out's commands: a connection offered one is marked with it (no set per command). */
  let commandSeq = 0;
  // The most connections open since the last mass close (WsOptions.massClose).
  let openPeak = 0;
  const massClosePeak = options.massClose?.peak ?? MASS_CLOSE_PEAK;

  // Per-IP counters; an entry equal to a new IP's is dropped (on close, and swept from the tick).
  const ips = new Map<string, WsIpState>();
  let ipsSweptAtMs = -Infinity;
  const sweepIps = (nowMs: number): void => {
    if (nowMs - ipsSweptAtMs < PRUNE_EVERY_MS && nowMs >= ipsSweptAtMs) return;
    ipsSweptAtMs = nowMs;
    for (const [ip, counters] of ips) if (wsIpIsFresh(counters, nowMs, state.config.rateLimit.ws)) ips.delete(ip);
  };
  /** A client frame against its IP's message limit (passed untouched where per-IP limits do not apply). */
  const countFrame = (c: Connection, kind: WsFrameKind): WsMessageResult => {
    // post and get are not counted (ws-limits.ts): their IP's counters stay as they are.
    if (!c.perIp || !COUNTED_FRAME_KINDS.has(kind)) return UNCOUNTED;
    const counted = receiveFrame(ips.get(c.ip), kind, state.nowMs(), state.config.rateLimit.ws);
    ips.set(c.ip, counted.ip);
    return counted;
  };
  const UNCOUNTED: WsMessageResult = { allowed: true, ip: FRESH_WS_IP };
  const budget: SendBudget = { ...DEFAULT_SEND_BUDGET, ...options.sendBudget };
  // The REST routes' validator (gateway/contract/validator.ts): one rule set for both.
  const ajv = app.schemaValidator;
  const serializer = app.replySerializer;
  const validators = new Map<Operation, ValidateFunction>();
  const byName = new Map(OPERATIONS.map((op) => [op.name, op] as const));
  /** An RPC call's path (`/v1/<operation name>`), made once per operation rather than per call. */
  const rpcPaths = new Map(OPERATIONS.map((op) => [op, `/v1/${op.name}`] as const));

  const hooks = options.hooks ?? {};

  /**
   * Closes a slow consumer with 1008. The close frame reaches it only if it reads: a client that
   * does not is cut off after a second (ws itself would wait 30 s), so its queue is freed.
   */
  const closeSlow = (c: Connection): void => {
    c.pending.length = 0;
    flush(c);
    c.ws.close(SLOW_CONSUMER_CLOSE.code, SLOW_CONSUMER_CLOSE.reason);
    setTimeout(() => c.ws.terminate(), SLOW_CONSUMER_GRACE_MS).unref();
  };

  /**
   * Hands `frames` frames (their bytes) to the connection; false: the connection is gone or going.
   * Calls no hook. `gather`: the bytes join this iteration's turn, written at `setImmediate`
   * (the first frame of a turn schedules it); false for the window's flush (one write per
   * connection: nothing to gather). Frames count as queued until their write completes.
   */
  const writeBytes = (c: Connection, bytes: Buffer, frames: number, gather = true): boolean => {
    const socket = socketOf(c.ws);
    if (c.ws.readyState !== c.ws.OPEN || socket === undefined) return false;
    if (c.ws.bufferedAmount + c.turnBytes > budget.hardMaxBytes) {
      closeSlow(c);
      return false;
    }
    c.queuedFrames += frames;
    if (gather) {
      if (c.turn.length === 0) setImmediate(flush, c);
      c.turn.push(bytes);
      c.turnBytes += bytes.length;
      c.turnFrames += frames;
    } else if (frames === 1) {
      socket.write(bytes, c.written);
    } else {
      c.writes.push(frames);
      socket.write(bytes, c.writtenMany);
    }
    return true;
  };

  // Channel data waits up to `coalesceMs` in its connection's `pending` list and leaves in one
  // write per connection (see the module comment); any other frame writes the pending data first.
  const coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  const dirty = new Set<Connection>();
  let flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  /**
   * Writes the connection's pending channel data as one buffer. `joined`: buffers already
   * concatenated in this flush, by their first part; connections holding the same
   * subscriptions have the same parts (the same Buffer objects) in the same order, so they
   * share one concatenation instead of copying the same bytes once each.
   */
  const drain = (c: Connection, joined?: Map<Buffer, Joined[]>): void => {
    if (c.pending.length === 0) return;
    const bytes = c.pending.length === 1 ? c.pending[0]! : joined === undefined ? Buffer.concat(c.pending, c.pendingBytes) : joinShared(joined, c.pending, c.pendingBytes);
    const frames = c.pendingFrames;
    c.pending.length = 0;
    c.pendingBytes = 0;
    c.pendingFrames = 0;
    // Behind a turn's frames when one is open (order kept), else straight to the socket.
    writeBytes(c, bytes, frames, joined === undefined || c.turn.length > 0);
  };

  /**
   * The window's end: every pending buffer goes to the kernel now (uncorked), so the next
   * window judges what it could not take. `FLUSH_CHUNK` connections per event-loop turn: the
   * turns between chunks serve requests (/health, orders) instead of waiting for every
   * connection's write; data queued meanwhile joins its connection's pending list (order kept).
   * `all`: in one turn (shutdown).
   */
  let lastFlushSize = 0;
  const flushAll = (all = false): void => {
    flushTimer = undefined;
    lastFlushSize = dirty.size;
    const batch = [...dirty];
    dirty.clear();
    flushChunk(batch, 0, new Map(), all);
  };
  const flushChunk = (batch: Connection[], from: number, joined: Map<Buffer, Joined[]>, all: boolean): void => {
    const end = all ? batch.length : Math.min(batch.length, from + FLUSH_CHUNK);
    for (let i = from; i < end; i++) {
      const c = batch[i]!;
      drain(c, joined);
      flush(c);
    }
    if (end < batch.length) setImmediate(flushChunk, batch, end, joined, all);
  };

  const queue = (c: Connection, bytes: Buffer, frames: number): void => {
    c.pending.push(bytes);
    c.pendingBytes += bytes.length;
    c.pendingFrames += frames;
    dirty.add(c);
    flushTimer ??= coalesceMs === 0 ? setImmediate(flushAll, false) : setTimeout(flushAll, Math.max(coalesceMs, Math.min(MAX_COALESCE_MS, (lastFlushSize * 1000) / FLUSH_WRITES_PER_SEC)), false);
  };

  /** What the fault hook says of the next frame: true to send it (a 'close' or 'drop' is carried out here). */
  const mayWrite = (c: Connection): boolean => {
    if (c.ws.readyState !== c.ws.OPEN) return false;
    const fate = hooks.beforeSend?.(c) ?? 'send';
    if (fate === 'send') return true;
    drain(c);
    flush(c);
    if (fate === 'close') c.ws.close(1001, 'fault injected');
    else c.ws.terminate();
    return false;
  };

  /** A frame other than channel data: after the connection's pending data, at once. */
  const write = (c: Connection, bytes: Buffer): boolean => {
    if (!mayWrite(c)) return false;
    drain(c);
    return writeBytes(c, bytes, 1);
  };

  /**
   * Whether channel data may go to `c` now: not while degraded. The budget is judged at the
   * first frame of a coalescing window, on what earlier windows left queued in the socket (one
   * window's burst to a client that reads is not a slow consumer); past it the connection is
   * degraded.
   */
  const accepting = (c: Connection): boolean => {
    if (c.degradedSince !== undefined || c.ws.readyState !== c.ws.OPEN) return false;
    if (c.pending.length > 0 || (c.ws.bufferedAmount <= budget.maxBytes && c.queuedFrames <= budget.maxFrames)) return true;
    c.degradedSince = Date.now();
    const reason = 'slow consumer: channel data paused until the connection drains; a fresh snapshot follows';
    for (const sub of c.subs.values()) write(c, textFrame(JSON.stringify({ type: 'degraded', ...frameBase(sub), reason, retryAfterMs: budget.retryAfterMs })));
    return false;
  };

  /** Channel data: dropped while the connection is degraded. */
  const sendData = (c: Connection, bytes: Buffer): void => {
    if (accepting(c) && mayWrite(c)) queue(c, bytes, 1);
  };

  /** Replies and control frames: never dropped (the hard limit still applies). */
  const sendText = (c: Connection, text: string): void => void write(c, textFrame(text));
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

  // The read models channels read see a command's events before the fan-out does: createGateway
  // added their listener first.
  // A connection gets one command's frames in event order across its subscriptions (stable:
  // frames of the same event keep the subscription order).
  const framesOf = (sub: Subscription, events: readonly EngineEvent[]): Frame[] => {
    const updates = CHANNELS[sub.channel].updates(state, sub, events);
    return updates.length === 0 ? NO_FRAMES : updates.map((u: Update) => ({ at: u.at, data: dataFrame(sub, u.contents) }));
  };

  /**
   * A channel_data frame: the same text as JSON.stringify({type, ...frameBase(sub), contents}),
   * its head built once per subscription (a literal with a key before a spread takes V8's slow
   * path on every frame).
   */
  const dataFrame = (sub: Subscription, contents: unknown): Buffer => {
    if (contents === undefined) return textFrame(JSON.stringify({ type: 'channel_data', ...frameBase(sub) }));
    sub.dataPrefix ??= JSON.stringify({ type: 'channel_data', ...frameBase(sub), contents: 0 }).slice(0, -2);
    return textFrame(sub.dataPrefix + JSON.stringify(contents) + '}');
  };

  const byEvent = (a: { at: number }, b: { at: number }): number => a.at - b.at;

  /**
   * Writes a plan's frames to `c`: the shared buffer when the fault hooks pass every frame (they
   * are asked per frame, in order, as for any frame), else the frames they let through.
   */
  const writePlan = (c: Connection, plan: Plan): void => {
    let withheld: Set<number> | undefined;
    if (hooks.withholdDelta !== undefined) {
      for (let i = 0; i < plan.entries.length; i++) {
        const { key, frame } = plan.entries[i]!;
        const sub = c.subs.get(key)!;
        if (sub.channel === 'l2OrderbookUpdates' && hooks.withholdDelta(c, sub, frame.at)) (withheld ??= new Set()).add(i);
      }
    }
    let fateAt = plan.entries.length;
    let fate: 'close' | 'drop' | undefined;
    if (hooks.beforeSend !== undefined) {
      for (let i = 0; i < plan.entries.length; i++) {
        if (withheld?.has(i)) continue;
        const f = hooks.beforeSend(c);
        if (f === 'send') continue;
        fateAt = i;
        fate = f;
        break;
      }
    }
    if (withheld === undefined && fate === undefined) {
      queue(c, plan.bytes, plan.entries.length);
      return;
    }
    for (let i = 0; i < fateAt; i++) if (!withheld?.has(i)) queue(c, plan.entries[i]!.frame.data, 1);
    if (fate === undefined) return;
    drain(c);
    flush(c);
    if (fate === 'close') c.ws.close(1001, 'fault injected');
    else c.ws.terminate();
  };

  /** One command's frames of market-wide subscriptions, built and serialized once per identity. */
  interface Command {
    events: readonly EngineEvent[];
    shared: Map<string, Frame[]> | undefined;
  }
  const sharedFrames = (command: Command, sub: Subscription): Frame[] => {
    command.shared ??= new Map();
    let frames = command.shared.get(sub.key);
    if (frames === undefined) {
      frames = framesOf(sub, command.events);
      command.shared.set(sub.key, frames);
    }
    return frames;
  };

  /** Offers `set`'s connections to the command `seq` (once each, none of `globalSubscribers`) by adding them to `to`. */
  const offer = (set: Set<Connection> | undefined, seq: number, to: Connection[]): void => {
    if (set === undefined) return;
    for (const c of set) {
      if (c.offered === seq || c.globalSubs > 0) continue;
      c.offered = seq;
      to.push(c);
    }
  };

  /** The connections a command's events can concern (see `globalSubscribers`, `byMarket` and `byAddress`). */
  const concerned = (events: readonly EngineEvent[]): Iterable<Connection> => {
    if (byMarket.size === 0 && byAddress.size === 0) return globalSubscribers;
    const seq = ++commandSeq;
    const out: Connection[] = [...globalSubscribers];
    let lastAddress: string | undefined;
    let lastMarket: number | undefined;
    for (const e of events) {
      const { address, marketId } = e as { address?: unknown; marketId?: unknown };
      if (typeof address === 'string' && address !== lastAddress) offer(byAddress.get((lastAddress = address)), seq, out);
      if (typeof marketId === 'number' && marketId !== lastMarket) offer(byMarket.get((lastMarket = marketId)), seq, out);
    }
    return out;
  };

  const listener = (events: readonly EngineEvent[]): void => {
    if (subscribed === 0) return;
    // Market-wide channels keep no per-subscription state: their frames are built and
    // serialized once per identity, and a set of them once per plan, shared by every
    // connection that holds it.
    const command: Command = { events, shared: undefined };
    let plans: Map<string, Plan | undefined> | undefined;
    for (const c of concerned(events)) {
      // Degraded connections cost the fan-out nothing.
      if (c.subs.size === 0 || c.degradedSince !== undefined) continue;
      if (c.plan !== undefined) {
        plans ??= new Map();
        let plan = plans.get(c.plan);
        if (plan === undefined && !plans.has(c.plan)) {
          const entries: Plan['entries'] = [];
          for (const sub of c.subs.values()) for (const frame of sharedFrames(command, sub)) entries.push({ key: sub.key, frame });
          if (entries.length > 1) entries.sort((a, b) => byEvent(a.frame, b.frame));
          plan = entries.length === 0 ? undefined : { entries, bytes: entries.length === 1 ? entries[0]!.frame.data : Buffer.concat(entries.map((e) => e.frame.data)) };
          plans.set(c.plan, plan);
        }
        if (plan !== undefined && accepting(c)) writePlan(c, plan);
        continue;
      }
      const out: Frame[] = [];
      for (const sub of c.subs.values()) {
        const frames = SHARED_FRAMES.has(sub.channel) ? sharedFrames(command, sub) : framesOf(sub, events);
        if (sub.channel === 'l2OrderbookUpdates' && hooks.withholdDelta !== undefined) {
          for (const f of frames) if (!hooks.withholdDelta(c, sub, f.at)) out.push(f);
        } else {
          for (const f of frames) out.push(f);
        }
      }
      if (out.length > 1) out.sort(byEvent);
      for (const f of out) sendData(c, f.data);
    }
  };
  state.exchange.listeners.add(listener);

  /** A degraded connection that drained gets every subscription's snapshot again; one degraded too long goes. */
  const checkDegraded = (c: Connection, nowMs: number): void => {
    if (c.ws.readyState !== c.ws.OPEN) return;
    if (c.ws.bufferedAmount <= budget.maxBytes / 4 && c.queuedFrames <= budget.maxFrames / 4) {
      c.degradedSince = undefined;
      const now = state.exchange.clock();
      for (const sub of c.subs.values()) {
        const channel = CHANNELS[sub.channel];
        sub.lastPeriodicAt = now;
        channel.start?.(state, sub);
        const frame: Record<string, unknown> = { type: 'subscribed', ...frameBase(sub), resync: true };
        if (channel.snapshot !== undefined) frame.contents = channel.snapshot(state, sub);
        else if (channel.ack !== undefined) frame.contents = channel.ack;
        send(c, frame);
      }
    } else if (nowMs - c.degradedSince! >= budget.degradedCloseMs) {
      closeSlow(c);
    }
  };

  const periodic = setInterval(() => {
    const now = state.exchange.clock();
    const nowMs = Date.now();
    sweepIps(state.nowMs());
    // A periodic frame depends on the subscription's identity only: built once per tick.
    const built = new Map<string, Buffer | undefined>();
    for (const c of connections) {
      if (c.degradedSince !== undefined) {
        checkDegraded(c, nowMs);
        continue;
      }
      for (const sub of c.subs.values()) {
        const every = CHANNELS[sub.channel].periodic;
        if (every === undefined || now - sub.lastPeriodicAt < every.everyUs) continue;
        sub.lastPeriodicAt = now;
        let bytes = built.get(sub.key);
        if (bytes === undefined && !built.has(sub.key)) {
          const contents = every.contents(state, sub);
          bytes = contents === undefined ? undefined : dataFrame(sub, contents);
          built.set(sub.key, bytes);
        }
        if (bytes !== undefined) sendData(c, bytes);
      }
    }
  }, options.periodicTickMs ?? 50);
  periodic.unref();

  const fail = (c: Connection, status: number, message: string, extra: Record<string, unknown> = {}): void => {
    send(c, { type: 'error', status, error: { type: errorType(status), message }, ...extra });
  };

  const parseSubscription = (msg: Record<string, unknown>): Subscription | string => {
    if (!isChannelName(msg.channel)) return `unknown channel: ${printable(msg.channel)}`;
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
      dataPrefix: undefined,
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
      if (ms === undefined) return `unknown market: ${printable(selector)}`;
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
        if (ms === undefined) return `unknown market: ${printable(msg.market)}`;
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

  /** The connection's plan key: its subscription keys in order, when all are market-wide. */
  const planOf = (c: Connection): string | undefined => {
    for (const sub of c.subs.values()) if (!SHARED_FRAMES.has(sub.channel)) return undefined;
    return [...c.subs.keys()].join('\n');
  };

  const subscribe = (c: Connection, msg: Record<string, unknown>): void => {
    const sub = parseSubscription(msg);
    if (typeof sub === 'string') return fail(c, 400, sub);
    if (c.subs.has(sub.key)) return fail(c, 400, 'already subscribed');
    const added = addSubscription(c.perIp ? ips.get(c.ip)! : FRESH_WS_IP, c.limits, state.config.rateLimit.ws);
    if (!added.accepted) return fail(c, 429, 'too many subscriptions');
    if (c.perIp) ips.set(c.ip, added.ip);
    c.limits = added.connection;
    if (c.subs.size === 0) subscribed++;
    c.subs.set(sub.key, sub);
    index(c, sub, 1);
    c.plan = planOf(c);
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
    index(c, sub, -1);
    if (c.subs.size === 0) subscribed--;
    c.plan = planOf(c);
    const removed = removeSubscription(c.perIp ? ips.get(c.ip)! : FRESH_WS_IP, c.limits);
    if (c.perIp) ips.set(c.ip, removed.ip);
    c.limits = removed.connection;
    send(c, { type: 'unsubscribed', ...frameBase(sub) });
  };

  /**
   * An RPC answer that echoes the call's method and id; returns its status. Made once, not per
   * call: tsx (esbuild keepNames) wraps a named closure in __name(), a defineProperty per call.
   */
  const replyTo = (c: Connection, method: string, id: unknown, frame: Record<string, unknown> & { status: number }): number => {
    send(c, { method, id, ...frame });
    return frame.status;
  };

  /**
   * The checks of one post/get call before it runs, in the order a client can fix them: its
   * operation (the in-flight post taken: `endPost` when answered), or the status it was
   * refused with (answered). `payload` is validated (coerced) in place.
   */
  const admitRpc = (c: Connection, msg: Record<string, unknown>, method: string, payload: Record<string, unknown>): Operation | number => {
    const id = msg.id;
    // Every answer echoes id and method as sent, refusals included, so the client can match it.
    if (typeof id !== 'number') return replyTo(c, method, id, { type: 'error', status: 400, error: { type: 'InvalidRequest', message: 'post and get messages need a numeric id' } });
    // 1e999 parses as Infinity, which a reply cannot echo as JSON (it is written as null here).
    if (!Number.isFinite(id)) return replyTo(c, method, id, { type: 'error', status: 400, error: { type: 'InvalidRequest', message: 'the id must be a finite number' } });
    if (NOT_OVER_WS.has(method)) return replyTo(c, method, id, { status: 501, error: { type: 'NotImplemented', message: `${method} is REST only` } });
    const op = byName.get(METHOD_ALIASES[method] ?? method);
    if (op === undefined || (msg.type === 'get' && op.method !== 'GET') || (msg.type === 'post' && op.method !== 'POST')) {
      return replyTo(c, method, id, { status: 400, error: { type: 'InvalidRequest', message: `unknown method: ${method}` } });
    }
    if ((op.name === 'placeOrder' || op.name === 'batchPlaceOrders') && isTpsl(op, payload)) {
      return replyTo(c, method, id, { status: 501, error: { type: 'NotImplemented', message: 'TPSL orders are REST only' } });
    }
    const schema = op.schema?.body ?? op.schema?.querystring;
    if (schema !== undefined) {
      let validate = validators.get(op);
      if (validate === undefined) {
        validate = ajv.compile(schema);
        validators.set(op, validate);
      }
      if (!validate(payload)) return replyTo(c, method, id, { status: 400, error: { type: 'InvalidRequest', message: ajv.errorsText(validate.errors) } });
    }
    const inflight = beginPost(c.limits, state.config.rateLimit.ws);
    if (inflight === undefined) return replyTo(c, method, id, { status: 429, error: { type: 'RateLimited', message: 'too many in-flight posts on this connection' } });
    c.limits = inflight;
    return op;
  };

  /**
   * Answers one post/get call, then hands it to the afterRpc hook. One async function per call
   * (the checks before the operation are synchronous, its result is awaited only when it is a
   * promise) and no promise chained on it: an error answers 500 with the call's id and method here.
   */
  const rpc = async (c: Connection, msg: Record<string, unknown>, text: string): Promise<void> => {
    const request = (msg.request ?? {}) as Record<string, unknown>;
    const method = printable(request.type ?? '');
    const payload = (request.payload ?? {}) as Record<string, unknown>;
    let status: number;
    try {
      const op = admitRpc(c, msg, method, payload);
      if (typeof op === 'number') status = op;
      else {
        const id = msg.id as number;
        try {
          let injected = hooks.beforeRpc?.(op, payload);
          if (injected instanceof Promise) injected = await injected;
          if (injected !== undefined) status = replyTo(c, method, id, errorFrame(injected));
          else {
            const handled = op.handle(state, rpcRequest(c, op, request, payload));
            const result = handled instanceof Promise ? await handled : handled;
            // Like a REST reply, the answer waits until the change is durable (no wait without a file).
            status = state.committed === undefined ? replyWith(c, op, id, method, result) : await state.committed().then(
              () => replyWith(c, op, id, method, result),
              () => replyTo(c, method, id, { status: 503, error: { type: 'Unavailable', message: 'the change could not be made durable' } }),
            );
          }
        } finally {
          c.limits = endPost(c.limits);
        }
      }
    } catch {
      status = replyTo(c, method, msg.id, INTERNAL_ERROR);
    }
    if (hooks.afterRpc === undefined) return;
    try {
      // Validation coerced and stripped the payload in place: the frame still holds it as sent.
      hooks.afterRpc({ type: printable(msg.type), method, frame: text, status, ip: c.ip, apiKey: request.apiKey === undefined ? undefined : printable(request.apiKey) });
    } catch {
      replyTo(c, method, msg.id, INTERNAL_ERROR);
    }
  };

  /** The call as its operation sees it: the envelope's apiKey / timestamp / signature as the header triple. */
  const rpcRequest = (c: Connection, op: Operation, request: Record<string, unknown>, payload: Record<string, unknown>): RpcRequest => {
    const headers: Record<string, string> = {};
    if (request.apiKey !== undefined) headers['x-api-key'] = printable(request.apiKey);
    if (request.timestamp !== undefined) headers['x-timestamp'] = printable(request.timestamp);
    // Batches carry no outer signature over the socket; the REST rule only wants one present.
    const signature = op.name.startsWith('batch') ? 'ws-batch' : request.signature;
    if (signature !== undefined) headers['x-signature'] = printable(signature);
    // Most calls have no path parameters: they share one empty, frozen object.
    let params = NO_PARAMS;
    if (payload.market !== undefined) params = { market: printable(payload.market) };
    if (payload.orderId !== undefined && op.method === 'GET') params = { ...params, orderId: printable(payload.orderId) };
    return new RpcRequest(op, rpcPaths.get(op)!, payload, params, headers, c.ip);
  };

  /** The answer to a call its operation handled; returns its status. */
  const replyWith = (c: Connection, op: Operation, id: number, method: string, result: Reply): number => {
    const body = result.body as Record<string, unknown>;
    if (result.status >= 400) return replyTo(c, method, id, errorFrame(result));
    // setLeverage answers at once over the socket; its outcome follows on the account stream.
    if (op.name === 'setLeverage') return replyTo(c, method, id, { status: 202, result: { ...body, status: 'ACK' } });
    // The REST route's compiled serializer (its reply schema for this status) writes the result.
    const schema = op.response[result.status];
    if (schema === undefined) return replyTo(c, method, id, { status: result.status, result: body });
    sendText(c, `{"method":${JSON.stringify(method)},"id":${id},"status":${result.status},"result":${serializer.compile(schema)(body)}}`);
    return result.status;
  };

  const onMessage = (c: Connection, data: Buffer): void => {
    let msg: Record<string, unknown>;
    const text = data.toString('utf8');
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
      if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw new Error('not an object');
    } catch {
      countFrame(c, 'malformed');
      return fail(c, 400, 'malformed frame: expected a JSON object');
    }
    const type = printable(msg.type);
    const kind = type === 'subscribe' || type === 'unsubscribe' || type === 'post' || type === 'get' ? type : 'malformed';
    const counted = countFrame(c, kind);
    if (!counted.allowed) return fail(c, 429, 'too many messages', { retryAfterMs: counted.retryAfterMs });
    switch (kind) {
      case 'subscribe':
        return subscribe(c, msg);
      case 'unsubscribe':
        return unsubscribe(c, msg);
      case 'post':
      case 'get':
        void rpc(c, msg, text);
        return;
      default:
        return fail(c, 400, `unknown message type: ${type}`);
    }
  };

  app.server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) return socket.destroy();
    const ip = req.socket.remoteAddress ?? '';
    // --no-rate-limits (a fixture's or a benchmark's thousands of sockets) and allowlisted IPs: no per-IP limit.
    const perIp = ipScope(state.config.rateLimit, ip) === 'enforce';
    let limits = newConnectionState(state.nowMs());
    if (perIp) {
      const opened = openConnection(ips.get(ip), state.nowMs(), state.config.rateLimit.ws);
      ips.set(ip, opened.ip);
      if (!opened.accepted) {
        socket.write('HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n\r\n');
        return socket.destroy();
      }
      limits = opened.connection;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const c: Connection = { ws, ip, perIp, limits, subs: new Map(), globalSubs: 0, watched: new Map(), offered: 0, plan: undefined, queuedFrames: 0, written: () => void c.queuedFrames--, writes: [], writtenMany: () => void (c.queuedFrames -= c.writes.shift() ?? 0), degradedSince: undefined, turn: [], turnBytes: 0, turnFrames: 0, pending: [], pendingBytes: 0, pendingFrames: 0 };
      connections.add(c);
      if (connections.size > openPeak) openPeak = connections.size;
      const lifetime = setTimeout(() => {
        flush(c);
        ws.close(1000, 'connection lifetime reached');
      }, state.config.rateLimit.ws.connectionLifetimeMs);
      lifetime.unref();
      ws.on('message', (data: Buffer) => onMessage(c, data));
      ws.on('close', () => {
        clearTimeout(lifetime);
        if (connections.delete(c) && c.subs.size > 0) subscribed--;
        unindex(c);
        dirty.delete(c);
        c.pending.length = 0;
        if (options.massClose !== undefined && openPeak >= massClosePeak && connections.size * 4 <= openPeak) {
          openPeak = connections.size;
          options.massClose.onClose();
        }
        if (!perIp) return;
        const left = closeConnection(ips.get(ip)!, c.limits);
        if (wsIpIsFresh(left, state.nowMs(), state.config.rateLimit.ws)) ips.delete(ip);
        else ips.set(ip, left);
      });
      ws.on('error', () => ws.terminate());
    });
  });

  return {
    trackedIps: () => ips.size,
    sendQueues: () => [...connections].map((c) => ({ bufferedBytes: c.ws.bufferedAmount, queuedFrames: c.queuedFrames, degraded: c.degradedSince !== undefined, subscriptions: c.subs.size })),
    close(): void {
      state.exchange.listeners.delete(listener);
      clearInterval(periodic);
      flushAll(true);
      for (const c of connections) {
        flush(c);
        c.ws.close(1001, 'server shutting down');
      }
      wss.close();
    },
  };
}
