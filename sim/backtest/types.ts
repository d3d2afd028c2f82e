/**
 * The public types of `Backtest` (exported from the package root, `import { Backtest } from
 * 'perpsim'`): its configuration, the strategy's hooks and what they receive.
 *
 * Hook payloads follow the venue's WebSocket channels: order updates are the `orders` channel's
 * record, fills the `userFills` record (decimal strings), so strategy code written against
 * these types reads the same fields from the live socket. Market data (book, trades, oracle)
 * carries plain numbers in USD and base units for speed; `ctx.formatPrice` / `ctx.formatSize`
 * turn numbers back into the exact decimal strings order bodies need.
 */
import type { FeeTier, MarketDef } from '../../engine/index.ts';
import type { FillRecord, OrderRecord } from '../../gateway/contract/format.ts';
import type { AgentParams } from '../agents.ts';
import type { WalkParams } from '../feeds.ts';
import type { BacktestClient } from './client.ts';
import type { ParseMode } from './data-format.ts';
import type { LatencySpec } from './latency.ts';
import type { QueueModelName } from './queue-model.ts';

export type { FillRecord, OrderRecord, LatencySpec, ParseMode, QueueModelName };

/**
 * Where market data comes from: the seeded simulator, or a recorded file — JSONL
 * (data-format.ts) or its binary conversion (`perpsim convert`, binary-format.ts), told apart
 * by the binary format's magic. For JSONL, `parse` picks the reader's route: 'scan' scans
 * perpsim's own line shapes without JSON.parse in the replaying thread; 'worker' scans them in
 * two reader threads while the replaying thread replays (jsonl-pipeline.ts); 'fast' (default)
 * is 'worker' for files of 256 MB and more, 'scan' otherwise; 'json' JSON.parses every line (the
 * reference route; same events, slower).
 */
export type DataSource = 'sim' | { file: string; parse?: ParseMode };

export interface BacktestConfig {
  /** Markets to trade: definitions, or display names from perpsim's default universe. Default: BTC-USD and ETH-USD. */
  markets?: (MarketDef | string)[];
  /** Starting oracle prices (USD decimal strings) for the simulator. Default: perpsim's defaults. */
  prices?: Record<string, string>;
  /** Starting USD balance of the strategy's account (decimal string). Default "100000". */
  balance?: string;
  /** Fee tiers (engine units: minVolume in quote quantums, fees in ppm). Default: the engine's schedule. */
  feeTiers?: FeeTier[];
  /** Seed of the simulator, the latency draws and the probabilistic queue model. Default 1. */
  seed?: number;
  data: DataSource;
  /** Exchange-time window, unix µs (inclusive from, exclusive to). The simulator defaults to one hour from 2025-01-01. */
  from?: number;
  to?: number;
  /** The simulator's feed step (ms, default 1000) and its agents' and price walk's parameters. */
  sim?: { feedMs?: number; agents?: Partial<AgentParams>; walk?: Partial<WalkParams> };
  /** Latency of order writes, of cancels, and of market data / account events to the strategy. Number = constant ms. */
  latency?: { order?: LatencySpec | number; cancel?: LatencySpec | number; feed?: LatencySpec | number };
  /** Queue position model for resting orders against replayed liquidity. Default 'conservative'. */
  queueModel?: QueueModelName;
  /** onTimer period in ms of simulated time (0 or absent: no periodic timer). */
  timerMs?: number;
  /** Equity / position sampling period for the summary and report, ms of simulated time. Default 60,000. */
  sampleMs?: number;
  /** Book levels per side in onBook. Default 5. */
  bookDepth?: number;
  /**
   * What onBook receives (BookUpdate): 'reused' (default) a view the backtest refills for a
   * later call once the hook has returned, 'copy' a fresh object with its own arrays per call,
   * for a strategy that keeps views or reads them after an await.
   */
  bookView?: 'reused' | 'copy';
  /**
   * The strategy's parameters (a sweep's grid point): handed to a factory with the rest of the
   * config (`export default (config) => strategy` reads `config.params`) and to every hook as
   * `ctx.params`. Default {}.
   */
  params?: Record<string, ParamValue>;
  /** Called every `progressEvery` events (default 100,000) and at the end. */
  onProgress?: (progress: Progress) => void;
  progressEvery?: number;
}

