/**
 * The engine's plain data: commands in, events out, results back.
 *
 * Contract:
 * - Prices are integer ticks of the market's top-level tickSize; sizes are integer quantums of
 *   its stepSize; both are JS numbers (exact below 2^53, far above any venue bound). Money is
 *   bigint (issue 3).
 * - Every command carries its own `time` (unix microseconds). The engine reads no clock: time
 *   only moves when a command says so, and never backwards (an older time is taken as the
 *   engine's current time).
 * - Commands are imperative (`placeOrder`), events are past tense (`order` updates, `fill`s,
 *   `trades`, `book` deltas). Each event carries the sequence numbers its channel needs.
 */
import type {
  CancelReason,
  ErrorType,
  FillRole,
  LeverageRejectReason,
  MarketCategory,
  MarketStatus,
  OrderStatus,
  PositionEffect,
  RejectionReason,
  TpslGrouping,
  TpslType,
} from './spec.ts';

/** 0 = buy (bid), 1 = sell (ask): the signed payload's `s`. */
export type SideCode = 0 | 1;
/** 0 GTT, 1 FOK, 2 IOC, 3 ALO: the signed payload's `t`. */
export type TifCode = 0 | 1 | 2 | 3;
export const TIF_GTT = 0;
export const TIF_FOK = 1;
export const TIF_IOC = 2;
export const TIF_ALO = 3;
/** 0 LIMIT, 1 MARKET. */
export type OrderTypeCode = 0 | 1;

/** A market as configured: decimal strings exactly as the venue writes them. */
export interface MarketDef {
  id: number;
  displayName: string;
  baseAsset: string;
  fullAssetName?: string;
  status: MarketStatus;
  category: MarketCategory | null;
  tickSize: string;
  stepSize: string;
  /** Ascending bands; the last one has no upToPrice. Ticks must be multiples of tickSize. */
  tickTiers: { upToPrice?: string; tick: string }[];
  minOrderNotional: string;
  minOrderSize: string;
  maxOrderSize: string;
  initialMarginFraction: string;
  maintenanceMarginFraction: string;
  offHoursInitialMarginFraction: string;
  /** Defaults to floor(1 / IMF). */
  maxLeverage?: number;
  /** Seconds of day in `timezone`; null for 24/7 markets. */
  regularTradingHours: {
    startSecondsOfDay: number;
    endSecondsOfDay: number;
    timezone: string;
    isOvernight?: boolean;
  } | null;
  /** Unix seconds. */
  addedTimestamp: number;
}

/** Engine-wide limits that the venue does not publish; defaults in docs/decisions.md. */
export interface EngineLimits {
  /** Open orders (resting + untriggered) per account and market. */
  openOrdersPerMarket: number;
  /** How long a modify whose target is unknown waits for the placement (µs). */
  modifyBufferUs: number;
}

/** A fee tier: reached at `minVolume` quote quantums of 30-day volume. Fees in ppm of notional. */
export interface FeeTier {
  name: string;
  minVolume: bigint;
  makerFeePpm: number;
  takerFeePpm: number;
}

/** Risk parameters the venue does not publish; defaults in docs/decisions.md. */
export interface RiskConfig {
  feeTiers: FeeTier[];
  /** Mark price: EMA time constant of the book-minus-oracle basis (µs). */
  markBasisTauUs: number;
  /** Funding: interest component per hour and clamp, in 1e-12 (rate units). */
  fundingInterestE12: bigint;
  fundingClampE12: bigint;
  /** Funding: the hourly rate is capped at ± this (1e-12 units). */
  fundingCapE12: bigint;
  /** Borrow interest on a negative quote balance, per year, in ppm. */
  borrowRatePpmPerYear: bigint;
  /** Liquidation penalty taken by the insurance fund from what is left, in ppm of closed notional. */
  liquidationPenaltyPpm: bigint;
  /** Starting insurance fund, quote quantums. */
  insuranceFund: bigint;
}

export interface EngineConfig {
  markets: MarketDef[];
  limits?: Partial<EngineLimits>;
  risk?: Partial<RiskConfig>;
}

