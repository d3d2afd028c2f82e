/**
 * A sweep's parameter space and the runs it expands to.
 *
 * grid.json: an object of parameter name → a list of values, or a range
 * `{ "min": a, "max": b }` with an optional `"step"` (a grid from min to max inclusive) and
 * `"integer": true` (random search draws integers). `--param name=a,b,c` adds or replaces a list;
 * `--param name=lo..hi` a range. Without `--samples` the runs are the cartesian product (every
 * range needs a step); with `--samples N`, N points drawn with the seeded PRNG (sim/prng.ts) —
 * each list uniformly, each range uniformly in [min, max] (rounded to its step or to an
 * integer when it has one). The name `seed` is the backtest's seed, not a strategy parameter.
 * Values are numbers, strings or booleans. Errors are SweepUsageError (exit 2, before any run).
 */
import { readFileSync } from 'node:fs';
import { createPrng } from '../prng.ts';
import type { ParamValue } from '../backtest/types.ts';

/** A problem with the sweep's input: reported before any run starts, exit code 2. */
export class SweepUsageError extends Error {}

export interface Range {
  min: number;
  max: number;
  step?: number;
  integer?: boolean;
}

export type Dimension = readonly ParamValue[] | Range;

export type Space = Record<string, Dimension>;

/** Runs above this need --yes. */
export const MAX_RUNS_WITHOUT_YES = 100_000;

function isValue(v: unknown): v is ParamValue {
  return typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' || typeof v === 'boolean';
}

function dimension(name: string, raw: unknown, where: string): Dimension {
  if (Array.isArray(raw)) {
    if (!raw.every(isValue)) throw new SweepUsageError(`${where}: parameter ${name}: values must be numbers, strings or booleans`);
    return raw;
  }
  if (isValue(raw)) return [raw];
  if (typeof raw === 'object' && raw !== null) {
    const r = raw as Record<string, unknown>;
    const unknown = Object.keys(r).filter((k) => !['min', 'max', 'step', 'integer'].includes(k));
    if (unknown.length > 0) throw new SweepUsageError(`${where}: parameter ${name}: unknown range field ${unknown.join(', ')} (expected min, max, step, integer)`);
    if (typeof r.min !== 'number' || typeof r.max !== 'number' || !Number.isFinite(r.min) || !Number.isFinite(r.max) || r.min > r.max) {
      throw new SweepUsageError(`${where}: parameter ${name}: a range needs numbers min <= max`);
    }
    if (r.step !== undefined && (typeof r.step !== 'number' || !(r.step > 0))) throw new SweepUsageError(`${where}: parameter ${name}: step must be a positive number`);
    return { min: r.min, max: r.max, ...(r.step !== undefined && { step: r.step as number }), ...(r.integer === true && { integer: true }) };
  }
  throw new SweepUsageError(`${where}: parameter ${name}: expected a list of values or a range {min, max, step?}`);
}

/** Reads grid.json. */
export function readGrid(file: string): Space {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SweepUsageError(`cannot read the grid ${file}: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SweepUsageError(`${file}: expected an object of parameter name → values`);
  const space: Space = {};
  for (const [name, value] of Object.entries(raw)) space[name] = dimension(name, value, file);
  return space;
}

function scalar(text: string): ParamValue {
  if (text === 'true' || text === 'false') return text === 'true';
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

/** `name=a,b,c` or `name=lo..hi`. */
export function parseParamOption(text: string): [string, Dimension] {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw new SweepUsageError(`--param ${text}: expected name=a,b,c or name=lo..hi`);
  const name = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const range = /^(-?[\d.]+(?:e-?\d+)?)\.\.(-?[\d.]+(?:e-?\d+)?)$/.exec(rest);
  if (range !== null) return [name, dimension(name, { min: Number(range[1]), max: Number(range[2]) }, `--param ${text}`)];
  return [name, rest.split(',').map(scalar)];
}

function isRange(d: Dimension): d is Range {
  return !Array.isArray(d);
}

function stepValues(name: string, r: Range): number[] {
  if (r.step === undefined) throw new SweepUsageError(`parameter ${name}: a range without a step needs --samples (random search)`);
  const out: number[] = [];
  const n = Math.floor((r.max - r.min) / r.step + 1e-9);
  // Rounded to the step's decimals so 0.1 + 0.2 prints as 0.3.
  const decimals = Math.min(12, (String(r.step).split('.')[1] ?? '').length + (String(r.min).split('.')[1] ?? '').length);
  for (let i = 0; i <= n; i++) out.push(Number((r.min + i * r.step).toFixed(decimals)));
  return out;
}

/** How many runs the grid expands to (counted, not built). */
export function gridSize(space: Space): number {
  let n = 1;
  for (const [name, d] of Object.entries(space)) {
    if (!isRange(d)) n *= d.length;
    else if (d.step === undefined) throw new SweepUsageError(`parameter ${name}: a range without a step needs --samples (random search)`);
    else n *= Math.floor((d.max - d.min) / d.step + 1e-9) + 1;
  }
  return n;
}

/**
 * The runs' points. `known`: the strategy's declared parameters (plus `seed`); an unknown name,
 * an empty dimension, an empty sweep or one over MAX_RUNS_WITHOUT_YES without `yes` is refused.
 */
export function expand(space: Space, known: readonly string[], options: { samples?: number; seed: number; yes: boolean }): Record<string, ParamValue>[] {
  const names = Object.keys(space);
  if (names.length === 0) throw new SweepUsageError('the grid is empty: give --grid grid.json or --param name=a,b,c');
  for (const name of names) {
    if (name !== 'seed' && !known.includes(name)) throw new SweepUsageError(`unknown parameter ${name}; the strategy declares: ${known.join(', ') || '(none)'}`);
    const d = space[name]!;
    if (!isRange(d) && d.length === 0) throw new SweepUsageError(`parameter ${name} has no values: the grid is empty`);
  }
  const count = options.samples ?? gridSize(space);
  if (count === 0) throw new SweepUsageError('the grid is empty');
  if (count > MAX_RUNS_WITHOUT_YES && !options.yes) throw new SweepUsageError(`the sweep has ${count} runs, over ${MAX_RUNS_WITHOUT_YES}: pass --yes to run it`);
  if (options.samples !== undefined) {
    const rng = createPrng(options.seed);
    const points: Record<string, ParamValue>[] = [];
    for (let i = 0; i < options.samples; i++) {
      const point: Record<string, ParamValue> = {};
      for (const name of names) point[name] = draw(space[name]!, rng.next);
      points.push(point);
    }
    return points;
  }
  let points: Record<string, ParamValue>[] = [{}];
  for (const name of names) {
    const d = space[name]!;
    const values = isRange(d) ? stepValues(name, d) : d;
    points = points.flatMap((p) => values.map((v) => ({ ...p, [name]: v })));
  }
  return points;
}

function draw(d: Dimension, next: () => number): ParamValue {
  if (!isRange(d)) return d[Math.floor(next() * d.length)]!;
  const x = d.min + next() * (d.max - d.min);
  if (d.step !== undefined) return Math.min(d.max, Number((d.min + Math.round((x - d.min) / d.step) * d.step).toPrecision(12)));
  if (d.integer === true) return Math.min(Math.floor(d.max), Math.round(x));
  return Number(x.toPrecision(6));
}
