/**
 * The engine's state: what `createEngine` builds and every stage reads.
 *
 * Contract: plain data, owned by one engine, changed only while `apply` runs. Markets are
 * reachable by id (`markets`) and by dense slot (`bySlot`, the index per-account arrays use).
 * Money totals outside accounts — the insurance fund, fees collected, the lending vault — are
 * kept here so that conservation can be checked: Σ accounts + these = deposits − withdrawals
 * (docs/decisions.md, "Money").
 */
import { getOrCreateAccount, type Account, type AccountIndex } from './account.ts';
import { createBook, type Book } from './book.ts';
import type { Expiry } from './expiry.ts';
import type { EventRecords } from './event-records.ts';
import { createFundingState, type FundingState } from './funding.ts';
import { addSlot } from './risk-table.ts';
import { createMarketTriggers, type MarketTriggers } from './liquidation-index.ts';
import type { MarketSpec } from './market.ts';
import type { MatchHooks } from './matching.ts';
import type { Settled } from './position.ts';
import type { ModifyBuffer } from './modify-buffer.ts';
import type { Order } from './order.ts';
import type { OrderTable } from './order-table.ts';
import type { Switches } from './schedule-cancel.ts';
import type { Sequences } from './sequence.ts';
import type { ErrorType } from './spec.ts';
import type { EngineLimits, EventSink, InvalidResult, OrderResult, RiskConfig } from './types.ts';
import { DEFAULT_FEE_TIERS } from './fees.ts';
import { plainRecord } from './plain-record.ts';

export const DEFAULT_LIMITS: EngineLimits = {
  openOrdersPerMarket: 1000,
  modifyBufferUs: 1_000_000,
};

const USD = 1_000_000_000n;

export const DEFAULT_RISK: RiskConfig = {
  feeTiers: DEFAULT_FEE_TIERS,
  markBasisTauUs: 150_000_000,
  // 0.01 % per 8 hours, clamped at ±0.05 % per 8 hours, capped at 4 % per hour.
  fundingInterestE12: 12_500_000n,
  fundingClampE12: 62_500_000n,
  fundingCapE12: 40_000_000_000n,
  borrowRatePpmPerYear: 100_000n,
  liquidationPenaltyPpm: 15_000n,
  insuranceFund: 1_000_000n * USD,
};

export interface MarketState {
  spec: MarketSpec;
  /** Dense index of the market, for per-account arrays. */
  slot: number;
  book: Book;
  /** Per-market sequence (sequence.ts). */
  seq: number;
  oraclePrice: number;
  markPrice: number;
  markEpoch: number;
  basisEma: number;
  basisAt: number;
  outsideRth: boolean;
  /** Trading halt (engine.ts): no order may take liquidity. */
  halted: boolean;
  funding: FundingState;
  /** Accounts with a non-zero position here, in the order they opened it. */
  holders: Set<Account>;
  /** Σ size of long positions (quantums). */
  openInterest: number;
  triggers: MarketTriggers;
  /** Untriggered TPSL orders by trigger price (tpsl.ts), keyed by orderId. */
  tpslTriggers: MarketTriggers;
}

/**
 * One market's per-command working data (emit.ts), kept in the command scratch by market slot
 * rather than on MarketState: reset by `flush`, never part of an image.
 */
export interface MarketScratch {
  touched: boolean;
  /** Prices whose level changed in this command; only the first `dirtyBidCount` are current. */
  dirtyBids: number[];
  dirtyAsks: number[];
  dirtyBidCount: number;
  dirtyAskCount: number;
  /**
   * The public trades of the current taker, as numbers: TRADE_NUM per entry (tradeId, price,
   * size, makerOrderId, makerAccountIndex, takerAccountIndex) and TRADE_REF references (maker and
   * taker address); the first `tradeCount` are current. The trades event's entries are made from
   * them (emit.ts), or copied into the event records, which make none.
   */
  tradeNums: number[];
  tradeRefs: string[];
  tradeCount: number;
  tradesTaker: Order | null;
  bboBefore: [number, number, number, number];
}

export interface Engine {
  markets: Map<number, MarketState>;
  bySlot: MarketState[];
  accounts: AccountIndex;
  /** Live orders (resting or untriggered) by id. */
  orders: OrderTable;
  limits: EngineLimits;
  risk: RiskConfig;
  time: number;
  seq: Sequences;
  /** The next orderId to issue; ids below it were issued. */
  nextOrderId: number;
  nextTradeId: number;
  nextOperationId: number;
  expiry: Expiry;
  switches: Switches;
  modifies: ModifyBuffer;
  // Money outside accounts (quote quantums).
  insuranceFund: bigint;
  feesCollected: bigint;
  lendingVault: bigint;
  deposited: bigint;
  withdrawn: bigint;
  /** Nonces of withdrawals and transfers, per wallet ("address|nonce"). */
  nonces: Set<string>;
  /** Bumped whenever any market's mark (or off-hours state) changes: float margin sums older
   * than this are recomputed. */
  markEpoch: number;
  /** The next whole hour at which funding and interest settle. */
  nextSettlementAt: number;
  /** What the engine calls out to: not state (a snapshot leaves it out). */
  wiring: EngineWiring;
  /** Per-command working data: empty between commands (a snapshot leaves it out). */
  scratch: CommandScratch;
}

