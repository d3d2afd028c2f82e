/**
 * Portfolio history: equity and PnL samples per account (address, accountIndex) for the four
 * ranges of GET /v1/portfolio, taken at a fixed cadence per range.
 *
 * Contract:
 * - State is plain data hung off `GatewayState.portfolio`; it changes only through
 *   `recordRealized` (fills and funding) and `takeSamples` (the clock crossed a sample time).
 * - Each account keeps one bounded series per range (`RANGES`): 24h every 15 min, 7d every hour,
 *   30d every 4 h, all-time every day; a series holds at most `keep` points, except all-time,
 *   which halves its resolution (drops every other point, doubles its cadence) when full, so it
 *   keeps covering the account's whole life.
 * - A sample is taken for every activated account when the exchange's time crosses a multiple of
 *   a range's cadence, stamped with that multiple; after a jump of simulated time one sample
 *   marks it, not one per skipped step.
 * - Values, quote quantums: `equity` the account record's equity; `pnl` equity − netDeposits
 *   (everything not deposited: trading, funding, interest, referral claims); `perpEquity` the
 *   part held in positions (equity − netQuoteBalance: unrealized PnL, isolated pools, accrued
 *   funding); `perpPnl` realized PnL of perpetuals (Σ fill closedPnl, fees included, + funding)
 *   plus the unrealized PnL of open positions and the hour's funding accrued so far.
 * - With a sample log (`SampleLog`, the SQLite history tables: history-store.ts) a series in
 *   memory is live state only: its newest two points (the next sample compares with the newest;
 *   the all-time halving may drop it and fall back on the one before), its cadence
 *   and how many points it holds (`stored`); the points go to the log, and reads, the `keep`
 *   bound and the all-time thinning act there — the same replies.
 */
import { plainRecord } from '../../engine/index.ts';
export interface RangeSpec {
  name: '24h' | '7d' | '30d' | 'allTime';
  /** How far back the range looks, µs (Infinity: all-time). */
  spanUs: number;
  cadenceUs: number;
  keep: number;
}

const MINUTE_US = 60_000_000;
const HOUR_US = 60 * MINUTE_US;
const DAY_US = 24 * HOUR_US;

export const RANGES: readonly RangeSpec[] = [
  { name: '24h', spanUs: DAY_US, cadenceUs: 15 * MINUTE_US, keep: 97 },
  { name: '7d', spanUs: 7 * DAY_US, cadenceUs: HOUR_US, keep: 169 },
  { name: '30d', spanUs: 30 * DAY_US, cadenceUs: 4 * HOUR_US, keep: 181 },
  { name: 'allTime', spanUs: Number.POSITIVE_INFINITY, cadenceUs: DAY_US, keep: 1000 },
];

export interface Sample {
  time: number;
  equity: bigint;
  pnl: bigint;
  perpEquity: bigint;
  perpPnl: bigint;
}

export interface Series {
  cadenceUs: number;
  /** Oldest first; with a sample log only the newest. */
  points: Sample[];
  /** With a sample log: the points the series holds there. */
  stored?: number;
}

/** Portfolio points kept outside the series, per account and range (index into RANGES). */
export interface SampleLog {
  add(key: string, rangeIndex: number, sample: Sample): void;
  /** The series' points with from ≤ time ≤ to among its newest `keep`, oldest first. */
  read(key: string, rangeIndex: number, from: number, to: number, keep: number): Sample[];
  /** Drops every other point of the series, its oldest first (the all-time halving). */
  thin(key: string, rangeIndex: number): void;
}

export interface AccountSeries {
  /** Realized perpetual PnL so far (Σ closedPnl + funding). */
  realized: bigint;
  /** One per entry of RANGES, in order. */
  series: Series[];
}

export interface PortfolioState {
  /** The next time at which some range takes a sample. */
  nextSampleAt: number;
  accounts: Map<string, AccountSeries>;
}

