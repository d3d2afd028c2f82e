/**
 * The per-account and per-account-per-market risk state, in typed arrays with dense ids.
 *
 * Layout (docs/decisions.md, "Risk state in typed arrays"):
 * - a position row per (account, market) the account touched, numbered densely in the order
 *   they were first touched; `rowIndex[accountId · slots + slot]` holds row + 1 (0: none);
 * - each row is one record of `W` doubles in `rows` (128 bytes): the fields a place, cancel or
 *   fill reads — open orders and exposure, size, mode, leverage, the float margin contributions
 *   and their epoch, cost as a double, the liquidation trigger — so a command touches the index
 *   word and one or two cache lines, not an account → array → record → boxed-double chain;
 * - the bigint money of a row (cost, realized PnL, funding tallies, isolated pool) in columns by
 *   row; the per-account float margin sums in `accountSums`, `AW` doubles per account id;
 * - cost and realized PnL, which every fill changes, are money cells (`moneyAt`): the double in
 *   the row is the value itself while its magnitude is below 2^52 (every such integer is exact
 *   in a double), and the bigint column holds it beyond; a fill whose arithmetic stays in range
 *   (money.ts) writes the double alone and allocates no bigint.
 * Everything here is plain data (typed arrays, arrays, numbers): it is part of the engine's
 * image as it stands. Callers use the named functions and the `AccountMarket` views of
 * position.ts, never the offsets.
 */

/** Doubles per position row. */
export const W = 16;
export const OPEN_ORDERS = 0;
export const OPEN_BUY = 1;
export const OPEN_SELL = 2;
export const SIZE = 3;
/** 1 while the row is in its account's `active` list. */
export const LISTED = 4;
export const ISOLATED = 5;
/** 0 = the market's default (its maximum). */
export const LEVERAGE = 6;
export const IM_F = 7;
export const CACHE_EPOCH = 8;
export const EQ_F = 9;
export const MM_F = 10;
export const COST_F = 11;
export const TRIGGER = 12;
export const TRIGGER_VERSION = 13;
export const SLOT = 14;
export const REALIZED_F = 15;

/** Doubles per account in `accountSums` (8 before the pending balance: restore.ts re-strides such images). */
export const AW = 10;
export const SUM_EPOCH = 0;
export const SUM_EQ = 1;
export const SUM_IM = 2;
export const SUM_MM = 3;
export const SUM_CHANGES = 4;
export const QUOTE_F = 5;
/** QUOTE_PENDING when QUOTE_F was last converted (margin.ts `crossRiskF`). */
export const QUOTE_PENDING_B = 6;
/** `Number(quoteB)`: the account's `quote` bigint as the nearest double. */
export const QUOTE_BASE_F = 7;
/**
 * What fills added to the balance since the last fold, an exact integer double below 2^52 in
 * magnitude: the balance is `quote` + this (account.ts `quoteOf`). Kept here rather than on the
 * account: a double field of an object is a box of its own, one more cache line per fill.
 */
export const QUOTE_PENDING = 8;
/**
 * `quoteB − QUOTE_BASE_F` as a double (the rounding residual of the conversion, at most 2^51 in
 * magnitude for balances below 2^104; NaN beyond): QUOTE_BASE_F + (residual + QUOTE_PENDING) is
 * then one correctly rounded addition of exact operands, i.e. `Number(quote + pending)`.
 */
export const QUOTE_BASE_R = 9;

export interface RiskTable {
  /** Market slots: the stride of `rowIndex`. */
  slots: number;
  /** Market id of each slot. */
  marketIds: number[];
  /** Rows in use. */
  count: number;
  rows: Float64Array;
  /** row + 1 of (account id, slot), 0 when the account never touched the market. */
  rowIndex: Int32Array;
  /** Accounts `rowIndex` and `accountSums` have room for. */
  accountCapacity: number;
  accountSums: Float64Array;
  // Money by row, quote quantums.
  cost: bigint[];
  realizedPnl: bigint[];
  fundingAllTime: bigint[];
  fundingSinceOpen: bigint[];
  fundingSinceChange: bigint[];
  isolatedMargin: bigint[];
}

export function createRiskTable(): RiskTable {
  return {
    slots: 0,
    marketIds: [],
    count: 0,
    rows: new Float64Array(64 * W),
    rowIndex: new Int32Array(0),
    accountCapacity: 0,
    accountSums: new Float64Array(0),
    cost: [],
    realizedPnl: [],
    fundingAllTime: [],
    fundingSinceOpen: [],
    fundingSinceChange: [],
    isolatedMargin: [],
  };
}

