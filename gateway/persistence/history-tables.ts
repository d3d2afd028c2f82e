/**
 * The SQLite implementation of the history store (gateway/read-models/history-store.ts): closed orders,
 * fills, trades and the account ledgers (funding, interest, transfers) as indexed tables.
 *
 * Contract:
 * - Rows are buffered per table as the engine emits them. The journal's group commit stores the
 *   turn's rows in its journal row (journal.ts `turnRows`), in the same transaction as the
 *   records; the tables are filled from the buffer — in slices of whole journal rows over
 *   event-loop turns (`drain`, started at most once a second), whole before snapshots and the
 *   stop (`flush`) — and a read first fills them inside the turn's transaction
 *   (`ensureTransaction`), so it sees every row so far. `meta.history_from` names the first
 *   journal row whose rows the tables may lack; `recoverHistoryRows` inserts those after a
 *   crash. So history is never ahead of or behind the journal. `closedOrder` — asked after every
 *   order write — answers the pending closed orders from memory, so the rows stay batched.
 * - Every row carries `seq`, the journal position of the command that produced it, and `time`
 *   (engine µs). Both grow with the row id: a truncation after a position and a retention cut
 *   before a time are a suffix and a prefix of each table.
 * - `muted` (recovery): the tables already hold the rows of every committed record — they
 *   committed together — so replaying the journal tail writes nothing, and neither do the
 *   truncations of replayed resets and restores.
 * - `truncateAfter(seq)`: an image restored live (/sim/restore, /sim/reset) brings history back
 *   to the image's position — rows of later commands are deleted. Rows deleted before (by an
 *   earlier reset, or by retention) stay deleted.
 * - `prune(nowUs)`: retention, at most `batch` rows per table per call, oldest first;
 *   `pruneSoon` runs it in slices over event-loop turns (what the server does once a second).
 * - Closed candle bars (`candles`, candles.ts) follow the same rules: buffered with the turn,
 *   truncated by seq; retention keeps at least the span of DEFAULT_BARS_PER_SERIES bars of
 *   their timeframe (the memory series' bound), so daily and weekly bars outlive the days.
 * - Notification inbox items (`notifications`, notifications.ts): rows like the others; a
 *   markSeen updates `seen` in the turn's transaction and stamps it with its journal position,
 *   which `truncateAfter` also undoes. Retention as orders.
 * - Portfolio points (`portfolio`, portfolio.ts): the all-time halving marks the dropped points
 *   (`dropped_seq`) rather than deleting them, so `truncateAfter` can bring them back; retention
 *   deletes a finite range's points older than its span (never read again) and dropped ones.
 * - Events are stored in event-codec.ts's compact format (bigints, undefined fields kept; rows
 *   of schema versions up to 8 are v8-serialized and read as well) and read back as equal
 *   objects; lists are capped like the memory read models (ExchangeLimits, history.ts).
 */
import { deserialize, serialize } from 'node:v8';
import type { FillEvent, FundingPaymentEvent, InterestEvent, OrderEvent, TradesEvent, TransferEvent } from '../../engine/index.ts';
import { CANDLE_TIMEFRAMES } from '../../engine/index.ts';
import { TERMINAL_ORDER_STATUSES } from '../../engine/spec.ts';
import { DEFAULT_BARS_PER_SERIES, TIMEFRAME_US, type ClosedBars } from '../read-models/candles.ts';
import { accountKeyOf } from '../shared/account-key.ts';
import type { ExchangeLimits } from '../read-models/exchange.ts';
import { entryMatches, type AccountLists, type HistoryStore, type OrderQuery } from '../read-models/history-store.ts';
import { DEFAULT_HISTORY_LIMIT } from '../read-models/history.ts';
import { INBOX_CAP, sameInstant, type NotificationLog, type StoredNotification } from '../services/notifications.ts';
import { RANGES, type SampleLog } from '../services/portfolio.ts';
import { decodeEvent, encodeEvent } from './event-codec.ts';
import type { TurnRows } from './journal.ts';
import { readMeta, type SqliteDatabase } from './schema.ts';

type Statement = ReturnType<SqliteDatabase['prepare']>;

export const DAY_US = 86_400_000_000;
/** Orders, fills and trades (`--history-retention-days`). */
export const DEFAULT_RETENTION_DAYS = 30;
/** Funding, interest and transfers are kept at least this long (reads default to 30 days back). */
export const MIN_LEDGER_RETENTION_DAYS = 90;
export const PRUNE_BATCH = 5_000;
/**
 * Rows per statement that one turn of the background retention deletes (`pruneSoon`): a
 * second's worth of aged-out rows at full load, deleted in one transaction, held the event loop
 * like the unsliced fill did; slices of this size over successive turns, up to PRUNE_BATCH rows
 * per table a call, as before.
 */
