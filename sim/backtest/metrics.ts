/**
 * The ratios a strategy author compares runs by (docs/decisions.md "Summary, report and metrics").
 *
 * - Returns: simple returns of the equity between consecutive samples `sampleMs` apart (the
 *   last, shorter interval to the end is left out); a year is 365 days (perps trade around the
 *   clock), so there are 365 d / sampleMs periods per year.
 * - Sharpe: mean / standard deviation (n − 1) of the returns × √(periods per year); Sortino: mean
 *   / downside deviation (√ of the mean of min(r, 0)² over all returns) × the same factor;
 *   Calmar: the annualized (compound) return over the maximum drawdown as a fraction. These three
 *   are annualized, and a run shorter than MIN_ANNUALIZED_US or with fewer than MIN_RETURNS
 *   returns shows null and a reason in `unavailable`: an hour's ratio times √(periods per year)
 *   is noise scaled by ~725, not a Sharpe ratio.
 * - Trades: the strategy's fills matched first-in first-out per market. A closing fill is a
 *   trade; its PnL is the engine's realized PnL of the closed quantity minus the fill's fee and
 *   the matched lots' share of their opening fees. Win rate: trades with PnL > 0 over all trades;
 *   profit factor: Σ winning PnL / |Σ losing PnL|; average holding time: the size-weighted mean
 *   time from opening to closing of every closed quantity, in seconds.
 * - Exposure: the share of the run's window during which the strategy held a position in any
 *   market, from its fills (so exact, not sampled), in percent.
 * Ratios are rounded to 4 significant digits: more would be noise for a comparison.
 */

const YEAR_US = 365 * 86_400_000_000;
/** Annualized ratios need at least a day of data... */
export const MIN_ANNUALIZED_US = 86_400_000_000;
/** ...and at least this many returns. */
export const MIN_RETURNS = 30;

export interface Metrics {
  /** Annualized; null when the run is too short (`unavailable` says why). */
  sharpe: number | null;
  sortino: number | null;
  calmar: number | null;
  /** Closing fills with positive PnL net of fees, as a fraction of all closing fills. */
  winRate: number | null;
  profitFactor: number | null;
  avgHoldingSec: number | null;
  /** Percent of the window with a position in any market. */
  exposurePct: number;
  /** Closing fills. */
  trades: number;
  /** How returns were sampled: the interval and how many returns the ratios used. */
  returns: { intervalMs: number; count: number };
  /** Metric name → why it is null. */
  unavailable: Record<string, string>;
}

/** `x` to `digits` significant digits (0 for non-finite and -0). */
export function significant(x: number, digits = 4): number {
  if (!Number.isFinite(x) || x === 0) return 0;
  const r = Number(x.toPrecision(digits));
  return Object.is(r, -0) ? 0 : r;
}

interface Lot {
  time: number;
  /** Quantums left, and the opening fee per quantum (USD). */
  size: number;
  feePer: number;
}

interface MarketBook {
  /** Signed position in quantums. */
  position: number;
  lots: Lot[];
}

/** FIFO lots per market: trades, holding time, exposure. */
export class TradeLedger {
  private readonly books = new Map<number, MarketBook>();
  private openMarkets = 0;
  private exposedSince = 0;
  private exposedUs = 0;
  private wins = 0;
  private losses = 0;
  private trades = 0;
  private grossWin = 0;
  private grossLoss = 0;
  private heldQty = 0;
  private heldQtyUs = 0;

  /** One fill of the strategy: `side` 0 buy; size in quantums; fee paid and realized PnL (before fees) in USD. */
  fill(time: number, marketId: number, side: 0 | 1, size: number, fee: number, realized: number): void {
    let book = this.books.get(marketId);
    if (book === undefined) this.books.set(marketId, (book = { position: 0, lots: [] }));
    const signed = side === 0 ? size : -size;
    const feePer = size > 0 ? fee / size : 0;
    const wasOpen = book.position !== 0;
    let left = size;
    if (book.position !== 0 && Math.sign(book.position) !== Math.sign(signed)) {
      // Closing: the oldest lots first.
      const closed = Math.min(Math.abs(book.position), size);
      let openingFees = 0;
      let take = closed;
      while (take > 0 && book.lots.length > 0) {
        const lot = book.lots[0]!;
        const q = Math.min(lot.size, take);
        openingFees += q * lot.feePer;
        this.heldQty += q;
        this.heldQtyUs += q * (time - lot.time);
        lot.size -= q;
        take -= q;
        if (lot.size === 0) book.lots.shift();
      }
      const pnl = realized - closed * feePer - openingFees;
      this.trades++;
      if (pnl > 0) {
        this.wins++;
        this.grossWin += pnl;
      } else if (pnl < 0) {
        this.losses++;
        this.grossLoss -= pnl;
      }
      book.position += Math.sign(signed) * closed;
      left -= closed;
    }
    if (left > 0) {
      book.lots.push({ time, size: left, feePer });
      book.position += Math.sign(signed) * left;
    }
    const isOpen = book.position !== 0;
    if (wasOpen !== isOpen) {
      if (isOpen && this.openMarkets++ === 0) this.exposedSince = time;
      if (!isOpen && --this.openMarkets === 0) this.exposedUs += time - this.exposedSince;
    }
  }

