/**
 * One run of a sweep: its task (what a worker thread or a queue worker needs, plain JSON), its
 * key, and its execution.
 *
 * Contract: `runOne` is deterministic — the same task gives the same result bytes on any
 * thread, process or machine — and never throws: a failing run (the strategy throws, the data
 * file cannot be read) answers `{ error }` naming the cause. The key is a SHA-256 of the
 * strategy file's bytes, the data file's bytes (or "sim"), the backtest options, the parameters
 * and the seed: a repeated sweep finds its finished runs by it. Only the strategy file itself is
 * hashed, not the modules it imports.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, createReadStream, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Backtest } from '../backtest/backtest.ts';
import { createSchemaValidator, type SchemaValidator } from '../../gateway/contract/validator.ts';
import type { BacktestConfig, ParamValue, Strategy } from '../backtest/types.ts';

/** The backtest options a sweep shares between its runs (JSON-safe: no callbacks). */
export type BaseConfig = Pick<BacktestConfig, 'markets' | 'balance' | 'from' | 'to' | 'queueModel' | 'latency' | 'sampleMs' | 'timerMs' | 'bookDepth'>;

export interface RunTask {
  key: string;
  /** Absolute paths; `data` 'sim' for the simulator. The data file must be readable by the worker at this path (shared disk). */
  strategyFile: string;
  data: string;
  base: BaseConfig;
  /** The strategy's parameters: its declared defaults overridden by the run's point. */
  params: Record<string, ParamValue>;
  seed: number;
}

export interface RunResult {
  key: string;
  /** summary.json's exact text, or why the run failed. */
  summaryJson?: string;
  /** Equity at up to EQUITY_POINTS evenly spaced samples: [unix seconds, USD]. */
  equity?: [number, number][];
  error?: string;
}

const EQUITY_POINTS = 300;

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of a file, streamed (a recording can be gigabytes). */
export function fileHash(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** JSON with object keys sorted, so equal values hash equally. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export function runKey(hashes: { strategy: string; data: string }, base: BaseConfig, params: Record<string, ParamValue>, seed: number): string {
  return sha256(canonical({ v: 1, strategy: hashes.strategy, data: hashes.data, base, params, seed }));
}

export function strategyHash(file: string): string {
  return sha256(readFileSync(file));
}

const factories = new Map<string, Promise<(config: BacktestConfig) => Strategy>>();

/** The strategy module's factory, imported once per thread (a failure too is kept: every run of it reports the same error). */
export function loadStrategy(file: string): Promise<(config: BacktestConfig) => Strategy> {
  let f = factories.get(file);
  if (f === undefined) {
    f = import(pathToFileURL(file).href).then((m: { default?: unknown }) => {
      if (typeof m.default !== 'function') throw new Error(`${file} must default-export a factory (config) => strategy for a sweep`);
      return m.default as (config: BacktestConfig) => Strategy;
    });
    factories.set(file, f);
  }
  return f;
}

let threadValidator: SchemaValidator | undefined;

/**
 * The validator this thread's runs share (BacktestShared): the operations' request schemas are
 * compiled once per thread, by ajv and then by V8, instead of once per run.
 */
function sharedValidator(): SchemaValidator {
  return (threadValidator ??= createSchemaValidator());
}

export async function runOne(task: RunTask): Promise<RunResult> {
  try {
    if (task.data !== 'sim') {
      try {
        accessSync(task.data, constants.R_OK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        return { key: task.key, error: `cannot read the data file ${task.data} on this worker (${code}); a sweep names its data by path, so every worker needs it at that path (a shared disk)` };
      }
    }
    const factory = await loadStrategy(task.strategyFile);
    // Sweeps read JSONL in the run's own thread: the parallelism is across runs.
    const config: BacktestConfig = { ...task.base, seed: task.seed, params: task.params, data: task.data === 'sim' ? 'sim' : { file: task.data, parse: 'scan' } };
    const result = await new Backtest(config, factory, { validator: sharedValidator() }).run();
    const samples = result.samples;
    const every = Math.max(1, Math.ceil(samples.length / EQUITY_POINTS));
    const equity: [number, number][] = [];
    for (let i = 0; i < samples.length; i += every) equity.push([Math.floor(samples[i]!.time / 1e6), samples[i]!.equity]);
    const last = samples.at(-1);
    if (last !== undefined && (samples.length - 1) % every !== 0) equity.push([Math.floor(last.time / 1e6), last.equity]);
    return { key: task.key, summaryJson: result.summaryJson(), equity };
  } catch (err) {
    return { key: task.key, error: err instanceof Error ? err.message : String(err) };
  }
}
