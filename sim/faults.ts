/**
 * Fault injection (`/sim/faults`): what a bot's test suite uses to see how the bot copes with a
 * venue that misbehaves — slow routes, Transmission errors (502), 429s, WebSocket connections
 * closed (1001) or dropped, and a gap in the l2OrderbookUpdates sequence.
 *
 * Contract:
 * - Faults apply to the /v1 REST routes and the WebSocket (RPC calls, frames), never to /sim.
 *   A route rule also covers the operation's WebSocket RPC method, since both are one operation.
 * - POST replaces the whole set; DELETE clears it; GET shows it (a pending one-shot gap included).
 * - Seeded: every random decision comes from a PRNG stream of its own — one per route (shared by
 *   REST and WebSocket calls of that route) and two per WebSocket connection (frames, gaps), the
 *   n-th connection since the faults were set getting the n-th stream. So for one seed the n-th
 *   call of a route, or the n-th frame of the n-th connection, meets the same fault whatever else
 *   the simulator is doing. Each call draws the same number of values whether or not it faults.
 * - A REST fault runs after the request was validated (a Transmission error is "validated but
 *   not delivered") and before the handler: a faulted request never reaches the engine or the
 *   rate-limit counters.
 */
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { RATE_LIMIT_REASONS } from '../engine/spec.ts';
import { errorSourceOf } from '../gateway/http/app.ts';
import { fail, orderError, type Reply } from '../gateway/contract/errors.ts';
import { resolveMarket } from '../gateway/read-models/markets.ts';
import type { GatewayState, Operation } from '../gateway/contract/operation.ts';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { rateLimitedReply, type RateLimitReason, type RateLimitedSubject } from '../gateway/rate-limit/index.ts';
import type { Subscription } from '../gateway/ws/channels.ts';
import type { WsHooks } from '../gateway/ws/server.ts';
import { createPrng, type Prng } from './prng.ts';

const Rate = Type.Number({ minimum: 0, maximum: 1 });

const RouteFaultSchema = Type.Object(
  {
    latencyMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    transmissionErrorRate: Type.Optional(Rate),
    rateLimitRate: Type.Optional(Rate),
    retryAfterMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
    rateLimitReason: Type.Optional(Type.Union(RATE_LIMIT_REASONS.map((r) => Type.Literal(r)))),
  },
  { additionalProperties: false },
);

export const FaultsSchema = Type.Object(
  {
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffff_ffff })),
    routes: Type.Optional(Type.Record(Type.String({ minLength: 1 }), RouteFaultSchema)),
    ws: Type.Optional(
      Type.Object(
        {
          closeRate: Type.Optional(Rate),
          dropRate: Type.Optional(Rate),
          sequenceGapRate: Type.Optional(Rate),
          sequenceGap: Type.Optional(Type.Object({ market: Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 0 })]) }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type FaultsBody = Static<typeof FaultsSchema>;

export interface RouteFault {
  latencyMs: number;
  transmissionErrorRate: number;
  rateLimitRate: number;
  retryAfterMs: number;
  rateLimitReason: RateLimitReason;
}

/** The faults in force, with every default filled in (what GET /sim/faults shows). */
export interface FaultSettings {
  seed: number;
  /** By route path (`/v1/bbo/:market`), or `*` for every /v1 route without a rule of its own. */
  routes: Record<string, RouteFault>;
  ws: {
    closeRate: number;
    dropRate: number;
    sequenceGapRate: number;
    /** A one-shot gap still to come, by market display name. */
    sequenceGap?: { market: string };
  };
}

interface ConnectionStreams {
  frames: Prng;
  gaps: Prng;
}

export interface Faults {
  settings: FaultSettings | undefined;
  /** PRNG stream per route path. */
  routeStreams: Map<string, Prng>;
  connections: WeakMap<object, ConnectionStreams>;
  /** Connections seen since the faults were set (numbers their streams). */
  connectionCount: number;
  /** Subscriptions that have received a delta since they subscribed (a gap there is mid-stream). */
  streaming: WeakSet<Subscription>;
  /** The one-shot gap: the delta it withholds (its event's global sequence) once chosen. */
  gapSeq: number | undefined;
}

export function createFaults(): Faults {
  return { settings: undefined, routeStreams: new Map(), connections: new WeakMap(), connectionCount: 0, streaming: new WeakSet(), gapSeq: undefined };
}

const V1_PATHS: ReadonlySet<string> = new Set(OPERATIONS.filter((op) => op.path.startsWith('/v1/')).map((op) => op.path));
const OPERATION_BY_PATH: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [op.path, op] as const));

