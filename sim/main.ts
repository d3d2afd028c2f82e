/**
 * The `perpsim` command line. `perpsim serve` (also the default command, and `npm start`) runs
 * the exchange; `perpsim --help` / `perpsim serve --help` explain every option.
 *
 * Precedence: command-line options, then PORT (for --port), then the --config file, then the
 * built-in defaults. Bad options, bad config files and database files perpsim refuses (newer
 * schema, corrupt, not writable, in use) exit with code 2 and a message on stderr; other
 * failures while starting (e.g. the port is taken) exit with 1, and so does a journal commit
 * failure while running (the state in memory would be ahead of the file).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { pino } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { addBacktestCommands } from './backtest/cli.ts';
import { addSweepCommands, SweepUsageError } from './sweep/cli.ts';
import { PersistenceError, storageFailureMessage } from '../gateway/persistence/index.ts';
import { ConfigError, loadConfig, type SimConfig } from './config.ts';
import { loadCommand } from './load.ts';
import { REQUEST_LOG_DEFAULT_SIZE } from './request-log.ts';
import { configOptions, UsageError } from './serve-options.ts';
import { startServer, type ServerOptions } from './server.ts';

interface ServeFlags {
  host: string;
  port?: number;
  db: string;
  memory?: boolean;
  sync: 'normal' | 'full';
  snapshotEvery?: number;
  keepJournal?: boolean;
  historyRetentionDays?: number;
  seed?: number;
  config?: string;
  clock: NonNullable<ServerOptions['clock']>;
  speed: number;
  agents: boolean;
  auth: boolean;
  rateLimits: boolean;
  controlToken?: string;
  geoBlock?: string[];
  verifyThreads?: number;
  pricesFile?: Record<string, string>;
  requestLogSize: number;
  logLevel: string;
  lockstep?: number;
  dbMaxPages?: number;
}

function integer(min: number, max: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

function positive(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number.');
  return n;
}

function countries(text: string): string[] {
  const codes = text.split(',').filter((c) => c.length > 0);
  if (!codes.every((c) => /^[A-Z]{2}$/.test(c))) throw new InvalidArgumentError('expected comma-separated two-letter country codes, e.g. US,CA.');
  return codes;
}

/** `MARKET=FILE`, repeatable: collected into a map (a later one for the same market wins). */
function priceFile(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw new InvalidArgumentError('expected MARKET=FILE, e.g. BTC-USD=btc.csv.');
  return { ...previous, [text.slice(0, eq)]: text.slice(eq + 1) };
}

function toServerOptions(flags: ServeFlags, env: NodeJS.ProcessEnv): ServerOptions {
  let port = flags.port;
  if (port === undefined && env.PORT !== undefined) {
    try {
      port = integer(0, 65_535)(env.PORT);
    } catch {
      throw new UsageError(`PORT=${env.PORT} is not a port number`);
    }
  }
  let config: SimConfig = {};
  if (flags.config !== undefined) {
    try {
      config = loadConfig(flags.config);
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message);
      throw err;
    }
  }
  const options: ServerOptions = {
    ...configOptions(config, flags.pricesFile),
    host: flags.host,
    port: port ?? 8080,
    clock: flags.clock,
    speed: flags.speed,
    auth: flags.auth,
    rateLimits: flags.rateLimits,
    agents: flags.agents,
    logger: pino({ level: flags.logLevel }),
  };
  if (flags.memory !== true) {
    options.db = flags.db;
    options.persistence = { sync: flags.sync, ...(flags.snapshotEvery !== undefined && { snapshotEveryRecords: flags.snapshotEvery }), ...(flags.keepJournal === true && { keepJournal: true }), ...(flags.historyRetentionDays !== undefined && { historyRetentionDays: flags.historyRetentionDays }), ...(flags.dbMaxPages !== undefined && { maxPages: flags.dbMaxPages }) };
  }
  options.requestLogSize = flags.requestLogSize;
  if (flags.seed !== undefined) options.seed = flags.seed;
  if (flags.geoBlock !== undefined) options.geoBlocked = flags.geoBlock;
  if (flags.controlToken !== undefined) options.controlToken = flags.controlToken;
  if (flags.verifyThreads !== undefined) options.verifyThreads = flags.verifyThreads;
  if (flags.lockstep !== undefined) {
    if (flags.clock !== 'virtual') throw new UsageError('--lockstep needs --clock virtual');
    options.lockstepStepMs = flags.lockstep;
  }
  return options;
}

