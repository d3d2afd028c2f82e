/**
 * History in SQLite tables (gateway/persistence/history-tables.ts, gateway/read-models/history-store.ts):
 * written with the journal, never twice, truncated with images, pruned by retention. The read
 * suites themselves run on these tables in the `history-sqlite` vitest project.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { sqliteDriver, type SqliteDatabase } from '../gateway/persistence/sqlite-driver.ts';
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { accountKeyOf } from '../gateway/shared/account-key.ts';
import type { Exchange, Submission } from '../gateway/read-models/exchange.ts';
import { captureImage } from '../gateway/persistence/durable-state.ts';
import { decodeGraph, type EncodedGraph } from '../gateway/persistence/graph-codec.ts';
import { DAY_US as DAY, MIN_LEDGER_RETENTION_DAYS, PRUNE_SLICE, recoverHistoryRows, type SqliteHistoryStore } from '../gateway/persistence/history-tables.ts';
import { LIVE_BARS } from '../gateway/read-models/candles.ts';
import { markSeen, type MarkSeenTarget } from '../gateway/services/notifications.ts';
import { openPersistence, replayFile, stateHash, type Persistence } from '../gateway/persistence/index.ts';
import { migrate, openDatabase, SCHEMA_VERSION } from '../gateway/persistence/schema.ts';
import type { ServerOptions } from '../sim/server.ts';
import { CHANNELS, type Subscription } from '../gateway/ws/channels.ts';
import { gateway, USD, wallet, type GatewayHarness } from './support/gateway-fixture.ts';
import { get, post, serverPool, tempDb } from './support/persistence-fixture.ts';

const Database = sqliteDriver();

const { start, stop } = serverPool({ clock: 'virtual', agents: false });

const alice = wallet(0xa1);
const bob = wallet(0xb2);

function order(exchange: Exchange, who: string, side: 0 | 1, price: string, size = '1'): Submission {
  const spec = exchange.engine.markets.get(2)!.spec;
  return { type: 'placeOrder', address: who, accountIndex: 0, marketId: 2, side, orderType: 0, tif: 0, price: priceToTicks(spec, price)!, size: sizeToQuantums(spec, size)!, reduceOnly: false, goodTilTime: exchange.clock() + 30 * DAY };
}

/** Funds both wallets and crosses `rounds` pairs of orders, in this turn (nothing committed yet). */
function trade(exchange: Exchange, rounds: number, funded = true): void {
  if (!funded) for (const w of [alice, bob]) exchange.submit({ type: 'deposit', address: w.address, accountIndex: 0, amount: 1_000_000n * USD });
  for (let i = 0; i < rounds; i++) {
    exchange.submit(order(exchange, alice.address, 0, '3300.00'));
    exchange.submit(order(exchange, bob.address, 1, '3300.00'));
  }
}

/** A database file at an earlier schema version, open for the test to add rows before upgrading. */
function fileAtVersion(version: number): { file: string; raw: SqliteDatabase } {
  const file = tempDb();
  const raw = new Database(file);
  for (let v = 0; v < version; v++) migrate(raw, v);
  raw.pragma(`user_version = ${version}`);
  return { file, raw };
}

const MINUTE = 60_000_000;

/** The same trades, minute after minute, on a harness with memory history and one with tables. */
async function both(minutes: number, retentionDays?: number): Promise<{ memory: GatewayHarness; tables: GatewayHarness; persistence: Persistence }> {
  const persistence = openPersistence({ file: tempDb(), ...(retentionDays !== undefined && { historyRetentionDays: retentionDays }) });
  const memory = await gateway({ persistence: openPersistence() });
  const tables = await gateway({ persistence });
  for (const h of [memory, tables]) {
    trade(h.exchange, 1, false);
    for (let i = 0; i < minutes; i++) {
      h.now.us += MINUTE + (i % 3) * 7_000_000;
      trade(h.exchange, 1 + (i % 2));
    }
  }
  await persistence.committed();
  return { memory, tables, persistence };
}

/** A server on a new file (whole journal kept) that crossed `rounds` pairs and saved the image `name`. */
async function savedAfter(rounds: number, name: string): Promise<{ db: string; server: Awaited<ReturnType<typeof start>> }> {
  const db = tempDb();
  const server = await start({ db, persistence: { keepJournal: true } });
  trade(server.exchange, rounds, false);
  await server.persistence.committed();
  expect((await post(server, '/sim/snapshot', { name })).status).toBe(200);
  return { db, server };
}

/** A server on a new file (no closing snapshot) whose wallets crossed `rounds` pairs, committed. */
async function tradedOnNewFile(rounds: number): Promise<{ db: string; server: Awaited<ReturnType<typeof start>> }> {
  const db = tempDb();
  const server = await start({ db, persistence: { snapshotOnClose: false } });
  trade(server.exchange, rounds, false);
  await server.persistence.committed();
  return { db, server };
}