const buildPortfolioState = plainRecord<PortfolioState>();

export function createPortfolioState(): PortfolioState {
  return buildPortfolioState({ nextSampleAt: 0, accounts: new Map() });
}

function seriesOf(ps: PortfolioState, key: string): AccountSeries {
  let a = ps.accounts.get(key);
  if (a === undefined) {
    a = { realized: 0n, series: RANGES.map((r) => ({ cadenceUs: r.cadenceUs, points: [] })) };
    ps.accounts.set(key, a);
  }
  return a;
}

export function realizedOf(ps: PortfolioState, key: string): bigint {
  return ps.accounts.get(key)?.realized ?? 0n;
}

/** Realized perpetual PnL of one fill (closedPnl) or funding payment. */
export function recordRealized(ps: PortfolioState, key: string, amount: bigint): void {
  const a = seriesOf(ps, key);
  // Most fills close nothing: adding 0n would still make a new bigint.
  if (amount !== 0n) a.realized += amount;
}

/** Whether `now` has reached the next sample time (cheap: checked on every event batch). */
export function sampleDue(ps: PortfolioState, now: number): boolean {
  return now >= ps.nextSampleAt;
}

/**
 * Samples every account `measure` yields at the latest cadence multiple ≤ `now` of each range
 * that has one newer than its last point.
 */
export function takeSamples(ps: PortfolioState, now: number, accounts: Iterable<{ key: string; measure: () => Omit<Sample, 'time'> }>, log?: SampleLog): void {
  const stamps = RANGES.map((r) => Math.floor(now / r.cadenceUs) * r.cadenceUs);
  for (const { key, measure } of accounts) {
    const a = seriesOf(ps, key);
    let value: Omit<Sample, 'time'> | undefined;
    a.series.forEach((s, i) => {
      const stamp = Math.floor(now / s.cadenceUs) * s.cadenceUs;
      const last = s.points[s.points.length - 1];
      if (last !== undefined && last.time >= stamp) return;
      value ??= measure();
      const point = { time: stamp, ...value };
      const range = RANGES[i]!;
      if (log === undefined) {
        s.points.push(point);
        if (s.points.length <= range.keep) return;
        if (Number.isFinite(range.spanUs)) {
          s.points.shift();
        } else {
          s.points = s.points.filter((_, j) => j % 2 === 1);
          s.cadenceUs *= 2;
        }
        return;
      }
      log.add(key, i, point);
      const previous = s.points[s.points.length - 1];
      s.points = previous === undefined ? [point] : [previous, point];
      s.stored = (s.stored ?? 0) + 1;
      if (s.stored <= range.keep) return;
      // A finite range reads its newest `keep` points; the older rows wait for retention.
      if (Number.isFinite(range.spanUs)) {
        s.stored--;
      } else {
        log.thin(key, i);
        // The halving keeps the odd positions: the point just taken only when the count is even.
        // The next sample compares with the newest kept (not read back: in a replay the table
        // already holds later points).
        if (s.stored % 2 === 1 && previous !== undefined) s.points = [previous];
        s.stored = Math.floor(s.stored / 2);
        s.cadenceUs *= 2;
      }
    });
  }
  ps.nextSampleAt = Math.min(...RANGES.map((r, i) => stamps[i]! + r.cadenceUs));
}

/** The points of one range at `now`: samples within its span, oldest first. */
export function rangePoints(ps: PortfolioState, key: string, rangeIndex: number, now: number, log?: SampleLog): Sample[] {
  const a = ps.accounts.get(key);
  if (a === undefined) return [];
  const from = now - RANGES[rangeIndex]!.spanUs;
  if (log !== undefined) return log.read(key, rangeIndex, Math.max(from, Number.MIN_SAFE_INTEGER), now, RANGES[rangeIndex]!.keep);
  return a.series[rangeIndex]!.points.filter((p) => p.time >= from && p.time <= now);
}