async function serve(flags: ServeFlags): Promise<void> {
  const options = toServerOptions(flags, process.env);
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (code: number): void => {
    stopping ??= (server?.close() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  // A write the file refused: one line saying how to recover, then a clean stop (replies in
  // flight get 503), exit 1.
  options.onStorageFailure = (err) => {
    console.error(`perpsim: ${storageFailureMessage(flags.db, err)}`);
    stop(1);
  };
  try {
    server = await startServer(options);
  } catch (err) {
    if (err instanceof PersistenceError) throw new UsageError(err.message);
    throw err;
  }
  if (server.persistence.failure !== undefined) stop(1);
  const shutdown = (): void => stop(server?.persistence.failure === undefined ? 0 : 1);
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

function buildCli(): Command {
  const program = new Command('perpsim')
    .description('A simulated perpetual-futures exchange (REST + WebSocket) over a deterministic matching engine.')
    .version(pkg.version, '-v, --version', 'print the version')
    .exitOverride()
    // A usage error prints the usage of the command it concerns (subcommands inherit this).
    .showHelpAfterError();
  const serveCommand = program
    .command('serve', { isDefault: true })
    .description('run the exchange (the default command; `npm start`)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 picks a free one) [default: env PORT, else 8080]', integer(0, 65_535))
    .addOption(new Option('--db <file>', 'SQLite file holding the state: journal, snapshots, state images (created when absent)').default('perpsim.db').conflicts('memory'))
    .option('--memory', 'keep all state in memory instead (nothing survives a restart; for tests and backtests)')
    .addOption(new Option('--sync <mode>', 'normal: a kill -9 loses nothing acknowledged, a power loss may lose the last commits; full: an fsync per commit').choices(['normal', 'full']).default('normal'))
    .addOption(new Option('--db-max-pages <n>', 'cap the --db file at n SQLite pages (writes past it fail as on a full disk; for tests)').argParser(integer(1, 2 ** 31 - 1)).hideHelp())
    .option('--snapshot-every <records>', 'snapshot after this many journal records [default: 100000, or 5 minutes]', integer(1, Number.MAX_SAFE_INTEGER))
    .option('--keep-journal', 'keep the whole journal (a from-scratch replay stays possible) instead of pruning what two snapshots cover')
    .option('--history-retention-days <days>', 'days of orders, fills, trades, notifications and portfolio points kept in the --db history tables (funding, interest, transfers: at least 90; candle bars: at least 5,000 bars) [default: 30]', integer(1, 36_500))
    .option('--seed <n>', 'seed of the price feeds and liquidity agents [default: config feeds.seed, else 1]', integer(0, Number.MAX_SAFE_INTEGER))
    .option('--config <file>', 'JSON config file: markets, prices, feeTiers, agents, feeds, limits, geo (built-in defaults otherwise)')
    .addOption(new Option('--clock <mode>', 'realtime follows the wall clock; accelerated runs --speed times faster; virtual moves only via /sim/clock').choices(['realtime', 'accelerated', 'virtual']).default('realtime'))
    .option('--speed <n>', 'clock speed-up for --clock accelerated', positive, 1)
    .option('--no-agents', 'no price feeds and no liquidity agents (an empty book and fixed oracle prices)')
    .option('--no-auth', 'skip request signature checks (for bots under test)')
    .option('--no-rate-limits', 'turn the venue\'s rate limits off')
    .option('--control-token <token>', 'require "Authorization: Bearer <token>" on the /sim control API (which then accepts non-loopback callers)')
    .option('--verify-threads <n>', 'threads verifying signatures off the event loop; 0 verifies inline [default: cores - 1, at least 1]', integer(0, 64))
    .option('--prices-file <market=file>', 'replay a recorded price file (CSV or JSONL of time, price) as MARKET\'s oracle instead of the random walk; repeatable', priceFile)
    .option('--request-log-size <n>', 'requests kept for GET /sim/journal', integer(1, 1_000_000), REQUEST_LOG_DEFAULT_SIZE)
    .option('--geo-block <codes>', 'refuse state-changing requests from these countries (X-Perpsim-Country header), e.g. US,CA', countries)
    .option('--lockstep <stepMs>', 'with --clock virtual: advance the clock by stepMs only when every participant has acknowledged the step (/sim/lockstep)', integer(1, 86_400_000))
    .addOption(new Option('--log-level <level>', 'pino log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default(process.env.NODE_ENV === 'test' ? 'silent' : 'info'))
    .action(async (flags: ServeFlags) => serve(flags));
  // A word that is no command reaches the default command as an argument: say what it is.
  serveCommand.configureOutput({
    outputError: (text, write) => write(text.startsWith("error: too many arguments for 'serve'") && !process.argv.slice(2).includes('serve') ? `error: unknown command '${serveCommand.args[0]}' (commands: ${program.commands.map((c) => c.name()).join(', ')})\n` : text),
  });
  program.addCommand(loadCommand());
  addBacktestCommands(program);
  addSweepCommands(program);
  for (const command of program.commands) command.showHelpAfterError();
  // `perpsim --help` runs the root command, which only lists commands: show serve's options too.
  program.addHelpText('after', () => `\n${serveCommand.helpInformation()}`);
  return program;
}

try {
  await buildCli().parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2); // commander printed it
  const usage = err instanceof UsageError || err instanceof ConfigError || err instanceof SweepUsageError;
  console.error(`perpsim: ${(err as Error).message}`);
  process.exit(usage ? 2 : 1);
}
