/**
 * Sweep throughput: a 16-run grid (the example market maker, 4 spreads × 4 re-quote periods)
 * over the same recording (BENCH_EVENTS events, default 1,000,000, binary format: bench/recording.ts),
 *
 * - serially in this thread (the baseline: the runs' own cost),
 * - on a local pool of 1 worker thread and of 2, and of 2 worker processes (`--isolation
 *   processes`), as `perpsim sweep` runs them: the threads start
 *   once the grid is expanded (loading the backtester and the strategy) while this thread hashes
 *   the data file and finishes the plan; then every run is dispatched,
 * - through BullMQ on a throwaway redis-server with two `perpsim worker --workers 1` processes
 *   already running (as on real machines; their start-up is not timed).
 *
 * Overhead per run = (1-worker wall time from the start of planning to the last result − the
 * time its thread spent inside runs) / runs: planning, pool and thread start, dispatch and
 * result collection, measured in the same window as the runs, so a machine's load moves both
 * sides alike (each run's data open and read are inside the run). As wall time depends on the
 * load, the same in CPU time: `overheadCpuMsPerRun` = (this thread's CPU in the window + the
 * worker thread's CPU outside runs) / runs (V8's background threads — GC, compilation — and
 * tsx's loader thread are not in it), and `poolStartCpuMsPerThread` = the CPU of every thread but
 * this one from the pool's creation until its thread is ready (helpers included).
 * Per run, for the merger to re-measure on a quiet machine: the run's wall and thread CPU inside
 * its thread (`runWallMs…`, `runCpuMs…`) and the whole process's CPU over the route's window /
 * runs (`processCpuMsPerRun…`: V8's GC and compiler helper threads included, which the two
 * threads of a 2-worker pool share with the runs on a 2-core machine).
 * `overheadVsSerialMsPerRun` is the wall-time overhead against the serial runs, which a changing
 * load skews. Every route's results are checked equal to the serial ones.
 * The measure that does not depend on the core count: `cpuEfficiencyTwoWorkers` = process CPU per
 * run with 1 worker / with 2 (1.0 = a second worker costs nothing extra per run); 2 × it is the
 * 2-worker speed-up on a machine with cores to spare for V8's helper threads.
 * Targets: 2 workers ≥ 1.7 × 1 worker (2-core machine), in CPU terms efficiency ≥ 0.85;
 * overhead ≤ 50 ms; Redis ≥ 0.9 × the
 * 2-thread figure. Ends with {"bench":"sweep","runsPerSecOneWorker":…,"runsPerSecTwoWorkers":…,
 * "runsPerSecRedis":…,"overheadMsPerRun":…,…}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { createRunPool, runBundle, type Isolation, type PoolStats, type RunPool } from '../sim/sweep/pool.ts';
import { runOnQueue } from '../sim/sweep/queue.ts';
import { runOne, type RunResult, type RunTask } from '../sim/sweep/run.ts';
import { planSweep, type SweepInput } from '../sim/sweep/sweep.ts';
import { startRedis } from '../test/support/redis-server.ts';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';
import { threadCpuUs } from './thread-cpu.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const input: SweepInput = {
  strategy: 'examples/market-maker.ts',
  data: binaryFile(recordingFile(EVENTS)),
  space: { spreadBps: [2, 3, 4, 6], requoteMs: [1000, 2000, 5000, 10000] },
  seed: 1,
  yes: false,
  base: { markets: ['BTC-USD'] },
  rankBy: 'pnl',
};
const plan = await planSweep(input);
const runs = plan.tasks.length;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadStart = loadavg()[0]!;
console.log(`${runs} runs over ${EVENTS} events; load average ${load()}`);
// The threads' bundle is built once per change of the sources (pool.ts), not per sweep.
let t0 = performance.now();
runBundle();
console.log(`sweep thread bundle ready in ${(performance.now() - t0).toFixed(0)} ms (not timed below)`);

const reference = new Map<string, string>();
function check(route: string, results: readonly RunResult[]): void {
  for (const r of results) {
    if (r.summaryJson === undefined) throw new Error(`${route}: run ${r.key} failed: ${r.error}`);
    if (reference.get(r.key) !== r.summaryJson) throw new Error(`${route}: run ${r.key} differs from the serial run`);
  }
}

// Serial baseline, in this thread.
t0 = performance.now();
for (const task of plan.tasks) {
  const r = await runOne(task);
  if (r.summaryJson === undefined) throw new Error(`serial run failed: ${r.error}`);
  reference.set(r.key, r.summaryJson);
}
const serialMs = performance.now() - t0;
console.log(`serial (this thread): ${(serialMs / 1000).toFixed(2)} s = ${((runs * 1000) / serialMs).toFixed(3)} runs/s; load ${load()}`);

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

interface LocalRoute {
  ms: number;
  stats: PoolStats;
  /** This thread's CPU over the window, ms. */
  mainCpuMs: number;
  /** The whole process's CPU over the window (every thread: the runs, V8's helpers, this one), ms. */
  processCpuMs: number;
  /** Until every thread was ready: wall ms, and the CPU of every thread but this one. */
  readyMs: number;
  startCpuMs: number;
}

