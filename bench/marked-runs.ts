/**
 * The child side of bench/backtest-gc.ts and bench/backtest-jit.ts: the example market maker over
 * a recording (one of bench:sweep's runs, spreadBps 4, requoteMs 5000), run `runs` times in this
 * thread as a sweep thread runs it — run.ts's runOne from the threads' esbuild bundle (through tsx
 * without one) — each run between two `${mark}{…}` lines on stdout (the end line with the run's
 * thread CPU, process CPU and wall ms), so the parent can cut V8's trace output by run.
 */
import { resolve } from 'node:path';
import { runBundle } from '../sim/sweep/pool.ts';
import type { RunTask } from '../sim/sweep/run.ts';
import { threadCpuUs } from './thread-cpu.ts';

export async function markedRuns(data: string, runs: number, mark: string): Promise<void> {
  const bundle = runBundle();
  const { runOne } = (bundle === null ? await import('../sim/sweep/run.ts') : await import(bundle)) as typeof import('../sim/sweep/run.ts');
  const task: RunTask = { key: 'marked', strategyFile: resolve('examples/market-maker.ts'), data, base: { markets: ['BTC-USD'] }, params: { market: 'BTC-USD', spreadBps: 4, size: 0.01, maxPosition: 0.1, requoteMs: 5000, moveBps: 1 }, seed: 1 };
  for (let i = 0; i < runs; i++) {
    const t = threadCpuUs();
    const p = process.cpuUsage();
    const w = performance.now();
    console.log(`${mark}{"phase":"start"}`);
    const result = await runOne(task);
    if (result.error !== undefined) throw new Error(result.error);
    const pu = process.cpuUsage(p);
    console.log(`${mark}${JSON.stringify({ phase: 'end', threadCpuMs: (threadCpuUs() - t) / 1000, processCpuMs: (pu.user + pu.system) / 1000, wallMs: performance.now() - w })}`);
  }
}
