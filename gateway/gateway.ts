/**
 * The gateway's composition root: `createGateway` builds the exchange, every read model, every
 * service and the gateway's own collections once, as the required fields of one object
 * (`GatewayState`), which is then handed to whoever needs it — buildApp (REST), attachWebSocket,
 * persistence, the simulator's control API and the backtester. No module keeps state of its
 * own beside it.
 *
 * Order (each step reads only what the steps before it built):
 * 1. the exchange: the engine and the history lists it keeps itself (exchange.ts);
 * 2. the read models fed by its events: candles, funding rates, market statistics, and the
 *    market attribute blocks streamed (read on demand, not per event);
 * 3. the services' stores: affiliate program, notifications, preferences, leaderboard,
 *    portfolio; their engine hook (referral fees) is set in step 5;
 * 4. the gateway's own collections and tools: API keys, rate-limit buckets and pools, replay
 *    slots, spent nonces, per-wallet turns, the wallet-signature network, and the one schema
 *    validator of REST, the WebSocket and in-process calls;
 * 5. one exchange listener, added before any other (`followGateway`): each command's events reach
 *    the read models and the services, and only then later listeners (the WebSocket fan-out,
 *    which reads the read models). The listener reads the stores through the state on every
 *    call, so a restore (persistence/) may replace a store's contents or a whole service store.
 */
import type { EngineConfig, EngineEvent } from '../engine/index.ts';
import type { ArcusNetworkName, ServerClocks, WalletDomainConfig } from './auth/index.ts';
import type { Verifier } from './auth/verifier.ts';
import { addTrades, createCandleStore } from './read-models/candles.ts';
import { createExchange, type Clock, type ExchangeLimits } from './read-models/exchange.ts';
import { createFundingRateStore, recordFundingRate } from './read-models/funding-rates-store.ts';
import { createKeyRegistry } from './auth/keys.ts';
import { ReplaySlots } from './auth/replay-slots.ts';
import { createLeaderboardState } from './services/leaderboard.ts';
import { createMarketStatsStore, recordTrades } from './read-models/market-stats.ts';
import { DEFAULT_NETWORK, networkConfig } from './auth/network.ts';
import { createNotificationState } from './services/notifications.ts';
import type { GatewayConfig, GatewayState } from './contract/operation.ts';
import { createPortfolioState } from './services/portfolio.ts';
import { createPreferencesState } from './services/preferences.ts';
import { createReferralState } from './services/referral.ts';
import { followEvent, sampleIfDue, wireServices } from './services/follow.ts';
import { tradesNotional } from './shared/trade-notional.ts';
import { createSchemaValidator, type SchemaValidator } from './contract/validator.ts';
import { createMarketAttributeTracker } from './read-models/market-attributes.ts';
import { plainRecord } from '../engine/index.ts';

export interface GatewayOptions {
  /** The engine's markets, risk parameters and limits. */
  engine: EngineConfig;
  /** Stamps every command (Unix µs): the simulator's clock. */
  clock: Clock;
  /** The exchange's history bounds (exchange.ts); defaults otherwise. */
  limits?: Partial<ExchangeLimits>;
  config: GatewayConfig;
  /** Wall and simulator clocks for the timestamp window (ns). */
  clocks: () => ServerClocks;
  /** Wall-clock milliseconds for rate limits and key expiry. */
  nowMs: () => number;
  /** Worker threads that verify Ed25519 signatures; inline on the event loop when absent. */
  verifier?: Verifier;
  /** The wallet-signature network (network.ts); the venue's testnet when absent. */
  network?: ArcusNetworkName | WalletDomainConfig;
  /**
   * The schema validator (a new one when absent). A validator keeps only compiled schemas, so
   * gateways built one after another in a thread (a sweep's backtests) may share one: each
   * schema is then compiled by ajv, and its code by V8, once per thread instead of once per gateway.
   */
  validator?: SchemaValidator;
}

// A builder, not a literal: the state is built once per backtest, and hot code reads it (engine/plain-record.ts).
const buildGatewayState = plainRecord<GatewayState>();

export function createGateway(options: GatewayOptions): GatewayState {
  // 1. The exchange.
  const exchange = createExchange(options.engine, options.clock, options.limits);
  const state = buildGatewayState({
    exchange,
    config: options.config,
    clocks: options.clocks,
    nowMs: options.nowMs,
    ...(options.verifier !== undefined && { verifier: options.verifier }),
    // 2. Read models. Closed candle bars live in the history store once SQLite installs one.
    candles: createCandleStore(undefined, () => exchange.history.candles),
    fundingRates: createFundingRateStore(),
    marketStats: createMarketStatsStore(),
    marketAttributes: createMarketAttributeTracker(exchange),
    // 3. Services.
    referral: createReferralState(),
    notifications: createNotificationState(),
    preferences: createPreferencesState(),
    leaderboard: createLeaderboardState(),
    portfolio: createPortfolioState(),
    // 4. The gateway's own collections.
    keys: createKeyRegistry(),
    ipBuckets: new Map(),
    pools: new Map(),
    replay: new ReplaySlots(),
    nonces: new Set(),
    turns: new Map(),
    network: options.network === undefined ? DEFAULT_NETWORK : networkConfig(options.network),
    validator: options.validator ?? createSchemaValidator(),
  });
  // 5. One listener, first: each event to its read model or service.
  exchange.listeners.add(followGateway(state));
  return state;
}

/**
 * The gateway's own listener: each event goes to the read model or the service that takes it,
 * in one pass (one look at its type): the read models take trades and funding rates, the
 * services every other kind (followEvent), and neither reads the other's stores, so this is
 * the same as all read models first, then all services. Portfolio samples after the events.
 */
export function followGateway(state: GatewayState): (events: readonly EngineEvent[]) => void {
  wireServices(state);
  const markets = state.exchange.engine.markets;
  return (events) => {
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.type === 'trades' || e.type === 'fundingRate') followReadModel(state, markets, e);
      else followEvent(state, e);
    }
    sampleIfDue(state);
  };
}

/** The read models' part of the gateway's listener: trades to candles and market statistics, funding rates. */
export function followReadModels(state: GatewayState): (events: readonly EngineEvent[]) => void {
  const markets = state.exchange.engine.markets;
  return (events) => {
    for (const e of events) followReadModel(state, markets, e);
  };
}

function followReadModel(state: GatewayState, markets: GatewayState['exchange']['engine']['markets'], e: EngineEvent): void {
  if (e.type === 'trades') {
    const valueMul = markets.get(e.marketId)?.spec.valueMul;
    if (valueMul === undefined) return;
    const notional = tradesNotional(e.entries, valueMul);
    addTrades(state.candles, e, valueMul, notional);
    recordTrades(state.marketStats, e, valueMul, notional);
  } else if (e.type === 'fundingRate') recordFundingRate(state.fundingRates, e);
}