/** CPU of this process's exited and reaped children so far (/proc/self/stat cutime + cstime), ms; NaN off Linux. */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** A sweep on `threads` local workers, as `perpsim sweep` runs it (cli.ts): they start while the plan is finished. */
async function local(threads: number, isolation: Isolation = 'threads'): Promise<LocalRoute> {
  const main0 = threadCpuUs();
  const proc0 = process.cpuUsage();
  const children0 = childrenCpuMs();
  const t = performance.now();
  let pool: RunPool | undefined;
  const planned = await planSweep(input, { expanded: (file) => void (pool = createRunPool(threads, { preload: [file], isolation })) });
  const started = pool!.ready().then(() => ({ readyMs: performance.now() - t, startCpuMs: cpuMs(process.cpuUsage(proc0)) - (threadCpuUs() - main0) / 1000 }));
  const results = await Promise.all(planned.tasks.map((task: RunTask) => pool!.run(task)));
  const ms = performance.now() - t;
  const mainCpuMs = (threadCpuUs() - main0) / 1000;
  const stats = pool!.stats();
  const { readyMs, startCpuMs } = await started;
  await pool!.close();
  // Worker processes' CPU is counted once they have exited (close() waits for them).
  const processCpuMs = cpuMs(process.cpuUsage(proc0)) + (isolation === 'processes' ? childrenCpuMs() - children0 : 0);
  check(`${threads} worker(s)`, results);
  console.log(
    `${threads} worker ${isolation === 'processes' ? 'process(es)' : 'thread(s)'}: ${(ms / 1000).toFixed(2)} s = ${((runs * 1000) / ms).toFixed(3)} runs/s, ${(stats.busyMs / runs).toFixed(0)} ms (${(stats.busyCpuMs / runs).toFixed(0)} ms CPU) in each run on average; ` +
      `threads ready ${readyMs.toFixed(0)} ms after the start of planning; process CPU ${(processCpuMs / runs).toFixed(0)} ms per run (all threads); load ${load()}`,
  );
  return { ms, stats, mainCpuMs, processCpuMs, readyMs, startCpuMs };
}

const one = await local(1);
const two = await local(2);
// The same pool with one child process per worker (`perpsim sweep --isolation processes`).
const twoProcesses = await local(2, 'processes');
const runsPerSecTwoProcesses = (runs * 1000) / twoProcesses.ms;
const runsPerSecOneWorker = (runs * 1000) / one.ms;
const runsPerSecTwoWorkers = (runs * 1000) / two.ms;
const overheadMsPerRun = (one.ms - one.stats.busyMs) / runs;
const overheadVsSerialMsPerRun = (one.ms - serialMs) / runs;
const overheadCpuMsPerRun = (one.mainCpuMs + one.stats.threadCpuMs - one.stats.busyCpuMs) / runs;
const poolStartCpuMsPerThread = one.startCpuMs;
console.log(`2 workers / 1 worker: ${(runsPerSecTwoWorkers / runsPerSecOneWorker).toFixed(2)}x (target >= 1.7x); 2 worker processes / 1 worker thread: ${(runsPerSecTwoProcesses / runsPerSecOneWorker).toFixed(2)}x; load ${load()}`);
console.log(
  `overhead per run, 1 worker: ${overheadMsPerRun.toFixed(1)} ms wall (target <= 50 ms) = (${(one.ms / 1000).toFixed(2)} s from the start of planning to the last result − ${(one.stats.busyMs / 1000).toFixed(2)} s inside runs) / ${runs}; ` +
    `${overheadCpuMsPerRun.toFixed(1)} ms CPU = (this thread ${one.mainCpuMs.toFixed(0)} ms + the worker thread outside runs ${(one.stats.threadCpuMs - one.stats.busyCpuMs).toFixed(0)} ms) / ${runs}; ` +
    `pool start ${poolStartCpuMsPerThread.toFixed(0)} ms CPU per thread (all threads but this one, creation to ready), ready ${one.readyMs.toFixed(0)} ms after the start; ` +
    `${overheadVsSerialMsPerRun.toFixed(1)} ms against the serial runs; load ${load()}`,
);