/** Adds a market slot; existing rows keep their numbers, the index takes the new stride. */
export function addSlot(t: RiskTable, marketId: number): void {
  const old = t.rowIndex;
  const slots = t.slots + 1;
  const index = new Int32Array(t.accountCapacity * slots);
  for (let a = 0; a < t.accountCapacity; a++) index.set(old.subarray(a * t.slots, (a + 1) * t.slots), a * slots);
  t.rowIndex = index;
  t.slots = slots;
  t.marketIds.push(marketId);
}

/** Makes room for account ids below `accounts` (capacity doubles: amortized O(1) per account). */
export function reserveAccounts(t: RiskTable, accounts: number): void {
  if (accounts <= t.accountCapacity) return;
  let capacity = t.accountCapacity > 0 ? t.accountCapacity : 64;
  while (capacity < accounts) capacity *= 2;
  const index = new Int32Array(capacity * t.slots);
  index.set(t.rowIndex);
  const sums = new Float64Array(capacity * AW);
  sums.set(t.accountSums);
  for (let a = t.accountCapacity; a < capacity; a++) sums[a * AW + SUM_EPOCH] = -1;
  t.rowIndex = index;
  t.accountSums = sums;
  t.accountCapacity = capacity;
}

/** The row of (account, slot), or -1 when the account never touched the market. */
export function findRow(t: RiskTable, accountId: number, slot: number): number {
  return t.rowIndex[accountId * t.slots + slot]! - 1;
}

/** The row of (account, slot), created with the defaults on first use. */
export function ensureRow(t: RiskTable, accountId: number, slot: number): number {
  const at = accountId * t.slots + slot;
  const existing = t.rowIndex[at]!;
  if (existing !== 0) return existing - 1;
  const row = t.count++;
  if ((row + 1) * W > t.rows.length) {
    const grown = new Float64Array(t.rows.length * 2);
    grown.set(t.rows);
    t.rows = grown;
  }
  const o = row * W;
  const r = t.rows;
  r[CACHE_EPOCH + o] = -1;
  r[TRIGGER + o] = NaN;
  r[SLOT + o] = slot;
  t.cost.push(0n);
  t.realizedPnl.push(0n);
  t.fundingAllTime.push(0n);
  t.fundingSinceOpen.push(0n);
  t.fundingSinceChange.push(0n);
  t.isolatedMargin.push(0n);
  t.rowIndex[at] = row + 1;
  return row;
}

/** Signed position size of (account, slot) in quantums; 0 for a market never touched. */
export function sizeAt(t: RiskTable, accountId: number, slot: number): number {
  const row = t.rowIndex[accountId * t.slots + slot]! - 1;
  return row < 0 ? 0 : t.rows[row * W + SIZE]!;
}

/** Live orders of (account, slot); 0 for a market never touched. */
export function openOrdersAt(t: RiskTable, accountId: number, slot: number): number {
  const row = t.rowIndex[accountId * t.slots + slot]! - 1;
  return row < 0 ? 0 : t.rows[row * W + OPEN_ORDERS]!;
}

/** Below this magnitude a money cell's double is its value (money.ts's bound). */
const EXACT = 2 ** 52;

/**
 * The value of a money cell: the double `f` when it is below 2^52 in magnitude (then it is the
 * value exactly), else the bigint column's `big`.
 */
export function moneyAt(f: number, big: bigint): bigint {
  return f < EXACT && f > -EXACT ? BigInt(f) : big;
}

/**
 * Cost basis and realized PnL of a row (money cells): the bigint column is read only when the
 * double is out of range. `moneyAt(f, column[row])` reads the column's cache line every time,
 * which costs a fill's two position events two cold reads each for nothing.
 */
export function costAt(t: RiskTable, row: number): bigint {
  const f = t.rows[row * W + COST_F]!;
  return f < EXACT && f > -EXACT ? BigInt(f) : t.cost[row]!;
}

export function realizedPnlAt(t: RiskTable, row: number): bigint {
  const f = t.rows[row * W + REALIZED_F]!;
  return f < EXACT && f > -EXACT ? BigInt(f) : t.realizedPnl[row]!;
}

/** True when a money cell's double is its value (and an exact integer double fast path may use it). */
export function isExact(f: number): boolean {
  return f < EXACT && f > -EXACT;
}