/** Journal records and history rows of a copy of the file (what a kill -9 now would leave). */
function onDisk(db: string): { records: number; fills: number; maxHistorySeq: number } {
  const copy = db + '.copy-' + Math.random().toString(36).slice(2);
  copyFileSync(db, copy);
  if (existsSync(db + '-wal')) copyFileSync(db + '-wal', copy + '-wal');
  const raw = new Database(copy);
  try {
    // What a restart sees: the rows that committed inside journal rows go to the tables first.
    recoverHistoryRows(raw);
    const records = (raw.prepare('SELECT COALESCE(MAX(seq + count - 1), 0) AS n FROM journal').get() as { n: number }).n;
    const fills = (raw.prepare('SELECT COUNT(*) AS n FROM history_fills').get() as { n: number }).n;
    const maxHistorySeq = (raw.prepare('SELECT COALESCE(MAX(seq), 0) AS n FROM history_fills').get() as { n: number }).n;
    return { records, fills, maxHistorySeq };
  } finally {
    raw.close();
  }
}

describe('history rows are written in the same group-commit transaction as the journal records of their turn (a crash never leaves history ahead of or behind the journal)', () => {
  it('a copy of the file taken mid-turn holds neither the turn\'s journal records nor its fills; after the commit it holds both', async () => {
    const { db, server } = await tradedOnNewFile(2);
    const before = onDisk(db);
    expect(before.fills).toBe(4);
    expect(before.maxHistorySeq).toBeLessThanOrEqual(before.records);
    trade(server.exchange, 3);
    // The rows are visible to reads in the same turn already…
    expect(server.exchange.history.fills(accountKeyOf(alice.address, 0))).toHaveLength(5);
    // …but not on disk until the group commit.
    expect(onDisk(db)).toEqual(before);
    await server.persistence.committed();
    const after = onDisk(db);
    expect(after.fills).toBe(10);
    expect(after.records).toBe(before.records + 6);
    expect(after.maxHistorySeq).toBe(after.records);
  });
});

describe('on recovery, history rows already in the tables are not written twice: the journal tail after the snapshot replays without history writes', () => {
  it('keeps the row counts and the fills reply through a restart that replays a tail', async () => {
    const db = tempDb();
    const options: ServerOptions = { db, persistence: { snapshotEveryRecords: 5, snapshotOnClose: false, keepJournal: true } };
    const first = await start(options);
    trade(first.exchange, 4, false);
    await first.persistence.committed();
    trade(first.exchange, 1);
    const counts = first.persistence.history!.counts();
    const fills = (await get(first, `/v1/fills?address=${alice.address}`)).body;
    const before = await stop(first);
    expect(replayFile(db).hash).toBe(before);
    const second = await start(options);
    expect(second.persistence.recovery!.replayed).toBeGreaterThan(0);
    expect(second.persistence.hash()).toBe(before);
    expect(second.persistence.history!.counts()).toEqual(counts);
    expect((await get(second, `/v1/fills?address=${alice.address}`)).body).toEqual(fills);
  });
});

describe('images hold only live state; restoring an image (/sim/restore, /sim/reset) brings history back to that point: rows after the image\'s journal position are deleted', () => {
  it('an image carries the journal position instead of the history lists', async () => {
    const server = await start({ db: tempDb() });
    trade(server.exchange, 3, false);
    const image = decodeGraph(deserialize(captureImage(server.state)) as EncodedGraph) as { history: unknown; orders: Map<number, unknown> };
    expect(image.history).toEqual({ kind: 'sqlite', seq: server.persistence.history!.position() });
    expect(image.orders.size).toBe(0); // every order filled: none is live
  });

  it('restore returns the fills and orders replies of the saved point, reset empties them, and a restart agrees with a from-scratch replay', async () => {
    const { db, server } = await savedAfter(2, 'two');
    const fills = (await get(server, `/v1/fills?address=${bob.address}`)).body;
    const orders = (await get(server, `/v1/orders?address=${bob.address}`)).body;
    trade(server.exchange, 3);
    expect(((await get(server, `/v1/fills?address=${bob.address}`)).body.fills as unknown[]).length).toBe(5);
    expect((await post(server, '/sim/restore', { name: 'two' })).status).toBe(200);
    expect((await get(server, `/v1/fills?address=${bob.address}`)).body).toEqual(fills);
    expect((await get(server, `/v1/orders?address=${bob.address}`)).body).toEqual(orders);
    trade(server.exchange, 1);
    const hash = await stop(server);
    expect(replayFile(db).hash).toBe(hash);
    const again = await start({ db });
    expect(again.persistence.hash()).toBe(hash);
    expect(((await get(again, `/v1/fills?address=${bob.address}`)).body.fills as unknown[]).length).toBe(3);
    expect((await post(again, '/sim/reset', {})).status).toBe(200);
    expect((await get(again, `/v1/fills?address=${bob.address}`)).body).toEqual({ fills: [], total: 0 });
    expect(again.persistence.history!.counts()).toMatchObject({ orders: 0, fills: 0, trades: 0, ledger: 0, notifications: 0, candles: 0 });
  });
});

