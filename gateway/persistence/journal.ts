/**
 * The journal: every state change, in order, committed in groups.
 *
 * Contract:
 * - `append` gives a record the next sequence number, after the last one the journal or a
 *   snapshot holds. Records wait in memory until the end of
 *   the event-loop turn (`setImmediate`), when the turn's records are encoded together (one
 *   v8 serialization: bigints, Maps and nested objects as they are) into one row, in one
 *   transaction: one commit and one row per turn, not per request. Encoding per turn rather
 *   than per record is what makes replay fast (a v8 (de)serializer costs microseconds to set
 *   up); it requires that a record is not mutated after `append` — commands are fresh objects
 *   and the gateway's journaled values are replaced, never changed in place.
 * - `committed()` resolves once every record appended so far is in a committed transaction;
 *   replies wait for it, so a reply is never sent for a change the file does not hold. It
 *   resolves at once when nothing is pending. A failed commit rejects it and every later call
 *   (the in-memory state is then ahead of the file; the owner stops serving writes). After a
 *   failure `append` and `openTurn` do nothing and never throw: what they would have written
 *   is never acknowledged (every `committed()` rejects), and a throw there would escape from
 *   whichever timer or handler submitted a command. `onFailure` tells the owner, once; `fail`
 *   stops the journal for a failure found elsewhere (a snapshot that could not be written).
 * - A transaction either commits whole or not at all (SQLite), so after a crash the journal is
 *   a prefix of what was appended.
 * - `muted` turns `append` into a no-op while the journal itself is being replayed.
 * - `turnRows` (history-tables.ts) buffers history rows; the group commit stores the turn's in
 *   the journal row itself (`history`), so they commit with the records that produced them; the
 *   indexed tables are filled from the buffer later (history-tables.ts), or from the journal
 *   rows by recovery after a crash.
 */
import { deserialize, serialize } from 'node:v8';
import type { SqliteDatabase } from './schema.ts';

export interface Journal {
  /** Sequence number of the last record appended (committed or not). */
  readonly lastSeq: number;
  /** Records appended but not yet committed. */
  readonly pending: number;
  /** The first sequence number of the next journal row. */
  readonly nextRow: number;
  muted: boolean;
  append(record: unknown): void;
  committed(): Promise<void>;
  /** Commits what is pending now (shutdown, snapshots). Throws on failure. */
  flush(): void;
  /** Called after each successful group commit with the number of records it wrote. */
  onCommit: ((count: number) => void) | undefined;
  /** The commit failure that stopped the journal, if any. */
  readonly failure: Error | undefined;
  /** Called once, when the journal stops on a failure. */
  onFailure: ((err: Error) => void) | undefined;
  /** Stops the journal on a failure found outside it; later `committed()` calls reject with it. */
  fail(err: unknown): void;
  /** Opens the turn's transaction (if none is open); the group commit commits it. */
  openTurn(): void;
  /** Schedules the group commit without opening a transaction (rows buffered for it). */
  schedule(): void;
  /** Rows the turn buffered outside the journal: written inside the group-commit transaction, before the journal row. */
  turnRows: TurnRows | undefined;
}

export interface TurnRows {
  /** Rows no journal row holds yet. */
  readonly buffered: boolean;
  /** Those rows, encoded for the journal row's `history`. */
  take(): Buffer;
  /** Inserts every pending row into the tables (a group commit without records). */
  write(): void;
}

