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
import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { priceToTicks, type EngineLimits, type MarketDef, type RiskConfig } from '../engine/index.ts';
import { buildApp } from '../gateway/http/app.ts';
import { createVerifier } from '../gateway/auth/verifier.ts';
import { geoConfig } from '../gateway/http/geo.ts';
import { attachWebSocket, type SendBudget } from '../gateway/ws/server.ts';
import type { Exchange } from '../gateway/read-models/exchange.ts';
import { createGateway } from '../gateway/gateway.ts';
import type { GatewayState } from '../gateway/contract/operation.ts';
import { rateLimitConfig } from '../gateway/rate-limit/index.ts';
import { openPersistence, type Persistence, type PersistenceOptions } from '../gateway/persistence/index.ts';
import { advance, createClock, nowMicros, wallMicros, type ClockMode, type SimClock } from './clock.ts';
import { DEFAULT_AGENTS, type AgentParams } from './agents.ts';
import { registerLockstep } from './backtest/lockstep.ts';
import { registerControl } from './control.ts';
import { createFaults, faultHooks, registerFaults } from './faults.ts';
import { registerLedger } from './ledger.ts';
import { registerStateControl } from './state-control.ts';
import { registerUi } from './ui/serve.ts';
import type { WalkParams } from './feeds.ts';
import { startMarket, type FeedOptions } from './market.ts';
import { DEFAULT_PRICES, defaultMarkets } from './markets.ts';
import { replayMarket, rowTicks, type PriceRow } from './replay-feed.ts';
import { createReclaimer } from './reclaim.ts';
import { createRequestLog, registerRequestLog, requestLogHooks } from './request-log.ts';

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
  /** Liquidity agents' and price feeds' parameters over DEFAULT_AGENTS / the walk's defaults (feeds.ts walkParamsFor). */
  agentParams?: Partial<AgentParams>;
  walk?: Partial<WalkParams>;
  /** Walk parameters of single markets, by display name. */
  walkByMarket?: Record<string, Partial<WalkParams>>;
  /** Recorded prices replayed instead of the walk, by market display name (replay-feed.ts). */
  replay?: Record<string, readonly PriceRow[]>;
  /** Requests kept for GET /sim/journal (default REQUEST_LOG_DEFAULT_SIZE). */
  requestLogSize?: number;
  /** The built web console served at /ui (default: sim/ui/serve.ts defaultUiDirs()). */
  uiDir?: string;
  /** The WebSocket's per-connection send budget for slow consumers (gateway/ws/server.ts DEFAULT_SEND_BUDGET). */
  wsSendBudget?: Partial<SendBudget>;
  /** Lockstep virtual time (sim/backtest/lockstep.ts): the step in ms; needs clock 'virtual'. */
  lockstepStepMs?: number;
  /** Where startServer logs its start line; silent when absent (tests stay quiet). */
  logger?: Logger;
  /**
   * Threads that verify signatures off the event loop (gateway/auth/verifier.ts); 0 verifies
   * inline. Default: one per core but the event loop's, at least one.
   */
  verifyThreads?: number;
  /** The SQLite file holding the state; absent: in memory (nothing survives a restart). */
  db?: string;
  /** Journal and snapshot settings of `db` (gateway/persistence/). */
  persistence?: Omit<PersistenceOptions, 'file'>;
  /**
   * Called once when `db` refuses a write (disk full, I/O error): the clock and the simulated
   * market have stopped and every reply from then on is 503; the caller stops the server
   * (sim/main.ts prints how to recover and exits 1).
   */
  onStorageFailure?: (err: Error) => void;
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
  const state = createGateway({
    engine: config,
    clock: () => nowMicros(clock),
    config: { service: 'api-gateway', version: options.version ?? 'perpsim-0.1.0', auth: options.auth ?? true, rateLimit: rateLimitConfig({ enabled: options.rateLimits ?? true }), geo: geoConfig(options.geoBlocked ?? []) },
    clocks: () => ({ wallNs: BigInt(wallMicros()) * 1000n, simNs: BigInt(nowMicros(clock)) * 1000n }),
    nowMs: () => Math.floor(wallMicros() / 1000),
    verifier: createVerifier({ threads: options.verifyThreads ?? Math.max(1, availableParallelism() - 1) }),
  });
  // Only a file makes replies wait: in memory nothing is pending, and the wait was a promise hop per reply.
  if (persistence.file !== undefined) state.committed = () => persistence.committed();
  const exchange = state.exchange;
  const app = buildApp(state);
  const faults = createFaults();
  const requestLog = createRequestLog(options.requestLogSize);
  // After a mass close of sockets, one memory-reducing GC gives their pages back (sim/reclaim.ts).
  const reclaimer = createReclaimer({ onRun: (ms) => logger.info({ gcMs: Math.round(ms) }, 'perpsim: memory reclaimed after a mass close of WebSocket connections') });
  const ws = attachWebSocket(app, state, {
    hooks: { ...faultHooks(faults), ...requestLogHooks(requestLog, state) },
    ...(options.wsSendBudget && { sendBudget: options.wsSendBudget }),
    massClose: { onClose: () => reclaimer.request() },
  });
  registerControl(app, { state, clock, token: options.controlToken });
  registerFaults(app, faults, state);
  registerRequestLog(app, requestLog, state);
  registerUi(app, { dir: options.uiDir, controlToken: options.controlToken !== undefined });
  registerLedger(app, state);
  const prices = options.prices ?? DEFAULT_PRICES;
  // A recorded file is the market's price source from the start: its first row is the opening price.
  const replays = new Map<number, readonly PriceRow[]>();
  for (const [name, rows] of Object.entries(options.replay ?? {})) {
    const market = replayMarket(config.markets, name);
    if (typeof market === 'string') throw new Error(market);
    if (rows.length === 0) throw new Error(`price file for ${market.displayName} has no rows`);
    replays.set(market.id, rows);
  }
  const seed = (): void => {
    for (const ms of exchange.engine.markets.values()) {
      const text = prices[ms.spec.displayName];
      const ticks = text === undefined ? null : priceToTicks(ms.spec, text);
      if (ticks !== null && ms.spec.status === 'ONLINE') exchange.submit({ type: 'setOraclePrice', marketId: ms.spec.id, price: ticks });
    }
    for (const [marketId, rows] of replays) {
      exchange.submit({ type: 'setOraclePrice', marketId, price: rowTicks(exchange.engine.markets.get(marketId)!.spec, rows[0]!.price) });
    }
  };
  const recovery = persistence.attach(state);
  if (persistence.initialised === 'empty') logger.warn({ db: persistence.file }, 'perpsim: the --db file was empty (0 bytes); initialising a new exchange in it');
  else if (persistence.initialised === 'absent') logger.info({ db: persistence.file }, 'perpsim: new --db file; initialising a new exchange in it');
  const behind = exchange.engine.time - nowMicros(clock);
  if (behind > 0) advance(clock, behind);
  // The hash walks the whole state: only when someone reads the log.
  if (recovery.recovered && logger.isLevelEnabled('info')) logger.info({ db: persistence.file, snapshotSeq: recovery.snapshotSeq, replayed: recovery.replayed, stateHash: persistence.hash() }, 'perpsim state recovered');
  if (!recovery.recovered) seed();
  const feeds: FeedOptions = { seed: options.seed ?? 1, feedMs: options.feedMs ?? 1000, walk: options.walk ?? {}, walkByMarket: options.walkByMarket ?? {}, replays };
  const startMarketNow = (): ((now: number) => void) | undefined =>
    options.agents === false ? undefined : startMarket(exchange, feeds, { ...DEFAULT_AGENTS, ...options.agentParams });
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
  if (options.lockstepStepMs !== undefined) registerLockstep(app, { exchange, clock, stepMs: options.lockstepStepMs, market: market === undefined ? undefined : (now) => market?.(now) });
  const timer = setInterval(() => {
    if (clock.mode === 'virtual') return;
    exchange.submit({ type: 'advanceTime' });
    market?.(nowMicros(clock));
  }, options.tickMs ?? 100);
  timer.unref();
  persistence.onFailure = (err) => {
    clearInterval(timer);
    options.onStorageFailure?.(err);
  };
  return {
    app,
    state,
    exchange,
    clock,
    persistence,
    // The verification threads stop last (startServer's close): requests in flight still need them.
    stop: () => {
      reclaimer.close();
      clearInterval(timer);
      ws.close();
    },
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
    void built.state.verifier?.close();
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
      // Requests in flight complete; later ones on open keep-alive connections get fastify's 503
      // (return503OnClosing) with `Connection: close`. A connection busy when the close began is
      // idle only after its reply, and fastify closes idle connections once, at the start: sweep
      // them until the server has closed, or a keep-alive client holds the stop for 72 s.
      const sweep = setInterval(() => built.app.server.closeIdleConnections(), 20);
      try {
        await built.app.close();
      } finally {
        clearInterval(sweep);
      }
      await built.state.verifier?.close();
      built.persistence.close();
      // After a write failure the state in memory is ahead of the file: no hash to compare.
      if (built.persistence.file !== undefined && built.persistence.failure === undefined && logger.isLevelEnabled('info')) logger.info({ db: built.persistence.file, stateHash: built.persistence.hash() }, 'perpsim stopped');
    },
  };
}
