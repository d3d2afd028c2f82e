/**
 * Accounts: a master address's subaccount as the engine sees it.
 *
 * Contract: one record per (lowercase address, accountIndex), created on first use and found
 * through `AccountIndex` (by address, then by subaccount: the address string of a command is
 * hashed once, no key string is built per command). It links the account's live orders into an
 * intrusive list (cancel-all walks it), indexes them by clientId (DUPLICATE_CLIENT_ID /
 * TOO_MANY_CLIENT_IDS), keeps one `AccountMarket` per market it touched (position, leverage,
 * isolated pool, open-order exposure: position.ts) and owns the per-account sequence counter
 * and the money: `quote` is netQuoteBalance in quote quantums (1e-9 USD), as bigint.
 */
import type { FeeTier } from './types.ts';
import type { Account, Order } from './records.ts';
import { AccountMarket } from './position.ts';
import { AW, createRiskTable, ensureRow, findRow, ISOLATED, LISTED, OPEN_ORDERS, openOrdersAt, QUOTE_PENDING, reserveAccounts, SIZE, sizeAt, W, type RiskTable } from './risk-table.ts';

export type { Account } from './records.ts';

export interface AccountIndex {
  byAddress: Map<string, (Account | undefined)[]>;
  /** Every account in creation order (deterministic iteration). */
  all: Account[];
  /** Per-account-per-market risk state and per-account margin sums, by account id. */
  table: RiskTable;
  /** Map-like reads by `accountKey` for callers outside the hot path (tests, snapshots). */
  get(key: string): Account | undefined;
  values(): IterableIterator<Account>;
}

export function createAccountIndex(): AccountIndex {
  const index: AccountIndex = {
    byAddress: new Map(),
    all: [],
    table: createRiskTable(),
    get: (key) => {
      const slash = key.lastIndexOf('/');
      return findAccount(index, key.slice(0, slash), Number(key.slice(slash + 1)));
    },
    values: () => index.all.values(),
  };
  return index;
}

export function accountKey(address: string, index: number): string {
  return address + '/' + index;
}

export function findAccount(accounts: AccountIndex, address: string, index: number): Account | undefined {
  const subs = accounts.byAddress.get(address);
  return subs === undefined ? undefined : subs[index];
}

export function getOrCreateAccount(accounts: AccountIndex, address: string, index: number): Account {
  let subs = accounts.byAddress.get(address);
  if (subs === undefined) {
    subs = [];
    accounts.byAddress.set(address, subs);
  }
  let account = subs[index];
  if (account === undefined) {
    const id = accounts.all.length;
    reserveAccounts(accounts.table, id + 1);
    account = {
      // The fields a place or cancel reads come first, so that they share the first cache lines.
      id,
      table: accounts.table,
      head: null,
      tail: null,
      liveCount: 0,
      seq: 0,
      quote: 0n,
      quoteB: 0n,
      address,
      index,
      riskQueued: false,
      active: [],
      key: accountKey(address, index),
      clientIds: new Map(),
      netDeposits: 0n,
      activated: false,
      volumeByDay: new Array<bigint>(30).fill(0n),
      volumeDay: new Array<number>(30).fill(-1),
      rollingDay: -1,
      rolling: 0n,
      lifetimeVolumeBase: 0n,
      volumePending: 0,
      volumePendingDay: -1,
      lifetimeFeesPaidBase: 0n,
      feesPending: 0,
      tier: undefined,
      tierOf: undefined,
      tierDay: -1,
      tierHeadroom: 0,
      triggersAt: -1,
      triggerCount: 0,
      triggerBudget: -Infinity,
      triggerSlot: -1,
      triggerSlotCross: false,
      accruedInterest: 0n,
      interestSince: 0,
    };
    subs[index] = account;
    accounts.all.push(account);
  }
  return account;
}

/** The account's balance (netQuoteBalance), quote quantums: `quote` plus what fills added since the last fold. */
export function quoteOf(account: Account): bigint {
  const pending = account.table.accountSums[account.id * AW + QUOTE_PENDING]!;
  return pending === 0 ? account.quote : account.quote + BigInt(pending);
}

/**
 * Adds `amount`, an exact integer double, to the balance: to the pending double while the sum
 * stays below 2^52 in magnitude (every such sum is exact), else to the bigint.
 */