/** A strategy parameter's value: what a grid file or `--param name=a,b` can hold. */
export type ParamValue = number | string | boolean;

export interface Progress {
  events: number;
  /** Simulated time now, and the window (unix µs); `to` is undefined for an open-ended file. */
  time: number;
  from: number;
  to: number | undefined;
  /** Bytes read / file size, when replaying a file. */
  fraction: number | undefined;
  done: boolean;
}

/**
 * onBook's view of a book. By default (`bookView: 'reused'`) the object, its `bids` and `asks`
 * arrays and their pairs belong to the backtest and are refilled for a later call once the
 * hook's call has returned: read what you need during the call (an async hook: before its
 * first `await`), and copy what you keep (`book.bids.map(([p, s]) => [p, s])`). A book event
 * then costs no allocation. `bookView: 'copy'` gives every call its own objects.
 */
export interface BookUpdate {
  market: string;
  marketId: number;
  time: number;
  /** Best first: [price, size] in USD and base units. Replayed books exclude the strategy's own orders. */
  bids: [number, number][];
  asks: [number, number][];
}

export interface TradeUpdate {
  market: string;
  marketId: number;
  time: number;
  /** The aggressor's side. */
  side: 'BUY' | 'SELL';
  price: number;
  size: number;
}

export interface OracleUpdate {
  market: string;
  marketId: number;
  time: number;
  price: number;
  /** 0 when unavailable. */
  markPrice: number;
}

export interface FundingUpdate {
  market: string;
  marketId: number;
  time: number;
  /** Hourly rate as a decimal string. */
  rate: string;
  /** The strategy's payment in USD (positive = received) when this is a settlement it took part in. */
  payment?: string;
}

export interface TimerUpdate {
  time: number;
  /** The name given to ctx.setTimer, or "interval" for the periodic timer. */
  name: string;
}

export interface StrategyContext {
  client: BacktestClient;
  /** Simulated time now, unix µs. */
  now(): number;
  /** The run's parameters (BacktestConfig.params; {} when none). */
  params: Readonly<Record<string, ParamValue>>;
  /** Market display name → id, for the configured markets. */
  markets: ReadonlyMap<string, number>;
  /** A price in USD as the market's decimal string on its tick (rounded down for bids, up for asks by `side`). */
  formatPrice(marketId: number, price: number, side: 'BUY' | 'SELL'): string;
  /** A size in base units as the market's decimal string on its step (rounded down). */
  formatSize(marketId: number, size: number): string;
  /** Calls onTimer once after `delayMs` of simulated time. */
  setTimer(delayMs: number, name: string): void;
}

type Hook<T> = (update: T, ctx: StrategyContext) => void | Promise<void>;

/** A strategy: any subset of hooks. Hooks may be async; the backtest waits for them. */
export interface Strategy {
  onStart?(ctx: StrategyContext): void | Promise<void>;
  onBook?: Hook<BookUpdate>;
  onTrade?: Hook<TradeUpdate>;
  onOraclePrice?: Hook<OracleUpdate>;
  onOrderUpdate?: Hook<OrderRecord>;
  onFill?: Hook<FillRecord>;
  onFunding?: Hook<FundingUpdate>;
  onTimer?: Hook<TimerUpdate>;
  onEnd?(ctx: StrategyContext): void | Promise<void>;
}

/** What a strategy module default-exports: a strategy, or a factory of one (called per run). */
export type StrategyModule = Strategy | ((config: BacktestConfig) => Strategy);
