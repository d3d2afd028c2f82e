/**
 * A parameter sweep: planned (every input checked and every run's key computed before any run
 * starts), executed by a local thread pool or a BullMQ queue, and collected into outputs that
 * do not depend on where or in which order the runs ran.
 *
 * Outputs in `out`: runs/<key>/summary.json and runs/<key>/equity.json per finished run (written
 * as each finishes: a repeated sweep into the same directory reuses them), sweep.json and
 * sweep.csv (one row per run, in the plan's order: its parameters and its summary's metrics),
 * sweep.html (html.ts).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ParamValue } from '../backtest/types.ts';
import type { Summary } from '../backtest/summary.ts';
import { METRICS, metricsOf, type Metric, type RunRow, type SweepPlan } from './rows.ts';
import { expand, SweepUsageError, type Space } from './grid.ts';
import { renderSweepHtml } from './html.ts';
import { fileHash, runKey, strategyHash, type BaseConfig, type RunResult, type RunTask } from './run.ts';

export interface SweepInput {
  strategy: string;
  data: string;
  space: Space;
  samples?: number;
  /** The backtest seed of every run (unless `seed` is swept), and the random search's seed. */
  seed: number;
  yes: boolean;
  base: BaseConfig;
  rankBy: Metric;
}

/** Loads the strategy module and answers its declared parameters (`export const parameters = {name: default}`). */
export async function strategyParameters(file: string): Promise<Record<string, ParamValue>> {
  let module: { default?: unknown; parameters?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } catch (err) {
    throw new SweepUsageError(`cannot load the strategy ${file}: ${(err as Error).message}`);
  }
  if (typeof module.default !== 'function') {
    throw new SweepUsageError(`${file} must default-export a factory (config) => strategy for a sweep (each run builds a fresh strategy from config.params)`);
  }
  const p = module.parameters;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    throw new SweepUsageError(`${file} must export its parameters and their defaults: export const parameters = { name: default, ... }`);
  }
  return p as Record<string, ParamValue>;
}

/**
 * `expanded` is called once the run count is known and the input checked, before the data file
 * is hashed (the slow part for a large recording): a local sweep starts its threads there, so
 * they load while this thread reads the data.
 */
export async function planSweep(input: SweepInput, hooks: { expanded?(strategyFile: string, runs: number): void } = {}): Promise<SweepPlan> {
  const strategyFile = resolve(input.strategy);
  if (!existsSync(strategyFile)) throw new SweepUsageError(`strategy file not found: ${input.strategy}`);
  const defaults = await strategyParameters(strategyFile);
  const points = expand(input.space, Object.keys(defaults), { ...(input.samples !== undefined && { samples: input.samples }), seed: input.seed, yes: input.yes });
  const data = input.data === 'sim' ? 'sim' : resolve(input.data);
  if (data !== 'sim' && (!existsSync(data) || !statSync(data).isFile())) throw new SweepUsageError(`data file not found: ${input.data}`);
  hooks.expanded?.(strategyFile, points.length);
  const dataHash = data === 'sim' ? 'sim' : await fileHash(data);
  const hashes = { strategy: strategyHash(strategyFile), data: dataHash };
  const tasks = points.map((point): RunTask => {
    const { seed = input.seed, ...own } = point;
    if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) throw new SweepUsageError(`seed ${String(seed)}: expected a non-negative integer`);
    const params = { ...defaults, ...own };
    return { key: runKey(hashes, input.base, params, seed), strategyFile, data, base: input.base, params, seed };
  });
  return {
    strategyName: basename(input.strategy),
    dataName: input.data === 'sim' ? 'sim' : basename(input.data),
    seed: input.seed,
    names: Object.keys(input.space),
    points,
    tasks,
    rankBy: input.rankBy,
  };
}

/** A finished run already in `out` (runs/<key>/), or undefined. */
export function cachedRun(out: string, key: string): RunResult | undefined {
  const dir = join(out, 'runs', key);
  try {
    return { key, summaryJson: readFileSync(join(dir, 'summary.json'), 'utf8'), equity: JSON.parse(readFileSync(join(dir, 'equity.json'), 'utf8')) as [number, number][] };
  } catch {
    return undefined;
  }
}

/** Writes a finished run's files (failed runs are not kept: a repeated sweep runs them again). */
export function storeRun(out: string, result: RunResult): void {
  if (result.summaryJson === undefined) return;
  const dir = join(out, 'runs', result.key);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'equity.json'), JSON.stringify(result.equity ?? []) + '\n');
  writeFileSync(join(dir, 'summary.json'), result.summaryJson);
}

export function rowsOf(plan: SweepPlan, results: ReadonlyMap<string, RunResult>): RunRow[] {
  return plan.tasks.map((task, i) => {
    const r = results.get(task.key);
    const params = Object.fromEntries(plan.names.filter((n) => n !== 'seed').map((n) => [n, task.params[n]!]));
    const row: RunRow = { run: i, key: task.key, params, seed: task.seed, status: r?.summaryJson !== undefined ? 'ok' : 'failed' };
    if (r?.summaryJson !== undefined) row.metrics = metricsOf(JSON.parse(r.summaryJson) as Summary);
    else row.error = r?.error ?? 'no result';
    return row;
  });
}

function csvCell(v: unknown): string {
  const text = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes sweep.json, sweep.csv and sweep.html; answers their paths. */
export function writeSweepOutputs(plan: SweepPlan, results: ReadonlyMap<string, RunResult>, out: string): { json: string; csv: string; html: string; rows: RunRow[] } {
  mkdirSync(out, { recursive: true });
  const rows = rowsOf(plan, results);
  const params = plan.names.filter((n) => n !== 'seed');
  const doc = { strategy: plan.strategyName, data: plan.dataName, seed: plan.seed, parameters: params, rankBy: plan.rankBy, metrics: METRICS, runs: rows };
  const json = join(out, 'sweep.json');
  writeFileSync(json, JSON.stringify(doc, null, 2) + '\n');
  const header = ['run', 'key', ...params, 'seed', 'status', ...METRICS, 'error'];
  const lines = [header.join(',')];
  for (const r of rows) lines.push([r.run, r.key, ...params.map((p) => r.params[p]), r.seed, r.status, ...METRICS.map((m) => r.metrics?.[m]), r.error].map(csvCell).join(','));
  const csv = join(out, 'sweep.csv');
  writeFileSync(csv, lines.join('\n') + '\n');
  const html = join(out, 'sweep.html');
  writeFileSync(html, renderSweepHtml(plan, rows, results));
  return { json, csv, html, rows };
}