// ---------------------------------------------------------------------------------------------
// Commands

interface CommandBase {
  /** Unix microseconds at which the command is processed. */
  time: number;
}

interface AccountRef {
  /** Lowercase 0x-hex master address. */
  address: string;
  accountIndex: number;
}

export interface AddMarketCommand extends CommandBase {
  type: 'addMarket';
  market: MarketDef;
}

export interface SetMarketStatusCommand extends CommandBase {
  type: 'setMarketStatus';
  marketId: number;
  status: MarketStatus;
}

/** A new oracle price in ticks (0: unavailable). The mark price is derived (prices.ts). */
export interface SetOraclePriceCommand extends CommandBase {
  type: 'setOraclePrice';
  marketId: number;
  price: number;
}

/** Collateral credited by the simulator: a real deposit. Amount in quote quantums (1e9 = 1 USD). */
export interface DepositCommand extends CommandBase, AccountRef {
  type: 'deposit';
  amount: bigint;
}

export interface WithdrawCommand extends CommandBase, AccountRef {
  type: 'withdraw';
  amount: bigint;
  /** Single-use per wallet. */
  nonce: string;
}

/** Between two subaccounts of one wallet. */
export interface TransferCommand extends CommandBase {
  type: 'transfer';
  address: string;
  fromAccountIndex: number;
  toAccountIndex: number;
  amount: bigint;
  nonce: string;
}

export interface SetLeverageCommand extends CommandBase, AccountRef {
  type: 'setLeverage';
  marketId: number;
  leverage: number;
  /** true: isolated, false: cross, undefined: keep the mode. */
  isolated?: boolean | undefined;
  /** Correlates the outcome event (the gateway's requestId). */
  requestId?: string | undefined;
}

/** Positive moves cross collateral into the isolated position, negative moves it back. */
export interface AdjustIsolatedMarginCommand extends CommandBase, AccountRef {
  type: 'adjustIsolatedMargin';
  marketId: number;
  amount: bigint;
  requestId?: string | undefined;
}

export interface PlaceOrderCommand extends CommandBase, AccountRef {
  type: 'placeOrder';
  marketId: number;
  side: SideCode;
  orderType: OrderTypeCode;
  tif: TifCode;
  /** Ticks. For MARKET orders the worst acceptable price. */
  price: number;
  /** Quantums. */
  size: number;
  reduceOnly: boolean;
  clientId?: string | undefined;
  /** Unix microseconds. */
  goodTilTime: number;
  /** TPSL (op 4): waits untriggered until the mark crosses `stopPrice` (ticks). */
  tpslType?: TpslType | undefined;
  stopPrice?: number | undefined;
  /** A position TPSL has size 0 and closes the whole position when it triggers. */
  isPositionTpsl?: boolean | undefined;
  /** The entry order of an entryTpsl group (set by batchPlace). */
  parentOrderId?: number | undefined;
}

/** One element of a batch: a placeOrder without its own time. */
export type BatchOrder = Omit<PlaceOrderCommand, 'type' | 'time'>;

/**
 * batchPlaceOrders: each element placed on its own, in order; with a TPSL `grouping` the shape
 * is checked first (supplement §2) and entryTpsl legs are tied to element 0.
 */
export interface BatchPlaceCommand extends CommandBase {
  type: 'batchPlace';
  orders: BatchOrder[];
  grouping?: TpslGrouping | undefined;
}

export interface CancelOrderCommand extends CommandBase, AccountRef {
  type: 'cancelOrder';
  marketId: number;
  /** Exactly one of orderId and clientId. */
  orderId?: number | undefined;
  clientId?: string | undefined;
}

export interface CancelAllCommand extends CommandBase, AccountRef {
  type: 'cancelAll';
  /** Omitted: every market. */
  marketId?: number | undefined;
}