export const PRUNE_SLICE = 500;
/**
 * The background fill (`drain`): journal rows of about this many history rows per statement
 * batch, and batches for at most this long per event-loop turn (one transaction each turn).
 * Every per-account index dirties a page per account a transaction touches, and the commit
 * writes each dirty page whole, so a row costs less the more rows a transaction holds: at
 * 50 ms instead of 4 ms per turn the journaled server took 5-10 % more signed orders per second
 * in `npm run bench:journal`, and its p99 fell (27-35 ms to 7-11 ms): fewer, longer pauses
 * delay fewer requests (docs/benchmarks.md "journal").
 */
export const FILL_SLICE = { rows: 250, ms: 50 };

const LEDGER_KIND = { funding: 0, interest: 1, transfer: 2 } as const;
const MAX_INT64 = 2n ** 63n - 1n;

export interface SqliteHistoryStore extends HistoryStore {
  muted: boolean;
  /** `recoverHistoryRows` with the store's account numbering (recovery, before any read). */
  recover(): number;
  /** The buffered rows, for the journal's group commit (journal.ts `turnRows`). */
  readonly rows: TurnRows;
  /** Inserts every pending row into the tables (before snapshots, restores, at close). */
  flush(): void;
  /**
   * Inserts the rows of the journal rows committed so far in slices (`FILL_SLICE`), one
   * event-loop turn each, so the event loop is never blocked for a second's rows at once; a
   * read meanwhile fills the rest first. Started at most once a second after a group commit.
   */
  drain(): void;
  /** The journal position history is written up to (the images' `seq`). */
  position(): number;
  truncateAfter(seq: number): void;
  /** Deletes up to `batch` expired rows per table; returns how many went. */
  prune(nowUs: number, batch?: number): number;
  /**
   * `prune` in the background: PRUNE_SLICE rows per statement per event-loop turn (a transaction
   * each), until nothing older is left or PRUNE_BATCH rows per statement are gone; a call while
   * one runs is ignored.
   */
  pruneSoon(nowUs: number): void;
  /** Row counts per table (tests, logs). */
  counts(): Record<'orders' | 'fills' | 'trades' | 'ledger' | 'notifications' | 'candles' | 'portfolio', number>;
  readonly candles: ClosedBars;
  readonly notifications: NotificationLog;
  readonly portfolio: SampleLog;
}

export interface HistoryTableOptions {
  limits: ExchangeLimits;
  /** The journal position of the command being applied. */
  seq: () => number;
  /** Opens the turn's transaction when none is open (the journal commits it). */
  ensureTransaction: () => void;
  /** Makes sure a group commit follows (it journals the buffered rows). */
  schedule: () => void;
  /** The first journal position of the next journal row. */
  nextJournalRow: () => number;
  retentionDays?: number;
  /** Bounds of the background fill's slices (tests). */
  fillSlice?: { rows: number; ms: number };
}

interface BarRow {
  open_time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  taker_buy_volume: number;
  notional: string;
  taker_buy_notional: string;
  trade_count: number;
}

const decode = <T>(rows: { event: Buffer }[]): T[] => {
  const out: T[] = new Array<T>(rows.length);
  // Newest first from SQL, oldest first out.
  for (let i = 0; i < rows.length; i++) out[rows.length - 1 - i] = decodeEvent<T>(rows[i]!.event);
  return out;
};

/** Rows per multi-row INSERT; a batch is cut greedily into these (one prepared statement each). */
const BATCH_BUCKETS = [64, 16, 4, 1] as const;

/**
 * Accounts' numbers (history_accounts): the per-account indexes of closed orders and fills are
 * keyed by an integer, not by the account's key (an address, a slash, the subaccount: 44
 * characters). A row lands in the middle of its index (after the account's newest), where a
 * full page splits among its siblings; entries an eighth the size fill pages eight times more
 * slowly, so an insert into the two indexes cost about a quarter less (docs/benchmarks.md,
 * "journal"). Numbered as the fill first meets an account, inside its transaction; journal rows
 * keep the keys, so a number exists only where the tables hold the account's rows.
 */
interface AccountNumbers {
  /** The account's number, given one now if it has none (inside a transaction). */
  of(key: string): number;
  /** Its number, or -1 (which no row holds) before its first row. */
  find(key: string): number;
  /** Forgets numbers a rolled-back transaction gave: reads them again from the table. */
  reload(): void;
}

/**
 * The connection's numbering, read from its table. The store and the recovery it runs
 * (`SqliteHistoryStore.recover`) share one, so the store knows every number recovery gave.
 */
