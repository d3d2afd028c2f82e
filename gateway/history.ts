/**
 * Account history the engine only emits as events: funding payments, interest settlements and
 * transfers (deposits, withdrawals, internal transfers). The read models of orders and fills
 * live in exchange.ts; these three live here, fed by an exchange listener.
 *
 * Contract:
 * - `historyOf(exchange)` returns the exchange's store, creating it and adding its listener on
 *   the first call (a WeakMap keyed by the exchange, so GatewayState needs no new field). Events
 *   emitted before that first call are not seen: whoever creates the exchange calls
 *   `historyOf(exchange)` right after `createExchange`, before the first command.
 * - Per account (address/accountIndex, `accountKeyOf`) and per kind, entries are kept oldest
 *   first, in event order, which is also time order (engine time never goes backwards). Each
 *   list is bounded (`DEFAULT_HISTORY_LIMIT`, 10,000): the oldest entry is dropped first.
 * - Entries are the engine events themselves, unformatted; the operations format them.
 */
import type { EngineEvent, FundingPaymentEvent, InterestEvent, TransferEvent } from '../engine/index.ts';
import { accountKeyOf, type Exchange } from './exchange.ts';

/** Entries kept per account and per kind. */
export const DEFAULT_HISTORY_LIMIT = 10_000;

export interface AccountHistory {
  funding: FundingPaymentEvent[];
  interest: InterestEvent[];
  transfers: TransferEvent[];
}

export interface History {
  limit: number;
  byAccount: Map<string, AccountHistory>;
}

const STORES = new WeakMap<Exchange, History>();

export function historyOf(exchange: Exchange): History {
  let history = STORES.get(exchange);
  if (history === undefined) {
    const created: History = { limit: DEFAULT_HISTORY_LIMIT, byAccount: new Map() };
    exchange.listeners.add((events) => {
      // With SQLite history tables (history-store.ts) these lists stay empty.
      if (exchange.history.kind !== 'memory') return;
      for (const e of events) recordHistory(created, e);
    });
    STORES.set(exchange, created);
    history = created;
  }
  return history;
}

/** The account's history; empty lists when it has none. */
export function accountHistory(history: History, address: string, accountIndex: number): AccountHistory {
  return history.byAccount.get(accountKeyOf(address, accountIndex)) ?? { funding: [], interest: [], transfers: [] };
}

function listsOf(history: History, address: string, accountIndex: number): AccountHistory {
  const key = accountKeyOf(address, accountIndex);
  let lists = history.byAccount.get(key);
  if (lists === undefined) {
    lists = { funding: [], interest: [], transfers: [] };
    history.byAccount.set(key, lists);
  }
  return lists;
}

function append<T>(list: T[], entry: T, limit: number): void {
  list.push(entry);
  if (list.length > limit) list.shift();
}

export function recordHistory(history: History, e: EngineEvent): void {
  switch (e.type) {
    case 'funding':
      append(listsOf(history, e.address, e.accountIndex).funding, e, history.limit);
      break;
    case 'interest':
      append(listsOf(history, e.address, e.accountIndex).interest, e, history.limit);
      break;
    case 'transfer':
      append(listsOf(history, e.address, e.accountIndex).transfers, e, history.limit);
      break;
    default:
      break;
  }
}
