/**
 * perpsim's package entry: `import { Backtest } from 'perpsim'`.
 *
 * @example
 * const result = await new Backtest({ data: 'sim', markets: ['BTC-USD'], seed: 7 }, strategy).run();
 * writeOutputs(result, 'out'); // summary.json + report.html
 */
export { Backtest, STRATEGY_ADDRESS } from './sim/backtest/backtest.ts';
export { BacktestClient, type Reply } from './sim/backtest/client.ts';
export { writeOutputs, type BacktestResult, type FillPoint, type Sample, type Summary } from './sim/backtest/summary.ts';
export {
  FORMAT_NAME,
  FORMAT_VERSION,
  MarketDataReader,
  MarketDataWriter,
  type BookRecord,
  type FundingRecord,
  type HeaderRecord,
  type MarketDataRecord,
  type OracleRecord,
  type TradeRecord,
} from './sim/backtest/data-format.ts';
export type {
  BacktestConfig,
  BookUpdate,
  DataSource,
  FillRecord,
  FundingUpdate,
  LatencySpec,
  OracleUpdate,
  OrderRecord,
  ParseMode,
  Progress,
  QueueModelName,
  Strategy,
  StrategyContext,
  StrategyModule,
  TimerUpdate,
  TradeUpdate,
} from './sim/backtest/types.ts';
