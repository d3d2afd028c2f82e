import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { FALLBACK_PAGES, INLINE_PAGES, startCheckpointer } from '../gateway/persistence/checkpointer.ts';
import { openDatabase } from '../gateway/persistence/schema.ts';
import { serverPool, tempDb } from './support/persistence-fixture.ts';

const { start } = serverPool();

const autocheckpoint = (db: Database.Database): number => db.pragma('wal_autocheckpoint', { simple: true }) as number;

/** Writes `n` rows of 4 KB, one transaction each: a WAL of about n pages. */
function write(db: Database.Database, n: number): void {
  db.exec('CREATE TABLE IF NOT EXISTS t (x BLOB)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  for (let i = 0; i < n; i++) insert.run(Buffer.alloc(4000, i));
}

describe('checkpoints run on a worker thread: the WAL is copied into the file (and synced) by a second connection, not inside the commits of the event loop', () => {
  it('copies every committed frame while the owner keeps writing, and leaves the owner an inline checkpoint only as a bound on the WAL', async () => {
    const file = tempDb();
    const db = openDatabase(file);
    expect(autocheckpoint(db)).toBe(INLINE_PAGES);
    const reports: { log: number; checkpointed: number }[] = [];
    const checkpointer = startCheckpointer(db, file, { busyMs: 5, idleMs: 5, onCheckpoint: (r) => reports.push(r) });
    expect(autocheckpoint(db)).toBe(FALLBACK_PAGES);
    write(db, 300);
    await expect.poll(() => reports.some((r) => r.log >= 300 && r.checkpointed === r.log), { timeout: 10_000 }).toBe(true);
    // The owner's own checkpoint now finds nothing left to copy.
    const [mine] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    expect(mine!.checkpointed).toBe(mine!.log);
    checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(db)).toBe(INLINE_PAGES);
    db.close();
  });

  it('falls back to inline checkpoints when the worker cannot open the file', async () => {
    const file = tempDb();
    const db = openDatabase(file);
    const checkpointer = startCheckpointer(db, `${file}.missing/nowhere.db`, { idleMs: 5 });
    await expect.poll(() => checkpointer.running, { timeout: 10_000 }).toBe(false);
    expect(autocheckpoint(db)).toBe(INLINE_PAGES);
    checkpointer.stop();
    db.close();
  });

  it('a read-only tool can open the file beside a running server (its connection does not lock the database itself)', async () => {
    const file = tempDb();
    const server = await start({ db: file, clock: 'virtual', agents: false });
    expect(server.persistence.file).toBe(file);
    const reader = new Database(file, { readonly: true, fileMustExist: true });
    expect((reader.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n).toBeGreaterThan(0);
    reader.close();
  });
});

describe('a second perpsim on the same file is refused at start-up: the owner holds an exclusive lock on <file>-lock, which the kernel drops with the process', () => {
  it('refuses a second opening in another process while the first holds the file, and allows it once the first has closed', () => {
    const file = tempDb();
    const script = `import('./gateway/persistence/schema.ts').then((m) => { try { m.openDatabase(${JSON.stringify(file)}).close(); console.log('opened'); } catch (e) { console.log(e.message); } })`;
    const other = (): string => execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' }).trim();
    const db = openDatabase(file);
    expect(other()).toMatch(/in use by another process/);
    db.close();
    expect(other()).toBe('opened');
  });

  it('refuses a second opening in the same process, and allows it once the first has closed', () => {
    const file = tempDb();
    const db = openDatabase(file);
    expect(() => openDatabase(file)).toThrow(/in use by another process/);
    db.close();
    openDatabase(file).close();
  });
});