export function addQuoteExact(account: Account, amount: number): void {
  const sums = account.table.accountSums;
  const at = account.id * AW + QUOTE_PENDING;
  const pending = sums[at]!;
  const sum = pending + amount;
  if (sum < PENDING_MAX && sum > -PENDING_MAX) {
    sums[at] = sum;
    return;
  }
  account.quote += BigInt(pending) + BigInt(amount);
  sums[at] = 0;
}

/** Signed position of the account in a market slot, quantums (0 if it never traded there). */
export function positionOf(account: Account, slot: number): number {
  return sizeAt(account.table, account.id, slot);
}

/** Live orders of the account in a market slot. */
export function openOrdersOf(account: Account, slot: number): number {
  return openOrdersAt(account.table, account.id, slot);
}

/** The account's row for a market slot, created on first use. */
export function marketRow(account: Account, slot: number): number {
  return ensureRow(account.table, account.id, slot);
}

/** The account's record for a market, created on first use. */
export function accountMarket(account: Account, slot: number): AccountMarket {
  return new AccountMarket(account.table, ensureRow(account.table, account.id, slot));
}

/** The account's record for a market, or undefined when it never touched it. */
export function marketOf(account: Account, slot: number): AccountMarket | undefined {
  const row = findRow(account.table, account.id, slot);
  return row < 0 ? undefined : new AccountMarket(account.table, row);
}

/** Records of every market the account touched, in slot order. */
export function touchedMarkets(account: Account): AccountMarket[] {
  const out: AccountMarket[] = [];
  for (let slot = 0; slot < account.table.slots; slot++) {
    const am = marketOf(account, slot);
    if (am !== undefined) out.push(am);
  }
  return out;
}

/** Records of the markets that matter for margin (position, live orders or isolated pool), in the order they became active. */
export function activeMarkets(account: Account): AccountMarket[] {
  return account.active.map((row) => new AccountMarket(account.table, row));
}

/** Keeps `active` to the markets that matter for margin; cheap to call after any change. */
export function refreshActive(account: Account, row: number): void {
  const t = account.table;
  const o = row * W;
  const r = t.rows;
  // Only an isolated row holds a pool (leaving isolated mode returns it), so a cross row never
  // reads its bigint column: one cold read less per order and fill.
  const matters = r[o + SIZE] !== 0 || r[o + OPEN_ORDERS]! > 0 || (r[o + ISOLATED] === 1 && t.isolatedMargin[row] !== 0n);
  if (matters === (r[o + LISTED] === 1)) return;
  r[o + LISTED] = matters ? 1 : 0;
  if (matters) account.active.push(row);
  else account.active.splice(account.active.indexOf(row), 1);
}

const US_PER_DAY = 86_400_000_000;

/**
 * Adds traded notional to the rolling 30-day window and the lifetime total; `valueF` is `value`
 * as an exact double or NaN (money.ts), taken off the fee tier's headroom (NaN empties it).
 * `value` is read only when `valueF` is NaN.
 */
export function addVolume(account: Account, value: bigint, valueF: number, time: number): void {
  account.tierHeadroom = valueF === valueF ? account.tierHeadroom - valueF : 0;
  account.rollingDay = -1;
  const day = Math.floor(time / US_PER_DAY);
  if (valueF === valueF && account.volumePendingDay === day) {
    const sum = account.volumePending + valueF;
    if (sum < PENDING_MAX) {
      account.volumePending = sum;
      return;
    }
  }
  foldVolume(account);
  account.volumePendingDay = day;
  if (valueF === valueF) account.volumePending = valueF;
  else addDayVolume(account, day, value);
}

/**
 * Moves the pending volume into the bigints. Its day is the latest with any volume (a fill of a
 * later day folds first), so its ring slot holds that day or one at least 30 days older.
 */
function foldVolume(account: Account): void {
  if (account.volumePending === 0) return;
  addDayVolume(account, account.volumePendingDay, BigInt(account.volumePending));
  account.volumePending = 0;
}

function addDayVolume(account: Account, day: number, value: bigint): void {
  const i = day % 30;
  if (account.volumeDay[i] !== day) {
    account.volumeDay[i] = day;
    account.volumeByDay[i] = 0n;
  }
  account.volumeByDay[i] = account.volumeByDay[i]! + value;
  account.lifetimeVolumeBase += value;
}

