/**
 * A sweep's plan and its rows: the metrics a run is compared by (from its summary.json) and
 * how they rank.
 */
import type { Summary } from '../backtest/summary.ts';
import type { ParamValue } from '../backtest/types.ts';
import type { RunTask } from './run.ts';

export interface SweepPlan {
  strategyName: string;
  dataName: string;
  seed: number;
  /** The swept names, grid order. */
  names: string[];
  points: Record<string, ParamValue>[];
  tasks: RunTask[];
  rankBy: Metric;
}

/** The columns of sweep.csv / sweep.json's `metrics`, from summary.json. */
export const METRICS = ['pnl', 'realized', 'unrealized', 'fees', 'funding', 'interest', 'finalEquity', 'maxDrawdown', 'maxDrawdownPct', 'sharpe', 'sortino', 'calmar', 'winRate', 'profitFactor', 'avgHoldingSec', 'exposurePct', 'turnover', 'tradedNotional', 'trades', 'fills', 'rejections'] as const;
export type Metric = (typeof METRICS)[number];
/** Metrics where smaller ranks better. */
export const LOWER_IS_BETTER: ReadonlySet<Metric> = new Set(['maxDrawdown', 'maxDrawdownPct', 'fees', 'rejections']);

export type MetricRow = Record<Metric, string | number | null>;

export interface RunRow {
  run: number;
  key: string;
  params: Record<string, ParamValue>;
  seed: number;
  status: 'ok' | 'failed';
  error?: string;
  metrics?: MetricRow;
}

export function metricsOf(s: Summary): MetricRow {
  return {
    pnl: s.pnl.total,
    realized: s.pnl.realized,
    unrealized: s.pnl.unrealized,
    fees: s.pnl.fees,
    funding: s.pnl.funding,
    interest: s.pnl.interest,
    finalEquity: s.finalEquity,
    maxDrawdown: s.maxDrawdown,
    maxDrawdownPct: s.maxDrawdownPct,
    sharpe: s.sharpe,
    sortino: s.sortino,
    calmar: s.calmar,
    winRate: s.winRate,
    profitFactor: s.profitFactor,
    avgHoldingSec: s.avgHoldingSec,
    exposurePct: s.exposurePct,
    turnover: s.turnover,
    tradedNotional: s.tradedNotional,
    trades: s.trades,
    fills: s.fills.total,
    rejections: Object.values(s.rejections).reduce((a, b) => a + b, 0),
  };
}

/** A metric as a number to rank by; null (unavailable) ranks last. */
export function score(row: MetricRow | undefined, metric: Metric): number | null {
  const v = row?.[metric];
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return LOWER_IS_BETTER.has(metric) ? -n : n;
}

/** The best finished row by `metric` (ties: the earlier run). */
export function bestRow(rows: readonly RunRow[], metric: Metric): RunRow | undefined {
  let best: RunRow | undefined;
  for (const r of rows) {
    const s = score(r.metrics, metric);
    if (s === null) continue;
    const b = score(best?.metrics, metric);
    if (b === null || s > b) best = r;
  }
  return best;
}
