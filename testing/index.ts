/**
 * perpsim/testing: a whole exchange inside a test suite.
 *
 * @example
 * const ex = await startExchange({ clock: 'virtual', agents: false });
 * const bot = ex.client({ address, key });          // a perpsim/client Client bound to it
 * await ex.sim.registerApiKey(address, key.publicKey);
 * await ex.sim.deposit(address, '10000');
 * // … the bot under test talks to ex.url / ex.wsUrl …
 * await ex.close();
 *
 * Contract: `startExchange` builds the same server as `perpsim serve` (sim/server.ts) in this
 * process, listening on a free loopback port, state in memory unless `db` names a file. Each call
 * builds its own clock, engine, key registry, feeds and sockets: several exchanges in one process
 * share nothing. `close()` closes the clients made by `client()`, the WebSocket server, the HTTP
 * server, the verification threads and the clock's timer; after it nothing of the exchange keeps
 * the process alive. Options are checked before anything starts: a bad one rejects with an
 * error naming it.
 */
import { Type } from 'typebox';
import { Client, type ClientOptions, type SimControl } from '../client/index.ts';
import { ConfigError, loadConfig, parseConfig, schemaChecker, type SimConfig } from '../sim/config.ts';
import { configOptions } from '../sim/serve-options.ts';
import { startServer, type ServerOptions } from '../sim/server.ts';

export interface ExchangeOptions {
  /** Seed of the price feeds and liquidity agents (default: the config's, else 1). */
  seed?: number;
  /**
   * The `--config` file's content (an object, checked the same way) or its path: markets,
   * prices, feeTiers, agents, feeds, limits, geo.
   */
  config?: string | Record<string, unknown>;
  /** 'realtime' (default), 'accelerated' (× `speed`) or 'virtual' (moved only by `sim.advanceClock`). */
  clock?: 'realtime' | 'accelerated' | 'virtual';
  speed?: number;
  /** Price feeds and liquidity agents (default true); false: an empty book and fixed oracle prices. */
  agents?: boolean;
  /** Signature checks (default true). */
  auth?: boolean;
  /** The venue's rate limits (default true). */
  rateLimits?: boolean;
  /** Require `Authorization: Bearer <token>` on /sim (`sim` and `client()` send it). */
  controlToken?: string;
  /** A SQLite file holding the state (default: in memory). */
  db?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Signature-verification threads (default 0: inline, no thread to start or stop per exchange). */
  verifyThreads?: number;
  /** Recorded price files replayed as oracles, by market: `{ 'BTC-USD': 'btc.csv' }`. */
  pricesFiles?: Record<string, string>;
  /** Refuse state-changing requests from these countries (X-Perpsim-Country header). */
  geoBlock?: string[];
  /** Requests kept for GET /sim/journal. */
  requestLogSize?: number;
  /** With clock 'virtual': lockstep steps of this many ms (/sim/lockstep). */
  lockstep?: number;
}

export interface RunningExchange {
  /** The REST base URL, e.g. http://127.0.0.1:41234 (the interface's paths are under /v1). */
  readonly url: string;
  /** The WebSocket URL, e.g. ws://127.0.0.1:41234/v1/ws. */
  readonly wsUrl: string;
  readonly port: number;
  /** perpsim's control API (/sim): deposits, keys, oracle prices, funding, halts, the clock, snapshots and reset. */
  readonly sim: SimControl;
  /** A perpsim/client Client bound to this exchange (closed by `close()`). */
  client(options?: Omit<ClientOptions, 'baseUrl'>): Client;
  /** Stops everything this exchange started; resolves when it is all closed. Idempotent. */
  close(): Promise<void>;
}

const Options = Type.Object(
  {
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    config: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Object({})])),
    clock: Type.Optional(Type.Enum(['realtime', 'accelerated', 'virtual'])),
    speed: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    agents: Type.Optional(Type.Boolean()),
    auth: Type.Optional(Type.Boolean()),
    rateLimits: Type.Optional(Type.Boolean()),
    controlToken: Type.Optional(Type.String({ minLength: 1 })),
    db: Type.Optional(Type.String({ minLength: 1 })),
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535 })),
    verifyThreads: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
    pricesFiles: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1 }))),
    geoBlock: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }))),
    requestLogSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    lockstep: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400_000 })),
  },
  { additionalProperties: false },
);
const optionProblems = schemaChecker(Options);

/** An option startExchange refuses; `problems` name each bad option. */
export class ExchangeOptionsError extends Error {
  constructor(readonly problems: string[]) {
    super(`startExchange: invalid options:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ExchangeOptionsError';
  }
}

function readConfig(config: ExchangeOptions['config']): SimConfig {
  try {
    if (config === undefined) return {};
    return typeof config === 'string' ? loadConfig(config) : parseConfig(config, 'config');
  } catch (err) {
    if (err instanceof ConfigError) throw new ExchangeOptionsError(err.problems.map((p) => `config${typeof config === 'string' ? ` (${config})` : ''}: ${p}`));
    throw err;
  }
}

function serverOptions(options: ExchangeOptions): ServerOptions {
  const problems = optionProblems(options);
  if (options.lockstep !== undefined && options.clock !== 'virtual') problems.push("lockstep: needs clock 'virtual'");
  if (problems.length > 0) throw new ExchangeOptionsError(problems);
  let fromConfig: ServerOptions;
  try {
    fromConfig = configOptions(readConfig(options.config), options.pricesFiles);
  } catch (err) {
    if (err instanceof ExchangeOptionsError) throw err;
    throw new ExchangeOptionsError([`pricesFiles: ${(err as Error).message}`]);
  }
  const server: ServerOptions = {
    ...fromConfig,
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    clock: options.clock ?? 'realtime',
    speed: options.speed ?? 1,
    auth: options.auth ?? true,
    rateLimits: options.rateLimits ?? true,
    agents: options.agents ?? true,
    verifyThreads: options.verifyThreads ?? 0,
  };
  if (options.seed !== undefined) server.seed = options.seed;
  if (options.geoBlock !== undefined) server.geoBlocked = options.geoBlock;
  if (options.controlToken !== undefined) server.controlToken = options.controlToken;
  if (options.requestLogSize !== undefined) server.requestLogSize = options.requestLogSize;
  if (options.lockstep !== undefined) server.lockstepStepMs = options.lockstep;
  if (options.db !== undefined) server.db = options.db;
  return server;
}

/** Starts an exchange in this process (see the module's contract). */
export async function startExchange(options: ExchangeOptions = {}): Promise<RunningExchange> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new ExchangeOptionsError(['(options): must be an object']);
  const server = await startServer(serverOptions(options));
  const address = new URL(server.url);
  const url = `${address.protocol}//${address.host}`;
  const wsUrl = `ws://${address.host}/v1/ws`;
  const base: ClientOptions = { baseUrl: url, wsUrl, ...(options.controlToken !== undefined && { controlToken: options.controlToken }) };
  const clients = new Set<Client>();
  const control = new Client(base);
  let closing: Promise<void> | undefined;
  return {
    url,
    wsUrl,
    port: Number(address.port),
    sim: control.sim,
    client(clientOptions = {}) {
      if (closing !== undefined) throw new Error('startExchange: client() after close()');
      const client = new Client({ ...base, ...clientOptions });
      clients.add(client);
      return client;
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...clients, control].map((c) => c.close()));
        await server.close();
        await server.state.verifier?.close();
      })();
      return closing;
    },
  };
}
