/**
 * Storage faults: a --db file that refuses writes (a full disk, reproduced with SQLite's
 * `max_page_count`, which fails a write with SQLITE_FULL exactly as a full disk does), and the
 * files the exchange is started on (empty, another program's database).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sqliteDriver } from '../gateway/persistence/sqlite-driver.ts';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openDatabase, PersistenceError } from '../gateway/persistence/schema.ts';
import { wallet, type Wallet } from './support/gateway-fixture.ts';
import { get, onboard, placeOrder, serverPool, tempDb, type Reply } from './support/persistence-fixture.ts';

const Database = sqliteDriver();

const { start, stop } = serverPool();
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Pages a new exchange (no agents) takes: about 40; the cap leaves room for some hundred orders. */
const CAP_PAGES = 90;

describe('a --db file that refuses writes (disk full) stops the exchange cleanly and loses nothing acknowledged', () => {
  it('answers 503 from the first failed commit on, never 500 and never an uncaught error, reports the failure once, and a restart holds every acknowledged order', async () => {
    const db = tempDb();
    const failures: Error[] = [];
    const server = await start({ db, clock: 'virtual', agents: false, rateLimits: false, persistence: { maxPages: CAP_PAGES }, onStorageFailure: (err) => failures.push(err) });
    const wallets: Wallet[] = [wallet(0x51), wallet(0x52), wallet(0x53), wallet(0x54)];
    for (const w of wallets) await onboard(server, w);
    const acked: { w: Wallet; orderId: string }[] = [];
    const statuses = new Map<number, number>();
    let n = 0;
    // Concurrent rounds until the file is full (bounded: the cap is reached after a few hundred).
    while (failures.length === 0 && n < 4000) {
      const round = await Promise.all(
        wallets.map(async (w, i) => {
          const price = (1000 + (n + i) / 100).toFixed(2);
          const reply = await placeOrder(server, w, { marketId: 2, side: 'BUY', quantity: '0.01', price });
          return { w, reply };
        }),
      );
      n += wallets.length;
      for (const { w, reply } of round) {
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 202) acked.push({ w, orderId: reply.body.orderId as string });
      }
    }
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error & { code?: string }).code).toBe('SQLITE_FULL');
    expect(acked.length).toBeGreaterThan(10);
    // After the failure: writes and reads alike are 503 in the error shape.
    const after: Reply[] = [await placeOrder(server, wallets[0]!, { marketId: 2, side: 'BUY', quantity: '0.01', price: '999.00' }), await get(server, `/v1/openOrders?address=${wallets[0]!.address}`), await get(server, '/v1/markets')];
    for (const reply of after) {
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ errorType: 'Unavailable' });
      expect(typeof reply.body.error).toBe('string');
    }
    expect([...statuses.keys()].sort()).toEqual([202, 503]);
    expect(server.persistence.failure).toBe(failures[0]);
    await stop(server);
    expect(failures).toHaveLength(1);

    const again = await start({ db, clock: 'virtual', agents: false, rateLimits: false });
    expect(again.persistence.recovery?.recovered).toBe(true);
    for (const { w, orderId } of acked) expect((await get(again, `/v1/order/${orderId}?address=${w.address}`)).status, orderId).toBe(200);
  }, 60_000);

  it('the command line prints one line that says how to recover and exits 1, without a stack trace', async () => {
    const db = tempDb();
    const child = spawn(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'serve', '--db', db, '--db-max-pages', String(CAP_PAGES + 60), '--port', '0', '--clock', 'accelerated', '--speed', '50', '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^perpsim: cannot write .*SQLITE_FULL.*Every acknowledged change is in the file.*start perpsim again with --db /);
    expect(stderr).not.toMatch(/SqliteError|\n\s+at /);
    expect(code).toBe(1);
    // The file it left is whole: a start without the cap recovers it.
    const again = await start({ db, clock: 'virtual', agents: false });
    expect(again.persistence.recovery?.recovered).toBe(true);
  }, 60_000);
});

describe('the files a --db may name', () => {
  it('initialises a 0-byte file as a new exchange and says so in a warning', async () => {
    const db = tempDb();
    writeFileSync(db, '');
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const server = await start({ db, clock: 'virtual', agents: false, logger });
    expect(server.persistence.initialised).toBe('empty');
    expect(lines.find((l) => l.level === 40 && /empty \(0 bytes\); initialising a new exchange/.test(String(l.msg)))).toMatchObject({ db });
    await onboard(server, wallet(0x61));
    await stop(server);
    const again = await start({ db, clock: 'virtual', agents: false });
    expect(again.persistence.initialised).toBeUndefined();
    expect(again.persistence.recovery?.recovered).toBe(true);
  });

  it('says that it initialises a new file', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const server = await start({ db: tempDb(), clock: 'virtual', agents: false, logger });
    expect(server.persistence.initialised).toBe('absent');
    expect(lines.some((l) => /new --db file; initialising a new exchange/.test(String(l.msg)))).toBe(true);
  });

  it('refuses another program\'s SQLite database instead of adding its tables to it', () => {
    const file = tempDb('other.sqlite');
    const other = new Database(file);
    other.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
    other.close();
    expect(() => openDatabase(file)).toThrow(PersistenceError);
    expect(() => openDatabase(file)).toThrow(/SQLite database of another program/);
    const check = new Database(file);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'notes' }]);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
  });
});
