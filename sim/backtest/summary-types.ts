/**
 * What a backtest produces, as plain records: the equity samples, the strategy's fills and the
 * summary.json record. A leaf: summary.ts (which computes them) and report.ts (which renders
 * them) both import it.
 */
import type { Metrics } from './metrics.ts';

export interface Sample {
  /** Unix µs. */
  time: number;
  /** USD. */
  equity: number;
  /** Position size (base units) and price (USD) per market id. */
  positions: Record<number, number>;
  prices: Record<number, number>;
}

export interface FillPoint {
  time: number;
  marketId: number;
  side: 'BUY' | 'SELL';
  price: number;
  size: number;
  role: string;
}

/** The summary.json record; the ratios (Metrics) are defined in metrics.ts. */
export interface Summary extends Metrics {
  markets: string[];
  data: string;
  seed: number;
  from: number;
  to: number;
  events: number;
  queueModel: string;
  startingBalance: string;
  finalEquity: string;
  pnl: { total: string; realized: string; unrealized: string; fees: string; funding: string; interest: string };
  maxDrawdown: string;
  maxDrawdownPct: number;
  turnover: number;
  tradedNotional: string;
  fills: { total: number; maker: number; taker: number; buy: number; sell: number; liquidation: number };
  rejections: Record<string, number>;
  positions: Record<string, string>;
}
