/**
 * Durability at the gateway's edge: a SQLite file holding the journal, periodic snapshots and
 * named state images — or nothing at all (`--memory`), where only named images and reset exist.
 *
 * Life cycle (sim/server.ts):
 * 1. `openPersistence` opens the file (gateway/persistence/schema.ts refusals happen here);
 *    `engineConfig(proposed)` answers the configuration the file was created with (the journal
 *    replays only against the markets it was written for), storing `proposed` on a new file.
 * 2. `attach(state)`, before any command: keeps the initial image (for /sim/reset), restores the
 *    newest snapshot and replays the journal after it, then journals every command the exchange
 *    applies (stamped with its time) and every change of the gateway's durable collections.
 * 3. With a file, `attach` also installs the SQLite history store (history-tables.ts) in place of
 *    the exchange's memory one: history rows commit inside the turn's journal row and fill the
 *    indexed tables in slices over event-loop turns, started at most once a second (and whole
 *    before reads, snapshots and the stop; recovery
 *    fills what a crash left in journal rows), images hold live state only, and expired rows
 *    are pruned in batches after group commits (at most once a second; `historyRetentionDays`).
 * 4. Replies wait for `committed()` (group commit, gateway/persistence/journal.ts).
 * 5. After a group commit, a snapshot is taken when `snapshotEveryRecords` records or
 *    `snapshotEveryMs` have passed since the last; unless `keepJournal`, the journal before the
 *    older of the two newest snapshots is deleted. `close()` commits, snapshots and closes.
 */
import { statSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import type { EngineConfig } from '../../engine/index.ts';
import { createGateway } from '../gateway.ts';
import type { GatewayState } from '../contract/operation.ts';
import { rateLimitConfig } from '../rate-limit/index.ts';
import { applyRecord, captureImage, restoreImage, serviceRecord, stateHash, watchGateway, type JournalRecord, type ReplayContext } from './durable-state.ts';
import { DEFAULT_RETENTION_DAYS, sqliteHistoryStore, type SqliteHistoryStore } from './history-tables.ts';
import { createJournal, firstJournalSeq, pruneJournal, readJournal, type Journal } from './journal.ts';
import { openDatabase, PersistenceError, readMeta, writeMeta, type SqliteDatabase, type SyncMode } from './schema.ts';

export { PersistenceError } from './schema.ts';
export { stateHash } from './durable-state.ts';

export interface PersistenceOptions {
  /** The SQLite file; absent: everything in memory. */
  file?: string;
  sync?: SyncMode;
  snapshotEveryRecords?: number;
  snapshotEveryMs?: number;
  /** Keep the whole journal (a from-scratch replay stays possible) instead of pruning it. */
  keepJournal?: boolean;
  /** Snapshot at close (default): the next start loads it instead of replaying the tail. */
  snapshotOnClose?: boolean;
  /** Days of orders, fills and trades kept (engine time); funding, interest, transfers: at least 90. */
  historyRetentionDays?: number;
  /**
   * Caps the file at this many pages (SQLite `max_page_count`): past it a write fails with
   * SQLITE_FULL exactly as on a full disk (tests of that path; `--db-max-pages`).
   */
  maxPages?: number;
  /** Bounds of the background fill's slices (history-tables.ts `FILL_SLICE`; tests). */
  historyFillSlice?: { rows: number; ms: number };
}

export interface Recovery {
  /** False for a new (or in-memory) state: the caller seeds it. */
  recovered: boolean;
  /** The journal position of the snapshot used (0: none) and the records replayed after it. */
  snapshotSeq: number;
  replayed: number;
}

export interface Persistence {
  readonly file: string | undefined;
  engineConfig(proposed: EngineConfig): EngineConfig;
  attach(state: GatewayState): Recovery;
  /** Resolves once every change made so far is durable. */
  committed(): Promise<void>;
  /**
   * Saves the current state under `name` (replacing an older image of that name); false when the
   * name is new and the store holds MAX_MEMORY_IMAGES names already (memory store only: each
   * image is a whole copy of the state in the process).
   */
  saveImage(name: string): boolean;
  /** Replaces the state by the image saved as `name`; false when there is none. */
  restoreImage(name: string): boolean;
  /** Replaces the state by the initial image (the caller seeds it again). */
  reset(): void;
  /** Writes a snapshot now (file only). */
  snapshot(): void;
  hash(): string;
  close(): void;
  /**
   * The write failure that stopped journaling, if any: a commit, a snapshot or a history fill
   * that the file refused (disk full, I/O error). Every `committed()` then rejects, so nothing
   * changed after it is acknowledged; the owner stops the exchange (sim/main.ts).
   */
  readonly failure: Error | undefined;
  /** Called once when `failure` is set. */
  onFailure: ((err: Error) => void) | undefined;
  /** What the file was at open: 'absent' or 'empty' (0 bytes) when a new exchange is initialised in it. */
  readonly initialised: 'absent' | 'empty' | undefined;
  /** The SQLite history store (file only, after `attach`). */
  readonly history: SqliteHistoryStore | undefined;
  /** What `attach` found (undefined before). */
  readonly recovery: Recovery | undefined;
}

export const DEFAULT_SNAPSHOT_RECORDS = 100_000;
export const DEFAULT_SNAPSHOT_MS = 5 * 60_000;

export function openPersistence(options: PersistenceOptions = {}): Persistence {
  return options.file === undefined ? memoryPersistence() : sqlitePersistence(options.file, options);
}

/** Named images the memory store keeps at most (a new name past it is refused; a known one is replaced). */
export const MAX_MEMORY_IMAGES = 100;

function memoryPersistence(): Persistence {
  let state: GatewayState | undefined;
  let initial: Buffer | undefined;
  const images = new Map<string, Buffer>();
  const attached = (): GatewayState => {
    if (state === undefined) throw new Error('persistence is not attached');
    return state;
  };
  return {
    file: undefined,
    failure: undefined,
    onFailure: undefined,
    initialised: undefined,
    history: undefined,
    recovery: undefined,
    engineConfig: (proposed) => proposed,
    attach(s) {
      state = s;
      initial = captureImage(s);
      return { recovered: false, snapshotSeq: 0, replayed: 0 };
    },
    committed: () => Promise.resolve(),
    saveImage(name) {
      if (!images.has(name) && images.size >= MAX_MEMORY_IMAGES) return false;
      images.set(name, captureImage(attached()));
      return true;
    },
    restoreImage(name) {
      const image = images.get(name);
      if (image === undefined) return false;
      restoreImage(attached(), image);
      return true;
    },
    reset: () => restoreImage(attached(), initial!),
    snapshot: () => {},
    hash: () => stateHash(attached()),
    close: () => {},
  };
}

function sqlitePersistence(file: string, options: PersistenceOptions): Persistence {
  const initialised = newFile(file);
  const db = openDatabase(file, options.sync ?? 'normal');
  if (options.maxPages !== undefined) db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxPages))}`);
  const everyRecords = options.snapshotEveryRecords ?? DEFAULT_SNAPSHOT_RECORDS;
  const everyMs = options.snapshotEveryMs ?? DEFAULT_SNAPSHOT_MS;
  let journal: Journal | undefined;
  let state: GatewayState | undefined;
  let initial: Buffer | undefined;
  let sinceSnapshot = 0;
  let lastSnapshotAt = Date.now();
  let recovered: Recovery | undefined;
  let history: SqliteHistoryStore | undefined;
  let lastPruneAt = 0;
  const insertImage = db.prepare('INSERT INTO images (name, created_at, image) VALUES (?, ?, ?)');
  const newestImage = db.prepare('SELECT id, image FROM images WHERE name = ? ORDER BY id DESC LIMIT 1');
  const imageById = db.prepare('SELECT image FROM images WHERE id = ?');

  const attached = (): { state: GatewayState; journal: Journal } => {
    if (state === undefined || journal === undefined) throw new Error('persistence is not attached');
    return { state, journal };
  };

  const snapshot = (): void => {
    const { state: s, journal: j } = attached();
    j.flush();
    // The journal rows the snapshot lets go of must not be the only holders of history rows.
    history?.flush();
    const image = captureImage(s);
    const seq = j.lastSeq;
    db.transaction(() => {
      db.prepare('INSERT INTO snapshots (seq, created_at, image) VALUES (?, ?, ?)').run(seq, Date.now(), image);
      const kept = db.prepare('SELECT id, seq FROM snapshots ORDER BY seq DESC, id DESC LIMIT 2').all() as { id: number; seq: number }[];
      const oldest = kept[kept.length - 1]!;
      db.prepare('DELETE FROM snapshots WHERE id NOT IN (' + kept.map((k) => k.id).join(',') + ')').run();
      if (options.keepJournal !== true) pruneJournal(db, oldest.seq);
    })();
    sinceSnapshot = 0;
    lastSnapshotAt = Date.now();
  };

  const context = (s: GatewayState): ReplayContext => ({
    state: s,
    initialImage: initial!,
    imageById: (id) => {
      const row = imageById.get(id) as { image: Buffer } | undefined;
      if (row === undefined) throw new PersistenceError(`${file}: the journal restores image ${id}, which is missing`);
      return row.image;
    },
  });

  const persistence: Persistence = {
    file,
    initialised,
    onFailure: undefined,
    get failure() {
      return journal?.failure;
    },
    get recovery() {
      return recovered;
    },
    get history() {
      return history;
    },
    engineConfig(proposed) {
      const stored = readMeta(db, 'engine_config');
      if (stored !== undefined) return deserialize(stored) as EngineConfig;
      writeMeta(db, 'engine_config', serialize(proposed));
      return proposed;
    },
    attach(s) {
      state = s;
      history = sqliteHistoryStore(db, {
        limits: s.exchange.limits,
        // Before the journal exists (the initial image): position 0, i.e. no history.
        seq: () => journal?.lastSeq ?? 0,
        ensureTransaction: () => journal!.openTurn(),
        schedule: () => journal!.schedule(),
        nextJournalRow: () => journal!.nextRow,
        retentionDays: options.historyRetentionDays ?? DEFAULT_RETENTION_DAYS,
        ...(options.historyFillSlice !== undefined && { fillSlice: options.historyFillSlice }),
      });
      s.exchange.history = history;
      initial = captureImage(s);
      journal = createJournal(db);
      journal.turnRows = history.rows;
      journal.onFailure = (err) => persistence.onFailure?.(err);
      // Before anything reads the tables: the rows that committed only inside journal rows.
      history.recover();
      journal.muted = true;
      // The tables already hold the history of every committed record (history-tables.ts).
      history.muted = true;
      const recovery = recover(db, file, context(s));
      history.muted = false;
      // Replayed records count towards the next snapshot: a clean stop right after a recovery
      // must still write one, or every start replays the same tail again.
      sinceSnapshot = recovery.replayed;
      recovered = recovery;
      journal.muted = false;
      s.exchange.onCommand = (command) => journal!.append({ kind: 'command', command } satisfies JournalRecord);
      watchGateway(s, journal);
      s.serviceWritten = (store, wallet) => journal!.append(serviceRecord(s, store, wallet));
      journal.onCommit = (count) => {
        sinceSnapshot += count;
        if (Date.now() - lastPruneAt >= 1000) {
          lastPruneAt = Date.now();
          // In slices over the next turns: a second's rows at once blocked the event loop.
          history!.drain();
          history!.pruneSoon(s.exchange.engine.time);
        }
        if (sinceSnapshot >= everyRecords || (sinceSnapshot > 0 && Date.now() - lastSnapshotAt >= everyMs)) {
          // The records are committed; a file that cannot take the snapshot will not take the
          // next commit either: stop now, while every acknowledged change is in the journal.
          try {
            snapshot();
          } catch (err) {
            journal!.fail(err);
          }
        }
      };
      return recovery;
    },
    committed: () => (journal === undefined ? Promise.resolve() : journal.committed()),
    saveImage(name) {
      insertImage.run(name, Date.now(), captureImage(attached().state));
      return true;
    },
    restoreImage(name) {
      const { state: s, journal: j } = attached();
      const row = newestImage.get(name) as { id: number; image: Buffer } | undefined;
      if (row === undefined) return false;
      restoreImage(s, row.image, j);
      j.append({ kind: 'restore', imageId: row.id } satisfies JournalRecord);
      return true;
    },
    reset() {
      const { state: s, journal: j } = attached();
      restoreImage(s, initial!, j);
      j.append({ kind: 'reset' } satisfies JournalRecord);
    },
    snapshot,
    hash: () => stateHash(attached().state),
    close() {
      if (journal !== undefined && journal.failure === undefined) {
        // The closing snapshot, if any, is the one below, not the periodic one.
        journal.onCommit = undefined;
        try {
          journal.flush();
          history?.flush();
          if (sinceSnapshot > 0 && options.snapshotOnClose !== false) snapshot();
        } catch (err) {
          // What was acknowledged is in the journal (history rows ride in its rows): the next
          // start replays it. `failure` tells the caller the stop was not clean.
          journal.fail(err);
        }
      }
      db.close();
    },
  };
  return persistence;
}

/**
 * The one line that reports a write failure of `file` (Persistence.failure) and how to recover:
 * nothing acknowledged is lost, since no reply leaves before its change is committed.
 */
export function storageFailureMessage(file: string, err: Error): string {
  const code = (err as { code?: unknown }).code;
  const cause = typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  const what = code === 'SQLITE_FULL' ? 'the disk (or the file\'s --db-max-pages cap) is full' : 'the file refused a write';
  const fix = code === 'SQLITE_FULL' ? 'free space on that disk (or move the file to one with room)' : 'fix the cause';
  return `cannot write ${file}: ${what} (${cause}); stopping. Every acknowledged change is in the file: ${fix}, then start perpsim again with --db ${file} to recover the state.`;
}

/**
 * 'absent' or 'empty' when opening `file` initialises a new exchange: SQLite takes a 0-byte file
 * as an empty database (what `mktemp` or `touch` leave), so it is initialised like an absent one
 * and the server says so (docs/decisions.md, "Storage faults").
 */
function newFile(file: string): 'absent' | 'empty' | undefined {
  try {
    return statSync(file).size === 0 ? 'empty' : undefined;
  } catch {
    return 'absent';
  }
}

/**
 * Newest snapshot that loads, then the journal after it; from the start when there is none. An
 * older snapshot is the fallback for one that does not load, as long as the journal reaches back
 * to it; otherwise start-up fails rather than serve a state with a hole in it.
 */
function recover(db: SqliteDatabase, file: string, ctx: ReplayContext): Recovery {
  // Images are read one at a time: the newest usually loads, and each is tens of MB.
  const snapshots = db.prepare('SELECT id, seq FROM snapshots ORDER BY seq DESC, id DESC').all() as { id: number; seq: number }[];
  const imageOf = db.prepare('SELECT image FROM snapshots WHERE id = ?');
  const journalFrom = firstJournalSeq(db) ?? Infinity;
  let from = 0;
  let problem: string | undefined;
  for (const snap of snapshots) {
    try {
      restoreImage(ctx.state, (imageOf.get(snap.id) as { image: Buffer }).image);
      from = snap.seq;
      problem = undefined;
      break;
    } catch (err) {
      problem ??= `the snapshot at journal position ${snap.seq} cannot be loaded (${(err as Error).message})`;
      restoreImage(ctx.state, ctx.initialImage);
    }
  }
  if (problem !== undefined && journalFrom > 1) throw new PersistenceError(`${file}: ${problem} and the journal before it is gone`);
  if (journalFrom !== Infinity && journalFrom > from + 1) {
    throw new PersistenceError(`${file}: the journal starts at ${journalFrom} but the newest usable snapshot covers only up to ${from}; records are missing`);
  }
  let replayed = 0;
  for (const { record } of readJournal(db, from)) {
    applyRecord(ctx, record as JournalRecord);
    replayed++;
  }
  return { recovered: snapshots.length > 0 || replayed > 0, snapshotSeq: from, replayed };
}

/**
 * Replays a file's whole journal from the file's engine configuration, without any snapshot, and
 * returns the resulting state hash: the crash test's from-scratch check. The file must not be
 * open elsewhere and its journal must be whole (written with `keepJournal`).
 */
export function replayFile(file: string): { hash: string; replayed: number; state: GatewayState } {
  const db = openDatabase(file);
  try {
    const stored = readMeta(db, 'engine_config');
    if (stored === undefined) throw new PersistenceError(`${file} holds no engine configuration`);
    const first = firstJournalSeq(db);
    if (first !== null && first > 1) throw new PersistenceError(`${file}: the journal was pruned (it starts at ${first}); a from-scratch replay needs keepJournal`);
    const state = bareState(deserialize(stored) as EngineConfig);
    const images = db.prepare('SELECT image FROM images WHERE id = ?');
    const ctx: ReplayContext = { state, initialImage: captureImage(state), imageById: (id) => (images.get(id) as { image: Buffer }).image };
    let replayed = 0;
    for (const { record } of readJournal(db, 0)) {
      applyRecord(ctx, record as JournalRecord);
      replayed++;
    }
    return { hash: stateHash(state), replayed, state };
  } finally {
    db.close();
  }
}

/**
 * A gateway with no app and stopped clocks: the read models and service stores follow the
 * engine's events in a replay as they did live.
 */
function bareState(engine: EngineConfig): GatewayState {
  return createGateway({
    engine,
    clock: () => 0,
    config: { service: 'replay', version: 'replay', auth: true, rateLimit: rateLimitConfig({ enabled: true }) },
    clocks: () => ({ wallNs: 0n, simNs: 0n }),
    nowMs: () => 0,
  });
}
