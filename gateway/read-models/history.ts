/**
 * Account ledgers: the history the engine only emits as events — funding payments, interest
 * settlements and transfers (deposits, withdrawals, internal transfers). The exchange keeps
 * them (`Exchange.ledgers`, exchange.ts) beside its closed orders, fills and trades, as the
 * memory history store's lists (history-store.ts); with SQLite history tables they stay empty.
 *
 * Contract:
 * - Per account (address/accountIndex, `accountKeyOf`) and per kind, entries are kept oldest
 *   first, in event order, which is also time order (engine time never goes backwards). Each
 *   list is bounded (`DEFAULT_HISTORY_LIMIT`, 10,000): the oldest entry is dropped first.
 * - Entries are the engine events themselves, unformatted; the operations format them.
 */
import type { EngineEvent, FundingPaymentEvent, InterestEvent, TransferEvent } from '../../engine/index.ts';
import { accountKeyOf } from '../shared/account-key.ts';
import { newRing, ringPush, type Ring } from '../shared/ring.ts';

/** Entries kept per account and per kind. */
export const DEFAULT_HISTORY_LIMIT = 10_000;

/** Each kind's entries, oldest first, as a ring (shared/ring.ts; images hold them as arrays). */
export interface AccountHistory {
  funding: Ring<FundingPaymentEvent>;
  interest: Ring<InterestEvent>;
  transfers: Ring<TransferEvent>;
}

/** Ledgers by account key. */
export type Ledgers = Map<string, AccountHistory>;

/** The account's ledgers; empty lists when it has none. */
export function accountHistory(ledgers: Ledgers, accountKey: string): AccountHistory {
  return ledgers.get(accountKey) ?? { funding: newRing(), interest: newRing(), transfers: newRing() };
}

function listsOf(ledgers: Ledgers, address: string, accountIndex: number): AccountHistory {
  const key = accountKeyOf(address, accountIndex);
  let lists = ledgers.get(key);
  if (lists === undefined) {
    lists = { funding: newRing(), interest: newRing(), transfers: newRing() };
    ledgers.set(key, lists);
  }
  return lists;
}

/** Files a funding, interest or transfer event in its account's ledger; other events are ignored. */
export function recordLedger(ledgers: Ledgers, e: EngineEvent, limit = DEFAULT_HISTORY_LIMIT): void {
  switch (e.type) {
    case 'funding':
      ringPush(listsOf(ledgers, e.address, e.accountIndex).funding, e, limit);
      break;
    case 'interest':
      ringPush(listsOf(ledgers, e.address, e.accountIndex).interest, e, limit);
      break;
    case 'transfer':
      ringPush(listsOf(ledgers, e.address, e.accountIndex).transfers, e, limit);
      break;
    default:
      break;
  }
}
