/**
 * The SQLite file: opening it, its schema version and migrations, and the start-up refusals.
 *
 * Contract:
 * - One file, WAL mode, held with an exclusive lock (a second perpsim on the same file is
 *   refused at start-up instead of interleaving two journals).
 * - `PRAGMA user_version` is the schema version; `MIGRATIONS[i]` takes a database from version i
 *   to i + 1, each in its own transaction. A file written by a newer perpsim (a version above
 *   `SCHEMA_VERSION`) is refused, never downgraded.
 * - Every refusal is a `PersistenceError` with a message that names the file and what to do:
 *   newer schema, not a database (corrupt), another program's SQLite database, or not
 *   writable. Nothing is silently recreated. An absent or 0-byte file is a new database
 *   (index.ts `newFile`; the server logs that it initialises it).
 * - `synchronous`: NORMAL by default. In WAL mode a commit is in the OS once `COMMIT` returns,
 *   so a killed process (kill -9) loses nothing it acknowledged; only a power loss or kernel
 *   crash may lose the last transactions before a checkpoint. FULL syncs the WAL on every
 *   commit (one fsync per event-loop turn) for those too (docs/decisions.md, "Durability").
 */
import { deserialize, serialize } from 'node:v8';
import { sqliteDriver, type SqliteDatabase } from './sqlite-driver.ts';
import { decodeEvent } from './event-codec.ts';

export type { SqliteDatabase };
export type SyncMode = 'normal' | 'full';

export class PersistenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PersistenceError';
  }
}

/** A migration: SQL, or a function for one that must decode stored events. */
export type Migration = string | ((db: SqliteDatabase) => void);

