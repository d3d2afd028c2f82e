/**
 * The SQLite implementation of the history store (gateway/history-store.ts): closed orders,
 * fills, trades and the account ledgers (funding, interest, transfers) as indexed tables.
 *
 * Contract:
 * - Rows are written as the engine emits them, inside the turn's open transaction
 *   (`ensureTransaction`), which the journal's group commit closes (journal.ts): history is
 *   never ahead of or behind the journal, and a read in the same turn sees the rows already.
 * - Every row carries `seq`, the journal position of the command that produced it, and `time`
 *   (engine µs). Both grow with the row id: a truncation after a position and a retention cut
 *   before a time are a suffix and a prefix of each table.
 * - `muted` (recovery): the tables already hold the rows of every committed record — they
 *   committed together — so replaying the journal tail writes nothing, and neither do the
 *   truncations of replayed resets and restores.
 * - `truncateAfter(seq)`: an image restored live (/sim/restore, /sim/reset) brings history back
 *   to the image's position — rows of later commands are deleted. Rows deleted before (by an
 *   earlier reset, or by retention) stay deleted.
 * - `prune(nowUs)`: retention, at most `batch` rows per table per call, oldest first.
 * - Events are stored v8-serialized (bigints, undefined fields kept) and read back as equal
 *   objects; lists are capped like the memory read models (ExchangeLimits, history.ts).
 */
import { deserialize, serialize } from 'node:v8';
import type { EngineEvent, FillEvent, FundingPaymentEvent, InterestEvent, OrderEvent, TradesEvent, TransferEvent } from '../../engine/index.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import { accountKeyOf, type ExchangeLimits } from '../exchange.ts';
import type { HistoryStore } from '../history-store.ts';
import { DEFAULT_HISTORY_LIMIT } from '../history.ts';
import type { SqliteDatabase } from './schema.ts';

export const DAY_US = 86_400_000_000;
/** Orders, fills and trades (`--history-retention-days`). */
export const DEFAULT_RETENTION_DAYS = 30;
/** Funding, interest and transfers are kept at least this long (reads default to 30 days back). */
export const MIN_LEDGER_RETENTION_DAYS = 90;
export const PRUNE_BATCH = 5_000;

const LEDGER_KIND = { funding: 0, interest: 1, transfer: 2 } as const;

export interface SqliteHistoryStore extends HistoryStore {
  muted: boolean;
  /** The journal position history is written up to (the images' `seq`). */
  position(): number;
  truncateAfter(seq: number): void;
  /** Deletes up to `batch` expired rows per table; returns how many went. */
  prune(nowUs: number, batch?: number): number;
  /** Row counts per table (tests, logs). */
  counts(): Record<'orders' | 'fills' | 'trades' | 'ledger', number>;
}

export interface HistoryTableOptions {
  limits: ExchangeLimits;
  /** The journal position of the command being applied. */
  seq: () => number;
  /** Opens the turn's transaction when none is open (the journal commits it). */
  ensureTransaction: () => void;
  retentionDays?: number;
}

const encode = (e: EngineEvent): Buffer => serialize(e);
const decode = <T>(rows: { event: Buffer }[]): T[] => {
  const out: T[] = new Array<T>(rows.length);
  // Newest first from SQL, oldest first out.
  for (let i = 0; i < rows.length; i++) out[rows.length - 1 - i] = deserialize(rows[i]!.event) as T;
  return out;
};