// Through Redis: two worker processes of one thread each.
const redis = await startRedis();
const workers: ChildProcess[] = [];
let runsPerSecRedis = 0;
try {
  const queueName = `bench-${Date.now()}`;
  await Promise.all(
    [0, 1].map(
      () =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'worker', '--queue', redis.url, '--queue-name', queueName, '--workers', '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
          workers.push(child);
          child.once('exit', (code) => reject(new Error(`perpsim worker exited with ${code}`)));
          child.stdout!.on('data', (chunk: Buffer) => void (chunk.toString().includes('worker ready') && resolve()));
        }),
    ),
  );
  const results: RunResult[] = [];
  t0 = performance.now();
  await runOnQueue(redis.url, queueName, plan.tasks, (r) => void results.push(r));
  const redisMs = performance.now() - t0;
  check('redis', results);
  runsPerSecRedis = (runs * 1000) / redisMs;
  console.log(`Redis, 2 worker processes: ${(redisMs / 1000).toFixed(2)} s = ${runsPerSecRedis.toFixed(3)} runs/s, ${(runsPerSecRedis / runsPerSecTwoWorkers).toFixed(2)}x the 2-thread pool (target >= 0.9x); load ${load()}`);
} finally {
  for (const w of workers) {
    w.removeAllListeners('exit');
    w.kill('SIGTERM');
  }
  await redis.stop();
}
const round = (x: number): number => Number(x.toFixed(3));
// What two workers can reach on two cores: the CPU a 2-worker run costs all threads (its own plus
// V8's compile and GC helpers) against one worker's run wall, where those helpers ran on the idle
// core (docs/decisions.md "Parameter sweeps").
const twoWorkerBound = (2 * one.stats.busyMs) / two.processCpuMs;
// The same independent of the core count: one worker's process CPU per run over two workers'
// (docs/decisions.md "Parameter sweeps").
const cpuEfficiencyTwoWorkers = one.processCpuMs / two.processCpuMs;
console.log(`CPU efficiency of 2 workers: ${(one.processCpuMs / runs).toFixed(0)} ms / ${(two.processCpuMs / runs).toFixed(0)} ms process CPU per run = ${cpuEfficiencyTwoWorkers.toFixed(3)} (target >= 0.85 = 1.7 / 2), ${(2 * cpuEfficiencyTwoWorkers).toFixed(2)}x with cores to spare`);
console.log(`bound on 2 workers / 1: 2 x ${(one.stats.busyMs / runs).toFixed(0)} ms (1-worker run wall) / ${(two.processCpuMs / runs).toFixed(0)} ms (process CPU per 2-worker run) = ${twoWorkerBound.toFixed(2)}x`);
console.log(
  JSON.stringify({
    bench: 'sweep',
    events: EVENTS,
    runs,
    runsPerSecSerial: round((runs * 1000) / serialMs),
    runsPerSecOneWorker: round(runsPerSecOneWorker),
    runsPerSecTwoWorkers: round(runsPerSecTwoWorkers),
    runsPerSecRedis: round(runsPerSecRedis),
    overheadMsPerRun: round(overheadMsPerRun),
    overheadVsSerialMsPerRun: round(overheadVsSerialMsPerRun),
    twoOverOneWorker: round(runsPerSecTwoWorkers / runsPerSecOneWorker),
    overheadCpuMsPerRun: round(overheadCpuMsPerRun),
    poolStartCpuMsPerThread: round(poolStartCpuMsPerThread),
    poolReadyMs: round(one.readyMs),
    runCpuMsOneWorker: round(one.stats.busyCpuMs / runs),
    runCpuMsTwoWorkers: round(two.stats.busyCpuMs / runs),
    runWallMsOneWorker: round(one.stats.busyMs / runs),
    runWallMsTwoWorkers: round(two.stats.busyMs / runs),
    processCpuMsPerRunOneWorker: round(one.processCpuMs / runs),
    processCpuMsPerRunTwoWorkers: round(two.processCpuMs / runs),
    loadAverageStart: round(loadStart),
    runsPerSecTwoProcesses: round(runsPerSecTwoProcesses),
    twoProcessesOverOneWorker: round(runsPerSecTwoProcesses / runsPerSecOneWorker),
    runCpuMsTwoProcesses: round(twoProcesses.stats.busyCpuMs / runs),
    runWallMsTwoProcesses: round(twoProcesses.stats.busyMs / runs),
    processCpuMsPerRunTwoProcesses: round(twoProcesses.processCpuMs / runs),
    twoWorkerBound: round(twoWorkerBound),
    cpuEfficiencyTwoWorkers: round(cpuEfficiencyTwoWorkers),
    loadAverage: round(loadavg()[0]!),
  }),
);
