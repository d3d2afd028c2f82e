import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteDriver, sqlitePackageFor } from '../gateway/persistence/sqlite-driver.ts';

describe('the SQLite driver for the running Node', () => {
  it('is better-sqlite3 13 from Node 22 on and 12 (better-sqlite3-node20) on Node 20', () => {
    expect(sqlitePackageFor('v20.20.2')).toBe('better-sqlite3-node20');
    expect(sqlitePackageFor('20.0.0')).toBe('better-sqlite3-node20');
    expect(sqlitePackageFor('v22.23.3')).toBe('better-sqlite3');
    expect(sqlitePackageFor('v24.21.0')).toBe('better-sqlite3');
    expect(sqlitePackageFor('v26.12.1')).toBe('better-sqlite3');
  });

  it('opens a database on this Node', () => {
    const Database = sqliteDriver();
    const db = new Database(':memory:');
    expect(db.prepare('SELECT 41 + 1 AS v').get()).toEqual({ v: 42 });
    db.close();
  });

  it('lets statements be garbage-collected and the process exit cleanly (better-sqlite3 12 aborts there on Node 24.19+)', () => {
    const driver = fileURLToPath(new URL('../gateway/persistence/sqlite-driver.ts', import.meta.url));
    // Statements dropped between awaits of real I/O: a scavenge then frees them outside a
    // JavaScript context, the case that aborts better-sqlite3 12 built against Node 24.19+.
    const script = `
      const { readFile } = await import('node:fs/promises');
      const { sqliteDriver } = await import(${JSON.stringify(driver)});
      const Database = sqliteDriver();
      const db = new Database(':memory:');
      for (let round = 0; round < 200; round++) {
        await readFile(${JSON.stringify(driver)});
        for (let i = 0; i < 500; i++) db.prepare('SELECT ? AS v').get(i);
        const junk = [];
        for (let i = 0; i < 20000; i++) junk.push({ i });
      }
      db.close();
      console.log('ok');`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).not.toMatch(/Assertion failed/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('ok');
  });
});
