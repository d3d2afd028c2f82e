/**
 * Leaderboard aggregates: traded volume, fees paid and realized PnL per wallet (all subaccounts
 * together), kept incrementally from fill and funding events.
 *
 * Contract:
 * - State is plain data hung off `GatewayState.leaderboard`; it changes only through
 *   `recordFill` and `recordFunding`.
 * - Per wallet: all-time totals, one bucket per UTC day for the last `DAYS_KEPT` days and one
 *   per hour for the last `HOURS_KEPT` hours (oldest first; older buckets are dropped as new
 *   ones open), so memory per wallet is bounded and a read never rescans history.
 * - Windows: `all`; `30d` = today's UTC day and the 29 before it; `24h` = the current hour and
 *   the 23 before it (bucket granularity: a fill 24 h 30 min old may still count).
 * - volume: filled notional (USD); feesPaid: fees charged (rebates count negative); pnl:
 *   realized PnL net of fees (Σ fill closedPnl) plus funding payments received minus paid.
 */
import { plainRecord } from '../../engine/index.ts';
export const DAYS_KEPT = 31;
export const HOURS_KEPT = 25;
const HOUR_US = 3_600_000_000;
const DAY_US = 86_400_000_000;

export type LeaderboardWindow = 'all' | '30d' | '24h';
export type LeaderboardSort = 'volume' | 'pnl' | 'fees';

export interface Totals {
  volume: bigint;
  fees: bigint;
  pnl: bigint;
}

export interface Bucket extends Totals {
  /** Day or hour number since the epoch. */
  index: number;
}

export interface WalletTotals {
  all: Totals;
  days: Bucket[];
  hours: Bucket[];
}

export interface LeaderboardState {
  wallets: Map<string, WalletTotals>;
}

const buildLeaderboardState = plainRecord<LeaderboardState>();

export function createLeaderboardState(): LeaderboardState {
  return buildLeaderboardState({ wallets: new Map() });
}

const zero = (): Totals => ({ volume: 0n, fees: 0n, pnl: 0n });

function walletOf(ls: LeaderboardState, address: string): WalletTotals {
  let w = ls.wallets.get(address);
  if (w === undefined) {
    w = { all: zero(), days: [], hours: [] };
    ls.wallets.set(address, w);
  }
  return w;
}

function bucketOf(list: Bucket[], index: number, keep: number): Bucket {
  const last = list[list.length - 1];
  if (last !== undefined && last.index === index) return last;
  const bucket: Bucket = { index, ...zero() };
  // Engine time never goes backwards, so a new index is always the newest.
  list.push(bucket);
  while (list.length > 0 && list[0]!.index <= index - keep) list.shift();
  return bucket;
}

/** Adds to one set of totals; a zero (a fill that closes nothing, a fee-free one) is not added: each sum is a new bigint. */
function addTo(t: Totals, volume: bigint, fees: bigint, pnl: bigint): void {
  if (volume !== 0n) t.volume += volume;
  if (fees !== 0n) t.fees += fees;
  if (pnl !== 0n) t.pnl += pnl;
}

/** Adds to the wallet's all-time totals and to its day's and its hour's bucket (no object or array per event). */
function add(ls: LeaderboardState, address: string, time: number, volume: bigint, fees: bigint, pnl: bigint): void {
  const w = walletOf(ls, address);
  addTo(w.all, volume, fees, pnl);
  addTo(bucketOf(w.days, Math.floor(time / DAY_US), DAYS_KEPT), volume, fees, pnl);
  addTo(bucketOf(w.hours, Math.floor(time / HOUR_US), HOURS_KEPT), volume, fees, pnl);
}

/** One fill: its notional, fee and closedPnl (net of the fee), quote quantums. */
export function recordFill(ls: LeaderboardState, address: string, time: number, notional: bigint, fee: bigint, closedPnl: bigint): void {
  add(ls, address, time, notional, fee, closedPnl);
}

/** One funding payment (positive = received). */
export function recordFunding(ls: LeaderboardState, address: string, time: number, payment: bigint): void {
  add(ls, address, time, 0n, 0n, payment);
}

/** A wallet's totals over a window ending at `now`. */
export function windowTotals(w: WalletTotals, window: LeaderboardWindow, now: number): Totals {
  if (window === 'all') return w.all;
  const [list, first] = window === '30d' ? [w.days, Math.floor(now / DAY_US) - 29] : [w.hours, Math.floor(now / HOUR_US) - 23];
  const sum = zero();
  for (const b of list) {
    if (b.index < first) continue;
    sum.volume += b.volume;
    sum.fees += b.fees;
    sum.pnl += b.pnl;
  }
  return sum;
}

export interface Ranked extends Totals {
  address: string;
}

/**
 * Wallets that traded in the window, best first by `sortBy` (ties: lower address first), at most
 * `limit`.
 */
export function rank(ls: LeaderboardState, window: LeaderboardWindow, sortBy: LeaderboardSort, now: number, limit: number): Ranked[] {
  const rows: Ranked[] = [];
  for (const [address, w] of ls.wallets) {
    const t = windowTotals(w, window, now);
    if (t.volume > 0n) rows.push({ address, ...t });
  }
  const key = (r: Ranked): bigint => (sortBy === 'volume' ? r.volume : sortBy === 'fees' ? r.fees : r.pnl);
  rows.sort((a, b) => {
    const d = key(b) - key(a);
    if (d !== 0n) return d > 0n ? 1 : -1;
    return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  });
  return rows.slice(0, limit);
}
