/**
 * `perpsim backtest`, `perpsim record` and `perpsim convert`: the command-line faces of
 * Backtest, the recorder and the binary converter.
 *
 * backtest: loads the strategy module (an ESM file, TypeScript through tsx, default-exporting a
 * strategy or a factory), runs it, writes summary.json and report.html to --out, and shows
 * progress on stderr — a live bar on a TTY (events, simulated time, events/s, ETA), plain
 * lines otherwise. Wall-clock figures appear only in the progress output, never in the outputs,
 * which stay byte-identical between identical runs.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import cliProgress from 'cli-progress';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { compileMarket } from '../../engine/index.ts';
import { defaultMarkets } from '../markets.ts';
import { Backtest } from './backtest.ts';
import { convertToBinary, headerMarkets } from './data-format.ts';
import type { LatencySpec } from './latency.ts';
import { recordMarketData } from './record.ts';
import { cents } from './report.ts';
import { writeOutputs } from './summary.ts';
import type { BacktestConfig, Progress, StrategyModule } from './types.ts';

/** A time option: unix µs, or an ISO 8601 date. */
export function parseTime(text: string): number {
  if (/^\d{13,17}$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('expected unix microseconds or an ISO 8601 date, e.g. 2025-01-01T00:00:00Z.');
  return ms * 1000;
}

export function latency(text: string): LatencySpec {
  if (text === 'recorded') return { kind: 'recorded' };
  const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (range !== null) return { kind: 'uniform', minMs: Number(range[1]), maxMs: Number(range[2]) };
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected milliseconds (5), a uniform range (2-8) or "recorded".');
  return { kind: 'constant', ms: n };
}

export function seedOf(text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new InvalidArgumentError('expected a non-negative integer.');
  return Number(text);
}

export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (match === null) throw new InvalidArgumentError('expected a duration such as 500ms, 30s, 10m or 2h.');
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's']!;
  return Number(match[1]) * unit;
}

interface BacktestFlags {
  data: string;
  from?: number;
  to?: number;
  seed: number;
  out: string;
  markets?: string;
  balance?: string;
  queue: 'conservative' | 'probabilistic';
  orderLatency?: LatencySpec;
  cancelLatency?: LatencySpec;
  feedLatency?: LatencySpec;
  sampleMs?: number;
  progress?: boolean;
}

/** Loads a strategy module's default export (a strategy or a factory). */
export async function loadStrategy(file: string): Promise<StrategyModule> {
  const module = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  const strategy = module.default;
  if (strategy === undefined || (typeof strategy !== 'object' && typeof strategy !== 'function') || strategy === null) {
    throw new Error(`${file} must default-export a strategy object or a factory returning one`);
  }
  return strategy as StrategyModule;
}

function formatTime(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().replace('.000Z', 'Z');
}

