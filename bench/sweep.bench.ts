/**
 * Sweep throughput: a 16-run grid (the example market maker, 4 spreads × 4 re-quote periods)
 * over the same recording (BENCH_EVENTS events, default 1,000,000, binary format: bench/recording.ts),
 *
 * - serially in this thread (the baseline: the runs' own cost),
 * - on a local pool of 1 worker thread and of 2 (pool start-up included, as a sweep pays it),
 * - through BullMQ on a throwaway redis-server with two `perpsim worker --workers 1` processes
 *   already running (as on real machines; their start-up is not timed).
 *
 * Overhead per run = (1-worker wall time − the time its thread spent in runs) / runs: pool and
 * thread start (module loading), dispatch and result collection, measured in the same window as
 * the runs, so a machine's load moves both sides alike (the strategy's import and the data
 * file's open happen inside a run and count as run time). `overheadVsSerialMsPerRun` is the same
 * against the serial runs' wall time, which a changing load skews. Every route's results are
 * checked equal to the serial ones.
 * Targets: 2 workers ≥ 1.7 × 1 worker (2-core machine); overhead ≤ 50 ms; Redis ≥ 0.9 × the
 * 2-thread figure. Ends with {"bench":"sweep","runsPerSecOneWorker":…,"runsPerSecTwoWorkers":…,
 * "runsPerSecRedis":…,"overheadMsPerRun":…}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { createRunPool } from '../sim/sweep/pool.ts';
import { runOnQueue } from '../sim/sweep/queue.ts';
import { runOne, type RunResult, type RunTask } from '../sim/sweep/run.ts';
import { planSweep } from '../sim/sweep/sweep.ts';
import { startRedis } from '../test/support/redis-server.ts';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const plan = await planSweep({
  strategy: 'examples/market-maker.ts',
  data: binaryFile(recordingFile(EVENTS)),
  space: { spreadBps: [2, 3, 4, 6], requoteMs: [1000, 2000, 5000, 10000] },
  seed: 1,
  yes: false,
  base: { markets: ['BTC-USD'] },
  rankBy: 'pnl',
});
const runs = plan.tasks.length;
console.log(`${runs} runs over ${EVENTS} events; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

const reference = new Map<string, string>();
function check(route: string, results: readonly RunResult[]): void {
  for (const r of results) {
    if (r.summaryJson === undefined) throw new Error(`${route}: run ${r.key} failed: ${r.error}`);
    if (reference.get(r.key) !== r.summaryJson) throw new Error(`${route}: run ${r.key} differs from the serial run`);
  }
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

// Serial baseline, in this thread.
let t0 = performance.now();
for (const task of plan.tasks) {
  const r = await runOne(task);
  if (r.summaryJson === undefined) throw new Error(`serial run failed: ${r.error}`);
  reference.set(r.key, r.summaryJson);
}
const serialMs = performance.now() - t0;
console.log(`serial (this thread): ${(serialMs / 1000).toFixed(2)} s = ${((runs * 1000) / serialMs).toFixed(3)} runs/s; load ${load()}`);

async function local(threads: number): Promise<{ ms: number; busy: number }> {
  const t = performance.now();
  const pool = createRunPool(threads);
  const results = await Promise.all(plan.tasks.map((task: RunTask) => pool.run(task)));
  const ms = performance.now() - t;
  const busy = pool.busyMs();
  await pool.close();
  check(`${threads} worker(s)`, results);
  console.log(`${threads} worker thread(s): ${(ms / 1000).toFixed(2)} s = ${((runs * 1000) / ms).toFixed(3)} runs/s, ${(busy / runs).toFixed(0)} ms in each run on average; load ${load()}`);
  return { ms, busy };
}

const one = await local(1);
const two = await local(2);
const oneMs = one.ms;
const twoMs = two.ms;
const overheadMsPerRun = (one.ms - one.busy) / runs;
const overheadVsSerialMsPerRun = (one.ms - serialMs) / runs;
const runsPerSecOneWorker = (runs * 1000) / oneMs;
const runsPerSecTwoWorkers = (runs * 1000) / twoMs;
console.log(`2 workers / 1 worker: ${(runsPerSecTwoWorkers / runsPerSecOneWorker).toFixed(2)}x (target >= 1.7x); overhead per run ${overheadMsPerRun.toFixed(1)} ms (target <= 50 ms; ${overheadVsSerialMsPerRun.toFixed(1)} ms against the serial runs)`);

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
console.log(JSON.stringify({ bench: 'sweep', events: EVENTS, runs, runsPerSecSerial: round((runs * 1000) / serialMs), runsPerSecOneWorker: round(runsPerSecOneWorker), runsPerSecTwoWorkers: round(runsPerSecTwoWorkers), runsPerSecRedis: round(runsPerSecRedis), overheadMsPerRun: round(overheadMsPerRun), overheadVsSerialMsPerRun: round(overheadVsSerialMsPerRun) }));
