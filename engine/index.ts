/**
 * perpsim's matching engine: a pure, deterministic state machine (commands in, events out).
 * Gateway, simulator and backtests use it through this module only.
 */
export { apply, createEngine, DEFAULT_LIMITS, DEFAULT_RISK, reuseResults, useEventRecords, type Engine, type MarketState } from './engine.ts';
export { eventAt, eventTypeAt, type EventRecords } from './event-records.ts';
export type { CommandScratch, EngineWiring } from './state.ts';
export * from './types.ts';
export * from './spec.ts';
export {
  compileMarket,
  priceToTicks,
  sizeToQuantums,
  ticksToPrice,
  quantumsToSize,
  onTierTick,
  meetsMinNotional,
  type MarketSpec,
} from './market.ts';
export { topLevels, bestLevel, bestPrice, bestSize, levelCount, levelsBestFirst, type BookSide, type LevelView } from './book.ts';
export { formatUnits, formatBig, trimDecimal, toUnits, unitOf, type Unit } from './units.ts';
export { isTransitionAllowed, ORDER_TRANSITIONS } from './order.ts';
export { accountView, withdrawable, type AccountView } from './risk.ts';
export { crossRisk, isolatedRisk, marginPrice, type CrossRisk } from './margin.ts';
export { DEFAULT_FEE_TIERS, tierFor } from './fees.ts';
export { accountOrders, activeMarkets, findAccount, lifetimeFeesPaid, lifetimeVolume, marketOf, positionOf, quoteOf, rollingVolume, touchedMarkets, type Account } from './account.ts';
export type { AccountMarket } from './position.ts';
export type { Order } from './order.ts';
export { detachEngine, engineState, graftEngine, type EngineState } from './restore.ts';
export { ledger, type Ledger } from './ledger.ts';
export { RESTORED_BY_GRAFT } from './order-record.ts';
export { plainRecord } from './plain-record.ts';
