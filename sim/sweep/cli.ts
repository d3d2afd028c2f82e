/**
 * `perpsim sweep` and `perpsim worker`: the command-line faces of sweeps (sweep.ts) on local
 * threads (pool.ts) or a BullMQ queue (queue.ts).
 *
 * Progress goes to stderr — a cli-progress bar on a TTY (runs done, runs/s, ETA, best so far),
 * at most one plain line a second otherwise; wall-clock figures appear only there, never in the
 * outputs. Bad input (unknown parameter, empty grid, too many runs without --yes, unreachable
 * Redis) is a SweepUsageError: exit 2 before any run. Runs that fail are listed in the outputs
 * and make the exit code 1.
 */
import { availableParallelism } from 'node:os';
import cliProgress from 'cli-progress';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { durationMs, latency, parseTime, seedOf } from '../backtest/cli.ts';
import type { LatencySpec } from '../backtest/latency.ts';
import { cents } from '../backtest/report.ts';
import type { Summary } from '../backtest/summary.ts';
import { parseParamOption, readGrid, SweepUsageError, type Dimension, type Space } from './grid.ts';
import { METRICS, metricsOf, score, type Metric, type SweepPlan } from './rows.ts';
import type { Isolation, RunPool } from './pool.ts';
import type { BaseConfig, RunResult } from './run.ts';
import { cachedRun, planSweep, storeRun, writeSweepOutputs } from './sweep.ts';

// pool.ts (piscina) and queue.ts (BullMQ, ioredis) load only when a sweep runs: `perpsim serve` starts without them.
const DEFAULT_QUEUE_NAME = 'perpsim-sweep';
/** BullMQ's default lock: a worker's run is presumed dead this long after its last lock renewal. */
const DEFAULT_LOCK_MS = 30_000;

interface SweepFlags {
  data: string;
  grid?: string;
  param: [string, Dimension][];
  samples?: number;
  seed: number;
  yes?: boolean;
  workers: number;
  isolation: Isolation;
  out: string;
  rank: Metric;
  queue?: string;
  queueName: string;
  markets?: string;
  balance?: string;
  from?: number;
  to?: number;
  queueModel: 'conservative' | 'probabilistic';
  orderLatency?: LatencySpec;
  cancelLatency?: LatencySpec;
  feedLatency?: LatencySpec;
  sampleMs?: number;
  timerMs?: number;
  progress?: boolean;
}