/** Adds a fee the account paid (a positive fee) to its lifetime total; `feeF` as in addVolume (`fee` is read only when it is NaN). */
export function addFeePaid(account: Account, fee: bigint, feeF: number): void {
  if (feeF === feeF) {
    const sum = account.feesPending + feeF;
    if (sum < PENDING_MAX) {
      account.feesPending = sum;
      return;
    }
  }
  account.lifetimeFeesPaidBase += BigInt(account.feesPending) + (feeF === feeF ? BigInt(feeF) : fee);
  account.feesPending = 0;
}

/** Bound of the pending doubles: non-negative integers below it add up exactly. */
const PENDING_MAX = 2 ** 52;

/** Lifetime traded notional, quote quantums. */
export function lifetimeVolume(account: Account): bigint {
  return account.volumePending === 0 ? account.lifetimeVolumeBase : account.lifetimeVolumeBase + BigInt(account.volumePending);
}

/** Lifetime fees paid (rebates not subtracted), quote quantums. */
export function lifetimeFeesPaid(account: Account): bigint {
  return account.feesPending === 0 ? account.lifetimeFeesPaidBase : account.lifetimeFeesPaidBase + BigInt(account.feesPending);
}

/**
 * `tierFor(tiers, rollingVolume(account, time))` without reading a cold bigint on every fill
 * (docs/decisions.md "Engine throughput"; its cost: docs/performance-log.md). Within a UTC day
 * rolling volume only grows, by `addVolume`, which takes each fill's value off the headroom;
 * the tier is looked up again when the day, the schedule or a possible crossing of the next
 * threshold says so.
 */
export function feeTier(tiers: readonly FeeTier[], account: Account, time: number): FeeTier {
  const today = Math.floor(time / US_PER_DAY);
  if (account.tierHeadroom > 0 && account.tierDay === today && account.tierOf === tiers) return account.tier!;
  const rolling = rollingVolume(account, time);
  let i = 0;
  for (let k = 1; k < tiers.length; k++) if (rolling >= tiers[k]!.minVolume) i = k;
  const next = tiers[i + 1];
  const headroom = next === undefined ? HEADROOM_MAX : Number(next.minVolume - rolling);
  account.tier = tiers[i]!;
  account.tierOf = tiers;
  account.tierDay = today;
  // Capped at 2^52 (a lower bound of any larger headroom): subtracting exact fill values from
  // a double of at most that size rounds nothing, so "positive" means below the threshold.
  account.tierHeadroom = headroom < HEADROOM_MAX ? headroom : HEADROOM_MAX;
  return account.tier;
}

const HEADROOM_MAX = 2 ** 52;

/** Volume of the last 30 UTC days (today included), quote quantums. */
export function rollingVolume(account: Account, time: number): bigint {
  const today = Math.floor(time / US_PER_DAY);
  if (account.rollingDay === today) return account.rolling;
  const inWindow = (day: number): boolean => day >= 0 && day > today - 30 && day <= today;
  let total = inWindow(account.volumePendingDay) ? BigInt(account.volumePending) : 0n;
  for (let i = 0; i < 30; i++) {
    if (inWindow(account.volumeDay[i]!)) total += account.volumeByDay[i]!;
  }
  account.rollingDay = today;
  account.rolling = total;
  return total;
}

/** Appends a live order to its account's list. */
export function linkOrder(account: Account, order: Order): void {
  order.aNext = null;
  order.aPrev = account.tail;
  if (account.tail === null) account.head = order;
  else account.tail.aNext = order;
  account.tail = order;
  account.liveCount++;
}

export function unlinkOrder(account: Account, order: Order): void {
  if (order.aPrev === null) account.head = order.aNext;
  else order.aPrev.aNext = order.aNext;
  if (order.aNext === null) account.tail = order.aPrev;
  else order.aNext.aPrev = order.aPrev;
  order.aPrev = null;
  order.aNext = null;
  account.liveCount--;
}

/** The account's live orders, oldest first. */
export function accountOrders(account: Account): Order[] {
  const out: Order[] = [];
  for (let o = account.head; o !== null; o = o.aNext) out.push(o);
  return out;
}