/** Progress on stderr: a bar on a TTY, one plain line per report otherwise. */
function progressReporter(tty: boolean): (p: Progress) => void {
  const started = performance.now();
  const rate = (p: Progress): number => Math.round(p.events / Math.max(1e-3, (performance.now() - started) / 1000));
  const eta = (p: Progress): number | undefined => {
    if (p.fraction === undefined || p.fraction <= 0) return undefined;
    return ((performance.now() - started) / 1000) * (1 / p.fraction - 1);
  };
  if (!tty) {
    return (p) => {
      const left = eta(p);
      process.stderr.write(`progress events=${p.events} simTime=${formatTime(p.time)} eventsPerSec=${rate(p)} eta=${left === undefined ? '?' : `${left.toFixed(0)}s`}${p.done ? ' done' : ''}\n`);
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: '{bar} {percentage}% | {events} events | {simTime} | {rate} ev/s | ETA {eta_formatted}', stream: process.stderr, hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1000, 0, { events: 0, simTime: '', rate: 0 });
  return (p) => {
    bar.update(Math.round((p.done ? 1 : p.fraction ?? 0) * 1000), { events: p.events, simTime: formatTime(p.time), rate: rate(p) });
    if (p.done) bar.stop();
  };
}

export async function runBacktestCommand(strategyFile: string, flags: BacktestFlags): Promise<void> {
  const strategy = await loadStrategy(strategyFile);
  const config: BacktestConfig = {
    data: flags.data === 'sim' ? 'sim' : { file: flags.data },
    seed: flags.seed,
    queueModel: flags.queue,
    onProgress: progressReporter(flags.progress ?? process.stderr.isTTY === true),
  };
  if (flags.markets !== undefined) config.markets = flags.markets.split(',');
  if (flags.balance !== undefined) config.balance = flags.balance;
  if (flags.from !== undefined) config.from = flags.from;
  if (flags.to !== undefined) config.to = flags.to;
  if (flags.sampleMs !== undefined) config.sampleMs = flags.sampleMs;
  config.latency = { order: flags.orderLatency, cancel: flags.cancelLatency, feed: flags.feedLatency };
  const result = await new Backtest(config, strategy).run();
  const paths = writeOutputs(result, flags.out);
  const s = result.summary;
  process.stdout.write(`pnl ${cents(s.pnl.total)} USD (realized ${cents(s.pnl.realized)}, fees ${cents(s.pnl.fees)}), ${s.fills.total} fills, max drawdown ${cents(s.maxDrawdown)}, sharpe ${s.sharpe ?? `n/a (${s.unavailable.sharpe})`}\n${paths.summary}\n${paths.report}\n`);
}

/** Adds `backtest` and `record` to the perpsim command line. */
export function addBacktestCommands(program: Command): void {
  program
    .command('backtest <strategy>')
    .description('run a strategy (ESM module default-exporting a strategy or factory) against simulated or recorded data; writes summary.json and report.html')
    .requiredOption('--data <file|sim>', 'a recorded JSONL file (perpsim record) or its binary conversion (perpsim convert), or "sim" for the seeded simulator')
    .option('--from <time>', 'start: unix µs or ISO date (sim default 2025-01-01T00:00:00Z; files: their first event)', parseTime)
    .option('--to <time>', 'end, exclusive: unix µs or ISO date (sim default: one hour after --from; files: their last event)', parseTime)
    .option('--seed <n>', 'seed of the simulator, latency draws and probabilistic queue model', seedOf, 1)
    .option('--out <dir>', 'where summary.json and report.html go', 'backtest-out')
    .option('--markets <names>', 'comma-separated market names (default BTC-USD,ETH-USD)')
    .option('--balance <usd>', 'starting balance in USD (default 100000)')
    .addOption(new Option('--queue <model>', 'queue position model for resting orders against replayed liquidity').choices(['conservative', 'probabilistic']).default('conservative'))
    .option('--order-latency <ms>', 'order latency: ms or a uniform range lo-hi (default 0)', latency)
    .option('--cancel-latency <ms>', 'cancel latency (default: the order latency)', latency)
    .option('--feed-latency <ms>', 'market data latency: ms, lo-hi, or "recorded" (the file\'s lts - ts)', latency)
    .option('--sample-ms <ms>', 'equity sampling period in simulated ms (default 60000)', (t) => durationMs(`${t}ms`))
    .option('--progress', 'force the progress bar even when stderr is not a TTY')
    .action(async (strategy: string, flags: BacktestFlags) => runBacktestCommand(strategy, flags));

  program
    .command('convert <jsonl> <bin>')
    .description('convert a recorded JSONL file to the binary format (engine units, read without parsing); backtest --data accepts either')
    .option('--markets <names>', "comma-separated market names (default: the file header's markets, else every default market)")
    .action((input: string, output: string, flags: { markets?: string }) => {
      const universe = defaultMarkets();
      const names = flags.markets?.split(',') ?? headerMarkets(input) ?? universe.map((d) => d.displayName);
      const specs = names.map((name) => {
        const def = universe.find((d) => d.displayName === name);
        if (def === undefined) throw new InvalidArgumentError(`unknown market ${name}`);
        return compileMarket(def);
      });
      const t0 = performance.now();
      const n = convertToBinary(input, output, specs);
      process.stdout.write(`${n} events of ${names.join(', ')} written to ${output} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    });

  program
    .command('record')
    .description("record a running perpsim's public market data (WebSocket) into the backtest JSONL format")
    .requiredOption('--url <ws url>', 'the WebSocket, e.g. ws://127.0.0.1:8080/v1/ws')
    .requiredOption('--out <file>', 'the JSONL file to write')
    .option('--markets <names>', 'comma-separated market names (default: every ONLINE market)')
    .option('--duration <d>', 'stop after this long (e.g. 30s, 10m); default: until interrupted', durationMs)
    .action(async (flags: { url: string; out: string; markets?: string; duration?: number }) => {
      const recorder = await recordMarketData({ url: flags.url, out: flags.out, markets: flags.markets?.split(',') });
      const stop = (): void => void recorder.stop().then((n) => process.stdout.write(`${n} events written to ${flags.out}\n`));
      if (flags.duration !== undefined) setTimeout(stop, flags.duration);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await recorder.done;
    });
}
