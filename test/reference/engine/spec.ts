/**
 * The interface's vocabulary, in one place.
 *
 * Every enum, status, rejection reason, errorType and limit that `shared/spec/interface.md`
 * (plus the extras of `supplement.md` §10) spells out lives here; the engine, the gateway, the
 * simulator and the tests import these lists instead of spelling the strings again. Each list
 * is a readonly tuple so the wire strings double as TypeScript literal types.
 */

/** Order status values (interface.md, "Order acknowledgement / state response"). */
export const ORDER_STATUSES = [
  'PENDING',
  'OPEN',
  'PARTIALLY_FILLED',
  'FILLED',
  'CANCELED',
  'MARGIN_CANCELED',
  'REJECTED',
  'UNTRIGGERED',
  'TPSL_PLACED',
  'TPSL_TRIGGERED',
  'TPSL_CANCELED',
  'LIQUIDATED',
  'ADL',
  'ACK',
  'CANCEL_ACKNOWLEDGED',
  'CANCEL_ALL_ACKNOWLEDGED',
  'CANCEL_PENDING',
  'ERROR',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses after which an order never changes again. */
export const TERMINAL_ORDER_STATUSES: ReadonlySet<OrderStatus> = new Set<OrderStatus>([
  'FILLED',
  'CANCELED',
  'MARGIN_CANCELED',
  'REJECTED',
  'TPSL_CANCELED',
  'LIQUIDATED',
  'ADL',
]);

/** Order `state` field of the order record (supplement §7). */
export const ORDER_STATES = ['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Status filter values accepted by GET /v1/orders and /v1/openOrders. */
export const ORDER_STATUS_FILTERS = [
  'OPEN',
  'UNTRIGGERED',
  'FILLED',
  'CANCELED',
  'REJECTED',
  'LIQUIDATED',
  'ADL',
] as const;

export const SIDES = ['BUY', 'SELL'] as const;
export type Side = (typeof SIDES)[number];

export const ORDER_TYPES = ['LIMIT', 'MARKET'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** Time in force; the index is the signed payload's `t` (0 GTT, 1 FOK, 2 IOC, 3 ALO). */
export const TIME_IN_FORCE = ['GTT', 'FOK', 'IOC', 'ALO'] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];
/** `GTC` was replaced by GTT; accepted on input, and resting GTT orders read back as `GTC`. */
export const TIME_IN_FORCE_ALIASES: Readonly<Record<string, TimeInForce>> = { GTC: 'GTT' };

export const TPSL_TYPES = ['STOP_LOSS', 'TAKE_PROFIT'] as const;
export type TpslType = (typeof TPSL_TYPES)[number];

export const TPSL_GROUPINGS = ['entryTpsl', 'partialTpsl', 'positionTpsl'] as const;
export type TpslGrouping = (typeof TPSL_GROUPINGS)[number];

export const MARKET_STATUSES = ['ONLINE', 'OFFLINE'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

/** Market categories: interface.md lists four; supplement §7 adds FOREX. */
export const MARKET_CATEGORIES = ['EQUITIES', 'COMMODITIES', 'INDICES', 'CRYPTO', 'FOREX'] as const;
export type MarketCategory = (typeof MARKET_CATEGORIES)[number];

export const MARGIN_MODES = ['CROSS', 'ISOLATED'] as const;
export type MarginMode = (typeof MARGIN_MODES)[number];

export const POSITION_SIDES = ['LONG', 'SHORT'] as const;
export type PositionSide = (typeof POSITION_SIDES)[number];

export const FILL_ROLES = ['MAKER', 'TAKER', 'ALP'] as const;
export type FillRole = (typeof FILL_ROLES)[number];

export const POSITION_EFFECTS = [
  'OPEN_LONG',
  'OPEN_SHORT',
  'ADD_LONG',
  'ADD_SHORT',
  'CLOSE_LONG',
  'CLOSE_SHORT',
  'FLIP_LONG_TO_SHORT',
  'FLIP_SHORT_TO_LONG',
] as const;
export type PositionEffect = (typeof POSITION_EFFECTS)[number];

/** Update types of the `account` channel. */
export const ACCOUNT_UPDATE_TYPES = [
  'PLACED',
  'CANCELED',
  'MARGIN_CANCELED',
  'REJECTED',
  'TPSL_PLACED',
  'TPSL_CANCELED',
  'TPSL_TRIGGERED',
  'LIQUIDATION',
  'ADL',
] as const;
export type AccountUpdateType = (typeof ACCOUNT_UPDATE_TYPES)[number];

/** rejectionReason values: interface.md "Order rejection reasons" plus supplement §10. */
export const REJECTION_REASONS = [
  'POST_ONLY_WOULD_CROSS',
  'SELF_TRADE',
  'UNDERCOLLATERALIZED',
  'COULD_NOT_FILL',
  'IOC_CANCELED',
  'FOK_FAILED',
  'REDUCE_ONLY_WOULD_INCREASE',
  'TOO_MANY_CLIENT_IDS',
  'DUPLICATE_CLIENT_ID',
  'OPEN_ORDER_CAP_EXCEEDED',
  'ORDER_NOT_FOUND',
  'ORDER_NOT_FOUND_FOR_MODIFY',
  'MODIFY_CHANGED_IMMUTABLE_FIELD',
  'MODIFY_ZERO_SIZE',
  'MODIFY_TPSL_NOT_SUPPORTED',
  'MODIFY_SUPERSEDED_BY_CANCEL',
  'MODIFY_WOULD_CROSS_OUTSIDE_RTH_TRADING_BOUNDARY',
  'PRICE_WILL_EXCEED_MAXIMUM_OUTSIDE_RTH_TRADING_BOUND',
  'ORDER_WILL_TAKE_LIQUIDITY_DURING_MARKET_HALT',
  'POSITION_SIZE_CAP_EXCEEDED',
  // supplement §10
  'POSITION_TPSL_ALREADY_EXISTS',
  'ENTRY_TPSL_CANNOT_BE_POSITION_TPSL',
  'FILL_WILL_EXCEED_TRADING_BOUND',
  'OPEN_INTEREST_CAP_EXCEEDED',
  'MODIFY_SIZE_ALREADY_FILLED',
  'EXPIRED',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** cancelReason values seen on the venue. */
export const CANCEL_REASONS = ['MODIFY_CANCELED'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** errorType values (interface.md "Error body") plus `Internal` from supplement §10. */
export const ERROR_TYPES = [
  'Tick',
  'InvalidRequest',
  'OracleDeviation',
  'ReduceOnly',
  'Unavailable',
  'Unauthorized',
  'Forbidden',
  'NotImplemented',
  'Transmission',
  'Internal',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const ERROR_SOURCES = ['Order', 'Cancel'] as const;
export type ErrorSource = (typeof ERROR_SOURCES)[number];

/** The only `code` value of the error body. */
export const ERROR_CODES = ['GEO_RESTRICTED'] as const;

export const RATE_LIMIT_POOLS = ['order', 'cancel'] as const;
export type RateLimitPool = (typeof RATE_LIMIT_POOLS)[number];
export const RATE_LIMIT_REASONS = ['ip', 'account_empty', 'account_partial', 'unknown'] as const;

export const LEVERAGE_REJECT_REASONS = [
  'UNDERCOLLATERALIZED',
  'INVALID_LEVERAGE',
  'UNKNOWN_MARKET',
  'HAS_OPEN_POSITION',
] as const;
export type LeverageRejectReason = (typeof LEVERAGE_REJECT_REASONS)[number];

export const API_KEY_STATUSES = ['ACTIVE', 'PENDING_DELETE', 'DELETED'] as const;

export const CANDLE_TIMEFRAMES = [
  '1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d', '3d', '1w',
] as const;
export type CandleTimeframe = (typeof CANDLE_TIMEFRAMES)[number];

export const LEADERBOARD_SORTS = ['volume', 'pnl', 'fees'] as const;
export const LEADERBOARD_WINDOWS = ['all', '30d', '24h'] as const;
export const NOTIFICATION_PLATFORMS = ['ios', 'android', 'web'] as const;

export const WS_CHANNELS = [
  'l2Orderbook',
  'l2OrderbookUpdates',
  'trades',
  'bbo',
  'markets',
  'oraclePrices',
  'exchangeAttributeUpdates',
  'marketAttributes',
  'predictedFunding',
  'account',
  'positions',
  'userFills',
  'orders',
  'funding',
  'accountAttributeUpdates',
  'accountTransferUpdates',
  'candles',
] as const;
export type WsChannel = (typeof WS_CHANNELS)[number];

/** Signed-payload operation numbers (Scheme 1, plus op 5 of supplement §1). */
export const SIGNED_OPS = {
  placeOrder: 1,
  cancelOrder: 2,
  modifyOrder: 3,
  tpslPlace: 4,
  withdraw: 5,
} as const;

const US_PER_DAY = 86_400_000_000;

/** Numeric limits of interface.md "Limits" (and the rules that quote numbers). */
export const LIMITS = {
  batchMin: 1,
  batchMax: 100,
  liveClientIdsPerAccount: 10_000,
  /** clientId: 1-36 of [A-Za-z0-9_-] (supplement §2). */
  clientIdMaxLength: 36,
  /** USD; reduce-only orders including TPSL are exempt. */
  minOrderNotionalUsd: 5,
  /** 1 USD in quote quantums (1e9 = 1 USD). */
  minWithdrawalQuantums: 1_000_000_000n,
  quoteQuantumsPerUsd: 1_000_000_000n,
  /**
   * "About 922 million USD": the int64 maximum in 1e-10 USD units, i.e.
   * 922,337,203.6854775807 USD, kept as that integer over 1e10.
   */
  maxPositionNotionalE10: 9_223_372_036_854_775_807n,
  /** MARKET orders: price within 10 % of mark (TPSL market legs: of the trigger). */
  marketOrderBandPpm: 100_000,
  /** goodTilTime at least one month ahead; docs/decisions.md fixes a month as 30 days. */
  minGoodTilTimeAheadUs: 30 * US_PER_DAY,
  timestampDriftMs: 30_000,
  scheduleCancelMinAheadUs: 5_000_000,
  scheduleCancelMaxAheadUs: 300_000_000,
  scheduleCancelFiresPerDay: 10,
  scheduleCancelArmedPerWallet: 50,
  pushTokensPerWallet: 20,
  pushTokenMaxLength: 256,
  referralCodeMinLength: 1,
  referralCodeMaxLength: 32,
  historyLimitMin: 1,
  historyLimitMax: 1000,
  historyLimitDefault: 1000,
  fundingDefaultWindowUs: 30 * US_PER_DAY,
  /** Minimum for from/to bounds: smaller (s or ms scale) values give 400. */
  minMicrosecondBound: 1e14,
  candlePageMax: 1500,
  candleSnapshotMax: 200,
  l2LevelsMin: 1,
  l2LevelsMax: 100,
  l2LevelsDefault: 20,
  l2SnapshotMaxLevels: 300,
  sigFigsMin: 2,
  sigFigsMax: 5,
  roundSteps: [1, 2, 5] as const,
  userFillsSnapshotDefault: 500,
  userFillsSnapshotMax: 500,
  ordersSnapshotClosedMax: 100,
  fundingSnapshotMax: 100,
  leaderboardLimitMax: 100,
  subaccountMax: 9,
  /** accountIndex 255 = every subaccount, only on createApiKey / revokeApiKey. */
  allSubaccountsIndex: 255,
  marketIdMax: 65_535,
} as const;

/** Per-IP weight bucket and per-subaccount pools (interface.md "Limits"). */
export const RATE_LIMITS = {
  ipBucketCapacity: 1500,
  ipRefillPerSecond: 25,
  orderPoolCap: 20_000,
  cancelPoolCap: 40_000,
  /** Each 0.10 USD of realized fill notional adds one unit to each pool's cap. */
  notionalUsdPerUnit: 0.1,
  dripIntervalMs: 10_000,
  /** supplement §12: cancel-all charges 1,000 (configurable). */
  cancelAllCost: 1000,
  batchWeightDivisor: 40,
} as const;

export const WS_LIMITS = {
  connectionsPerIp: 50,
  newConnectionsPerMinutePerIp: 50,
  subscriptionsPerConnection: 100,
  subscriptionsPerIp: 1000,
  clientMessagesPerMinutePerIp: 1000,
  inFlightPostsPerConnection: 50,
  connectionLifetimeMs: 24 * 3600 * 1000,
  maxFrameBytes: 1024 * 1024,
} as const;