export interface ModifyOrderCommand extends CommandBase, AccountRef {
  type: 'modifyOrder';
  marketId: number;
  orderId?: number | undefined;
  clientId?: string | undefined;
  /** Ticks. */
  price: number;
  /** New total size in quantums, filled part included. */
  size: number;
  /** Immutable fields: when given they must equal the resting order's. */
  side?: SideCode | undefined;
  tif?: TifCode | undefined;
  reduceOnly?: boolean | undefined;
  /** A value different from the resting order's performs a cancel-replace. */
  goodTilTime?: number | undefined;
}

export interface ScheduleCancelCommand extends CommandBase, AccountRef {
  type: 'scheduleCancel';
  /** Omitted: the account-wide switch. */
  marketId?: number | undefined;
  /** Unix microseconds; null disarms. */
  deadline: number | null;
}

/** Moves time forward: expiries, dead man's switches and buffered modifies fire. */
export interface AdvanceTimeCommand extends CommandBase {
  type: 'advanceTime';
}

/**
 * A trading halt: orders that would take liquidity are refused
 * (ORDER_WILL_TAKE_LIQUIDITY_DURING_MARKET_HALT); resting and cancels go on.
 */
export interface SetHaltCommand extends CommandBase {
  type: 'setHalt';
  marketId: number;
  halted: boolean;
}

/** Fixes the current hour's funding rate (1e-12 per hour) until it settles: the simulator's lever. */
export interface SetFundingRateCommand extends CommandBase {
  type: 'setFundingRate';
  marketId: number;
  rate: bigint;
}

/** Liquidates an account now, whatever its margin (the simulator's lever). */
export interface ForceLiquidationCommand extends CommandBase, AccountRef {
  type: 'forceLiquidation';
}

/**
 * Pays referral rewards out of the fees collected into the account (the gateway's affiliate
 * claim): money moves from `feesCollected` to the account's quote balance, so conservation
 * holds. REJECTED (INSUFFICIENT_FEE_POOL) when the fees collected cannot cover it.
 */
export interface CreditCommissionCommand extends CommandBase, AccountRef {
  type: 'creditCommission';
  amount: bigint;
}

export type Command =
  | AddMarketCommand
  | SetMarketStatusCommand
  | SetOraclePriceCommand
  | DepositCommand
  | WithdrawCommand
  | TransferCommand
  | SetLeverageCommand
  | AdjustIsolatedMarginCommand
  | PlaceOrderCommand
  | BatchPlaceCommand
  | CancelOrderCommand
  | CancelAllCommand
  | ModifyOrderCommand
  | ScheduleCancelCommand
  | AdvanceTimeCommand
  | SetHaltCommand
  | SetFundingRateCommand
  | ForceLiquidationCommand
  | CreditCommissionCommand;

export type CommandType = Command['type'];

// ---------------------------------------------------------------------------------------------
// Results: what the caller learns synchronously.

/** Failed validation: the command changed nothing and produced no event. */
export interface InvalidResult {
  kind: 'invalid';
  errorType: ErrorType;
  error: string;
  /** The request field at fault, when there is one. */
  field?: string;
}

/** A limit refused the command (HTTP 429 at the gateway); nothing changed. */
export interface LimitedResult {
  kind: 'limited';
  error: string;
}

/** A replayed nonce (HTTP 409 at the gateway); nothing changed. */
export interface ConflictResult {
  kind: 'conflict';
  error: string;
}

export interface OrderResult {
  kind: 'order';
  orderId: number;
  /** The order's status after the command (OPEN, FILLED, REJECTED, CANCELED, ...). */
  status: OrderStatus;
  rejectionReason?: RejectionReason | undefined;
}

/** A cancel or modify that the engine turned down; its event is a `rejected`. */
export interface RejectedResult {
  kind: 'rejected';
  orderId?: number | undefined;
  clientId?: string | undefined;
  rejectionReason: RejectionReason;
}

export interface DoneResult {
  kind: 'done';
  /** Orders canceled by cancelAll. */
  canceled?: number;
  /** scheduleCancel outcome. */
  switchState?: 'scheduled' | 'disarmed';
  /** The modify is waiting for its target to arrive. */
  buffered?: boolean;
  /** Deposit / withdrawal / transfer: its id and outcome. */
  operationId?: number;
  transferStatus?: 'COMPLETED' | 'REJECTED';
  rejectReason?: string;
  /** setLeverage: the outcome and the leverage in effect. */
  leverageStatus?: 'APPLIED' | 'REJECTED';
  leverage?: number;
}