/** The engine's callbacks, set once when it is built (and onFee by the gateway's services). */
export interface EngineWiring {
  sink: EventSink;
  hooks: MatchHooks;
  /** The live order for an id (bound once, for the expiry heap). */
  lookup: (id: number) => Order | undefined;
  /** Called with each fee charged: the referral program's hook (issue 10). */
  onFee: ((account: Account, fee: bigint, time: number) => void) | undefined;
  /**
   * Record mode (event-records.ts, `useEventRecords`): the buffer events are written to, and the
   * consumer that reads it at the end of each command. Both undefined: events go to `sink` as
   * objects.
   */
  records: EventRecords | undefined;
  onRecords: ((records: EventRecords) => void) | undefined;
}

/** Working data of the command in progress; every field is back to empty when `apply` returns. */
export interface CommandScratch {
  /** Per-command working data of each market, by slot. */
  markets: MarketScratch[];
  /** Markets changed by the current command; the first `touchedCount` are current. */
  touchedMarkets: MarketState[];
  touchedCount: number;
  /** The order currently taking liquidity, and its market (read by the match hooks). */
  taker: Order | null;
  takerMarket: MarketState | null;
  /** Set while a liquidation or ADL order trades: the fills carry it. */
  liquidating: { method: 'MARKET' | 'ADL'; liquidatedUser: string } | undefined;
  /** Accounts to re-check at the end of the command (engine.ts). */
  riskQueue: (Account | null)[];
  /**
   * Accounts queued: the first `riskQueueCount` of `riskQueue` (a count, as for `ended`:
   * emptying the array by its length gave up its storage, one new backing store per filling command).
   */
  riskQueueCount: number;
  /**
   * Orders that ended in the current command, spared for reuse when it ends (order.ts); the
   * first `endedCount` are current (a count rather than a length: no array resize per command).
   */
  ended: (Order | null)[];
  endedCount: number;
  /** Both sides' settlement of the fill in progress; read before the next fill overwrites them. */
  /**
   * Positive and negative fees of this command's fills as an exact double sum, folded into
   * `feesCollected` when the command ends (engine.ts `apply`): one bigint per command instead
   * of one per fill side.
   */
  feesPending: number;
  /**
   * Result-reuse mode (`reuseResults`): order commands answer with `orderResult`, one record
   * rewritten by every command, instead of a new object each; `batchDepth` > 0 inside a batch,
   * whose elements' results are kept together and so are new objects.
   */
  reuseResults: boolean;
  orderResult: OrderResult;
  batchDepth: number;
  makerSettled: Settled;
  takerSettled: Settled;
}

const buildMarketState = plainRecord<MarketState>();
const buildMarketScratch = plainRecord<MarketScratch>();

export function createMarketState(engine: Engine, spec: MarketSpec): MarketState {
  const ms = buildMarketState({
    spec,
    slot: engine.bySlot.length,
    book: createBook(),
    seq: 0,
    oraclePrice: 0,
    markPrice: 0,
    markEpoch: 0,
    basisEma: 0,
    basisAt: -1,
    outsideRth: false,
    halted: false,
    funding: createFundingState(),
    holders: new Set(),
    openInterest: 0,
    triggers: createMarketTriggers(),
    tpslTriggers: createMarketTriggers(),
  });
  engine.markets.set(spec.id, ms);
  engine.bySlot.push(ms);
  addSlot(engine.accounts.table, spec.id);
  engine.scratch.markets.push(buildMarketScratch({
    touched: false,
    dirtyBids: [],
    dirtyAsks: [],
    dirtyBidCount: 0,
    dirtyAskCount: 0,
    tradeNums: [],
    tradeRefs: [],
    tradeCount: 0,
    tradesTaker: null,
    bboBefore: [0, 0, 0, 0],
  }));
  return ms;
}

export function invalid(errorType: ErrorType, error: string, field?: string): InvalidResult {
  return field === undefined ? { kind: 'invalid', errorType, error } : { kind: 'invalid', errorType, error, field };
}

export function getAccount(engine: Engine, address: string, index: number): Account {
  return getOrCreateAccount(engine.accounts, address, index);
}