export function sqliteHistoryStore(db: SqliteDatabase, options: HistoryTableOptions): SqliteHistoryStore {
  const { limits, seq, ensureTransaction } = options;
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const ledgerDays = Math.max(retentionDays, MIN_LEDGER_RETENTION_DAYS);
  const insertOrder = db.prepare('INSERT OR REPLACE INTO history_orders (order_id, account, listed, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)');
  const insertFill = db.prepare('INSERT INTO history_fills (account, market, trade_id, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)');
  const insertTrades = db.prepare('INSERT INTO history_trades (market, seq, time, event) VALUES (?, ?, ?, ?)');
  const insertLedger = db.prepare('INSERT INTO history_ledger (kind, account, seq, time, event) VALUES (?, ?, ?, ?, ?)');
  const orderById = db.prepare('SELECT event FROM history_orders WHERE order_id = ?');
  const ordersOf = db.prepare('SELECT event FROM history_orders WHERE account = ? AND listed = 1 ORDER BY id DESC LIMIT ?');
  const fillsOf = db.prepare('SELECT event FROM history_fills WHERE account = ? ORDER BY id DESC LIMIT ?');
  const fillOfTrade = db.prepare('SELECT event FROM history_fills WHERE account = ? AND trade_id = ? ORDER BY id DESC LIMIT 1');
  const tradesOf = db.prepare('SELECT event FROM history_trades WHERE market = ? ORDER BY id DESC LIMIT ?');
  const ledgerOf = db.prepare('SELECT event FROM history_ledger WHERE account = ? AND kind = ? ORDER BY id DESC LIMIT ?');
  const TABLES = ['history_orders', 'history_fills', 'history_trades', 'history_ledger'] as const;
  const truncate = TABLES.map((t) => db.prepare(`DELETE FROM ${t} WHERE seq > ?`));
  // Time grows with the id: the expired rows are a prefix; look at most `batch` rows deep.
  const pruneStatements = TABLES.map((t) => db.prepare(`DELETE FROM ${t} WHERE id <= (SELECT MAX(id) FROM (SELECT id, time FROM ${t} ORDER BY id LIMIT ?) WHERE time < ?)`));
  const countStatements = TABLES.map((t) => db.prepare(`SELECT COUNT(*) AS n FROM ${t}`));

  const store: SqliteHistoryStore = {
    kind: 'sqlite',
    muted: false,
    position: seq,
    record(events) {
      if (store.muted) return;
      let opened = false;
      const at = seq();
      for (const e of events) {
        switch (e.type) {
          case 'order':
            if (!TERMINAL_ORDER_STATUSES.has(e.status)) break;
            if (!opened) (ensureTransaction(), (opened = true));
            insertOrder.run(e.orderId, accountKeyOf(e.address, e.accountIndex), e.cancelReason === 'MODIFY_CANCELED' ? 0 : 1, at, e.time, encode(e));
            break;
          case 'fill':
            if (!opened) (ensureTransaction(), (opened = true));
            insertFill.run(accountKeyOf(e.address, e.accountIndex), e.marketId, e.tradeId, at, e.time, encode(e));
            break;
          case 'trades':
            if (!opened) (ensureTransaction(), (opened = true));
            insertTrades.run(e.marketId, at, e.time, encode(e));
            break;
          case 'funding':
          case 'interest':
          case 'transfer':
            if (!opened) (ensureTransaction(), (opened = true));
            insertLedger.run(LEDGER_KIND[e.type], accountKeyOf(e.address, e.accountIndex), at, e.time, encode(e));
            break;
          default:
            break;
        }
      }
    },
    closedOrder(orderId) {
      const row = orderById.get(orderId) as { event: Buffer } | undefined;
      return row === undefined ? undefined : (deserialize(row.event) as OrderEvent);
    },
    closedOrders: (accountKey) => decode<OrderEvent>(ordersOf.all(accountKey, limits.closedOrdersPerAccount) as { event: Buffer }[]),
    fills: (accountKey) => decode<FillEvent>(fillsOf.all(accountKey, limits.fillsPerAccount) as { event: Buffer }[]),
    fillOfTrade(accountKey, tradeId) {
      const row = fillOfTrade.get(accountKey, tradeId) as { event: Buffer } | undefined;
      return row === undefined ? undefined : (deserialize(row.event) as FillEvent);
    },
    trades: (marketId) => decode<TradesEvent>(tradesOf.all(marketId, limits.tradesPerMarket) as { event: Buffer }[]),
    *newestTrades(marketId) {
      for (const row of tradesOf.iterate(marketId, limits.tradesPerMarket) as IterableIterator<{ event: Buffer }>) yield deserialize(row.event) as TradesEvent;
    },
    funding: (accountKey) => decode<FundingPaymentEvent>(ledgerOf.all(accountKey, LEDGER_KIND.funding, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[]),
    interest: (accountKey) => decode<InterestEvent>(ledgerOf.all(accountKey, LEDGER_KIND.interest, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[]),
    transfers: (accountKey) => decode<TransferEvent>(ledgerOf.all(accountKey, LEDGER_KIND.transfer, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[]),
    truncateAfter(after) {
      if (store.muted) return;
      ensureTransaction();
      for (const statement of truncate) statement.run(after);
    },
    prune(nowUs, batch = PRUNE_BATCH) {
      let deleted = 0;
      db.transaction(() => {
        TABLES.forEach((_, i) => {
          const days = TABLES[i] === 'history_ledger' ? ledgerDays : retentionDays;
          deleted += pruneStatements[i]!.run(batch, nowUs - days * DAY_US).changes;
        });
      })();
      return deleted;
    },
    counts() {
      const [orders, fills, trades, ledger] = countStatements.map((s) => (s.get() as { n: number }).n);
      return { orders: orders!, fills: fills!, trades: trades!, ledger: ledger! };
    },
  };
  return store;
}
