/**
 * One declaration per operation: what the REST route and the WebSocket method share.
 *
 * An operation is its name (the WebSocket method), method and path, the auth it needs, the JSON
 * schema of its input and of its replies by status code (fastify compiles both once: requests
 * are validated and replies serialized from them, on REST and on the WebSocket RPC alike), its
 * errorSource, its row of the per-IP weight table, whether it changes state, and a handler from
 * a parsed request to a reply. Handlers never see fastify: `OperationRequest` is what both
 * transports can give.
 */
import type { TSchema } from 'typebox';
import type { ErrorSource } from '../../engine/spec.ts';
import type { WeightedOperation } from '../rate-limit/weights.ts';
import type { ReplyBody, Responses } from './reply-schema.ts';
import type { ServerClocks, WalletDomainConfig } from '../auth/index.ts';
import type { ReplaySlots } from '../auth/replay-slots.ts';
import type { CandleStore } from '../read-models/candles.ts';
import type { FundingRateStore } from '../read-models/funding-rates-store.ts';
import type { MarketStatsStore } from '../read-models/market-stats.ts';
import type { MarketAttributeTracker } from '../read-models/market-attributes.ts';
import type { Reply } from './errors.ts';
import type { Exchange } from '../read-models/exchange.ts';
import type { GeoConfig } from '../http/geo.ts';
import type { KeyRegistry } from '../auth/keys.ts';
import type { Verifier } from '../auth/verifier.ts';
import type { Turns } from '../auth/sequencer.ts';
import type { LeaderboardState } from '../services/leaderboard.ts';
import type { NotificationState } from '../services/notifications.ts';
import type { PortfolioState } from '../services/portfolio.ts';
import type { PreferencesState } from '../services/preferences.ts';
import type { ReferralState } from '../services/referral.ts';
import type { AccountPools, IpBucket, RateLimitConfig } from '../rate-limit/index.ts';
import type { SchemaValidator } from './validator.ts';

/** The service stores a request may change directly. */
export type ServiceStore = 'referral' | 'notifications' | 'preferences';

export type AuthKind = 'public' | 'key' | 'signed' | 'wallet';

export interface GatewayConfig {
  service: string;
  version: string;
  /** Skip signature checks (perpsim --no-auth): keys must still name the right address. */
  auth: boolean;
  rateLimit: RateLimitConfig;
  /** Regions whose state-changing requests are refused (geo.ts); none when absent. */
  geo?: GeoConfig;
}

/**
 * Everything a request, a channel, persistence and the simulator reach: built once, with every
 * field, by `createGateway` (gateway.ts, which states the order), and passed to whoever needs it.
 * A restore replaces the service stores and read-model contents in place (persistence/).
 */
export interface GatewayState {
  exchange: Exchange;
  keys: KeyRegistry;
  config: GatewayConfig;
  /** The chain id and BridgeVault contract wallet signatures are checked against (network.ts). */
  network: WalletDomainConfig;
  /** Wall and simulator clocks for the timestamp window (ns). */
  clocks: () => ServerClocks;
  /** Wall-clock milliseconds for rate limits and key expiry. */
  nowMs: () => number;
  ipBuckets: Map<string, IpBucket>;
  pools: Map<string, AccountPools>;
  /** Signatures already accepted (replay protection) and when (gateway/auth/replay.ts). */
  replay: ReplaySlots;
  /** Where Ed25519 signatures are verified (worker threads); inline on the event loop when absent. */
  verifier?: Verifier;
  /**
   * The process's one schema validator (validator.ts): REST routes, the WebSocket's RPC payloads
   * batch elements and the backtester's in-process calls all compile through it (createGateway).
   */
  validator: SchemaValidator;
  /** Single-use nonces the wallet-signed key routes spent, "address|nonce" (nonces.ts). */
  nonces: Set<string>;
  /** Each wallet's last write in flight (sequencer.ts). */
  turns: Turns;
  // Read models fed by the exchange's events (createGateway's listener).
  /** OHLCV bars per market and timeframe (candles.ts). */
  candles: CandleStore;
  /** Settled hourly funding rates (funding-rates-store.ts). */
  fundingRates: FundingRateStore;
  /** Rolling 24-hour market statistics (market-stats.ts). */
  marketStats: MarketStatsStore;
  /** The market attribute blocks last streamed (ws/market-attributes.ts). */
  marketAttributes: MarketAttributeTracker;
  // Plain-data stores of the account services (services.ts); each changes only through the
  // functions of its module.
  /** Affiliate program (referral.ts). */
  referral: ReferralState;
  /** Push tokens and inboxes (notifications.ts). */
  notifications: NotificationState;
  /** userPreferences documents (preferences.ts). */
  preferences: PreferencesState;
  /** Per-wallet volume, fees and realized PnL buckets (leaderboard.ts). */
  leaderboard: LeaderboardState;
  /** Per-account equity and PnL samples (portfolio.ts). */
  portfolio: PortfolioState;
  /**
   * Resolves once every change made so far is durable (gateway/persistence/); replies wait for
   * it. Absent: nothing to wait for.
   */
  committed?: () => Promise<void>;
  /**
   * Called after a request changed a service store directly (not through an engine event):
   * persistence journals the wallet's new entry (gateway/persistence/durable-state.ts).
   */
  serviceWritten?: (store: ServiceStore, wallet: string) => void;
}

export interface OperationRequest {
  body: unknown;
  query: Record<string, unknown>;
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** The request path with its query (Scheme 2 signs the path's last segment). */
  path: string;
  rawBody: string | undefined;
}

/**
 * `R`: the reply schemas by status code; the handler's replies are typed from them. Every field
 * but `alsoMethods` is required: a record that leaves one out does not type-check.
 */
export interface Operation<R extends Responses = Responses> {
  name: string;
  method: 'GET' | 'POST';
  /** Other HTTP methods the REST route also answers with the same handler (venue clients' spellings). */
  alsoMethods?: readonly ('PATCH' | 'DELETE')[];
  path: string;
  auth: AuthKind;
  /** Its one-line documentation (`GET /` and the OpenAPI document list it). */
  description: string;
  /** Request schemas (fastify's); `{}` for an operation that takes no input. */
  schema: { querystring?: TSchema; body?: TSchema; params?: TSchema };
  /** Reply schemas by status code (fastify's `response`): serialization, OpenAPI, the SDK's type test. */
  response: R;
  /** The errorSource of its structured errors (order and cancel writes); null for every other operation. */
  errorSource: ErrorSource | null;
  /** Its row in the per-IP weight table (rate-limit/weights.ts). */
  weight: WeightedOperation;
  /** Whether it changes state (a region block refuses it; a read never is). */
  mutates: boolean;
  handle(state: GatewayState, request: OperationRequest): OperationReply<R> | Promise<OperationReply<R>>;
}

/** A handler's reply: typed by the declared reply schemas, refusals included. */
export type OperationReply<R extends Responses> = Reply<ReplyBody<R>>;
