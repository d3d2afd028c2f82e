/**
 * perpsim's matching engine: a pure, deterministic state machine (commands in, events out).
 * Gateway, simulator and backtests use it through this module only.
 */
export { apply, createEngine, DEFAULT_LIMITS, type Engine, type MarketState } from './engine.ts';
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
export { topLevels, bestLevel } from './book.ts';
export { formatUnits, formatBig, trimDecimal, toUnits, unitOf, type Unit } from './units.ts';
export { isTransitionAllowed, ORDER_TRANSITIONS } from './order.ts';