export const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
   CREATE TABLE journal (seq INTEGER PRIMARY KEY, count INTEGER NOT NULL, records BLOB NOT NULL);
   CREATE TABLE snapshots (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, created_at INTEGER NOT NULL, image BLOB NOT NULL);
   CREATE INDEX snapshots_by_seq ON snapshots (seq);
   CREATE TABLE images (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL, image BLOB NOT NULL);
   CREATE INDEX images_by_name ON images (name, id);`,
  // History tables (history-tables.ts): rows in event order (id), with the journal position of
  // their command (seq) and the engine time (time); indexes for the reads' keys.
  `CREATE TABLE history_orders (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, account TEXT NOT NULL, listed INTEGER NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, event BLOB NOT NULL);
   CREATE UNIQUE INDEX history_orders_by_order ON history_orders (order_id);
   CREATE INDEX history_orders_by_account ON history_orders (account, listed, id);
   CREATE TABLE history_fills (id INTEGER PRIMARY KEY, account TEXT NOT NULL, market INTEGER NOT NULL, trade_id INTEGER NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, event BLOB NOT NULL);
   CREATE INDEX history_fills_by_account ON history_fills (account, id);
   CREATE INDEX history_fills_by_trade ON history_fills (account, trade_id);
   CREATE TABLE history_trades (id INTEGER PRIMARY KEY, market INTEGER NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, event BLOB NOT NULL);
   CREATE INDEX history_trades_by_market ON history_trades (market, id);
   CREATE TABLE history_ledger (id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, account TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, event BLOB NOT NULL);
   CREATE INDEX history_ledger_by_account ON history_ledger (account, kind, id);`,
  // Every index on a per-account key dirties one page per account a turn touches, and a commit
  // writes each dirty page whole: a fill's lookup by trade scans the account's newest fills
  // (history_fills_by_account) instead of keeping a second per-account index.
  `DROP INDEX history_fills_by_trade;`,
  // Closed candle bars (candles.ts): one row per market, timeframe and openTime; retention cuts
  // by timeframe and openTime. Values as columns (notionals as decimal text: they may pass 2^63).
  `CREATE TABLE history_candles (id INTEGER PRIMARY KEY, market INTEGER NOT NULL, timeframe TEXT NOT NULL, open_time INTEGER NOT NULL, seq INTEGER NOT NULL,
     open INTEGER NOT NULL, high INTEGER NOT NULL, low INTEGER NOT NULL, close INTEGER NOT NULL, volume INTEGER NOT NULL, taker_buy_volume INTEGER NOT NULL,
     notional TEXT NOT NULL, taker_buy_notional TEXT NOT NULL, trade_count INTEGER NOT NULL);
   CREATE UNIQUE INDEX history_candles_by_series ON history_candles (market, timeframe, open_time);
   CREATE INDEX history_candles_by_age ON history_candles (timeframe, open_time);`,
  // Notification inbox items (notifications.ts): `seen_seq` is the journal position of the
  // markSeen that flipped `seen`, so restoring an earlier image can flip it back.
  `CREATE TABLE history_notifications (id INTEGER PRIMARY KEY, wallet TEXT NOT NULL, notification_id INTEGER NOT NULL, created_at_ns INTEGER NOT NULL,
     seen INTEGER NOT NULL, seen_seq INTEGER, seq INTEGER NOT NULL, time INTEGER NOT NULL, item BLOB NOT NULL);
   CREATE INDEX history_notifications_by_wallet ON history_notifications (wallet, id);
   CREATE INDEX history_notifications_by_seen_seq ON history_notifications (seen_seq) WHERE seen_seq IS NOT NULL;`,
  // Portfolio points (portfolio.ts) per account and range; `dropped_seq` marks the points the
  // all-time halving dropped (restoring an earlier image brings them back). Values as decimal text.
  `CREATE TABLE history_portfolio (id INTEGER PRIMARY KEY, account TEXT NOT NULL, range INTEGER NOT NULL, time INTEGER NOT NULL, seq INTEGER NOT NULL, dropped_seq INTEGER,
     equity TEXT NOT NULL, pnl TEXT NOT NULL, perp_equity TEXT NOT NULL, perp_pnl TEXT NOT NULL);
   CREATE INDEX history_portfolio_by_series ON history_portfolio (account, range, id);
   CREATE INDEX history_portfolio_by_age ON history_portfolio (range, time);
   CREATE INDEX history_portfolio_by_dropped_seq ON history_portfolio (dropped_seq) WHERE dropped_seq IS NOT NULL;`,
  // The history rows of a turn ride in its journal row (history-tables.ts): the indexed tables
  // are filled at most once a second, so a commit no longer rewrites their per-account pages.
  // The rows of every journal row so far are in the tables already.
  `ALTER TABLE journal ADD COLUMN history BLOB;
   INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', CAST(COALESCE((SELECT MAX(seq + count) FROM journal), 1) AS BLOB));`,
  // The order lists filter and page in SQL (history-tables.ts `closedOrderPage`): market, side,
  // status and createdAt as columns, in the per-account index so that the filters and the count
  // read only the index; trades by market and time, so a window is an index range.
  widenClosedOrders,
  // History events are stored in event-codec.ts's compact format from now on; the v8-serialized
  // rows already there are read as they are (decodeEvent tells the two apart), so nothing is
  // rewritten. The version says that an older perpsim, which reads v8 only, must refuse the file.
  () => {},
  // The per-account indexes of closed orders and fills by account number (history-tables.ts
  // `accountNumbers`), not by the 44-character key: a quarter less per inserted row. Rows
  // pending in journal rows keep their keys; the fill numbers them.
  `CREATE TABLE history_accounts (no INTEGER PRIMARY KEY, account TEXT NOT NULL UNIQUE);
   INSERT INTO history_accounts (account) SELECT account FROM history_orders UNION SELECT account FROM history_fills;
   ALTER TABLE history_orders ADD COLUMN account_no INTEGER NOT NULL DEFAULT -1;
   ALTER TABLE history_fills ADD COLUMN account_no INTEGER NOT NULL DEFAULT -1;
   UPDATE history_orders SET account_no = (SELECT no FROM history_accounts a WHERE a.account = history_orders.account);
   UPDATE history_fills SET account_no = (SELECT no FROM history_accounts a WHERE a.account = history_fills.account);
   DROP INDEX history_orders_by_account;
   CREATE INDEX history_orders_by_account ON history_orders (account_no, listed, id, market, side, status, created_at, order_id);
   DROP INDEX history_fills_by_account;
   CREATE INDEX history_fills_by_account ON history_fills (account_no, id);`,
];

/** Old and new width of a closed order's parameter list (history-tables.ts `tableBuffers`). */
const ORDER_WIDTH_V7 = 6;

