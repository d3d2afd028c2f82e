/**
 * The per-IP weight of every operation, as data.
 *
 * Contract (interface.md "Limits", "Per-IP weight bucket"): each request deducts its weight
 * before its handler runs; some operations are charged more after the response, from what they
 * returned. Like ccxt's `describe().api`, each operation is one row: its base weight, optionally a
 * parameter that raises it, and optionally a post-charge rule.
 *
 * - `weight`: deducted before the handler runs.
 * - `byParam`: base weight + floor(value / divisor), the value clamped to [min, max] and
 *   `default` when absent (l2OrderBook: 2 + floor(nLevels / 20), up to 7 at 100 levels).
 * - `post`: charged after the response, floor(count / divisor) where count is the rows returned
 *   (`rows`, list reads) or the elements submitted (`elements`, batch order writes).
 *
 * Rows the interface's table does not name are marked "not in the interface's table"; their
 * weights follow the nearest named operation (docs/decisions.md is the place to record them).
 * Operation names are the REST path's last segment in camelCase (`accountStats` is
 * /v1/account/stats, `affiliate*` the /v1/affiliate/* routes); WebSocket methods use the same
 * names, with `OPERATION_ALIASES` for the spellings clients also send.
 */
import { LIMITS, RATE_LIMITS } from '../../engine/spec.ts';

/** Tiers of the interface's weight table. */
const FREE = 0;
const ROOT = 1;
const CHEAP = 2;
const STANDARD = 20;
const HEAVY = 125;

/** List reads add floor(rows / N): N = 20 for most lists, 60 for candles, 50 for openOrders. */
const ROWS_PER_UNIT = 20;
const CANDLE_ROWS_PER_UNIT = 60;
const OPEN_ORDER_ROWS_PER_UNIT = 50;
/** l2OrderBook: 2 + floor(nLevels / 20). */
const BOOK_LEVELS_PER_UNIT = 20;

export interface PostCharge {
  /** `rows`: rows returned by a list read; `elements`: elements submitted in a batch. */
  readonly count: 'rows' | 'elements';
  readonly divisor: number;
}