/** batchPlace: one result per element, in order. */
export interface BatchResult {
  kind: 'batch';
  results: CommandResult[];
}

export type CommandResult = InvalidResult | LimitedResult | ConflictResult | OrderResult | RejectedResult | DoneResult | BatchResult;

// ---------------------------------------------------------------------------------------------
// Events

interface EventBase {
  /** Exchange-wide counter; every event takes the next value. */
  globalSeq: number;
  /** Unix microseconds. */
  time: number;
}

/** One order's state after a change: the orders channel's record. */
export interface OrderEvent extends EventBase {
  type: 'order';
  accountSeq: number;
  orderId: number;
  address: string;
  accountIndex: number;
  marketId: number;
  clientId: string | undefined;
  side: SideCode;
  orderType: OrderTypeCode;
  tif: TifCode;
  reduceOnly: boolean;
  price: number;
  /** Original (total) size in quantums. */
  size: number;
  remaining: number;
  filled: number;
  /** Σ price·size over fills (ticks·quantums), for avgFillPrice (order.ts). */
  filledValue: number;
  goodTilTime: number;
  createdAt: number;
  status: OrderStatus;
  rejectionReason: RejectionReason | undefined;
  cancelReason: CancelReason | undefined;
  /** Set on the engine's own liquidation and ADL orders. */
  origin: 'LIQUIDATION' | 'ADL' | undefined;
  /** TPSL metadata, kept through the order's life (also on its terminal cancel). */
  tpslType: TpslType | undefined;
  triggerPrice: number | undefined;
  isPositionTpsl: boolean;
  parentOrderId: number | undefined;
}

/** One account's side of one trade. */
export interface FillEvent extends EventBase {
  type: 'fill';
  accountSeq: number;
  marketSeq: number;
  tradeId: number;
  orderId: number;
  address: string;
  accountIndex: number;
  clientId: string | undefined;
  marketId: number;
  side: SideCode;
  price: number;
  size: number;
  role: FillRole;
  /** The order's size and what is left after this fill. */
  orderSize: number;
  remaining: number;
  /** Quote quantums; negative is a rebate. */
  fee: bigint;
  /** Realized PnL of the basis this fill released, net of its fee (opening fills: −fee). */
  closedPnl: bigint;
  positionEffect: PositionEffect;
  /** Set on the fills of liquidations and ADL. */
  liquidation: { method: 'MARKET' | 'ADL'; liquidatedUser: string } | undefined;
}

export interface TradeEntry {
  tradeId: number;
  price: number;
  size: number;
  makerOrderId: number;
  makerAddress: string;
  makerAccountIndex: number;
  takerAddress: string;
  takerAccountIndex: number;
}

/** Public trades of one taker execution: entries share taker, time and sequence. */
export interface TradesEvent extends EventBase {
  type: 'trades';
  marketSeq: number;
  marketId: number;
  takerOrderId: number;
  takerSide: SideCode;
  entries: TradeEntry[];
}

/**
 * The book levels one command changed in one market, as absolute sizes (0 removes the level).
 * Flat pairs: [price, size, price, size, ...].
 */
export interface BookEvent extends EventBase {
  type: 'book';
  marketSeq: number;
  marketId: number;
  bids: number[];
  asks: number[];
}

/** Top of book after a command that changed it; price 0 with size 0 means an empty side. */
export interface BboEvent extends EventBase {
  type: 'bbo';
  marketSeq: number;
  marketId: number;
  bidPrice: number;
  bidSize: number;
  askPrice: number;
  askSize: number;
}

/** A cancel or modify the engine refused (the order, if any, is unchanged unless said). */
export interface RejectedEvent extends EventBase {
  type: 'rejected';
  accountSeq: number;
  command: 'cancelOrder' | 'modifyOrder';
  address: string;
  accountIndex: number;
  marketId: number;
  orderId: number | undefined;
  clientId: string | undefined;
  rejectionReason: RejectionReason;
}

