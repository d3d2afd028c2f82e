/**
 * The SQLite driver: better-sqlite3 13 on Node 22 and later, 12 on Node 20. Every module that
 * opens a database takes the driver from `sqliteDriver()`, never from the package itself.
 *
 * Why two: 12 builds on Node's `ObjectWrap`, whose destructor on Node 24.19 and later aborts the
 * process when a garbage-collected statement is freed outside a JavaScript context (`--db` died
 * at start-up on Node 24.21); 13 is built on Node-API and is free of it, but needs Node 22 and
 * crashes on 20. The package depends on 13 and, as an optional dependency under the name
 * `better-sqlite3-node20`, on 12 (docs/decisions.md, "Durability").
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export type DatabaseConstructor = typeof BetterSqlite3;
export type SqliteDatabase = BetterSqlite3.Database;

/** The package that serves a Node release: by major version, the first one at or below it. */
export function sqlitePackageFor(nodeVersion: string): 'better-sqlite3' | 'better-sqlite3-node20' {
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0]);
  return major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
}

/**
 * The better-sqlite3 `Database` class of the running Node, loaded when a database is first
 * opened (Node's module cache keeps it), so that a missing driver fails `--db`, not start-up.
 */
export function sqliteDriver(): DatabaseConstructor {
  const name = sqlitePackageFor(process.versions.node);
  try {
    return createRequire(import.meta.url)(name) as DatabaseConstructor;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      `perpsim needs the npm package ${name} to open SQLite files on Node ${process.versions.node}, and it is not installed` +
        (name === 'better-sqlite3-node20' ? ' (an optional dependency whose install script did not run or failed: `npm rebuild better-sqlite3-node20`, or use Node 22 or later)' : ''),
    );
  }
}