export interface ParamWeight {
  readonly name: string;
  readonly divisor: number;
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

export interface WeightRule {
  readonly weight: number;
  readonly byParam?: ParamWeight;
  readonly post?: PostCharge;
}

const flat = (weight: number): WeightRule => ({ weight });
const list = (weight: number, divisor: number): WeightRule => ({ weight, post: { count: 'rows', divisor } });
const batch: WeightRule = { weight: FREE, post: { count: 'elements', divisor: RATE_LIMITS.batchWeightDivisor } };

export const IP_WEIGHTS = {
  // 0: health; single order writes (place, modify, cancel); cancelAllOrders.
  health: flat(FREE),
  placeOrder: flat(FREE),
  modifyOrder: flat(FREE),
  cancelOrder: flat(FREE),
  cancelAllOrders: flat(FREE),
  // Batch order writes are free on the base, then floor(N / 40) after the call.
  batchPlaceOrders: batch,
  batchModifyOrders: batch,
  batchCancelOrders: batch,
  // Not in the interface's table: an order-management write charged to the cancel pool, like cancelAllOrders.
  scheduleCancel: flat(FREE),

  // 1: root (/).
  root: flat(ROOT),
  // Not in the interface's table: server time, as cheap as root.
  time: flat(ROOT),

  // 2: cheap single-object reads.
  bbo: flat(CHEAP),
  mids: flat(CHEAP),
  account: flat(CHEAP),
  positions: flat(CHEAP),
  order: flat(CHEAP),
  feeTiers: flat(CHEAP),
  leverages: flat(CHEAP),
  accountStats: flat(CHEAP),
  rateLimit: flat(CHEAP),
  // Not in the interface's table: single-object reads, like order.
  fill: flat(CHEAP),
  compliance: flat(CHEAP),
  // 2 + floor(nLevels / 20), from the requested depth (supplement §6).
  l2OrderBook: {
    weight: CHEAP,
    byParam: {
      name: 'nLevels',
      divisor: BOOK_LEVELS_PER_UNIT,
      default: LIMITS.l2LevelsDefault,
      min: LIMITS.l2LevelsMin,
      max: LIMITS.l2LevelsMax,
    },
  },

  // 20: standard reads and management. Paged history reads also pay for their rows.
  prices: flat(STANDARD),
  markets: flat(STANDARD),
  trade: flat(STANDARD),
  trades: list(STANDARD, ROWS_PER_UNIT),
  candles: list(STANDARD, CANDLE_ROWS_PER_UNIT),
  portfolio: flat(STANDARD),
  openOrders: list(STANDARD, OPEN_ORDER_ROWS_PER_UNIT),
  orders: list(STANDARD, ROWS_PER_UNIT),
  fills: list(STANDARD, ROWS_PER_UNIT),
  funding: list(STANDARD, ROWS_PER_UNIT),
  fundingRates: list(STANDARD, ROWS_PER_UNIT),
  accountTransferUpdates: list(STANDARD, ROWS_PER_UNIT),
  apiKeys: flat(STANDARD),
  createApiKey: flat(STANDARD),
  revokeApiKey: flat(STANDARD),
  userPreferences: flat(STANDARD),
  // Not in the interface's table by this name: the userPreferences write (PATCH / POST / DELETE).
  userPreferencesUpdate: flat(STANDARD),
  // All affiliate endpoints (commissionrates is the referral program's rate schedule).
  affiliateCreateCode: flat(STANDARD),
  affiliateModifyCode: flat(STANDARD),
  affiliateInviteCodes: flat(STANDARD),
  affiliateInfo: flat(STANDARD),
  affiliateCode: flat(STANDARD),
  affiliateReferees: flat(STANDARD),
  affiliateCommissions: flat(STANDARD),
  affiliateMyReferrer: flat(STANDARD),
  affiliateClaims: flat(STANDARD),
  affiliateClaimStatus: flat(STANDARD),
  affiliateCodeAvailable: flat(STANDARD),
  commissionRates: flat(STANDARD),
  // The venue's other affiliate routes (claim, register as referee, redeem an invite, kickback).
  affiliateKickback: flat(STANDARD),
  affiliateClaim: flat(STANDARD),
  affiliateRegisterAffiliate: flat(STANDARD),
  affiliateRedeemInvite: flat(STANDARD),
  // The venue's routes public clients call (docs/decisions.md "Fidelity to the live venue").
  affiliateRevokeCode: flat(STANDARD),
  affiliateLeaderboard: flat(STANDARD),
  // Not in the interface's table: a paged history read like funding.
  interest: list(STANDARD, ROWS_PER_UNIT),
  // Not in the interface's table: market and ranking reads like markets (leaderboard has no pages).
  leaderboard: flat(STANDARD),
  apiMetaMarkets: flat(STANDARD),
  apiMetaOverview: flat(STANDARD),
  apiMetaSpotOverview: flat(STANDARD),
  // Not in the interface's table: spot reads (empty in perpsim) like their perpetual siblings; metadata candles like candles.
  apiMetaCandles: list(STANDARD, CANDLE_ROWS_PER_UNIT),
  spotAssets: flat(STANDARD),
  spotPositions: flat(CHEAP),
  spotFills: list(STANDARD, ROWS_PER_UNIT),
  // Not in the interface's table: notification inbox and management, like userPreferences.
  notifications: flat(STANDARD),
  notificationTokens: flat(STANDARD),
  notificationsMarkSeen: flat(STANDARD),

  // 125: setLeverage, withdraw.
  setLeverage: flat(HEAVY),
  withdraw: flat(HEAVY),
  // Not in the interface's table: account money moves, like withdraw and setLeverage.
  transfer: flat(HEAVY),
  adjustIsolatedMargin: flat(HEAVY),
} as const satisfies Readonly<Record<string, WeightRule>>;

export type WeightedOperation = keyof typeof IP_WEIGHTS;

/** Other names clients use for an operation: the WebSocket `cancel` method, `/v1/fundingPayments` (supplement §11, §12). */
export const OPERATION_ALIASES: Readonly<Record<string, WeightedOperation>> = {
  cancel: 'cancelOrder',
  fundingPayments: 'funding',
};

/** The operation a REST path segment or WebSocket method names, or undefined when none. */
export function resolveOperation(name: string): WeightedOperation | undefined {
  if (Object.hasOwn(IP_WEIGHTS, name)) return name as WeightedOperation;
  return Object.hasOwn(OPERATION_ALIASES, name) ? OPERATION_ALIASES[name] : undefined;
}

/** Request parameters that can raise a base weight (query values as sent, or numbers). */
export type WeightParams = Readonly<Record<string, string | number | undefined>>;

/**
 * Weight deducted before the handler runs.
 *
 * @example requestWeight('l2OrderBook', { nLevels: 100 }) // 7
 */
export function requestWeight(operation: WeightedOperation, params: WeightParams = {}): number {
  const rule: WeightRule = IP_WEIGHTS[operation];
  if (rule.byParam === undefined) return rule.weight;
  const { name, divisor, min, max } = rule.byParam;
  const raw = params[name];
  const parsed = typeof raw === 'number' ? raw : raw === undefined || raw === '' ? NaN : Number(raw);
  // An unparsable value is answered 400 by the handler; until then it weighs like the default.
  const value = Number.isFinite(parsed) ? Math.min(max, Math.max(min, Math.trunc(parsed))) : rule.byParam.default;
  return rule.weight + Math.floor(value / divisor);
}

export interface PostChargeCounts {
  /** Rows the list read returned. */
  readonly rows?: number;
  /** Elements the batch submitted. */
  readonly elements?: number;
}

/**
 * Weight charged after the response (0 for operations without a post-charge rule).
 *
 * @example postChargeWeight('candles', { rows: 1500 }) // 25
 */
export function postChargeWeight(operation: WeightedOperation, counts: PostChargeCounts): number {
  const rule: WeightRule = IP_WEIGHTS[operation];
  if (rule.post === undefined) return 0;
  const count = counts[rule.post.count] ?? 0;
  return count > 0 ? Math.floor(count / rule.post.divisor) : 0;
}
