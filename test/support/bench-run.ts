/**
 * One benchmark script run end to end the way `npm run bench:*` runs it (`node --expose-gc
 * --import tsx bench/<file>`), at smoke sizes, for the bench smoke tests (test/bench.smoke.*.test.ts).
 * Benchmarks are not timed tests: a smoke test only proves a script still runs to its end and
 * prints its one JSON line of figures last, with the fields named; the figures are not judged.
 *
 * Asynchronous (a child process, not spawnSync), so a file may run an idle-bound bench (soak,
 * fan-out: timers and sockets, little CPU) beside a CPU-bound one.
 */
import { execFile } from 'node:child_process';
import { expect } from 'vitest';

/** Sizes every smoke run gets unless its own env says otherwise: each bench's smallest stream that still takes every path. */
export const SMOKE_ENV: Readonly<Record<string, string>> = { BENCH_OPS: '20000', BENCH_MEM_ORDERS: '20000', BENCH_POSITIONS: '2000', BENCH_TICKS: '20', BENCH_QUICK: '1' };

/** A smoke run's bound: the child is killed after it (a loaded 2-core machine runs the slowest in under 30 s). */
export const BENCH_TIMEOUT_MS = 120_000;
/** The test's own timeout: past the child's, so a hung bench fails with its stderr, not a bare timeout. */
export const BENCH_TEST_TIMEOUT_MS = BENCH_TIMEOUT_MS + 10_000;

export interface BenchRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface BenchOptions {
  env?: Record<string, string>;
  args?: string[];
  /** Node options before `--import tsx` (default `--expose-gc`, as the bench:* scripts run them). */
  nodeArgs?: string[];
  timeoutMs?: number;
}

export function runBench(file: string, options: BenchOptions = {}): Promise<BenchRun> {
  const argv = [...(options.nodeArgs ?? ['--expose-gc']), '--import', 'tsx', file, ...(options.args ?? [])];
  return new Promise((resolve) => {
    const child = execFile(process.execPath, argv, { env: { ...process.env, ...options.env }, encoding: 'utf8', timeout: options.timeoutMs ?? BENCH_TIMEOUT_MS, maxBuffer: 16 << 20 }, (_error, stdout, stderr) => {
      resolve({ status: child.exitCode, stdout, stderr });
    });
  });
}

/** Asserts the run exited 0 and its last stdout line is `{"bench":name,...}` with a number in each of `keys`; returns the figures. */
export function expectFigures(run: BenchRun, name: string, keys: readonly string[]): Record<string, unknown> {
  // On failure: its stderr and the end of its stdout (how far it got before it failed or hung).
  expect(run.status, `${run.stderr}\nstdout's end:\n${run.stdout.split('\n').slice(-12).join('\n')}`).toBe(0);
  const last = run.stdout.trim().split('\n').at(-1)!;
  const figures = JSON.parse(last) as Record<string, unknown>;
  expect(figures.bench).toBe(name);
  for (const key of keys) expect(typeof figures[key], key).toBe('number');
  return figures;
}

/** A bench table row: name, script, the numeric fields its JSON line must carry, env over SMOKE_ENV. */
export type BenchCase = [name: string, file: string, keys: string[], env?: Record<string, string>];

/** Runs one table row at smoke sizes and checks its JSON line. */
export async function smokeBench([name, file, keys, env = {}]: BenchCase): Promise<void> {
  expectFigures(await runBench(file, { env: { ...SMOKE_ENV, ...env } }), name, keys);
}
