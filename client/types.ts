/**
 * The venue's wire records as the SDK sees them, written from interface.md and supplement.md
 * (§3 replies, §6 read shapes, §7 record fields, §9 WebSocket shapes) — not imported from
 * perpsim's gateway, so the SDK runs in a browser and against the real venue.
 *
 * Amounts are decimal strings exactly as the venue prints them; times are numbers in the unit
 * the interface names (µs for response times, ns strings where they exceed 2^53). Records carry
 * an index signature only where the venue documents more fields than are named here.
 */

export type Side = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';
/** `GTC` is accepted as GTT and resting GTT orders read back as `GTC` (supplement §12). */
export type TimeInForce = 'GTT' | 'GTC' | 'IOC' | 'FOK' | 'ALO';
export type TpslType = 'STOP_LOSS' | 'TAKE_PROFIT';
export type TpslGrouping = 'entryTpsl' | 'partialTpsl' | 'positionTpsl';

/** interface.md "Status values". */
export type OrderStatus =
  | 'PENDING'
  | 'OPEN'
  | 'PARTIALLY_FILLED'
  | 'FILLED'
  | 'CANCELED'
  | 'MARGIN_CANCELED'
  | 'REJECTED'
  | 'UNTRIGGERED'
  | 'TPSL_PLACED'
  | 'TPSL_TRIGGERED'
  | 'TPSL_CANCELED'
  | 'LIQUIDATED'
  | 'ADL'
  | 'ACK'
  | 'CANCEL_ACKNOWLEDGED'
  | 'CANCEL_ALL_ACKNOWLEDGED'
  | 'CANCEL_PENDING'
  | 'ERROR';

/** `rateLimit` on order-write replies: `remaining` -1 means the account layer was not enforced. */
export interface RateLimitInfo {
  pool: 'order' | 'cancel';
  remaining: number;
}

// ---------------------------------------------------------------------------------------------
// Markets and market data

export interface TickTier {
  /** Exclusive upper bound; absent on the top band. */
  upToPrice?: string;
  tick: string;
}

export interface Market {
  marketId: number;
  marketDisplayName: string;
  status: 'ONLINE' | 'OFFLINE';
  baseAsset: string;
  quoteAsset: string;
  tickSize: string;
  stepSize: string;
  tickTiers: TickTier[];
  minOrderNotional: string;
  minOrderSize?: string;
  maxOrderSize?: string;
  type: string;
  /** null for uncategorized markets. */
  category?: string | null;
  oraclePrice?: string;
  /** "0" means unavailable. */
  markPrice?: string;
  initialMarginFraction?: string;
  maintenanceMarginFraction?: string;
  /** Absent before the market's first trade. */
  lastTradePrice?: string;
  /** The last settled hourly rate; nextFundingRate: the current hour's prediction. */
  fundingRate?: string;
  nextFundingRate?: string;
  /** Unix seconds. */
  nextFundingAt?: number;
  /** Fraction, 4 decimals; the 24-hour fields cover the trailing 1,440 minutes. */
  priceChange24h?: string;
  volume24h?: string;
  volume24hNotional?: string;
  /** Absent when no trade happened in the window. */
  high24h?: string;
  low24h?: string;
  trades24h?: number;
  openInterest?: string;
  /** null: no cap. */
  openInterestCapNotional?: string | null;
  pythId?: string;
  [field: string]: unknown;
}

export type LevelRow = [price: string, size: string];

/** GET /v1/l2OrderBook, and every l2Orderbook / l2OrderbookUpdates frame (supplement §9). */
export interface BookContents {
  bids: LevelRow[];
  asks: LevelRow[];
  lastSequenceId: number;
  globalSequenceId?: number;
  timestamp?: number;
}

export interface BboLevel {
  price: string;
  size: string;
}

export interface Bbo {
  bestBid: BboLevel | null;
  bestAsk: BboLevel | null;
  lastSequenceId: number;
  globalSequenceId: number;
  timestamp: number;
}

export interface Trade {
  marketId?: number;
  marketDisplayName: string;
  side?: Side;
  price: string;
  size: string;
  tradeId: string;
  timestamp: number;
  takerOrderId: string;
  takerAddress?: string;
  makerOrderId: string;
  makerAddress?: string;
  sequenceNumber?: number;
}

export interface Candle {
  marketDisplayName: string;
  marketId: number;
  timeframe: string;
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  tradeCount: number;
  isFinal: boolean;
  [field: string]: unknown;
}

export interface PriceEntry {
  marketDisplayName: string;
  oraclePrice: string;
  markPrice: string;
  sequencer: number;
}