function accountNumbers(db: SqliteDatabase): AccountNumbers {
  const known = new Map<string, number>();
  const all = db.prepare('SELECT no, account FROM history_accounts');
  const insert = db.prepare('INSERT INTO history_accounts (account) VALUES (?)');
  const reload = (): void => {
    known.clear();
    for (const r of all.iterate() as IterableIterator<{ no: number; account: string }>) known.set(r.account, r.no);
  };
  reload();
  const numbers: AccountNumbers = {
    of(key) {
      let no = known.get(key);
      if (no === undefined) {
        no = Number(insert.run(key).lastInsertRowid);
        known.set(key, no);
      }
      return no;
    },
    find: (key) => known.get(key) ?? -1,
    reload,
  };
  return numbers;
}

/**
 * One table's rows of the turn, as flat parameter lists: inserted together at the group commit
 * (one statement per bucket of rows instead of one `run` per row). With `accountAt`, the
 * statement takes one parameter more per row, last: the number of the account key found at
 * that offset of the row.
 */
class TableBuffer {
  params: unknown[] = [];
  /** Params up to here are in a journal row already. */
  private journaled = 0;
  private readonly statements = new Map<number, Statement>();
  private readonly columns: number;
  constructor(
    private readonly db: SqliteDatabase,
    private readonly head: string,
    readonly width: number,
    private readonly accountAt?: { offset: number; numbers: AccountNumbers },
  ) {
    this.columns = width + (accountAt === undefined ? 0 : 1);
  }
  get rows(): number {
    return this.params.length / this.width;
  }
  /** The params no journal row holds yet; from now on one does. */
  fresh(): unknown[] {
    const out = this.journaled === 0 ? this.params.slice() : this.params.slice(this.journaled);
    this.journaled = this.params.length;
    return out;
  }
  /** Inserts the rows of the params before `end` (every row by default) and drops them. */
  write(end = this.params.length): void {
    let params = end === this.params.length ? this.params : this.params.slice(0, end);
    this.params = end === this.params.length ? [] : this.params.slice(end);
    this.journaled = Math.max(0, this.journaled - end);
    if (this.accountAt !== undefined) params = this.numbered(params, this.accountAt);
    let at = 0;
    for (const bucket of BATCH_BUCKETS) {
      const n = bucket * this.columns;
      while (params.length - at >= n) {
        this.statement(bucket).run(at === 0 && params.length === n ? params : params.slice(at, at + n));
        at += n;
      }
    }
  }
  private numbered(params: unknown[], { offset, numbers }: { offset: number; numbers: AccountNumbers }): unknown[] {
    const w = this.width;
    const rows = params.length / w;
    const out = new Array<unknown>(rows * (w + 1));
    for (let r = 0, o = 0; r < rows; r++) {
      const from = r * w;
      for (let c = 0; c < w; c++) out[o++] = params[from + c];
      out[o++] = numbers.of(params[from + offset] as string);
    }
    return out;
  }
  private statement(rows: number): Statement {
    let statement = this.statements.get(rows);
    if (statement === undefined) {
      const tuple = '(' + new Array<string>(this.columns).fill('?').join(', ') + ')';
      statement = this.db.prepare(this.head + new Array<string>(rows).fill(tuple).join(', '));
      this.statements.set(rows, statement);
    }
    return statement;
  }
}

/** One buffer per history table, in the order journal rows carry them. */
function tableBuffers(db: SqliteDatabase, numbers: AccountNumbers): TableBuffer[] {
  return [
    // The filter columns last in a row's params (a version-7 journal row's lists are these without
    // them, schema.ts); account_no is the statement's own column, from the key (`accountAt`).
    new TableBuffer(db, 'INSERT OR REPLACE INTO history_orders (order_id, account, listed, seq, time, event, market, side, status, created_at, account_no) VALUES ', 10, { offset: 1, numbers }),
    new TableBuffer(db, 'INSERT INTO history_fills (account, market, trade_id, seq, time, event, account_no) VALUES ', 6, { offset: 0, numbers }),
    new TableBuffer(db, 'INSERT INTO history_trades (market, seq, time, event) VALUES ', 4),
    new TableBuffer(db, 'INSERT INTO history_ledger (kind, account, seq, time, event) VALUES ', 5),
    new TableBuffer(db, 'INSERT OR REPLACE INTO history_candles (market, timeframe, open_time, seq, open, high, low, close, volume, taker_buy_volume, notional, taker_buy_notional, trade_count) VALUES ', 13),
    new TableBuffer(db, 'INSERT INTO history_notifications (wallet, notification_id, created_at_ns, seen, seq, time, item) VALUES ', 7),
    new TableBuffer(db, 'INSERT INTO history_portfolio (account, range, time, seq, equity, pnl, perp_equity, perp_pnl) VALUES ', 8),
  ];
}

/**
 * Puts into the tables the rows that committed only inside journal rows (`journal.history`):
 * those of the rows from `history_from` on (meta), written after the tables were last filled.
 * Recovery runs it before anything reads the tables. Returns how many rows it inserted.
 */