export interface SwitchEvent extends EventBase {
  type: 'switch';
  accountSeq: number;
  address: string;
  accountIndex: number;
  marketId: number | undefined;
  action: 'armed' | 'disarmed' | 'fired' | 'capped';
  deadline: number | undefined;
}

export interface MarketEvent extends EventBase {
  type: 'market';
  marketId: number;
  status: MarketStatus;
}

export interface PricesEvent extends EventBase {
  type: 'prices';
  marketId: number;
  oraclePrice: number;
  markPrice: number;
}

interface AccountEventBase extends EventBase {
  accountSeq: number;
  address: string;
  accountIndex: number;
}

/** Deposits, withdrawals, internal transfers and referral claims (accountTransferUpdates). */
export interface TransferEvent extends AccountEventBase {
  type: 'transfer';
  operationId: number;
  kind: 'deposit' | 'withdrawal' | 'transferOut' | 'transferIn' | 'referralClaim';
  /** Quote quantums, always positive. */
  amount: bigint;
  /** The account's balance after the operation. */
  netQuoteBalance: bigint;
  status: 'COMPLETED' | 'REJECTED';
  rejectReason: string | undefined;
  /** The other subaccount of an internal transfer. */
  counterpartyIndex: number | undefined;
}

/** A position after it changed (fill, funding, margin, leverage mode). */
export interface PositionEvent extends AccountEventBase {
  type: 'position';
  marketId: number;
  size: number;
  /** Signed cost basis (quote quantums): average entry = |cost| / |size|. */
  cost: bigint;
  realizedPnl: bigint;
  isolated: boolean;
  isolatedMargin: bigint;
  leverage: number;
  fundingAllTime: bigint;
  fundingSinceOpen: bigint;
  fundingSinceChange: bigint;
  requestId: string | undefined;
}

/** setLeverage's outcome (accountAttributeUpdates: leverage or leverageReject). */
export interface LeverageEvent extends AccountEventBase {
  type: 'leverage';
  marketId: number;
  leverage: number;
  isolated: boolean;
  status: 'APPLIED' | 'REJECTED';
  rejectReason: LeverageRejectReason | undefined;
  requestId: string | undefined;
}

export interface FundingPaymentEvent extends AccountEventBase {
  type: 'funding';
  marketId: number;
  /** 1e-12 units per hour. */
  rate: bigint;
  size: number;
  /** Quote quantums; positive = received. */
  payment: bigint;
}

/** A settled hourly rate (fundingRates history). */
export interface FundingRateEvent extends EventBase {
  type: 'fundingRate';
  marketId: number;
  rate: bigint;
}

/** The current hour's rate so far, on every recompute. */
export interface PredictedFundingEvent extends EventBase {
  type: 'predictedFunding';
  marketId: number;
  rate: bigint;
}

/** Borrow interest settled from the account to the lending vault. */
export interface InterestEvent extends AccountEventBase {
  type: 'interest';
  /** Quote quantums paid (positive). */
  payment: bigint;
}

/** An account (cross) or one isolated position went below maintenance and was liquidated. */
export interface LiquidationEvent extends AccountEventBase {
  type: 'liquidation';
  /** The isolated market, or undefined for the cross side. */
  marketId: number | undefined;
  equity: bigint;
  maintenance: bigint;
}

/** A position reduced by auto-deleveraging against a liquidated one. */
export interface AdlEvent extends AccountEventBase {
  type: 'adl';
  marketId: number;
  size: number;
  price: number;
  liquidatedUser: string;
}

export type EngineEvent =
  | OrderEvent
  | FillEvent
  | TradesEvent
  | BookEvent
  | BboEvent
  | RejectedEvent
  | SwitchEvent
  | MarketEvent
  | PricesEvent
  | TransferEvent
  | PositionEvent
  | LeverageEvent
  | FundingPaymentEvent
  | FundingRateEvent
  | PredictedFundingEvent
  | InterestEvent
  | LiquidationEvent
  | AdlEvent;

export type EventSink = (event: EngineEvent) => void;