describe('retention: history older than --history-retention-days (engine time) is pruned in batches; funding, interest and transfers are kept at least 90 days', () => {
  it('prunes fills, trades and closed orders after the retention, the ledger after 90 days, at most `batch` rows per table per call', async () => {
    const persistence = openPersistence({ file: tempDb(), historyRetentionDays: 1 });
    const h = await gateway({ persistence });
    trade(h.exchange, 2, false);
    await persistence.committed();
    const tables = persistence.history!;
    expect(tables.counts()).toMatchObject({ orders: 4, fills: 4, trades: 2, ledger: 2, notifications: 0, candles: 0 });
    const t0 = h.exchange.engine.time;
    expect(tables.prune(t0 + DAY / 2)).toBe(0);
    expect(tables.counts().portfolio).toBe(4); // one point per range
    // One row of each table but the ledger, and the 24h point: the 7d, 30d and all-time ones stay.
    expect(tables.prune(t0 + 2 * DAY, 1)).toBe(4);
    expect(tables.counts()).toMatchObject({ orders: 3, fills: 3, trades: 1, ledger: 2, notifications: 0, candles: 0, portfolio: 3 });
    tables.prune(t0 + 2 * DAY);
    expect(tables.counts()).toMatchObject({ orders: 0, fills: 0, trades: 0, ledger: 2, notifications: 0, candles: 0 });
    tables.prune(t0 + (MIN_LEDGER_RETENTION_DAYS - 1) * DAY);
    expect(tables.counts().ledger).toBe(2);
    tables.prune(t0 + (MIN_LEDGER_RETENTION_DAYS + 1) * DAY);
    expect(tables.counts().ledger).toBe(0);
    persistence.close();
  });

  it('the server\'s background retention deletes a slice per event-loop turn, not a second\'s worth at once', async () => {
    const persistence = openPersistence({ file: tempDb(), historyRetentionDays: 1 });
    const h = await gateway({ persistence });
    const rounds = Math.ceil((2.5 * PRUNE_SLICE) / 2);
    trade(h.exchange, rounds, false);
    await persistence.committed();
    const tables = persistence.history!;
    const before = tables.counts();
    expect(before.fills).toBe(2 * rounds);
    tables.pruneSoon(h.exchange.engine.time + 2 * DAY);
    // The first slice runs in the call; the rest wait for later turns.
    expect(tables.counts().fills).toBe(before.fills - PRUNE_SLICE);
    tables.pruneSoon(h.exchange.engine.time + 2 * DAY); // ignored while one runs
    expect(tables.counts().fills).toBe(before.fills - PRUNE_SLICE);
    await new Promise((resolve) => setImmediate(resolve));
    expect(tables.counts().fills).toBe(before.fills - 2 * PRUNE_SLICE);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tables.counts()).toMatchObject({ orders: 0, fills: 0, trades: 0 });
    persistence.close();
  });
});

describe('a turn\'s history rows are buffered and inserted together by its group commit (multi-row statements), read back as the events the engine emitted', () => {
  it('reads return the emitted events in order, through reads in the middle of the turn and after the commit', async () => {
    const server = await start({ db: tempDb() });
    const emitted: { fills: unknown[]; trades: unknown[] } = { fills: [], trades: [] };
    server.exchange.listeners.add((events) => {
      for (const e of events) {
        if (e.type === 'fill' && e.address === alice.address) emitted.fills.push(e);
        if (e.type === 'trades') emitted.trades.push(e);
      }
    });
    // 85 rounds: 170 fills and 85 trades, cut into buckets of 64, 16, 4 and 1 rows.
    trade(server.exchange, 40, false);
    expect(server.exchange.history.fills(accountKeyOf(alice.address, 0))).toEqual(emitted.fills);
    trade(server.exchange, 45);
    await server.persistence.committed();
    expect(server.exchange.history.fills(accountKeyOf(alice.address, 0))).toEqual(emitted.fills);
    expect(server.exchange.history.trades(2)).toEqual(emitted.trades);
    expect(server.persistence.history!.counts()).toMatchObject({ orders: 170, fills: 170, trades: 85, ledger: 2, notifications: 0, candles: 0 });
  });

  it('answers the turn\'s closed orders from memory, without writing the rows before the commit', async () => {
    const db = tempDb();
    const server = await start({ db });
    trade(server.exchange, 1, false);
    await server.persistence.committed();
    const before = onDisk(db);
    const closed: number[] = [];
    server.exchange.listeners.add((events) => {
      for (const e of events) if (e.type === 'order' && e.status === 'FILLED') closed.push(e.orderId);
    });
    trade(server.exchange, 2);
    expect(closed).toHaveLength(4);
    for (const id of closed) expect(server.exchange.history.closedOrder(id)?.status).toBe('FILLED');
    expect(server.persistence.history!.rows.buffered).toBe(true);
    expect(onDisk(db)).toEqual(before);
    await server.persistence.committed();
    expect(server.persistence.history!.rows.buffered).toBe(false);
    for (const id of closed) expect(server.exchange.history.closedOrder(id)?.orderId).toBe(id);
  });
});

