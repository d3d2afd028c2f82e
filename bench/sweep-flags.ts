/**
 * V8 / Node flags for a saturated sweep pool, each configuration in its own process: bench:sweep's
 * 16-run grid (the example market maker over the 1,000,000-event recording, binary format) on a
 * local pool of WORKERS threads, as `perpsim sweep` runs it (threads start while the plan is
 * finished), in a child started with the configuration's flags. Flags are per process, so a
 * configuration cannot share a process with its baseline; rounds alternate the configurations so
 * that a changing load moves them alike. Per configuration and round: runs/s, and per run the
 * thread's wall and CPU and the whole process's CPU (V8's compile and GC helpers included).
 *
 *   node --import tsx bench/sweep-flags.ts      (ROUNDS=3; CONFIGS='1:|2:|2:--single-threaded-gc|…',
 *                                                each `workers:flags[:strategy file]`, flags space-separated;
 *                                                STRATEGY=file instead of the example market maker;
 *                                                SIZES=0.01,0.02 multiplies the grid by order sizes)
 *
 * Ends with {"bench":"sweep-flags","configs":[{workers,flags,runsPerSec:[…],…}],…}.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const ROUNDS = envInt('ROUNDS', 3);
const MARK = '@@sweep-flags';

interface ChildFigures {
  runsPerSec: number;
  runWallMs: number;
  runCpuMs: number;
  processCpuMsPerRun: number;
}

if (process.env.SWEEP_FLAGS_CHILD === undefined) {
  const data = binaryFile(recordingFile(EVENTS));
  const configs = (process.env.CONFIGS ?? '1:|2:|2:--single-threaded-gc|2:--single-threaded|2:--v8-pool-size=1|2:--no-concurrent-recompilation')
    .split('|')
    .map((c) => {
      const [workers, flags, strategy] = c.split(':') as [string, string | undefined, string | undefined];
      return { workers: Number(workers), flags: (flags ?? '').split(' ').filter((f) => f !== ''), strategy };
    });
  const figures = configs.map(() => [] as ChildFigures[]);
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`${configs.length} configurations × ${ROUNDS} rounds; load average ${load()}`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, c] of configs.entries()) {
      const child = spawn(process.execPath, [...c.flags, '--import', 'tsx', process.argv[1]!], { env: { ...process.env, SWEEP_FLAGS_CHILD: data, WORKERS: String(c.workers), ...(c.strategy !== undefined && { STRATEGY: c.strategy }) }, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => void (text += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      const line = text.split('\n').find((l) => l.startsWith(MARK));
      if (code !== 0 || line === undefined) throw new Error(`child ${c.workers} ${c.flags.join(' ')} exited with ${code}: ${text}`);
      const f = JSON.parse(line.slice(MARK.length)) as ChildFigures;
      figures[i]!.push(f);
      console.log(
        `round ${round + 1}: ${c.workers} worker(s) ${c.flags.join(' ') || '(no flags)'}${c.strategy === undefined ? '' : ` ${c.strategy}`}: ${f.runsPerSec.toFixed(3)} runs/s; per run wall ${f.runWallMs.toFixed(0)} ms, thread CPU ${f.runCpuMs.toFixed(0)} ms, process CPU ${f.processCpuMsPerRun.toFixed(0)} ms; load ${load()}`,
      );
    }
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const r = (x: number): number => Number(x.toFixed(3));
  console.log(
    JSON.stringify({
      bench: 'sweep-flags',
      events: EVENTS,
      rounds: ROUNDS,
      configs: configs.map((c, i) => ({
        workers: c.workers,
        flags: c.flags.join(' '),
        ...(c.strategy !== undefined && { strategy: c.strategy }),
        runsPerSec: figures[i]!.map((f) => r(f.runsPerSec)),
        meanRunsPerSec: r(mean(figures[i]!.map((f) => f.runsPerSec))),
        meanRunCpuMs: r(mean(figures[i]!.map((f) => f.runCpuMs))),
        meanProcessCpuMsPerRun: r(mean(figures[i]!.map((f) => f.processCpuMsPerRun))),
      })),
      loadAverage: r(loadavg()[0]!),
    }),
  );
} else {
  const { createRunPool } = await import('../sim/sweep/pool.ts');
  const { planSweep } = await import('../sim/sweep/sweep.ts');
  const workers = Number(process.env.WORKERS);
  const input: import('../sim/sweep/sweep.ts').SweepInput = {
    strategy: process.env.STRATEGY ?? 'examples/market-maker.ts',
    data: process.env.SWEEP_FLAGS_CHILD!,
    // SIZES=0.01,0.02,… adds an order-size axis: 16 runs per size (more runs per thread).
    space: { spreadBps: [2, 3, 4, 6], requoteMs: [1000, 2000, 5000, 10000], ...(process.env.SIZES !== undefined && { size: process.env.SIZES.split(',').map(Number) }) },
    seed: 1,
    yes: false,
    base: { markets: ['BTC-USD'] },
    rankBy: 'pnl',
  };
  const proc0 = process.cpuUsage();
  const t = performance.now();
  let pool: ReturnType<typeof createRunPool> | undefined;
  const planned = await planSweep(input, { expanded: (file) => void (pool = createRunPool(workers, { preload: [file] })) });
  const results = await Promise.all(planned.tasks.map((task) => pool!.run(task)));
  const ms = performance.now() - t;
  const u = process.cpuUsage(proc0);
  const stats = pool!.stats();
  await pool!.close();
  for (const res of results) if (res.summaryJson === undefined) throw new Error(`run ${res.key} failed: ${res.error}`);
  const runs = results.length;
  const figures: ChildFigures = { runsPerSec: (runs * 1000) / ms, runWallMs: stats.busyMs / runs, runCpuMs: stats.busyCpuMs / runs, processCpuMsPerRun: (u.user + u.system) / 1000 / runs };
  console.log(`${MARK}${JSON.stringify(figures)}`);
}
