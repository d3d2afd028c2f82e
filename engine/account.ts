/**
 * Accounts: a master address's subaccount as the engine sees it.
 *
 * Contract: one record per (lowercase address, accountIndex), created on first use and found
 * through `AccountIndex` (by address, then by subaccount: the address string of a command is
 * hashed once, no key string is built per command). It links the account's live orders into an
 * intrusive list (cancel-all walks it), indexes them by clientId (DUPLICATE_CLIENT_ID /
 * TOO_MANY_CLIENT_IDS), counts open orders per market slot (OPEN_ORDER_CAP_EXCEEDED) and owns
 * the per-account sequence counter. Positions are signed quantums per market; issue 3's risk
 * modules extend this record with collateral and margin.
 */
import type { Order } from './order.ts';

export interface Account {
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
  /** Open orders per market slot (MarketState.slot). */
  openBySlot: number[];
  /** Signed position size in quantums per market slot. */
  positionBySlot: number[];
}

export interface AccountIndex {
  byAddress: Map<string, (Account | undefined)[]>;
  /** Every account in creation order (deterministic iteration). */
  all: Account[];
  /** Map-like reads by `accountKey` for callers outside the hot path (tests, snapshots). */
  get(key: string): Account | undefined;
  values(): IterableIterator<Account>;
}

export function createAccountIndex(): AccountIndex {
  const index: AccountIndex = {
    byAddress: new Map(),
    all: [],
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
    account = {
      key: accountKey(address, index),
      address,
      index,
      seq: 0,
      head: null,
      tail: null,
      liveCount: 0,
      clientIds: new Map(),
      openBySlot: [],
      positionBySlot: [],
    };
    subs[index] = account;
    accounts.all.push(account);
  }
  return account;
}

export function positionOf(account: Account, slot: number): number {
  return account.positionBySlot[slot] ?? 0;
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
