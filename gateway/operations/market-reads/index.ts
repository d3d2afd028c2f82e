/** The market reads operations (see operations/index.ts). */
import type { Operation } from '../../contract/operation.ts';
import { apiMetaMarkets } from './api-meta-markets.ts';
import { apiMetaOverview } from './api-meta-overview.ts';
import { apiMetaCandles } from './api-meta-candles.ts';
import { apiMetaSpotOverview } from './api-meta-spot-overview.ts';
import { bbo } from './bbo.ts';
import { candles } from './candles.ts';
import { compliance } from './compliance.ts';
import { feeTiers } from './fee-tiers.ts';
import { fundingRates } from './funding-rates.ts';
import { l2OrderBook } from './l2-order-book.ts';
import { leaderboard } from './leaderboard.ts';
import { mids } from './mids.ts';
import { prices } from './prices.ts';
import { spotAssets } from './spot-assets.ts';
import { trade, tradeByQuery } from './trade.ts';
import { trades } from './trades.ts';

export const MARKET_READS: readonly Operation[] = [
  bbo,
  l2OrderBook,
  mids,
  prices,
  trades,
  trade,
  tradeByQuery,
  candles,
  fundingRates,
  feeTiers,
  compliance,
  apiMetaMarkets,
  apiMetaOverview,
  apiMetaSpotOverview,
  apiMetaCandles,
  leaderboard,
  spotAssets,
];