describe('schema migrations of the history tables', () => {
  it('upgrades a version-2 file: keeps its rows, drops the per-account trade index (a fill is found through the account index)', async () => {
    const { file, raw } = fileAtVersion(2);
    raw.prepare('INSERT INTO history_fills (account, market, trade_id, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)').run('a/0', 2, 7, 1, 1, Buffer.from([]));
    raw.close();
    openDatabase(file).close();
    const upgraded = new Database(file);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(upgraded.prepare("SELECT name FROM sqlite_master WHERE name = 'history_fills_by_trade'").all()).toEqual([]);
    expect(upgraded.prepare('SELECT trade_id FROM history_fills').all()).toEqual([{ trade_id: 7 }]);
    const plan = upgraded.prepare('EXPLAIN QUERY PLAN SELECT event FROM history_fills WHERE account_no = ? AND trade_id = ? ORDER BY id DESC LIMIT 1').all(1, 7) as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toContain('history_fills_by_account');
    upgraded.close();
  });

  it('upgrades a version-7 file: the closed orders\' filter columns are filled from the stored events and from the rows pending in journal rows', () => {
    const { file, raw } = fileAtVersion(7);
    const event = (orderId: number, status: string): Buffer => serialize({ type: 'order', orderId, marketId: 2, side: 1, status, createdAt: 1000 + orderId });
    raw.prepare('INSERT INTO history_orders (order_id, account, listed, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)').run(1, 'a/0', 1, 1, 1, event(1, 'FILLED'));
    raw.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', ?)").run(Buffer.from('2'));
    const pending = [[2, 'a/0', 1, 2, 2, event(2, 'CANCELED')], [], [], [], [], [], []];
    raw.prepare('INSERT INTO journal (seq, count, records, history) VALUES (2, 1, ?, ?)').run(Buffer.from([]), serialize(pending));
    raw.close();
    openDatabase(file).close();
    const upgraded = new Database(file);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(recoverHistoryRows(upgraded)).toBe(1);
    expect(upgraded.prepare('SELECT order_id, market, side, status, created_at FROM history_orders ORDER BY id').all()).toEqual([
      { order_id: 1, market: 2, side: 1, status: 'FILLED', created_at: 1001 },
      { order_id: 2, market: 2, side: 1, status: 'CANCELED', created_at: 1002 },
    ]);
    upgraded.close();
  });

  it('upgrades a version-9 file: closed orders and fills are indexed by account number, for the rows in the tables and for those pending in journal rows', async () => {
    const { file, raw } = fileAtVersion(9);
    const bob = accountKeyOf(alice.address, 1);
    const order = (orderId: number, key: string) => [orderId, key, 1, orderId, orderId, serialize({ type: 'order', orderId }), 2, 0, 'FILLED', orderId];
    const fill = (tradeId: number, key: string) => [key, 2, tradeId, tradeId, tradeId, serialize({ type: 'fill', tradeId })];
    const insertOrder = raw.prepare('INSERT INTO history_orders (order_id, account, listed, seq, time, event, market, side, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insertFill = raw.prepare('INSERT INTO history_fills (account, market, trade_id, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)');
    insertOrder.run(...order(1, 'a/0'));
    insertOrder.run(...order(2, bob));
    insertFill.run(...fill(1, bob));
    raw.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('history_from', ?)").run(Buffer.from('3'));
    // A journal row whose rows the tables lack: a known account and a new one.
    const pending = [[...order(3, bob), ...order(4, 'c/0')], [...fill(2, 'c/0')], [], [], [], [], []];
    raw.prepare('INSERT INTO journal (seq, count, records, history) VALUES (3, 1, ?, ?)').run(Buffer.from([]), serialize(pending));
    raw.close();
    openDatabase(file).close();
    const upgraded = new Database(file);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(recoverHistoryRows(upgraded)).toBe(3);
    const numbers = new Map((upgraded.prepare('SELECT no, account FROM history_accounts').all() as { no: number; account: string }[]).map((r) => [r.account, r.no]));
    expect([...numbers.keys()].sort()).toEqual([bob, 'a/0', 'c/0'].sort());
    expect(new Set(numbers.values()).size).toBe(3);
    const ordersOf = (key: string): unknown[] => upgraded.prepare('SELECT order_id FROM history_orders WHERE account_no = ? ORDER BY id').all(numbers.get(key)).map((r) => (r as { order_id: number }).order_id);
    const fillsOf = (key: string): unknown[] => upgraded.prepare('SELECT trade_id FROM history_fills WHERE account_no = ? ORDER BY id').all(numbers.get(key)).map((r) => (r as { trade_id: number }).trade_id);
    expect([ordersOf('a/0'), ordersOf(bob), ordersOf('c/0')]).toEqual([[1], [2, 3], [4]]);
    expect([fillsOf(bob), fillsOf('c/0')]).toEqual([[1], [2]]);
    const plan = upgraded.prepare('EXPLAIN QUERY PLAN SELECT event FROM history_fills WHERE account_no = ? ORDER BY id DESC LIMIT 5').all(1) as { detail: string }[];
    expect(plan.map((p) => p.detail).join()).toContain('history_fills_by_account');
    upgraded.close();
  });

  it('upgrades a version-8 file: its v8-serialized events are read as they are, next to the compact ones written after', async () => {
    const { file, raw } = fileAtVersion(8);
    const old = { type: 'fill', tradeId: 7, address: alice.address, fee: 12n, liquidation: undefined };
    // Now (engine µs): retention would delete an older row at the first commit.
    raw.prepare('INSERT INTO history_fills (account, market, trade_id, seq, time, event) VALUES (?, ?, ?, ?, ?, ?)').run(accountKeyOf(alice.address, 0), 2, 7, 1, Date.now() * 1000, serialize(old));
    raw.close();
    openDatabase(file).close();
    const upgraded = new Database(file);
    expect(upgraded.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    upgraded.close();
    const server = await start({ db: file });
    trade(server.exchange, 1, false);
    const fills = server.exchange.history.fills(accountKeyOf(alice.address, 0));
    expect(fills[0]).toStrictEqual(old);
    expect(fills.slice(1).map((f) => f.type)).toEqual(['fill']);
    await stop(server);
    const stored = new Database(file, { readonly: true, fileMustExist: true });
    // v8's version tag (0xff) on the old row; the new one is in the compact format.
    expect(stored.prepare('SELECT hex(substr(event, 1, 1)) AS tag FROM history_fills WHERE account = ? ORDER BY id').all(accountKeyOf(alice.address, 0))).toEqual([{ tag: 'FF' }, { tag: '01' }]);
    stored.close();
  });
});

describe('candles: closed bars are history rows (history_candles), the series in memory keep only the open bar and the one before; replies equal the memory store\'s', () => {
  const candles = async (h: GatewayHarness, query: string): Promise<unknown> => (await h.app.inject({ method: 'GET', url: `/v1/candles?market=ETH-USD&${query}` })).json();

  it('GET /v1/candles answers the same bars for every timeframe, window and countback', async () => {
    const { memory, tables, persistence } = await both(70);
    expect(persistence.history!.counts().candles).toBeGreaterThan(70);
    for (const [key, bars] of tables.state.candles.series) expect(bars.length, key).toBeLessThanOrEqual(LIVE_BARS);
    const now = memory.now.us;
    expect(tables.now.us).toBe(now);
    for (const q of [`timeframe=1m&to=${now}`, `timeframe=1m&to=${now + MINUTE}&countback=5`, `timeframe=1m&to=${now - 20 * MINUTE}&from=${now - 40 * MINUTE}`, `timeframe=5m&to=${now}`, `timeframe=1h&to=${now + 2 * 3_600_000_000}&from=0`, `timeframe=1d&to=${now + DAY}`]) {
      expect(await candles(tables, q), q).toEqual(await candles(memory, q));
    }
    expect(((await candles(tables, `timeframe=1m&to=${now}`)) as { candles: unknown[] }).candles.length).toBeGreaterThan(60);
  });

  it('a restore deletes the bars closed after the image; the hash covers only the open bars, so a from-scratch replay agrees', async () => {
    const { db, server } = await savedAfter(1, 'early');
    const before = server.persistence.history!.counts().candles;
    expect((await post(server, '/sim/clock', { advanceMs: (3 * MINUTE) / 1000 })).status).toBeLessThan(300);
    trade(server.exchange, 1);
    await server.persistence.committed();
    expect(server.persistence.history!.counts().candles).toBeGreaterThan(before);
    expect((await post(server, '/sim/restore', { name: 'early' })).status).toBe(200);
    expect(server.persistence.history!.counts().candles).toBe(before);
    const hash = await stop(server);
    expect(replayFile(db).hash).toBe(hash);
  });

  it('retention keeps at least the span of the memory series\' bar count per timeframe: 1m bars go after 3.47 days, hour and day bars stay', async () => {
    const { tables, persistence } = await both(5, 1);
    const count = (tf: string): number => ((persistence.history!.candles.read(2, tf as '1m', { to: Number.MAX_SAFE_INTEGER, limit: 10_000 }) as unknown[]).length);
    expect(count('1m')).toBeGreaterThan(0);
    persistence.history!.prune(tables.exchange.engine.time + 3 * DAY);
    expect(count('1m')).toBeGreaterThan(0); // 5,000 one-minute bars span 3.47 days
    persistence.history!.prune(tables.exchange.engine.time + 4 * DAY);
    expect(count('1m')).toBe(0);
    expect(persistence.history!.candles.read(2, '1d', { to: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([]); // none closed yet
    tables.now.us += 2 * DAY;
    trade(tables.exchange, 1);
    await persistence.committed();
    persistence.history!.prune(tables.exchange.engine.time);
    expect(count('1d')).toBe(1);
    expect(count('1h')).toBe(1);
  });
});

describe('notifications: inbox items are history rows (history_notifications); the inbox in memory keeps tokens and its clock', () => {
  const inbox = async (server: Awaited<ReturnType<typeof start>>, query = ''): Promise<{ notifications: { seen: boolean }[]; unseen: number; nextBeforeNs: string | null }> =>
    (await get(server, `/v1/api-meta/notifications?address=${alice.address}${query}`)).body as never;
  /** markSeen as its operation does it: through the store, then the service record. */
  const see = (server: Awaited<ReturnType<typeof start>>, target: MarkSeenTarget): number => {
    const marked = markSeen(server.state.notifications, alice.address, target, server.exchange.history.notifications);
    server.state.serviceWritten?.('notifications', alice.address);
    return marked;
  };

  it('pages, unseen counts and markSeen act on the rows; a restore flips back what was marked after the image; the hash agrees with a from-scratch replay', async () => {
    const db = tempDb();
    const server = await start({ db, persistence: { keepJournal: true } });
    expect((await inbox(server)).notifications).toEqual([]); // enrols alice
    trade(server.exchange, 5, false);
    await server.persistence.committed();
    expect(server.persistence.history!.counts().notifications).toBeGreaterThanOrEqual(5);
    expect(server.state.notifications.inboxes.get(alice.address)!.items).toEqual([]);
    const all = await inbox(server);
    const page = await inbox(server, '&limit=2');
    expect(page.notifications).toEqual(all.notifications.slice(0, 2));
    expect((await inbox(server, `&limit=2&before_ns=${page.nextBeforeNs}`)).notifications).toEqual(all.notifications.slice(2, 4));
    expect((await post(server, '/sim/snapshot', { name: 'unseen' })).status).toBe(200);
    expect(see(server, { all: true, limit: 2 })).toBe(2);
    expect(see(server, { all: true, limit: 2 })).toBe(0);
    await server.persistence.committed();
    expect((await inbox(server)).unseen).toBe(all.unseen - 2);
    expect((await post(server, '/sim/restore', { name: 'unseen' })).status).toBe(200);
    expect(await inbox(server)).toEqual(all);
    const hash = await stop(server);
    expect(replayFile(db).hash).toBe(hash);
  });
});

describe('portfolio: points are history rows (history_portfolio); a series in memory keeps its newest point, cadence and count', () => {
  const portfolio = async (h: GatewayHarness): Promise<unknown> => (await h.app.inject({ method: 'GET', url: `/v1/portfolio?address=${alice.address}&accountIndex=0` })).json();

  it('answers what the memory series answer through the all-time halving (1,000 daily points), with the same state hash; a restore brings the halved points back', async () => {
    // Retention longer than the test's 1,010 days: the background retention (in slices over
    // turns) would otherwise delete the halved points the restore is to bring back.
    const persistence = openPersistence({ file: tempDb(), historyRetentionDays: 2_000 });
    const memory = await gateway({ persistence: openPersistence() });
    const tables = await gateway({ persistence });
    const step = (h: GatewayHarness, days: number): void => {
      for (let i = 0; i < days; i++) {
        h.now.us += DAY + (i % 5) * 3_600_000_000;
        h.exchange.submit({ type: 'deposit', address: alice.address, accountIndex: 0, amount: BigInt(1 + (i % 7)) * USD });
      }
    };
    for (const h of [memory, tables]) step(h, 990);
    await persistence.committed();
    const before = await portfolio(tables);
    expect(before).toEqual(await portfolio(memory));
    const points = (): unknown[] => persistence.history!.portfolio.read(accountKeyOf(alice.address, 0), 3, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 1000);
    const saved = points();
    expect(saved).toHaveLength(990);
    persistence.saveImage('before-halving');
    for (const h of [memory, tables]) step(h, 20);
    await persistence.committed();
    const allTime = (p: unknown): unknown[] => ((p as { data: [string, { accountEquityHistory: unknown[] }][] }).data.find(([name]) => name === 'allTime')![1].accountEquityHistory);
    expect(allTime(await portfolio(memory)).length).toBeLessThan(600);
    expect(await portfolio(tables)).toEqual(await portfolio(memory));
    expect(stateHash(tables.state)).toBe(stateHash(memory.state));
    expect(points().length).toBeLessThan(600);
    expect(persistence.restoreImage('before-halving')).toBe(true);
    await persistence.committed();
    // The clock does not go back with an image: the replies move on, the all-time points do not.
    expect(points()).toEqual(saved);
    persistence.close();
  });
});

describe('filtered pages (fills, funding, interest, transfers) filter by time and market in SQL and count there: the same replies as the memory lists', () => {
  it('answers every combination of window, market, role, side and limit as the memory store does', async () => {
    const { memory, tables } = await both(30);
    const now = memory.now.us;
    const read = async (h: GatewayHarness, path: string): Promise<unknown> => (await h.app.inject({ method: 'GET', url: path })).json();
    const queries = [
      '', '&limit=3', '&market=ETH-USD', '&market=BTC-USD', `&from=${now - 10 * MINUTE}`, `&from=${now - 20 * MINUTE}&to=${now - 5 * MINUTE}&limit=4`,
      '&role=maker', '&side=sell&limit=2', `&role=taker&market=ETH-USD&from=${now - 15 * MINUTE}`,
    ];
    for (const w of [alice, bob]) {
      for (const q of queries) {
        const path = `/v1/fills?address=${w.address}${q}`;
        const reply = await read(tables, path);
        expect(reply, path).toEqual(await read(memory, path));
      }
      for (const op of ['funding', 'interest', 'accountTransferUpdates']) {
        for (const q of ['', '&limit=1', `&from=${now - 40 * MINUTE}&to=${now}`, '&market=ETH-USD']) {
          const path = `/v1/${op}?address=${w.address}${q}`;
          expect(await read(tables, path), path).toEqual(await read(memory, path));
        }
      }
    }
    expect(((await read(tables, `/v1/fills?address=${alice.address}&limit=3`)) as { total: number }).total).toBeGreaterThan(30);
  });
});

describe('the turn\'s history rows commit inside its journal row; the indexed tables are filled later (a read, once a second, a snapshot, the stop) or by recovery after a crash', () => {
  it('after the commit the rows are in the journal row and not yet in the table; a copy recovers them; a read fills the table', async () => {
    const { db, server } = await tradedOnNewFile(3);
    // The tables are filled at most once a second: this turn's rows are only in its journal row.
    trade(server.exchange, 3);
    await server.persistence.committed();
    const copy = db + '.raw';
    copyFileSync(db, copy);
    copyFileSync(db + '-wal', copy + '-wal');
    const raw = new Database(copy);
    const tableFills = (): number => (raw.prepare('SELECT COUNT(*) AS n FROM history_fills').get() as { n: number }).n;
    expect(tableFills()).toBeLessThanOrEqual(6);
    expect((raw.prepare('SELECT COUNT(*) AS n FROM journal WHERE history IS NOT NULL').get() as { n: number }).n).toBeGreaterThan(0);
    expect(recoverHistoryRows(raw)).toBeGreaterThanOrEqual(6 + 6 + 3);
    expect(tableFills()).toBe(12);
    expect(recoverHistoryRows(raw)).toBe(0); // once
    raw.close();
    expect(server.exchange.history.fills(accountKeyOf(alice.address, 0))).toHaveLength(6);
    await server.persistence.committed();
    expect(onDisk(db).fills).toBe(12);
  });
});

describe('order lists and trades filter and page in SQL (closed orders by market, status, side and createdAt; trades by market and time window): the same replies as the memory lists', () => {
  it('answers every combination of market, status, side, window and limit of /v1/orders, /v1/openOrders and /v1/trades as the memory store does', async () => {
    const { memory, tables } = await both(20);
    for (const h of [memory, tables]) {
      // Resting orders on both sides, half of them canceled, and one more that stays open per side.
      for (let i = 0; i < 6; i++) {
        h.now.us += MINUTE;
        h.exchange.submit(order(h.exchange, alice.address, 0, '3000.00'));
        h.exchange.submit(order(h.exchange, bob.address, 1, '3600.00'));
      }
      h.exchange.submit({ type: 'cancelAll', address: alice.address, accountIndex: 0, marketId: 2 });
      h.now.us += MINUTE;
      h.exchange.submit(order(h.exchange, alice.address, 0, '3010.00'));
      h.exchange.submit(order(h.exchange, alice.address, 1, '3700.00', '2'));
    }
    const now = memory.now.us;
    const read = async (h: GatewayHarness, path: string): Promise<unknown> => (await h.app.inject({ method: 'GET', url: path })).json();
    const orderQueries = [
      '', '&limit=3', '&market=ETH-USD', '&market=BTC-USD', '&status=FILLED', '&status=canceled,open', '&status=OPEN&limit=2', '&side=BUY', '&side=sell&status=filled&limit=4',
      `&from=${now - 10 * MINUTE}`, `&from=${now - 20 * MINUTE}&to=${now - 5 * MINUTE}&limit=5`, `&to=${now - 3 * MINUTE}&status=CANCELED&side=buy`,
    ];
    for (const w of [alice, bob]) {
      for (const op of ['orders', 'openOrders']) {
        for (const q of orderQueries) {
          const path = `/v1/${op}?address=${w.address}${q}`;
          expect(await read(tables, path), path).toEqual(await read(memory, path));
        }
      }
    }
    const tradeQueries = ['', '?limit=3', '?market=ETH-USD', '?market=ETH-USD&limit=5', '?market=BTC-USD', `?from=${now - 10 * MINUTE}`, `?market=ETH-USD&from=${now - 20 * MINUTE}&to=${now - 8 * MINUTE}&limit=4`, `?to=${now - 15 * MINUTE}`];
    for (const q of tradeQueries) expect(await read(tables, `/v1/trades${q}`), q).toEqual(await read(memory, `/v1/trades${q}`));
    const all = (await read(tables, `/v1/orders?address=${alice.address}&limit=2`)) as { orders: unknown[]; total: number };
    expect(all.orders).toHaveLength(2);
    expect(all.total).toBeGreaterThan(30);
    expect(((await read(tables, `/v1/orders?address=${alice.address}&status=CANCELED`)) as { total: number }).total).toBe(6);
    expect(((await read(tables, `/v1/trades?market=ETH-USD&from=${now - 10 * MINUTE}`)) as { trades: unknown[] }).trades.length).toBeGreaterThan(0);
    // The WebSocket snapshots of fills and orders read the same pages.
    for (const w of [alice, bob]) {
      for (const market of [undefined, 2, 1]) {
        for (const nFills of [500, 3]) {
          const sub = (h: GatewayHarness): Subscription => ({ address: w.address, accountIndex: 0, market: market === undefined ? undefined : h.exchange.engine.markets.get(market), nFills }) as Subscription;
          for (const channel of ['userFills', 'orders'] as const) {
            expect(CHANNELS[channel].snapshot!(tables.state, sub(tables)), `${channel} ${market} ${nFills}`).toEqual(CHANNELS[channel].snapshot!(memory.state, sub(memory)));
          }
        }
      }
    }
    const aliceSub = { address: alice.address, accountIndex: 0, market: undefined, nFills: 3 } as unknown as Subscription;
    expect(CHANNELS.userFills.snapshot!(tables.state, aliceSub)).toMatchObject({ fills: { length: 3 } });
    expect((CHANNELS.orders.snapshot!(tables.state, aliceSub) as { recentClosedOrders: unknown[] }).recentClosedOrders.length).toBeGreaterThan(30);
  });

  it('reads the closed orders\' filters from the per-account index and a trades window as a range of the per-market index', () => {
    const db = new Database(':memory:');
    for (let v = 0; v < SCHEMA_VERSION; v++) migrate(db, v);
    const plan = (sql: string): string => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ account: 1, cap: 10, market: 2, from: 0, to: 1 }) as { detail: string }[]).map((p) => p.detail).join('; ');
    expect(plan('SELECT COUNT(*) FROM (SELECT id, market, created_at FROM history_orders WHERE account_no = @account AND listed = 1 ORDER BY id DESC LIMIT @cap) WHERE created_at >= @from')).toContain('COVERING INDEX history_orders_by_account');
    expect(plan('SELECT event FROM history_trades WHERE market = @market AND time >= @from AND time <= @to ORDER BY time DESC, id DESC')).toContain('history_trades_by_market (market=? AND time>? AND time<?)');
    db.close();
  });
});

describe('the background fill inserts whole journal rows in bounded slices, one event-loop turn each (a second\'s rows at once blocked the event loop); a read meanwhile fills the rest first', () => {
  /** History rows in a copy of the file: in its fills table, and after recovery. */
  const copied = (db: string): { inTable: number; recovered: number } => {
    const copy = db + '.slice-' + Math.random().toString(36).slice(2);
    copyFileSync(db, copy);
    if (existsSync(db + '-wal')) copyFileSync(db + '-wal', copy + '-wal');
    const raw = new Database(copy);
    try {
      const fills = (): number => (raw.prepare('SELECT COUNT(*) AS n FROM history_fills').get() as { n: number }).n;
      const inTable = fills();
      recoverHistoryRows(raw);
      return { inTable, recovered: fills() };
    } finally {
      raw.close();
    }
  };
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('fills one slice per turn, keeps history_from on a journal-row boundary (a copy recovers exactly the rest), and a read mid-way sees every row', async () => {
    const db = tempDb();
    const server = await start({ db, persistence: { snapshotOnClose: false, historyFillSlice: { rows: 1, ms: 0 } } });
    const store = server.exchange.history as SqliteHistoryStore;
    // Separate turns: one journal row each, two fills each.
    for (let i = 0; i < 6; i++) {
      trade(server.exchange, 1, i > 0);
      await server.persistence.committed();
    }
    const before = copied(db);
    expect(before.recovered).toBe(12);
    expect(before.inTable).toBeLessThan(12);
    store.drain();
    const sliced = copied(db);
    expect(sliced.inTable).toBe(before.inTable + 2); // one journal row
    expect(sliced.recovered).toBe(12); // never twice
    for (let i = 0; i < 10; i++) await nextTurn();
    expect(copied(db)).toEqual({ inTable: 12, recovered: 12 });
    // A read mid-drain fills the rest first.
    for (let i = 0; i < 3; i++) {
      trade(server.exchange, 1);
      await server.persistence.committed();
    }
    store.drain();
    expect(store.fills(accountKeyOf(alice.address, 0))).toHaveLength(9);
    await nextTurn(); // the read's fill commits with the turn
    expect(copied(db)).toEqual({ inTable: 18, recovered: 18 });
  });
});