export function createJournal(db: SqliteDatabase): Journal {
  const insert = db.prepare('INSERT INTO journal (seq, count, records, history) VALUES (?, ?, ?, ?)');
  const last = db.prepare('SELECT MAX(seq + count - 1) AS seq FROM journal').get() as { seq: number | null };
  // A snapshot may cover a journal pruned to nothing: numbering goes on after it, never below
  // (recovery replays only what is above the newest snapshot's position).
  const covered = db.prepare('SELECT MAX(seq) AS seq FROM snapshots').get() as { seq: number | null };
  let lastSeq = Math.max(last.seq ?? 0, covered.seq ?? 0);
  let buffer: unknown[] = [];
  let firstSeq = lastSeq + 1;
  let scheduled = false;
  let failure: Error | undefined;
  let waiters: { resolve(): void; reject(err: Error): void }[] = [];
  const writeAll = db.transaction((records: unknown[], from: number) => {
    const rows = journal.turnRows?.buffered === true ? journal.turnRows : undefined;
    if (records.length > 0) insert.run(from, records.length, serialize(records), rows?.take() ?? null);
    else rows?.write();
  });

  const journal: Journal = {
    get lastSeq() {
      return lastSeq;
    },
    get pending() {
      return buffer.length;
    },
    get nextRow() {
      return firstSeq;
    },
    get failure() {
      return failure;
    },
    muted: false,
    onCommit: undefined,
    onFailure: undefined,
    turnRows: undefined,
    append(record) {
      if (journal.muted || failure !== undefined) return;
      buffer.push(record);
      lastSeq++;
      journal.schedule();
    },
    schedule() {
      if (!scheduled) {
        scheduled = true;
        setImmediate(commitTurn);
      }
    },
    committed() {
      if (failure !== undefined) return Promise.reject(failure);
      if (buffer.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    openTurn() {
      if (failure !== undefined) return;
      if (!db.inTransaction) db.exec('BEGIN');
      journal.schedule();
    },
    flush() {
      if (failure !== undefined) throw failure;
      if (buffer.length === 0 && !db.inTransaction && journal.turnRows?.buffered !== true) return;
      const rows = buffer;
      const from = firstSeq;
      const done = waiters;
      buffer = [];
      waiters = [];
      firstSeq = lastSeq + 1;
      try {
        // Inside an open turn transaction, writeAll is a savepoint of it.
        writeAll(rows, from);
        if (db.inTransaction) db.exec('COMMIT');
      } catch (err) {
        try {
          if (db.inTransaction) db.exec('ROLLBACK');
        } catch {
          // SQLite rolled back already (a full disk ends the transaction itself)
        }
        waiters = done;
        journal.fail(err);
        throw failure;
      }
      for (const w of done) w.resolve();
      if (rows.length > 0) journal.onCommit?.(rows.length);
    },
    fail(err) {
      if (failure !== undefined) return;
      failure = err instanceof Error ? err : new Error(String(err));
      buffer = [];
      const done = waiters;
      waiters = [];
      for (const w of done) w.reject(failure);
      journal.onFailure?.(failure);
    },
  };

  function commitTurn(): void {
    scheduled = false;
    try {
      journal.flush();
    } catch {
      // The waiters were rejected with the failure; `failure` keeps it for the owner.
    }
  }
  return journal;
}

/** Journal records with sequence number above `after`, oldest first, decoded. */
export function* readJournal(db: SqliteDatabase, after: number): Generator<{ seq: number; record: unknown }> {
  const rows = db.prepare('SELECT seq, records FROM journal WHERE seq + count - 1 > ? ORDER BY seq').iterate(after) as IterableIterator<{ seq: number; records: Buffer }>;
  for (const row of rows) {
    const records = deserialize(row.records) as unknown[];
    for (let i = 0; i < records.length; i++) if (row.seq + i > after) yield { seq: row.seq + i, record: records[i] };
  }
}

/** The first sequence number the journal still holds (null: empty). */
export function firstJournalSeq(db: SqliteDatabase): number | null {
  return (db.prepare('SELECT MIN(seq) AS seq FROM journal').get() as { seq: number | null }).seq;
}

/** Deletes the journal rows wholly at or below `seq` (a snapshot covers them). */
export function pruneJournal(db: SqliteDatabase, seq: number): void {
  db.prepare('DELETE FROM journal WHERE seq + count - 1 <= ?').run(seq);
}
