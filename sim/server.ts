/**
 * perpsim as a running exchange: the engine behind the gateway, driven by the simulator's clock.
 *
 * `startServer` builds everything in-process — clock, exchange with the default markets (or the
 * options', e.g. from a --config file) and their starting oracle prices, the REST app and the
 * control API — and listens, logging one line to `options.logger` (silent by default). A timer steps
 * the engine's clock every `tickMs` so that expiries, dead man's switches and funding hours fire
 * without waiting for the next request (in virtual mode only /sim/clock moves time).
 *
 * With `db` the state lives in that SQLite file (gateway/persistence/): the file's engine
 * configuration wins over the options', a file with history is recovered (newest snapshot +
 * journal) instead of seeded, and the state hash is logged after recovery and at close. The
 * simulated clock never starts behind the recovered engine time.
 */
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { priceToTicks, type EngineLimits, type MarketDef, type RiskConfig } from '../engine/index.ts';
import { buildApp } from '../gateway/app.ts';
import { geoConfig } from '../gateway/geo.ts';
import { attachWebSocket } from '../gateway/ws/server.ts';
import { createExchange, type Exchange } from '../gateway/exchange.ts';
import { createKeyRegistry } from '../gateway/keys.ts';
import type { GatewayState } from '../gateway/operation.ts';
import { rateLimitConfig } from '../gateway/rate-limit/index.ts';
import { openPersistence, type Persistence, type PersistenceOptions } from '../gateway/persistence/index.ts';
import { advance, createClock, nowMicros, wallMicros, type ClockMode, type SimClock } from './clock.ts';
import { createAgents, DEFAULT_AGENTS, noise, requote, type AgentParams } from './agents.ts';
import { registerControl } from './control.ts';
import { registerStateControl } from './state-control.ts';
import { createWalk, DEFAULT_WALK, step, type WalkParams } from './feeds.ts';
import { DEFAULT_PRICES, defaultMarkets } from './markets.ts';

export interface ServerOptions {
  host?: string;
  port?: number;
  clock?: ClockMode;
  speed?: number;
  markets?: MarketDef[];
  prices?: Readonly<Record<string, string>>;
  auth?: boolean;
  rateLimits?: boolean;
  controlToken?: string;
  tickMs?: number;
  version?: string;
  /** ISO country codes whose state-changing requests are refused (X-Perpsim-Country header). */
  geoBlocked?: string[];
  /** Price feeds and liquidity agents (default on); their seed; the feed step in ms of sim time. */
  agents?: boolean;
  seed?: number;
  feedMs?: number;
  /** Engine parameters (fee tiers, funding, …) and limits; the engine's defaults fill the rest. */
  risk?: Partial<RiskConfig>;
  limits?: Partial<EngineLimits>;
  /** Liquidity agents' and price feeds' parameters over DEFAULT_AGENTS / DEFAULT_WALK. */
  agentParams?: Partial<AgentParams>;
  walk?: Partial<WalkParams>;
  /** Where startServer logs its start line; silent when absent (tests stay quiet). */
  logger?: Logger;
  /** The SQLite file holding the state; absent: in memory (nothing survives a restart). */
  db?: string;
  /** Journal and snapshot settings of `db` (gateway/persistence/). */
  persistence?: Omit<PersistenceOptions, 'file'>;
}

export interface Server {
  app: FastifyInstance;
  state: GatewayState;
  exchange: Exchange;
  clock: SimClock;
  persistence: Persistence;
  url: string;
  close(): Promise<void>;
}

export async function buildServer(options: ServerOptions = {}): Promise<Omit<Server, 'url' | 'close'> & { stop(): void }> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const persistence = openPersistence({ ...options.persistence, ...(options.db !== undefined && { file: options.db }) });
  try {
    return await assemble(options, persistence, logger);
  } catch (err) {
    persistence.close();
    throw err;
  }
}

