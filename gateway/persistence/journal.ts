/**
 * The journal: every state change, in order, committed in groups.
 *
 * Contract:
 * - `append` encodes a record at once (v8 serialization: bigints, Maps and nested objects as
 *   they are; later mutation of the source cannot change what was journaled) and gives it the
 *   next sequence number. Records wait in memory until the end of the event-loop turn
 *   (`setImmediate`), when one transaction writes all of them: one commit per turn, not per
 *   request.
 * - `committed()` resolves once every record appended so far is in a committed transaction;
 *   replies wait for it, so a reply is never sent for a change the file does not hold. It
 *   resolves at once when nothing is pending. A failed commit rejects it and every later call
 *   (the in-memory state is then ahead of the file; the owner stops serving writes).
 * - A transaction either commits whole or not at all (SQLite), so after a crash the journal is
 *   a prefix of what was appended.
 * - `muted` turns `append` into a no-op while the journal itself is being replayed.
 */
import { deserialize, serialize } from 'node:v8';
import type { SqliteDatabase } from './schema.ts';

export interface Journal {
  /** Sequence number of the last record appended (committed or not). */
  readonly lastSeq: number;
  /** Records appended but not yet committed. */
  readonly pending: number;
  muted: boolean;
  append(record: unknown): void;
  committed(): Promise<void>;
  /** Commits what is pending now (shutdown, snapshots). Throws on failure. */
  flush(): void;
  /** Called after each successful group commit with the number of records it wrote. */
  onCommit: ((count: number) => void) | undefined;
  /** The commit failure that stopped the journal, if any. */
  readonly failure: Error | undefined;
}

export function createJournal(db: SqliteDatabase): Journal {
  const insert = db.prepare('INSERT INTO journal (seq, record) VALUES (?, ?)');
  const last = db.prepare('SELECT MAX(seq) AS seq FROM journal').get() as { seq: number | null };
  let lastSeq = last.seq ?? 0;
  let buffer: Buffer[] = [];
  let firstSeq = lastSeq + 1;
  let scheduled = false;
  let failure: Error | undefined;
  let waiters: { resolve(): void; reject(err: Error): void }[] = [];
  const writeAll = db.transaction((rows: Buffer[], from: number) => {
    for (let i = 0; i < rows.length; i++) insert.run(from + i, rows[i]!);
  });

  const journal: Journal = {
    get lastSeq() {
      return lastSeq;
    },
    get pending() {
      return buffer.length;
    },
    get failure() {
      return failure;
    },
    muted: false,
    onCommit: undefined,
    append(record) {
      if (journal.muted) return;
      if (failure !== undefined) throw failure;
      buffer.push(serialize(record));
      lastSeq++;
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
    flush() {
      if (failure !== undefined) throw failure;
      if (buffer.length === 0) return;
      const rows = buffer;
      const from = firstSeq;
      const done = waiters;
      buffer = [];
      waiters = [];
      firstSeq = lastSeq + 1;
      try {
        writeAll(rows, from);
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
        for (const w of done) w.reject(failure);
        throw failure;
      }
      for (const w of done) w.resolve();
      journal.onCommit?.(rows.length);
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
  const rows = db.prepare('SELECT seq, record FROM journal WHERE seq > ? ORDER BY seq').iterate(after) as IterableIterator<{ seq: number; record: Buffer }>;
  for (const row of rows) yield { seq: row.seq, record: deserialize(row.record) };
}