export interface FundingRate {
  marketId: number;
  marketDisplayName: string;
  fundingRate: string;
  time: number;
}

export interface FeeTier {
  level: number;
  name: string;
  makerFeePpm: number;
  takerFeePpm: number;
  [field: string]: unknown;
}

export interface ServiceInfo {
  service: string;
  version: string;
  status: string;
  endpoints?: { path: string; method: string; description: string }[];
}

// ---------------------------------------------------------------------------------------------
// Account records

export interface Order {
  orderId: string;
  marketId: number;
  marketDisplayName: string;
  side: Side;
  status: OrderStatus;
  price: string;
  originalSize: string;
  remainingSize: string;
  updatedAt: number;
  clientId?: string;
  address?: string;
  /** Omitted when 0. */
  accountIndex?: number;
  type?: OrderType;
  filledSize?: string;
  avgFillPrice?: string;
  timeInForce?: TimeInForce;
  /** µs, as a string. */
  goodTilTime?: string;
  /** Present only when true. */
  reduceOnly?: boolean;
  triggerPrice?: string;
  tpslType?: TpslType;
  rejectionReason?: string;
  cancelReason?: string;
  createdAt?: number;
  /** Per-account sequence (WebSocket). */
  sequenceNumber?: number;
  [field: string]: unknown;
}

export interface Fill {
  tradeId: string;
  orderId: string;
  marketId: number;
  marketDisplayName: string;
  side: Side;
  size: string;
  price: string;
  fee: string;
  role: 'MAKER' | 'TAKER' | 'ALP';
  createdAt: number;
  clientId?: string;
  closedPnl?: string;
  sequenceNumber?: number;
  [field: string]: unknown;
}

export interface Position {
  address: string;
  accountIndex: number;
  marketId: number;
  marketDisplayName: string;
  side: 'LONG' | 'SHORT';
  /** Signed. */
  size: string;
  averageEntryPrice: string;
  leverage: string;
  marginMode: 'CROSS' | 'ISOLATED';
  unrealizedPnl: string;
  markPx: string;
  sequenceNumber?: number;
  [field: string]: unknown;
}

export interface Account {
  address: string;
  accountIndex: number;
  netQuoteBalance: string;
  equity: string;
  freeCollateral: string;
  netDeposits: string;
  positions: Record<string, Position>;
  sequenceNumber: number;
  [field: string]: unknown;
}

export interface Leverage {
  marketId: number;
  marketDisplayName: string;
  leverage: number;
  isolated: boolean;
  marginMode: 'CROSS' | 'ISOLATED';
}

export interface FundingPayment {
  marketId: number;
  marketDisplayName: string;
  fundingRate: string;
  size: string;
  /** Positive = received. */
  payment: string;
  time: number;
}

export interface TransferUpdate {
  id: string | number;
  amount: string;
  netQuoteBalance?: string;
  globalSequenceId: number;
  createdAt: number;
  address: string;
  accountIndex: number;
  [field: string]: unknown;
}

export interface RateLimitPool {
  used: number;
  cap: number;
  nextAvailableMs: number;
}

export interface RateLimitSnapshot {
  address: string;
  accountIndex: number;
  order: RateLimitPool;
  cancel: RateLimitPool;
}

export interface ApiKeyRecord {
  apiKey: string;
  address: string;
  allSubaccounts: boolean;
  accountIndex?: number;
  apiWalletName: string;
  status: 'ACTIVE' | 'PENDING_DELETE' | 'DELETED';
  permissions: string[];
  /** ms, 0 = none. */
  validUntil: number;
  /** µs. */
  createdAt: number;
}

// ---------------------------------------------------------------------------------------------
// Write replies (supplement §3, §4, §5)

/** placeOrder's acknowledgement; `status` ACK on 202. */
export interface OrderAck {
  address: string;
  accountIndex: number;
  orderId: string;
  clientId?: string;
  marketId: number;
  marketDisplayName: string;
  status: OrderStatus;
  quantity?: string;
  price?: string;
  timeInForce?: string;
  goodTilTime?: string;
  reduceOnly?: boolean;
  updateTime: number;
  remainingSize?: string;
  filledSize?: string;
  originalSize?: string;
  rejectionReason?: string;
  error?: string;
  rateLimit?: RateLimitInfo;
  [field: string]: unknown;
}

/** One row of a batch reply: an acknowledgement, or `status: "ERROR"` with `error`. */
export type BatchRow = Partial<OrderAck> & { orderId: string; clientId?: string; status: OrderStatus; error?: string };

export interface BatchReply {
  responses: BatchRow[];
  rateLimit?: RateLimitInfo;
}