async function assemble(options: ServerOptions, persistence: Persistence, logger: Logger): Promise<Omit<Server, 'url' | 'close'> & { stop(): void }> {
  const clock = createClock(options.clock ?? 'realtime', wallMicros(), options.speed ?? 1);
  const config = persistence.engineConfig({ markets: options.markets ?? defaultMarkets(), ...(options.risk && { risk: options.risk }), ...(options.limits && { limits: options.limits }) });
  const exchange = createExchange(config, () => nowMicros(clock));
  const state: GatewayState = {
    exchange,
    keys: createKeyRegistry(),
    config: { service: 'api-gateway', version: options.version ?? 'perpsim-0.1.0', auth: options.auth ?? true, rateLimit: rateLimitConfig({ enabled: options.rateLimits ?? true }), geo: geoConfig(options.geoBlocked ?? []) },
    clocks: () => ({ wallNs: BigInt(wallMicros()) * 1000n, simNs: BigInt(nowMicros(clock)) * 1000n }),
    nowMs: () => Math.floor(wallMicros() / 1000),
    ipBuckets: new Map(),
    pools: new Map(),
    replay: new Set(),
    committed: () => persistence.committed(),
  };
  const app = buildApp(state);
  const ws = attachWebSocket(app, state);
  registerControl(app, { state, clock, token: options.controlToken });
  const prices = options.prices ?? DEFAULT_PRICES;
  const seed = (): void => {
    for (const ms of exchange.engine.markets.values()) {
      const text = prices[ms.spec.displayName];
      const ticks = text === undefined ? null : priceToTicks(ms.spec, text);
      if (ticks !== null && ms.spec.status === 'ONLINE') exchange.submit({ type: 'setOraclePrice', marketId: ms.spec.id, price: ticks });
    }
  };
  const recovery = persistence.attach(state);
  const behind = exchange.engine.time - nowMicros(clock);
  if (behind > 0) advance(clock, behind);
  // The hash walks the whole state: only when someone reads the log.
  if (recovery.recovered && logger.isLevelEnabled('info')) logger.info({ db: persistence.file, snapshotSeq: recovery.snapshotSeq, replayed: recovery.replayed, stateHash: persistence.hash() }, 'perpsim state recovered');
  if (!recovery.recovered) seed();
  const startMarketNow = (): ((now: number) => void) | undefined =>
    options.agents === false ? undefined : startMarket(exchange, options.seed ?? 1, options.feedMs ?? 1000, { ...DEFAULT_AGENTS, ...options.agentParams }, { ...DEFAULT_WALK, ...options.walk });
  let market = startMarketNow();
  registerStateControl(app, {
    persistence,
    // The simulated market restarts from its seed on the state it finds (its walks and agents
    // hold the markets' prices and the agents' accounts).
    reset: () => {
      persistence.reset();
      seed();
      market = startMarketNow();
    },
    restored: () => {
      market = startMarketNow();
    },
  });
  const timer = setInterval(() => {
    if (clock.mode === 'virtual') return;
    exchange.submit({ type: 'advanceTime' });
    market?.(nowMicros(clock));
  }, options.tickMs ?? 100);
  timer.unref();
  return {
    app,
    state,
    exchange,
    clock,
    persistence,
    stop: () => {
      clearInterval(timer);
      ws.close();
    },
  };
}

/**
 * The simulated market: a random-walk oracle per ONLINE market and the liquidity agents. The
 * returned function catches up to `now` in whole feed steps (at most 50 per call, so an
 * accelerated clock degrades gracefully); the book is quoted at once.
 */
function startMarket(exchange: Exchange, seed: number, feedMs: number, agentParams: AgentParams, walkParams: WalkParams): (now: number) => void {
  const agents = createAgents(exchange, seed, agentParams);
  const walks = [...exchange.engine.markets.values()]
    .filter((ms) => ms.spec.status === 'ONLINE' && ms.oraclePrice > 0)
    .map((ms) => ({ ms, walk: createWalk(ms.spec, ms.oraclePrice, seed, walkParams) }));
  for (const { ms } of walks) requote(exchange, agents, ms);
  const stepUs = feedMs * 1000;
  let last = exchange.clock();
  return (now) => {
    let steps = Math.min(50, Math.floor((now - last) / stepUs));
    if (steps <= 0) return;
    last += steps * stepUs;
    while (steps-- > 0) {
      for (const { ms, walk } of walks) {
        exchange.submit({ type: 'setOraclePrice', marketId: ms.spec.id, price: step(walk, stepUs) });
        requote(exchange, agents, ms);
        noise(exchange, agents, ms);
      }
    }
  };
}

export async function startServer(options: ServerOptions = {}): Promise<Server> {
  const built = await buildServer(options);
  const logger = options.logger ?? pino({ level: 'silent' });
  let address: string;
  try {
    address = await built.app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8080 });
  } catch (err) {
    built.stop();
    built.persistence.close();
    throw err;
  }
  logger.info({ url: address, clock: built.clock.mode, speed: built.clock.speed, markets: built.exchange.engine.markets.size, agents: options.agents !== false, db: built.persistence.file ?? null }, 'perpsim listening');
  return {
    app: built.app,
    state: built.state,
    exchange: built.exchange,
    clock: built.clock,
    persistence: built.persistence,
    url: address,
    close: async () => {
      built.stop();
      await built.app.close();
      built.persistence.close();
      if (built.persistence.file !== undefined && logger.isLevelEnabled('info')) logger.info({ db: built.persistence.file, stateHash: built.persistence.hash() }, 'perpsim stopped');
    },
  };
}
