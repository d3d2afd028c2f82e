/**
 * The request log behind `GET /sim/journal`: the requests perpsim answered, for "did my bot send
 * X" assertions in a bot's test suite. (Not the durable command journal of issue 7: this one
 * is a bounded in-memory ring of what came over the wire, refused requests included.)
 *
 * Contract:
 * - Every REST request outside /sim, /docs, /openapi.json and /ui and not from the web console
 *   (its CONSOLE_HEADER, sim/ui/protocol.ts), and every WebSocket RPC call
 *   (method = the envelope's type, POST or GET; path = the RPC method name, e.g. placeOrder).
 * - Each record: id (increasing), time (simulated µs, when answered), transport, method, path,
 *   query (REST), body as the client sent it (parsed JSON; the raw text when it was not JSON;
 *   bodies over 64 KiB are left out and counted in `bodyBytes`; a body nested deeper than
 *   `BODY_DEPTH` levels, which the reply could not serialize, is kept as its raw text over REST
 *   and left out, null, over the WebSocket, where the payload has no text of its own), status,
 *   and the address the
 *   request is attributable to: the owner of the API key it names, else the body's `address`
 *   or `ethereumAddress`, else the query's `address` — lowercase.
 * - The ring keeps the newest `size` records; reads list newest first.
 * - Cost on the request path: a record keeps the body as received (the raw text, or the RPC
 *   frame's text) and the key owner, as plain fields (no closure per request); the body is
 *   parsed, and the address taken from it, when the record is first read (once), not for every
 *   request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { normalizeAddress } from '../gateway/auth/index.ts';
import type { GatewayState } from '../gateway/contract/operation.ts';
import type { WsHooks } from '../gateway/ws/server.ts';
import { CONSOLE_HEADER, type RequestRecord } from './ui/protocol.ts';

export const REQUEST_LOG_DEFAULT_SIZE = 1000;
const BODY_LIMIT = 64 * 1024;
/** Nesting levels a logged body may have (JSON.stringify recurses: 5,000 overflowed the stack). */
const BODY_DEPTH = 64;

/** One record of GET /sim/journal (its shape lives with the console, which reads it too). */
export type { RequestRecord };

/**
 * A record as the request path adds it: `body` (and `bodyBytes`), or what it is made from on
 * the record's first read — `raw` (a REST body's text), `parsed` (a body that came without
 * text), `frame` (an RPC frame's text, whose `request.payload` is the body) or `omittedBytes`
 * (a body past BODY_LIMIT: left out, its size kept); `address`, or with `deferred` it is
 * attributed on first read from `owner` (the API key's owner when answered), the body and the
 * query.
 */
export type NewRecord = Omit<RequestRecord, 'id' | 'body'> & {
  body?: unknown;
  deferred?: true;
  raw?: string;
  parsed?: unknown;
  frame?: string;
  omittedBytes?: number;
  owner?: string | undefined;
};

type Stored = Omit<RequestRecord, 'body'> & Omit<NewRecord, keyof RequestRecord> & { body?: unknown };

export interface RequestLog {
  size: number;
  ring: (Stored | undefined)[];
  /** Records ever added (the next id is count + 1). */
  count: number;
}

export function createRequestLog(size = REQUEST_LOG_DEFAULT_SIZE): RequestLog {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`request log size must be a positive integer, not ${size}`);
  return { size, ring: new Array<RequestRecord | undefined>(size), count: 0 };
}

export function addRecord(log: RequestLog, record: NewRecord): void {
  log.ring[log.count % log.size] = { id: log.count + 1, ...record };
  log.count++;
}

/**
 * The hot paths' records: every key written out (a spread of the caller's object defined each
 * through V8's runtime), what the body is made from as arguments (no object per request) and
 * the query as received (copied when the record is first read).
 */
function addDeferred(log: RequestLog, time: number, transport: 'rest' | 'ws', method: string, path: string, query: Record<string, unknown> | undefined, status: number, owner: string | undefined, raw: string | undefined, parsed: unknown, frame: string | undefined, omittedBytes: number | undefined): void {
  log.ring[log.count % log.size] = { id: log.count + 1, time, transport, method, path, query, status, deferred: true, owner, raw, parsed, frame, omittedBytes };
  log.count++;
}

/**
 * The record at ring slot `slot` with its deferred body and address filled in, made once and
 * kept; its keys in the order of a record made at once (id, time, transport, method, path,
 * query, body, bodyBytes, status, address).
 */
function settled(log: RequestLog, slot: number): RequestRecord {
  const stored = log.ring[slot]!;
  if (stored.deferred !== true) return stored as RequestRecord;
  const { id, time, transport, method, path, query, status, owner } = stored;
  const record: RequestRecord = {
    id,
    time,
    transport,
    method,
    path,
    // A REST request's query as fastify parsed it (a null-prototype object), copied once here.
    ...(query !== undefined && { query: { ...query } }),
    ...sentOf(stored),
    status,
  };
  const attributed = attribution(owner, record.body, query);
  if (attributed !== undefined) record.address = attributed;
  log.ring[slot] = record;
  return record;
}

/** A deferred record's body as sent (see NewRecord). */
function sentOf(stored: Stored): Pick<RequestRecord, 'body' | 'bodyBytes'> {
  if (stored.omittedBytes !== undefined) return { body: null, bodyBytes: stored.omittedBytes };
  if (stored.frame !== undefined) return sentBody(undefined, ((JSON.parse(stored.frame) as { request?: { payload?: unknown } }).request ?? {}).payload);
  return sentBody(stored.raw, stored.parsed);
}