/** The route paths a selector names: an operation name, a route path (`:p` or `{p}`), or `*`. */
function routePaths(selector: string): string[] | string {
  if (selector === '*') return ['*'];
  const path = selector.replace(/\{(\w+)\}/g, ':$1');
  const named = OPERATIONS.filter((op) => op.name === selector || op.path === path).map((op) => op.path);
  if (named.length === 0) return `unknown route: ${selector} (an operation name such as placeOrder, a path such as /v1/bbo/:market, or *)`;
  const outside = named.find((p) => !V1_PATHS.has(p));
  if (outside !== undefined) return `faults apply to /v1 routes only: ${selector}`;
  return named;
}

/** Distinct, reproducible stream seeds: the faults' seed mixed with a string (FNV-1a). */
function streamSeed(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Validates a POST body against the exchange and puts it in force; returns an error message when refused. */
export function setFaults(faults: Faults, state: GatewayState, body: FaultsBody): string | undefined {
  const routes: Record<string, RouteFault> = {};
  for (const [selector, rule] of Object.entries(body.routes ?? {})) {
    const paths = routePaths(selector);
    if (typeof paths === 'string') return paths;
    for (const path of paths) {
      if (routes[path] !== undefined) return `route ${path} is named twice`;
      routes[path] = {
        latencyMs: rule.latencyMs ?? 0,
        transmissionErrorRate: rule.transmissionErrorRate ?? 0,
        rateLimitRate: rule.rateLimitRate ?? 0,
        retryAfterMs: rule.retryAfterMs ?? 1000,
        rateLimitReason: rule.rateLimitReason ?? 'ip',
      };
    }
  }
  const ws: FaultSettings['ws'] = { closeRate: body.ws?.closeRate ?? 0, dropRate: body.ws?.dropRate ?? 0, sequenceGapRate: body.ws?.sequenceGapRate ?? 0 };
  if (body.ws?.sequenceGap !== undefined) {
    const ms = resolveMarket(state.exchange, body.ws.sequenceGap.market);
    if (ms === undefined) return `unknown market: ${String(body.ws.sequenceGap.market)}`;
    ws.sequenceGap = { market: ms.spec.displayName };
  }
  reset(faults, { seed: body.seed ?? 1, routes, ws });
  return undefined;
}

export function clearFaults(faults: Faults): void {
  reset(faults, undefined);
}

/** New settings start every stream afresh; which subscriptions are streaming stays true. */
function reset(faults: Faults, settings: FaultSettings | undefined): void {
  Object.assign(faults, createFaults(), { settings, streaming: faults.streaming });
}

function routeStream(faults: Faults, path: string): Prng {
  let rng = faults.routeStreams.get(path);
  if (rng === undefined) {
    rng = createPrng(streamSeed(faults.settings!.seed, path));
    faults.routeStreams.set(path, rng);
  }
  return rng;
}

/** Who a 429 names: the order's clientId, a batch's clientIds, or nobody. */
function rateLimitSubject(op: Operation, body: unknown): RateLimitedSubject {
  const b = (body ?? {}) as Record<string, unknown>;
  const list = b.orders ?? b.cancels ?? b.modifies;
  if (op.name.startsWith('batch') && Array.isArray(list)) {
    return { kind: 'batch', clientIds: list.map((e) => (typeof (e as { clientId?: unknown })?.clientId === 'string' ? (e as { clientId: string }).clientId : '')) };
  }
  if (op.name === 'placeOrder' || op.name === 'modifyOrder' || op.name === 'cancelOrder') return { kind: 'order', clientId: typeof b.clientId === 'string' ? b.clientId : '' };
  return { kind: 'other' };
}

/**
 * The fault a call of `path` meets: waits the route's latency, then returns the injected reply,
 * or undefined when the call goes on.
 */
export async function routeFault(faults: Faults, path: string, body: unknown): Promise<Reply | undefined> {
  const settings = faults.settings;
  if (settings === undefined) return undefined;
  const key = settings.routes[path] !== undefined ? path : '*';
  const rule = settings.routes[key];
  const op = OPERATION_BY_PATH.get(path);
  if (rule === undefined || op === undefined || !V1_PATHS.has(path)) return undefined;
  const rng = routeStream(faults, path);
  const transmission = rng.next() < rule.transmissionErrorRate;
  const limited = rng.next() < rule.rateLimitRate;
  if (rule.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, rule.latencyMs));
  if (transmission) {
    const message = 'transmission error: the request was validated but could not be delivered to the matching engine; retry';
    const source = errorSourceOf(op);
    // errorType travels with errorSource (interface.md "Error body"): reads get the bare error.
    return source === undefined ? fail(502, message) : orderError(source, 'Transmission', message, 502);
  }
  if (limited) {
    const reply = rateLimitedReply(rule.rateLimitReason, rule.retryAfterMs, rateLimitSubject(op, body));
    return { status: reply.statusCode, body: reply.body, headers: { ...reply.headers } };
  }
  return undefined;
}