export function recoverHistoryRows(db: SqliteDatabase): number {
  return recoverRows(db, accountNumbers(db));
}

function recoverRows(db: SqliteDatabase, numbers: AccountNumbers): number {
  const from = Number(readMeta(db, 'history_from')?.toString() ?? '0');
  const buffers = tableBuffers(db, numbers);
  let rows = 0;
  let next = from;
  for (const row of db.prepare('SELECT seq, count, history FROM journal WHERE seq >= ? AND history IS NOT NULL ORDER BY seq').iterate(from) as IterableIterator<{ seq: number; count: number; history: Buffer }>) {
    const parts = deserialize(row.history) as unknown[][];
    parts.forEach((params, i) => {
      for (const p of params) buffers[i]!.params.push(p);
    });
    next = row.seq + row.count;
  }
  db.transaction(() => {
    for (const b of buffers) {
      rows += b.rows;
      if (b.rows > 0) b.write();
    }
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', ?)").run(Buffer.from(String(next)));
  })();
  return rows;
}

export function sqliteHistoryStore(db: SqliteDatabase, options: HistoryTableOptions): SqliteHistoryStore {
  const { limits, seq, ensureTransaction, schedule, nextJournalRow } = options;
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const ledgerDays = Math.max(retentionDays, MIN_LEDGER_RETENTION_DAYS);
  const numbers = accountNumbers(db);
  const buffers = tableBuffers(db, numbers);
  const [orders, fills, trades, ledger, candles, notes, points] = buffers as [TableBuffer, TableBuffer, TableBuffer, TableBuffer, TableBuffer, TableBuffer, TableBuffer];
  const setFrom = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', ?)");
  /** Closed orders not in the table yet, by id: `closedOrder` answers them without filling it. */
  let closedPending = new Map<number, OrderEvent>();
  const orderById = db.prepare('SELECT event FROM history_orders WHERE order_id = ?');
  const ordersOf = db.prepare('SELECT event FROM history_orders WHERE account_no = ? AND listed = 1 ORDER BY id DESC LIMIT ?');
  const fillsOf = db.prepare('SELECT event FROM history_fills WHERE account_no = ? ORDER BY id DESC LIMIT ?');
  const fillOfTrade = db.prepare('SELECT event FROM history_fills WHERE account_no = ? AND trade_id = ? ORDER BY id DESC LIMIT 1');
  const tradesOf = db.prepare('SELECT event FROM history_trades WHERE market = ? ORDER BY time DESC, id DESC LIMIT ?');
  // A market's newest `cap` trades (what the memory list holds) within a window, newest first:
  // time never decreases with the id, so (time, id) order is id order and the window is a range
  // of history_trades_by_market; the cap is the id of the cap-th newest row.
  const tradesIn = db.prepare(`SELECT event FROM history_trades WHERE market = @market AND time >= @from AND time <= @to
    AND id >= COALESCE((SELECT id FROM history_trades WHERE market = @market ORDER BY time DESC, id DESC LIMIT 1 OFFSET @cap - 1), 0) ORDER BY time DESC, id DESC`);
  // An account's closed orders: its newest `cap` listed ones (what the memory list holds), then
  // the filters on the columns history_orders_by_account carries; only the page's events are read.
  const closedWhere = `FROM (SELECT id, order_id, market, side, status, created_at FROM history_orders WHERE account_no = @account AND listed = 1 ORDER BY id DESC LIMIT @cap)
    WHERE created_at >= @from AND created_at <= @to AND (@market IS NULL OR market = @market) AND (@side IS NULL OR side = @side)
    AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))`;
  const closedCount = db.prepare(`SELECT COUNT(*) AS n ${closedWhere}`);
  const closedLatest = db.prepare(`SELECT h.event FROM (SELECT id ${closedWhere} ORDER BY id DESC LIMIT @limit) r JOIN history_orders h ON h.id = r.id ORDER BY r.id DESC`);
  const closedRows = db.prepare(`SELECT h.event FROM (SELECT id, order_id, created_at ${closedWhere} ORDER BY created_at DESC, order_id DESC LIMIT @limit) r
    JOIN history_orders h ON h.id = r.id ORDER BY r.created_at DESC, r.order_id DESC`);
  const ledgerOf = db.prepare('SELECT event FROM history_ledger WHERE account = ? AND kind = ? ORDER BY id DESC LIMIT ?');
  const barsOf = db.prepare('SELECT open_time, open, high, low, close, volume, taker_buy_volume, notional, taker_buy_notional, trade_count FROM history_candles WHERE market = ? AND timeframe = ? AND open_time >= ? AND open_time < ? ORDER BY open_time DESC LIMIT ?');
  // A wallet's inbox is its newest INBOX_CAP items, as in memory.
  const inbox = `(SELECT id, notification_id, created_at_ns, seen, item FROM history_notifications WHERE wallet = ? ORDER BY id DESC LIMIT ${INBOX_CAP})`;
  const notesPage = db.prepare(`SELECT seen, item FROM ${inbox} WHERE created_at_ns < ? ORDER BY id DESC LIMIT ?`);
  const notesUnseen = db.prepare(`SELECT COUNT(*) AS n FROM ${inbox} WHERE seen = 0`);
  const noteById = db.prepare(`SELECT id, created_at_ns, seen FROM ${inbox} WHERE notification_id = ?`).safeIntegers(true);
  const seeNewest = db.prepare('UPDATE history_notifications SET seen = 1, seen_seq = ? WHERE id IN (SELECT id FROM history_notifications WHERE wallet = ? ORDER BY id DESC LIMIT ?) AND seen = 0');
  const seeOne = db.prepare('UPDATE history_notifications SET seen = 1, seen_seq = ? WHERE id = ? AND seen = 0');
  const unsee = db.prepare('UPDATE history_notifications SET seen = 0, seen_seq = NULL WHERE seen_seq > ?');
  const pointsOf = db.prepare('SELECT time, equity, pnl, perp_equity, perp_pnl FROM (SELECT id, time, equity, pnl, perp_equity, perp_pnl FROM history_portfolio WHERE account = ? AND range = ? AND dropped_seq IS NULL ORDER BY id DESC LIMIT ?) WHERE time >= ? AND time <= ? ORDER BY id');
  const thinPoints = db.prepare('UPDATE history_portfolio SET dropped_seq = ? WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM history_portfolio WHERE account = ? AND range = ? AND dropped_seq IS NULL) WHERE n % 2 = 1)');
  const undrop = db.prepare('UPDATE history_portfolio SET dropped_seq = NULL WHERE dropped_seq > ?');
  // A finite range never reads a point older than its span; all-time points go only once dropped.
  const prunePoints = db.prepare('DELETE FROM history_portfolio WHERE id IN (SELECT id FROM history_portfolio WHERE range = ? AND time < ? AND (? OR dropped_seq IS NOT NULL) LIMIT ?)');
  // Pages: the newest `cap` rows of the list (what the memory list holds), then the window (and
  // market) in SQL; conditions on other fields run on the rows the SQL part let through.
  const fillsWhere = 'FROM (SELECT id, market, time, event FROM history_fills WHERE account_no = @account ORDER BY id DESC LIMIT @cap) WHERE time >= @from AND time <= @to AND (@market IS NULL OR market = @market)';
  const ledgerWhere = 'FROM (SELECT id, time, event FROM history_ledger WHERE account = @account AND kind = @kind ORDER BY id DESC LIMIT @cap) WHERE time >= @from AND time <= @to';
  const pageStatements = (where: string): { count: Statement; rows: Statement; all: Statement } => ({
    count: db.prepare(`SELECT COUNT(*) AS n ${where}`),
    rows: db.prepare(`SELECT event ${where} ORDER BY id DESC LIMIT @limit`),
    all: db.prepare(`SELECT event ${where} ORDER BY id DESC`),
  });
  const fillsPage = pageStatements(fillsWhere);
  const ledgerPage = pageStatements(ledgerWhere);
  const TABLES = ['history_orders', 'history_fills', 'history_trades', 'history_ledger', 'history_notifications'] as const;
  const truncate = [...TABLES, 'history_candles', 'history_portfolio'].map((t) => db.prepare(`DELETE FROM ${t} WHERE seq > ?`));
  const pruneBars = db.prepare('DELETE FROM history_candles WHERE id IN (SELECT id FROM history_candles WHERE timeframe = ? AND open_time < ? LIMIT ?)');
  // Time grows with the id: the expired rows are a prefix; look at most `batch` rows deep.
  const pruneStatements = TABLES.map((t) => db.prepare(`DELETE FROM ${t} WHERE id <= (SELECT MAX(id) FROM (SELECT id, time FROM ${t} ORDER BY id LIMIT ?) WHERE time < ?)`));
  const countStatements = [...TABLES, 'history_candles', 'history_portfolio'].map((t) => db.prepare(`SELECT COUNT(*) AS n FROM ${t}`));
  /** Rows not in the tables yet; of those, rows no journal row holds yet (`fresh`). */
  let pending = false;
  let fresh = false;
  /**
   * The journal rows whose history rows are pending, oldest first: the first journal position
   * after each, and where its rows end in each buffer. A slice fills whole journal rows only:
   * `history_from` must name a journal row none of whose rows is in the tables.
   */
  let journaledRows: { next: number; ends: number[] }[] = [];
  const slice = options.fillSlice ?? FILL_SLICE;
  let draining = false;
  let pruning = false;
  const buffer = (): void => {
    pending = true;
    if (!fresh) (schedule(), (fresh = true));
  };
  /** Inserts every pending row; inside a transaction (the turn's, or its own). */
  const fill = (): void => {
    for (const b of buffers) if (b.rows > 0) b.write();
    // Journal rows before the next one hold no row the tables lack.
    setFrom.run(Buffer.from(String(nextJournalRow())));
    pending = false;
    fresh = false;
    closedPending = new Map();
    journaledRows = [];
  };
  /** Inserts the rows of the oldest journal rows, about `maxRows` of them (at least one journal row's). */
  const fillSlice = (maxRows: number): void => {
    let k = 0;
    const rowsUpTo = (i: number): number => journaledRows[i]!.ends.reduce((n, end, t) => n + end / buffers[t]!.width, 0);
    while (k < journaledRows.length && (k === 0 || rowsUpTo(k) <= maxRows)) k++;
    const { next, ends } = journaledRows[k - 1]!;
    for (let i = 0; i < orders.params.length && i < ends[0]!; i += orders.width) closedPending.delete(orders.params[i] as number);
    buffers.forEach((b, t) => b.write(ends[t]));
    journaledRows = journaledRows.slice(k).map((r) => ({ next: r.next, ends: r.ends.map((end, t) => end - ends[t]!) }));
    setFrom.run(Buffer.from(String(next)));
    pending = buffers.some((b) => b.rows > 0);
  };
  /** A read of the tables must see every row so far: fill them in the turn's transaction. */
  const written = (): void => {
    if (!pending) return;
    ensureTransaction();
    fill();
  };
  const rows: TurnRows = {
    get buffered() {
      return fresh;
    },
    take() {
      fresh = false;
      const out = serialize(buffers.map((b) => b.fresh()));
      // Called as the journal row is inserted: the next journal row starts after it.
      journaledRows.push({ next: nextJournalRow(), ends: buffers.map((b) => b.params.length) });
      return out;
    },
    write: () => fill(),
  };

  /** A closed-order query's parameters, once every pending row is in the table. */
  const closedParams = (accountKey: string, query: OrderQuery): Record<string, unknown> => {
    written();
    return {
      account: numbers.find(accountKey),
      cap: limits.closedOrdersPerAccount,
      from: query.window.from,
      to: query.window.to,
      market: query.marketId,
      side: query.side,
      statuses: query.statuses === null ? null : JSON.stringify([...query.statuses]),
    };
  };

  const store: SqliteHistoryStore = {
    recover: () => recoverRows(db, numbers),
    kind: 'sqlite',
    muted: false,
    position: seq,
    rows,
    flush() {
      if (!pending) return;
      try {
        db.transaction(fill)();
      } catch (err) {
        numbers.reload();
        throw err;
      }
    },
    drain() {
      if (draining || journaledRows.length === 0) return;
      // Up to the journal rows committed so far: later ones wait for the next second's drain.
      const target = journaledRows[journaledRows.length - 1]!.next;
      const more = (): boolean => journaledRows.length > 0 && journaledRows[0]!.next <= target;
      draining = true;
      const step = (): void => {
        try {
          if (!db.open || !more()) return void (draining = false);
          const start = performance.now();
          db.transaction(() => {
            do fillSlice(slice.rows);
            while (more() && performance.now() - start < slice.ms);
          })();
        } catch {
          // The next full fill (a read, a snapshot, the stop) meets the failure and reports it.
          numbers.reload();
          draining = false;
          return;
        }
        if (more()) setImmediate(step);
        else draining = false;
      };
      step();
    },
    record(events) {
      if (store.muted) return;
      const at = seq();
      for (const e of events) {
        switch (e.type) {
          case 'order':
            if (!TERMINAL_ORDER_STATUSES.has(e.status)) break;
            buffer();
            orders.params.push(e.orderId, accountKeyOf(e.address, e.accountIndex), e.cancelReason === 'MODIFY_CANCELED' ? 0 : 1, at, e.time, encodeEvent(e), e.marketId, e.side, e.status, e.createdAt);
            closedPending.set(e.orderId, e);
            break;
          case 'fill':
            buffer();
            fills.params.push(accountKeyOf(e.address, e.accountIndex), e.marketId, e.tradeId, at, e.time, encodeEvent(e));
            break;
          case 'trades':
            buffer();
            trades.params.push(e.marketId, at, e.time, encodeEvent(e));
            break;
          case 'funding':
          case 'interest':
          case 'transfer':
            buffer();
            ledger.params.push(LEDGER_KIND[e.type], accountKeyOf(e.address, e.accountIndex), at, e.time, encodeEvent(e));
            break;
          default:
            break;
        }
      }
    },
    closedOrder(orderId) {
      const recent = closedPending.get(orderId);
      if (recent !== undefined) return recent;
      const row = orderById.get(orderId) as { event: Buffer } | undefined;
      return row === undefined ? undefined : decodeEvent<OrderEvent>(row.event);
    },
    closedOrders: (accountKey) => (written(), decode<OrderEvent>(ordersOf.all(numbers.find(accountKey), limits.closedOrdersPerAccount) as { event: Buffer }[])),
    closedOrderPage(accountKey, query) {
      const params = closedParams(accountKey, query);
      const rows = (closedRows.all({ ...params, limit: query.limit }) as { event: Buffer }[]).map((r) => decodeEvent<OrderEvent>(r.event));
      return { rows, total: (closedCount.get(params) as { n: number }).n };
    },
    latestClosedOrders: (accountKey, query) =>
      (closedLatest.all({ ...closedParams(accountKey, query), limit: query.limit }) as { event: Buffer }[]).map((r) => decodeEvent<OrderEvent>(r.event)),
    fills: (accountKey) => (written(), decode<FillEvent>(fillsOf.all(numbers.find(accountKey), limits.fillsPerAccount) as { event: Buffer }[])),
    fillOfTrade(accountKey, tradeId) {
      written();
      const row = fillOfTrade.get(numbers.find(accountKey), tradeId) as { event: Buffer } | undefined;
      return row === undefined ? undefined : decodeEvent<FillEvent>(row.event);
    },
    trades: (marketId) => (written(), decode<TradesEvent>(tradesOf.all(marketId, limits.tradesPerMarket) as { event: Buffer }[])),
    *newestTrades(marketId, window = {}) {
      written();
      // No window: the newest rows lazily, without the cap's index scan.
      const rows =
        window.from === undefined && window.to === undefined
          ? tradesOf.iterate(marketId, limits.tradesPerMarket)
          : tradesIn.iterate({ market: marketId, cap: limits.tradesPerMarket, from: window.from ?? Number.MIN_SAFE_INTEGER, to: window.to ?? Number.MAX_SAFE_INTEGER });
      for (const row of rows as IterableIterator<{ event: Buffer }>) yield decodeEvent<TradesEvent>(row.event);
    },
    funding: (accountKey) => (written(), decode<FundingPaymentEvent>(ledgerOf.all(accountKey, LEDGER_KIND.funding, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[])),
    interest: (accountKey) => (written(), decode<InterestEvent>(ledgerOf.all(accountKey, LEDGER_KIND.interest, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[])),
    transfers: (accountKey) => (written(), decode<TransferEvent>(ledgerOf.all(accountKey, LEDGER_KIND.transfer, DEFAULT_HISTORY_LIMIT) as { event: Buffer }[])),
    page(list, accountKey, query) {
      written();
      type Entry = AccountLists[typeof list];
      const { from, to } = query.window;
      const fills = list === 'fills';
      const params: Record<string, unknown> = { account: fills ? numbers.find(accountKey) : accountKey, from, to, cap: fills ? limits.fillsPerAccount : DEFAULT_HISTORY_LIMIT };
      if (fills) params.market = query.marketId;
      else params.kind = list === 'transfers' ? LEDGER_KIND.transfer : list === 'funding' ? LEDGER_KIND.funding : LEDGER_KIND.interest;
      const statements = fills ? fillsPage : ledgerPage;
      // Funding's market is inside the event: a condition like the others.
      const residual = query.matches !== undefined || (!fills && query.marketId !== null);
      if (!residual) {
        const rows = (statements.rows.all({ ...params, limit: query.limit }) as { event: Buffer }[]).map((r) => decodeEvent<Entry>(r.event));
        return { rows, total: (statements.count.get(params) as { n: number }).n };
      }
      const rows: Entry[] = [];
      let total = 0;
      for (const r of statements.all.iterate(params) as IterableIterator<{ event: Buffer }>) {
        const e = decodeEvent<Entry>(r.event);
        if (!entryMatches(e, query)) continue;
        total++;
        if (rows.length < query.limit) rows.push(e);
      }
      return { rows, total };
    },
    candles: {
      add(marketId, timeframe, bar) {
        if (store.muted) return;
        buffer();
        candles.params.push(marketId, timeframe, bar.openTime, seq(), bar.open, bar.high, bar.low, bar.close, bar.volume, bar.takerBuyVolume, String(bar.notional), String(bar.takerBuyNotional), bar.tradeCount);
      },
      read(marketId, timeframe, window) {
        written();
        const from = Math.max(window.from ?? Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER);
        const to = Math.min(window.to, Number.MAX_SAFE_INTEGER);
        const rows = barsOf.all(marketId, timeframe, from, to, window.limit) as BarRow[];
        return rows.map((r) => ({ openTime: r.open_time, open: r.open, high: r.high, low: r.low, close: r.close, volume: r.volume, takerBuyVolume: r.taker_buy_volume, notional: BigInt(r.notional), takerBuyNotional: BigInt(r.taker_buy_notional), tradeCount: r.trade_count }));
      },
    },
    notifications: {
      add(address, item) {
        if (store.muted) return;
        buffer();
        notes.params.push(address, item.notificationId, item.createdAtNs, 0, seq(), Number(item.createdAtNs / 1000n), serialize(item));
      },
      page(address, beforeNs, limit) {
        written();
        const rows = notesPage.all(address, beforeNs ?? MAX_INT64, limit + 1) as { seen: number; item: Buffer }[];
        const items = rows.slice(0, limit).map((r) => {
          const item = deserialize(r.item) as StoredNotification;
          item.seen = r.seen === 1;
          return item;
        });
        return { rows: items, more: rows.length > limit };
      },
      unseen(address) {
        written();
        return (notesUnseen.get(address) as { n: number }).n;
      },
      markSeen(address, target) {
        ensureTransaction();
        written();
        // The journal position of the service record the write appends next (its reply waits
        // for it): a restore to any earlier image flips the notification back.
        const at = seq() + 1;
        if ('all' in target) return seeNewest.run(at, address, Math.min(target.limit, INBOX_CAP)).changes;
        let marked = 0;
        for (const id of target.ids) {
          const row = noteById.get(address, id.notificationId) as { id: bigint; created_at_ns: bigint; seen: bigint } | undefined;
          if (row !== undefined && row.seen === 0n && sameInstant(row.created_at_ns, id.createdAtNs)) marked += seeOne.run(at, row.id).changes;
        }
        return marked;
      },
    },
    portfolio: {
      add(key, rangeIndex, sample) {
        if (store.muted) return;
        buffer();
        points.params.push(key, rangeIndex, sample.time, seq(), String(sample.equity), String(sample.pnl), String(sample.perpEquity), String(sample.perpPnl));
      },
      read(key, rangeIndex, from, to, keep) {
        written();
        const rows = pointsOf.all(key, rangeIndex, keep, from, to) as { time: number; equity: string; pnl: string; perp_equity: string; perp_pnl: string }[];
        return rows.map((r) => ({ time: r.time, equity: BigInt(r.equity), pnl: BigInt(r.pnl), perpEquity: BigInt(r.perp_equity), perpPnl: BigInt(r.perp_pnl) }));
      },
      thin(key, rangeIndex) {
        if (store.muted) return;
        ensureTransaction();
        written();
        thinPoints.run(seq(), key, rangeIndex);
      },
    },
    truncateAfter(after) {
      if (store.muted) return;
      ensureTransaction();
      written();
      for (const statement of truncate) statement.run(after);
      unsee.run(after);
      undrop.run(after);
    },
    prune(nowUs, batch = PRUNE_BATCH) {
      let deleted = 0;
      db.transaction(() => {
        TABLES.forEach((_, i) => {
          const days = TABLES[i] === 'history_ledger' ? ledgerDays : retentionDays;
          deleted += pruneStatements[i]!.run(batch, nowUs - days * DAY_US).changes;
        });
        // A series keeps at least what the memory series would (DEFAULT_BARS_PER_SERIES bars).
        for (const timeframe of CANDLE_TIMEFRAMES) {
          const keepUs = Math.max(retentionDays * DAY_US, DEFAULT_BARS_PER_SERIES * TIMEFRAME_US[timeframe]);
          deleted += pruneBars.run(timeframe, nowUs - keepUs, batch).changes;
        }
        RANGES.forEach((range, i) => {
          const finite = Number.isFinite(range.spanUs);
          deleted += prunePoints.run(i, nowUs - Math.max(retentionDays * DAY_US, finite ? range.spanUs : 0), finite ? 1 : 0, batch).changes;
        });
      })();
      return deleted;
    },
    pruneSoon(nowUs) {
      if (pruning) return;
      pruning = true;
      let left = PRUNE_BATCH;
      const step = (): void => {
        let deleted: number;
        try {
          if (!db.open) return void (pruning = false);
          deleted = store.prune(nowUs, PRUNE_SLICE);
        } catch {
          // The next call tries again; a broken database is reported by the journal's commit.
          return void (pruning = false);
        }
        left -= PRUNE_SLICE;
        // Below one slice in all, no statement filled its slice: nothing older is left.
        if (deleted >= PRUNE_SLICE && left > 0) setImmediate(step);
        else pruning = false;
      };
      step();
    },
    counts() {
      written();
      const [orders, fills, trades, ledger, notifications, candles, portfolio] = countStatements.map((s) => (s.get() as { n: number }).n);
      return { orders: orders!, fills: fills!, trades: trades!, ledger: ledger!, notifications: notifications!, candles: candles!, portfolio: portfolio! };
    },
  };
  return store;
}