/** Newest first, at most `limit`, only those attributable to `address` when given. */
export function listRecords(log: RequestLog, limit: number, address?: string): RequestRecord[] {
  const out: RequestRecord[] = [];
  const held = Math.min(log.count, log.size);
  for (let i = 1; i <= held && out.length < limit; i++) {
    const record = settled(log, (log.count - i) % log.size);
    if (address === undefined || record.address === address) out.push(record);
  }
  return out;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}

/** The owner of the API key a request names, looked up when it is answered (a key may be revoked before the record is read). */
function ownerOf(state: GatewayState, apiKey: unknown): string | undefined {
  return typeof apiKey === 'string' ? state.keys.byKey.get(apiKey.toLowerCase())?.address : undefined;
}

/** The address a request acts for or asks about (see the contract). */
function attribution(owner: string | undefined, body: unknown, query: unknown): string | undefined {
  for (const c of [owner, field(body, 'address'), field(body, 'ethereumAddress'), field(query, 'address')]) {
    const address = normalizeAddress(c);
    if (address !== null) return address;
  }
  return undefined;
}

/** True when `value` nests objects or arrays more than `max` levels deep (no recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The body as sent: parsed, the raw text when it is not JSON or nests too deep, or left out when too large. */
function sentBody(raw: string | undefined, parsed: unknown): Pick<RequestRecord, 'body' | 'bodyBytes'> {
  if (raw === undefined) return { body: parsed === undefined || nestedDeeperThan(parsed, BODY_DEPTH) ? null : parsed };
  const bytes = Buffer.byteLength(raw);
  if (bytes > BODY_LIMIT) return { body: null, bodyBytes: bytes };
  try {
    const body: unknown = raw.length === 0 ? null : JSON.parse(raw);
    return { body: nestedDeeperThan(body, BODY_DEPTH) ? raw : body };
  } catch {
    return { body: raw };
  }
}

/** The query of a request that has none: copied on read like any other. */
const EMPTY_QUERY: Record<string, unknown> = Object.freeze({});

const UNLOGGED = /^\/(sim|docs|openapi\.json|ui)(\/|\?|$)/;

export function requestLogHooks(log: RequestLog, state: GatewayState): Required<Pick<WsHooks, 'afterRpc'>> {
  return {
    afterRpc: (call) => {
      // A frame past BODY_LIMIT is not kept (it may be 1 MB): its size stands in for the body's.
      const frameBytes = call.frame.length * 3 <= BODY_LIMIT ? call.frame.length : Buffer.byteLength(call.frame);
      const kept = frameBytes <= BODY_LIMIT;
      addDeferred(log, state.exchange.clock(), 'ws', call.type === 'post' ? 'POST' : call.type === 'get' ? 'GET' : call.type.toUpperCase(), call.method, undefined, call.status, ownerOf(state, call.apiKey), undefined, undefined, kept ? call.frame : undefined, kept ? undefined : frameBytes);
    },
  };
}

const ADDRESS = Type.String({ pattern: '^(0x|0X)?[0-9a-fA-F]{40}$' });

/**
 * Records REST requests and serves GET /sim/journal. The record is taken in an onSend hook, with
 * the reply's final status (registered after the gateway's commit hook, which may turn it into a
 * 503): an onResponse hook made fastify add and remove a 'finish' and an 'error' listener on
 * every response and read the clock twice.
 */
export function registerRequestLog(app: FastifyInstance, log: RequestLog, state: GatewayState): void {
  app.addHook('onSend', (req: FastifyRequest, reply, payload, done) => {
    // The matched route decides (a `/%73im/...` target is a /sim route too), else the target; a
    // target under /v1/ can only match a /v1 route, logged without reading routeOptions.
    const url = req.url;
    if ((url.startsWith('/v1/') || !UNLOGGED.test(req.routeOptions.url ?? url)) && req.headers[CONSOLE_HEADER] === undefined) {
      const raw = (req as FastifyRequest & { rawBody?: string }).rawBody;
      // A record holds the raw text, or the parsed body when there is none, and neither past
      // BODY_LIMIT: 1,000 records of 1 MB bodies (and their parsed trees) outlived the requests.
      const bytes = raw === undefined ? 0 : raw.length * 3 <= BODY_LIMIT ? raw.length : Buffer.byteLength(raw);
      const kept = bytes <= BODY_LIMIT;
      const at = url.indexOf('?');
      addDeferred(log, state.exchange.clock(), 'rest', req.method, at < 0 ? url : url.slice(0, at), (req.query ?? EMPTY_QUERY) as Record<string, unknown>, reply.statusCode, ownerOf(state, req.headers['x-api-key']), kept ? raw : undefined, raw === undefined ? req.body : undefined, undefined, kept ? undefined : bytes);
    }
    done(null, payload);
  });

  // Registered as a plugin so that the OpenAPI document lists it.
  void app.register(async (sim) => {
    sim.get('/sim/journal', {
      schema: {
        description: 'The requests perpsim received (REST and WebSocket RPC), newest first.',
        querystring: Type.Object({ address: Type.Optional(ADDRESS), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
      },
    }, async (req) => {
      const query = req.query as { address?: string; limit?: number };
      const address = query.address === undefined ? undefined : (normalizeAddress(query.address) ?? undefined);
      // received above capacity: older requests have left the ring.
      return { requests: listRecords(log, query.limit ?? 100, address), received: log.count, capacity: log.size };
    });
  });
}