/** Version 7 → 8: the closed orders' filter columns, filled from their events (also in pending journal rows). */
function widenClosedOrders(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE history_orders ADD COLUMN market INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE history_orders ADD COLUMN side INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE history_orders ADD COLUMN status TEXT NOT NULL DEFAULT '';
    ALTER TABLE history_orders ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;`);
  const columns = (event: Uint8Array): [number, number, string, number] => {
    const e = decodeEvent<{ marketId: number; side: number; status: string; createdAt: number }>(event);
    return [e.marketId, e.side, e.status, e.createdAt];
  };
  const set = db.prepare('UPDATE history_orders SET market = ?, side = ?, status = ?, created_at = ? WHERE id = ?');
  for (const row of db.prepare('SELECT id, event FROM history_orders').all() as { id: number; event: Buffer }[]) set.run(...columns(row.event), row.id);
  // Journal rows whose history rows are not in the tables yet carry the old parameter lists.
  const from = Number(readMeta(db, 'history_from')?.toString() ?? '0');
  const rewrite = db.prepare('UPDATE journal SET history = ? WHERE seq = ?');
  for (const row of db.prepare('SELECT seq, history FROM journal WHERE seq >= ? AND history IS NOT NULL').all(from) as { seq: number; history: Buffer }[]) {
    const parts = deserialize(row.history) as unknown[][];
    const old = parts[0]!;
    const widened: unknown[] = [];
    for (let i = 0; i < old.length; i += ORDER_WIDTH_V7) widened.push(...old.slice(i, i + ORDER_WIDTH_V7), ...columns(old[i + ORDER_WIDTH_V7 - 1] as Uint8Array));
    parts[0] = widened;
    rewrite.run(serialize(parts), row.seq);
  }
  db.exec(`DROP INDEX history_orders_by_account;
    CREATE INDEX history_orders_by_account ON history_orders (account, listed, id, market, side, status, created_at, order_id);
    DROP INDEX history_trades_by_market;
    CREATE INDEX history_trades_by_market ON history_trades (market, time, id);`);
}

/** Takes the database from version `v` to `v + 1` (the caller holds the transaction). */
export function migrate(db: SqliteDatabase, v: number): void {
  const migration = MIGRATIONS[v]!;
  if (typeof migration === 'string') db.exec(migration);
  else migration(db);
}

export const SCHEMA_VERSION = MIGRATIONS.length;

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Opens (creating when absent) and migrates the database at `file`. */
export function openDatabase(file: string, sync: SyncMode = 'normal'): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    const Database = sqliteDriver();
    db = new Database(file, { timeout: 200 });
  } catch (err) {
    throw new PersistenceError(`cannot open database ${file}: ${describe(err)} (is the directory there and writable?)`);
  }
  try {
    let version: number;
    try {
      version = db.pragma('user_version', { simple: true }) as number;
      // Version 0 is a new database only when it is empty: tables at version 0 are another program's.
      if (version === 0 && db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() !== undefined) {
        throw new PersistenceError(`${file} is an SQLite database of another program (it has tables but no perpsim schema version); use another --db file`);
      }
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new PersistenceError(`${file} is not a perpsim database or is corrupt (${describe(err)}); move it away to start afresh`);
      throw err;
    }
    if (version > SCHEMA_VERSION) {
      throw new PersistenceError(`${file} has schema version ${version}, newer than this perpsim understands (${SCHEMA_VERSION}); use a newer perpsim or another --db file`);
    }
    db.pragma(`synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
    // A checkpoint (copy to the main file, and its fsync) runs inside the COMMIT that crosses the
    // threshold; 40 MB instead of 4 MB runs it a tenth as often, and the hot pages (index leaves
    // of active accounts) are copied once per checkpoint however many commits rewrote them.
    db.pragma('wal_autocheckpoint = 10000');
    // The write lock is taken here, so a read-only file or a second perpsim fails at start-up.
    for (let v = version; v < SCHEMA_VERSION; v++) {
      db.transaction(() => {
        migrate(db, v);
        db.pragma(`user_version = ${v + 1}`);
      }).immediate();
    }
    db.transaction(() => db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('opened_at', Buffer.from(String(Date.now())))).immediate();
    return db;
  } catch (err) {
    db.close();
    if (err instanceof PersistenceError) throw err;
    // The primary result code: SQLite reports extended ones (SQLITE_READONLY_DIRECTORY, SQLITE_CANTOPEN_ISDIR, …).
    const code = (err as { code?: string }).code?.split('_').slice(0, 2).join('_');
    if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM') throw new PersistenceError(`${file} is not writable (${describe(err)})`);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new PersistenceError(`${file} is in use by another process (${describe(err)})`);
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new PersistenceError(`${file} is not a perpsim database or is corrupt (${describe(err)}); move it away to start afresh`);
    throw new PersistenceError(`cannot use database ${file}: ${describe(err)}`);
  }
}

export function readMeta(db: SqliteDatabase, key: string): Buffer | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: Buffer } | undefined;
  return row?.value;
}

export function writeMeta(db: SqliteDatabase, key: string, value: Buffer): void {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
}