export interface CancelAllReply {
  address: string;
  accountIndex: number;
  status: 'CANCEL_ALL_ACKNOWLEDGED';
  updateTime: number;
  marketId?: number;
  marketDisplayName?: string;
  rateLimit?: RateLimitInfo;
}

export interface ScheduleCancelReply {
  address: string;
  accountIndex: number;
  status: 'scheduled' | 'disarmed';
  marketId?: number;
  marketDisplayName?: string;
  time?: number;
  rateLimit?: RateLimitInfo;
}

export interface SetLeverageReply {
  requestId: string;
  address: string;
  accountIndex: number;
  marketId: number;
  leverage: number;
  status: 'ACK' | 'APPLIED' | 'REJECTED';
  marginMode?: 'CROSS' | 'ISOLATED';
  rejectReason?: string;
}

export interface AdjustMarginReply {
  requestId: string;
  address: string;
  accountIndex: number;
  marketId: number;
  amount: string;
  status: string;
  rejectReason?: string;
}

export interface TransferReply {
  ethereumAddress: string;
  accountIndex?: number;
  amount: string;
  status: 'PENDING';
  submittedAt: number;
  withdrawalId?: string;
  transferId?: string;
  [field: string]: unknown;
}

export interface CreateApiKeyReply {
  apiKey: string;
  address: string;
  createdAt: number;
  allSubaccounts: boolean;
  accountIndex?: number;
  validUntil: number;
}

export interface RevokeApiKeyReply {
  apiKey: string;
  address: string;
  revokedAt: number;
  accountIndex: number;
}

// ---------------------------------------------------------------------------------------------
// WebSocket channel payloads (interface.md "Channels", supplement §9)

export interface Snapshot {
  isSnapshot: true;
}

export interface AccountUpdate {
  type: 'PLACED' | 'CANCELED' | 'MARGIN_CANCELED' | 'REJECTED' | 'TPSL_PLACED' | 'TPSL_CANCELED' | 'TPSL_TRIGGERED' | 'LIQUIDATION' | 'ADL';
  sequenceNumber: number;
  timestamp: number;
  netQuoteBalance: string;
  equity?: string;
  freeCollateral?: string;
  order?: Order;
  [field: string]: unknown;
}

export interface AttributeEntries {
  isSnapshot: boolean;
  entries: ({ type?: string } & Record<string, unknown>)[];
}

/** What `contents` holds on each channel: the `subscribed` snapshot or a `channel_data` update. */
export interface ChannelContents {
  l2Orderbook: BookContents;
  l2OrderbookUpdates: BookContents;
  trades: Trade[] | Record<string, never>;
  bbo: Bbo;
  markets: Snapshot & { markets: Record<string, Market> };
  /** epoch and markEpochNanos: unix ns as JSON integers (exact in the JSON text; a JS number keeps ~µs precision). */
  oraclePrices: { epoch: number; prices: { marketDisplayName: string; marketId: number; price: string; markPrice: string; markEpochNanos: number }[] };
  exchangeAttributeUpdates: AttributeEntries;
  marketAttributes: AttributeEntries;
  predictedFunding: { market?: string; rate1h?: string };
  account: (Snapshot & Account) | AccountUpdate | Record<string, never>;
  /** Keyed by marketId, as the REST positions reply. */
  positions: { isSnapshot?: true; positions: Record<string, Position>; lastSequenceId: number };
  userFills: (Snapshot & { fills: Fill[] }) | Fill;
  orders: (Snapshot & { orders: Order[]; recentClosedOrders: Order[]; lastSequenceId: number }) | Order;
  funding: (Snapshot & { fundingPayments: FundingPayment[] }) | (FundingPayment & { sequenceNumber: number });
  accountAttributeUpdates: AttributeEntries;
  accountTransferUpdates: (Snapshot & { accountTransferUpdates: TransferUpdate[] }) | TransferUpdate;
  candles: (Snapshot & { candles: Candle[] }) | Candle;
}

export type ChannelName = keyof ChannelContents;

export const MARKET_CHANNELS = ['l2Orderbook', 'l2OrderbookUpdates', 'trades', 'bbo', 'predictedFunding', 'candles'] as const;
export const ACCOUNT_CHANNELS = ['account', 'positions', 'userFills', 'orders', 'funding', 'accountAttributeUpdates', 'accountTransferUpdates'] as const;
export const GLOBAL_CHANNELS = ['markets', 'oraclePrices', 'exchangeAttributeUpdates', 'marketAttributes'] as const;

/** The submit acknowledgement of the affiliate writes (202). */
export interface SubmitAck {
  status: 'submitted';
  [field: string]: unknown;
}