function connectionStreams(faults: Faults, connection: object): ConnectionStreams {
  let streams = faults.connections.get(connection);
  if (streams === undefined) {
    const n = ++faults.connectionCount;
    streams = { frames: createPrng(streamSeed(faults.settings!.seed, `ws/${n}/frames`)), gaps: createPrng(streamSeed(faults.settings!.seed, `ws/${n}/gaps`)) };
    faults.connections.set(connection, streams);
  }
  return streams;
}

/** The WebSocket side: RPC calls meet their route's faults; frames may close or drop the connection; deltas may be withheld. */
export function faultHooks(faults: Faults): Required<Pick<WsHooks, 'beforeRpc' | 'beforeSend' | 'withholdDelta'>> {
  return {
    beforeRpc: (operation, payload) => (faults.settings === undefined ? undefined : routeFault(faults, operation.path, payload)),
    beforeSend: (connection) => {
      const ws = faults.settings?.ws;
      if (ws === undefined || (ws.closeRate === 0 && ws.dropRate === 0)) return 'send';
      const rng = connectionStreams(faults, connection).frames;
      const close = rng.next() < ws.closeRate;
      const drop = rng.next() < ws.dropRate;
      return close ? 'close' : drop ? 'drop' : 'send';
    },
    withholdDelta: (connection, subscription, globalSeq) => {
      const ws = faults.settings?.ws;
      // Only a subscription already streaming can see a gap: the first delta after a snapshot may
      // legitimately skip sequences (interface.md "Sequencing").
      const midStream = faults.streaming.has(subscription);
      faults.streaming.add(subscription);
      if (ws === undefined || !midStream) return false;
      if (ws.sequenceGap !== undefined && subscription.market?.spec.displayName === ws.sequenceGap.market) {
        faults.gapSeq ??= globalSeq;
        if (faults.gapSeq === globalSeq) return true;
        // A later delta: the one-shot gap has been delivered everywhere it could be.
        delete ws.sequenceGap;
        faults.gapSeq = undefined;
      }
      return ws.sequenceGapRate > 0 && connectionStreams(faults, connection).gaps.next() < ws.sequenceGapRate;
    },
  };
}

const strictAjv = new Ajv({ allErrors: false, strict: false });

/** The REST side (a preHandler on every /v1 route) and the /sim/faults routes. */
export function registerFaults(app: FastifyInstance, faults: Faults, state: GatewayState): void {
  // Callback style: without faults a request passes straight through (no promise per request).
  app.addHook('preHandler', (req, reply, done) => {
    // Faults off first: fastify builds a 12-field object on every read of routeOptions.
    if (faults.settings === undefined) return done();
    const path = req.routeOptions.url;
    if (path === undefined || !V1_PATHS.has(path)) return done();
    routeFault(faults, path, req.body).then((injected) => {
      if (injected === undefined) return done();
      if (injected.headers !== undefined) reply.headers(injected.headers);
      void reply.code(injected.status).send(injected.body);
    }, done);
  });

  // Registered as a plugin so that the OpenAPI document lists them.
  void app.register(async (sim) => {
    sim.get('/sim/faults', { schema: { description: 'The faults in force (null when none).' } }, async () => ({ faults: faults.settings ?? null }));
    sim.post('/sim/faults', {
      schema: { description: 'Replace the faults in force (see README "Faults").', body: FaultsSchema },
      // Fastify's validator strips unknown fields; a misspelt fault must be refused, not ignored.
      validatorCompiler: ({ schema }) => strictAjv.compile(schema),
    }, async (req, reply) => {
      const error = setFaults(faults, state, req.body as FaultsBody);
      if (error !== undefined) return reply.code(400).send({ error });
      return { faults: faults.settings };
    });
    sim.delete('/sim/faults', { schema: { description: 'Clear every fault.' } }, async () => {
      clearFaults(faults);
      return { faults: null };
    });
  });
}
