/**
 * The engine's linked records: orders and accounts, which point at one another (an order at its
 * account and its queue neighbours, an account at its live orders; book levels are typed-array
 * records in book.ts, named by handle).
 * Declared together here so that the modules that work on them (order.ts, book.ts, account.ts)
 * need not import one another's types in a circle; each of them re-exports its record.
 */
import type { RiskTable } from './risk-table.ts';
import type { CancelReason, OrderStatus, RejectionReason, TpslType } from './spec.ts';
import type { FeeTier, OrderTypeCode, SideCode, TifCode } from './types.ts';

export interface Order {
  id: number;
  account: Account;
  marketId: number;
  /** The market's dense slot (MarketState.slot), for per-account arrays. */
  slot: number;
  side: SideCode;
  orderType: OrderTypeCode;
  tif: TifCode;
  reduceOnly: boolean;
  clientId: string | undefined;
  /** Ticks. */
  price: number;
  /** Total size in quantums (the modify `quantity`). */
  size: number;
  remaining: number;
  filled: number;
  /**
   * Σ price·size of fills in ticks·quantums, for avgFillPrice: exact below 2^53, a correctly
   * rounded double above (money is computed from the fill rows, never from this).
   */
  filledValue: number;
  goodTilTime: number;
  createdAt: number;
  status: OrderStatus;
  rejectionReason: RejectionReason | undefined;
  cancelReason: CancelReason | undefined;
  /** Orders the engine places itself: liquidations and ADL (they end LIQUIDATED / ADL). */
  origin: 'LIQUIDATION' | 'ADL' | undefined;
  /** TPSL: the trigger, kept after it fired (tpsl.ts). */
  tpslType: TpslType | undefined;
  triggerPrice: number | undefined;
  isPositionTpsl: boolean;
  parentOrderId: number | undefined;
  /** Has entryTpsl legs waiting on it. */
  hasChildren: boolean;
  // Book links (book.ts): the level's handle (NO_LEVEL when not resting) and queue neighbours.
  level: number;
  prev: Order | null;
  next: Order | null;
  // Account links (account.ts).
  aPrev: Order | null;
  aNext: Order | null;
  /** Ended and handed back for reuse (`spareOrder`); set until `newOrder` takes it again. */
  spare: boolean;
}

export interface Account {
  /** Dense id (creation order): how typed-array indexes name the account. */
  id: number;
  key: string;
  address: string;
  index: number;
  /** Per-account sequence: every account-scoped event takes the next value. */
  seq: number;
  /** Live orders, oldest first (intrusive list through Order.aPrev / aNext). */
  head: Order | null;
  tail: Order | null;
  liveCount: number;
  clientIds: Map<string, Order>;
  /**
   * The engine's risk table (risk-table.ts), which holds this account's per-market rows and
   * float margin sums: read through account.ts and position.ts, never by offset.
   */
  table: RiskTable;
  /** Rows of the markets with a position, live orders or an isolated pool: what margin sums over. */
  active: number[];
  /**
   * Collateral plus realized PnL, minus fees, funding and interest (netQuoteBalance), less what
   * fills added since the last fold (the risk table's QUOTE_PENDING, an exact double: a fill then
   * changes the balance without a bigint). Read the balance through `quoteOf` (account.ts);
   * writers may add to `quote` directly (the sum stays true).
   */
  quote: bigint;
  netDeposits: bigint;
  /** False until the first deposit: such an account "has no activity yet" (404 upstream). */
  activated: boolean;
  /**
   * Quote quantums traded per UTC day, the last 30 days (ring by day number), not counting
   * `volumePending`.
   */
  volumeByDay: bigint[];
  volumeDay: number[];
  /**
   * rollingVolume() of `rollingDay`, a memo that addVolume drops (-1) rather than keeps: with
   * the fee tier kept by `feeTier`, only a tier change or a read asks for it again, and a fill
   * is spared one bigint addition on a cold value.
   */
  rollingDay: number;
  rolling: bigint;
  /**
   * Lifetime traded notional and fees paid (quote quantums), read through `lifetimeVolume` and
   * `lifetimeFeesPaid`: each is the bigint `…Base` plus a pending exact double. Fills add to the
   * double while the sum stays below 2^52, which is exact; the bigints (and the day's
   * `volumeByDay`, for the pending volume of UTC day `volumePendingDay`) take it over when it
   * would not, on a new day, or for a value with no exact double. A fill so reads and replaces
   * no bigint for these tallies: three fewer cold reads and three fewer long-lived bigints, which
   * every scavenge copied (docs/decisions.md "Engine throughput").
   */
  lifetimeVolumeBase: bigint;
  volumePending: number;
  volumePendingDay: number;
  lifetimeFeesPaidBase: bigint;
  feesPending: number;
  /**
   * The fee tier of `rolling` (fees.ts `tierFor`) for the schedule `tierOf` and the UTC day
   * `tierDay`, and a lower bound on the volume still to trade before the next tier: while it is
   * positive the tier holds (`feeTier`). A double kept within ±2^52, so it stays exact.
   */
  tier: FeeTier | undefined;
  tierOf: readonly FeeTier[] | undefined;
  tierDay: number;
  tierHeadroom: number;
  /** In the engine's end-of-command risk queue. */
  riskQueued: boolean;
  /**
   * The balance last converted to the double in the risk table's account sums (margin.ts
   * `crossRiskF`): that double is the balance while `quoteB` is the current `quote` and the
   * sums' QUOTE_PENDING_B is their current QUOTE_PENDING.
   */
  quoteB: bigint;
  /**
   * What the last full trigger refresh used (risk.ts `refreshAfterFills`): the mark epoch it ran
   * at (-1: none valid), the number of cross positions and their per-position budget, and which
   * market fills changed since (-1 none, -2 several) and whether that one held a cross position.
   */
  triggersAt: number;
  triggerCount: number;
  triggerBudget: number;
  triggerSlot: number;
  triggerSlotCross: boolean;
  /** Borrow interest accrued on a negative quote balance since the last settlement. */
  accruedInterest: bigint;
  interestSince: number;
}