  metrics(from: number, end: number, returns: ReturnSeries, maxDrawdownFraction: number, startEquity: number, finalEquity: number): Metrics {
    const unavailable: Record<string, string> = {};
    const exposed = this.exposedUs + (this.openMarkets > 0 ? Math.max(0, end - this.exposedSince) : 0);
    const duration = end - from;
    const annual = annualized(returns, duration, unavailable);
    let calmar: number | null = null;
    if (annual !== null) {
      if (maxDrawdownFraction <= 0) unavailable.calmar = 'no drawdown';
      else if (startEquity <= 0 || finalEquity <= 0) unavailable.calmar = 'equity not positive';
      else calmar = significant(((finalEquity / startEquity) ** (YEAR_US / duration) - 1) / maxDrawdownFraction);
    } else unavailable.calmar = unavailable.sharpe!;
    if (this.trades === 0) {
      for (const name of ['winRate', 'profitFactor']) unavailable[name] = 'no closed trade';
    } else if (this.grossLoss === 0) unavailable.profitFactor = 'no losing trade';
    if (this.heldQty === 0) unavailable.avgHoldingSec = 'no closed position';
    return {
      sharpe: annual?.sharpe ?? null,
      sortino: annual?.sortino ?? null,
      calmar,
      winRate: this.trades === 0 ? null : significant(this.wins / this.trades),
      profitFactor: this.trades === 0 || this.grossLoss === 0 ? null : significant(this.grossWin / this.grossLoss),
      avgHoldingSec: this.heldQty === 0 ? null : significant(this.heldQtyUs / this.heldQty / 1e6),
      exposurePct: duration > 0 ? significant((100 * exposed) / duration) : 0,
      trades: this.trades,
      returns: { intervalMs: returns.intervalUs / 1000, count: returns.values.length },
      unavailable: Object.fromEntries(Object.entries(unavailable).sort(([a], [b]) => (a < b ? -1 : 1))),
    };
  }
}

export interface ReturnSeries {
  intervalUs: number;
  values: number[];
}

/** Returns between consecutive full-interval samples. */
export function sampleReturns(samples: readonly { time: number; equity: number }[], intervalUs: number): ReturnSeries {
  const values: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const prev = samples[i - 1]!;
    const cur = samples[i]!;
    if (cur.time - prev.time !== intervalUs || prev.equity <= 0) continue;
    values.push(cur.equity / prev.equity - 1);
  }
  return { intervalUs, values };
}

function annualized(returns: ReturnSeries, duration: number, unavailable: Record<string, string>): { sharpe: number | null; sortino: number | null } | null {
  const r = returns.values;
  if (duration < MIN_ANNUALIZED_US) {
    unavailable.sharpe = unavailable.sortino = `run of ${hours(duration)} h: annualized ratios need at least ${hours(MIN_ANNUALIZED_US)} h`;
    return null;
  }
  if (r.length < MIN_RETURNS) {
    unavailable.sharpe = unavailable.sortino = `${r.length} returns: annualized ratios need at least ${MIN_RETURNS}`;
    return null;
  }
  const factor = Math.sqrt(YEAR_US / returns.intervalUs);
  const mean = r.reduce((a, b) => a + b, 0) / r.length;
  const variance = r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1);
  const downside = Math.sqrt(r.reduce((a, b) => a + Math.min(b, 0) ** 2, 0) / r.length);
  const std = Math.sqrt(variance);
  if (std === 0) unavailable.sharpe = 'equity never moved';
  if (downside === 0) unavailable.sortino = 'no losing period';
  return { sharpe: std > 0 ? significant((mean / std) * factor) : null, sortino: downside > 0 ? significant((mean / downside) * factor) : null };
}

function hours(us: number): string {
  return String(significant(us / 3_600_000_000, 3));
}