function count(min: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer of at least ${min}.`);
    return n;
  };
}

function paramOption(text: string, previous: [string, Dimension][] = []): [string, Dimension][] {
  try {
    return [...previous, parseParamOption(text)];
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function baseConfig(flags: SweepFlags): BaseConfig {
  const base: BaseConfig = { queueModel: flags.queueModel };
  if (flags.markets !== undefined) base.markets = flags.markets.split(',');
  if (flags.balance !== undefined) base.balance = flags.balance;
  if (flags.from !== undefined) base.from = flags.from;
  if (flags.to !== undefined) base.to = flags.to;
  if (flags.sampleMs !== undefined) base.sampleMs = flags.sampleMs;
  if (flags.timerMs !== undefined) base.timerMs = flags.timerMs;
  const lat = { ...(flags.orderLatency && { order: flags.orderLatency }), ...(flags.cancelLatency && { cancel: flags.cancelLatency }), ...(flags.feedLatency && { feed: flags.feedLatency }) };
  if (Object.keys(lat).length > 0) base.latency = lat;
  return base;
}

/** Progress on stderr: runs done, runs/s, ETA, best so far. */
function sweepProgress(plan: SweepPlan, total: number, tty: boolean): { done(result: RunResult): void; stop(): void } {
  const started = performance.now();
  let finished = 0;
  let best: { score: number; text: string } | undefined;
  let lastLine = 0;
  const params = plan.names;
  const describe = (r: RunResult, s: Summary): string => {
    const task = plan.tasks.find((t) => t.key === r.key);
    const point = task === undefined ? '' : params.map((p) => `${p}=${p === 'seed' ? task.seed : String(task.params[p])}`).join(' ');
    const v = metricsOf(s)[plan.rankBy];
    const shown = typeof v === 'string' ? cents(v) : String(v);
    return `${plan.rankBy} ${shown} (${point})`;
  };
  const figures = (): { rate: number; eta: number } => {
    const secs = (performance.now() - started) / 1000;
    const rate = finished / Math.max(1e-3, secs);
    return { rate, eta: rate > 0 ? (total - finished) / rate : Infinity };
  };
  const bar = tty
    ? new cliProgress.SingleBar({ format: '{bar} {value}/{total} runs | {rate} runs/s | ETA {eta_formatted} | best {best}', stream: process.stderr, hideCursor: true, etaBuffer: 20, noTTYOutput: true, notTTYSchedule: 1000 }, cliProgress.Presets.shades_classic)
    : undefined;
  bar?.start(total, 0, { rate: '0', best: '-' });
  const line = (final: boolean): void => {
    const { rate, eta } = figures();
    process.stderr.write(`sweep runs=${finished}/${total} runsPerSec=${rate.toFixed(2)} eta=${Number.isFinite(eta) ? `${eta.toFixed(0)}s` : '?'} best=${best?.text ?? '-'}${final ? ' done' : ''}\n`);
  };
  return {
    done(result) {
      finished++;
      if (result.summaryJson !== undefined) {
        const summary = JSON.parse(result.summaryJson) as Summary;
        const s = score(metricsOf(summary), plan.rankBy);
        if (s !== null && (best === undefined || s > best.score)) best = { score: s, text: describe(result, summary) };
      }
      if (bar !== undefined) bar.update(finished, { rate: figures().rate.toFixed(2), best: best?.text ?? '-' });
      else if (performance.now() - lastLine >= 1000 && finished < total) {
        lastLine = performance.now();
        line(false);
      }
    },
    stop() {
      if (bar !== undefined) bar.stop();
      else line(true);
    },
  };
}

export async function runSweepCommand(strategy: string, flags: SweepFlags): Promise<void> {
  const space: Space = flags.grid === undefined ? {} : readGrid(flags.grid);
  for (const [name, d] of flags.param) space[name] = d;
  // Local threads start as soon as the run count is known: they load the backtester and the
  // strategy while this thread hashes the data file and looks for finished runs.
  const createRunPool = flags.queue === undefined ? (await import('./pool.ts')).createRunPool : undefined;
  let pool: RunPool | undefined;
  const closePool = async (): Promise<void> => {
    const p = pool;
    pool = undefined;
    await p?.close();
  };
  try {
    const plan = await planSweep(
      { strategy, data: flags.data, space, ...(flags.samples !== undefined && { samples: flags.samples }), seed: flags.seed, yes: flags.yes === true, base: baseConfig(flags), rankBy: flags.rank },
      { expanded: (strategyFile, runs) => void (pool = createRunPool?.(Math.min(flags.workers, runs), { preload: [strategyFile], isolation: flags.isolation })) },
    );
    const results = new Map<string, RunResult>();
    // Runs already in --out are reused; identical points run once.
    const todo = new Map<string, (typeof plan.tasks)[number]>();
    for (const task of plan.tasks) {
      if (results.has(task.key) || todo.has(task.key)) continue;
      const cached = cachedRun(flags.out, task.key);
      if (cached !== undefined) results.set(task.key, cached);
      else todo.set(task.key, task);
    }
    const reusedLocally = results.size;
    const progress = sweepProgress(plan, todo.size, flags.progress ?? process.stderr.isTTY === true);
    const collect = (r: RunResult): void => {
      results.set(r.key, r);
      storeRun(flags.out, r);
      progress.done(r);
    };
    let reusedFromQueue = 0;
    try {
      if (flags.queue !== undefined) {
        const { runOnQueue } = await import('./queue.ts');
        reusedFromQueue = (await runOnQueue(flags.queue, flags.queueName, [...todo.values()], collect)).reused;
      } else if (todo.size > 0) {
        const local = pool;
        if (local === undefined) throw new Error('no thread pool for the local runs');
        await Promise.all([...todo.values()].map(async (task) => collect(await local.run(task))));
      }
      await closePool();
    } finally {
      progress.stop();
    }
    const { json, csv, html, rows } = writeSweepOutputs(plan, results, flags.out);
    const failed = rows.filter((r) => r.status === 'failed');
    const reused = reusedLocally + reusedFromQueue;
    process.stdout.write(`${rows.length} runs${reused > 0 ? ` (${reused} reused)` : ''}, ${failed.length} failed\n${json}\n${csv}\n${html}\n`);
    if (failed.length > 0) {
      process.stderr.write(`perpsim: ${failed.length} of ${rows.length} runs failed; first: run ${failed[0]!.run}: ${failed[0]!.error}\n`);
      process.exitCode = 1;
    }
  } finally {
    await closePool();
  }
}

/** Adds `sweep` and `worker` to the perpsim command line. */
export function addSweepCommands(program: Command): void {
  program
    .command('sweep <strategy>')
    .description('run a strategy over a grid (or a random search) of its parameters, on local worker threads or a BullMQ queue; writes sweep.json, sweep.csv, sweep.html and each run\'s summary.json')
    .requiredOption('--data <file|sim>', 'a recorded file (JSONL or binary) or "sim"; with --queue every worker must read the file at this path (shared disk)')
    .option('--grid <file>', 'JSON object: parameter → list of values, or a range {"min", "max", "step"?, "integer"?}')
    .option('--param <name=values>', 'a parameter\'s values a,b,c or a range lo..hi (random search); repeatable, overrides --grid', paramOption, [])
    .option('--samples <n>', 'random search: this many points drawn from the grid with --seed', count(1))
    .option('--seed <n>', 'the backtest seed of every run (sweep "seed" as a parameter to vary it) and the random search\'s seed', seedOf, 1)
    .option('--yes', `allow more than 100,000 runs`)
    .option('--workers <n>', 'worker threads (default: the number of cores)', count(1), availableParallelism())
    .addOption(new Option('--isolation <kind>', 'local workers as worker threads of this process, or as one child process each (V8\'s GC helpers and task queue are per process: docs/decisions.md)').choices(['threads', 'processes']).default('threads'))
    .option('--out <dir>', 'output directory; finished runs found there are reused', 'sweep-out')
    .addOption(new Option('--rank <metric>', 'the metric that ranks runs (best so far, best equity curves)').choices([...METRICS]).default('pnl'))
    .option('--queue <redis url>', 'put runs on a BullMQ queue at redis://host:port/db instead of local threads; `perpsim worker` processes run them')
    .option('--queue-name <name>', 'the BullMQ queue', DEFAULT_QUEUE_NAME)
    .option('--markets <names>', 'comma-separated market names (default BTC-USD,ETH-USD)')
    .option('--balance <usd>', 'starting balance in USD (default 100000)')
    .option('--from <time>', 'start: unix µs or ISO date', parseTime)
    .option('--to <time>', 'end, exclusive: unix µs or ISO date', parseTime)
    .addOption(new Option('--queue-model <model>', 'queue position model for resting orders against replayed liquidity').choices(['conservative', 'probabilistic']).default('conservative'))
    .option('--order-latency <ms>', 'order latency: ms or a uniform range lo-hi', latency)
    .option('--cancel-latency <ms>', 'cancel latency', latency)
    .option('--feed-latency <ms>', 'market data latency: ms, lo-hi or "recorded"', latency)
    .option('--sample-ms <ms>', 'equity sampling period in simulated ms (default 60000)', (t) => durationMs(`${t}ms`))
    .option('--timer-ms <ms>', 'onTimer period in simulated ms', (t) => durationMs(`${t}ms`))
    .option('--progress', 'force the progress bar even when stderr is not a TTY')
    .action(async (strategy: string, flags: SweepFlags) => runSweepCommand(strategy, flags));

  program
    .command('worker')
    .description('take sweep runs from a BullMQ queue (perpsim sweep --queue) and run them on local threads until stopped')
    .requiredOption('--queue <redis url>', 'redis://host:port/db')
    .option('--queue-name <name>', 'the BullMQ queue', DEFAULT_QUEUE_NAME)
    .option('--workers <n>', 'worker threads (default: the number of cores)', count(1), availableParallelism())
    .option('--lock-ms <ms>', 'job lock and stalled-check interval: a dead worker\'s run is retried after about this long', count(100), DEFAULT_LOCK_MS)
    .action(async (flags: { queue: string; queueName: string; workers: number; lockMs: number }) => {
      const { startQueueWorker } = await import('./queue.ts');
      const worker = await startQueueWorker({ url: flags.queue, queueName: flags.queueName, threads: flags.workers, lockMs: flags.lockMs, log: (l) => process.stdout.write(`${l}\n`) });
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await worker.close();
    });
}

export { SweepUsageError };
