/**
 * Checkpoints on a worker thread: the WAL is copied into the database file, and both are
 * fsynced, by a second connection on its own thread (checkpoint-worker.mjs), instead of inside
 * whichever commit of the event loop crosses `wal_autocheckpoint`.
 *
 * Contract:
 * - While the worker runs, the owner's connection keeps an inline checkpoint only as a bound
 *   (`FALLBACK_PAGES`): the worker's PASSIVE checkpoints never block the owner, so under steady
 *   writes they rarely catch the WAL whole, and the WAL starts over only after a checkpoint that
 *   did. The inline one then finds nearly every frame copied and costs little.
 * - Durability is unchanged: a checkpoint syncs the WAL before it copies (synchronous NORMAL or
 *   FULL), whichever connection runs it; commits are what kill -9 must not lose, and they are in
 *   the WAL when COMMIT returns.
 * - If the worker fails (cannot open the file, an error other than BUSY), the owner goes back to
 *   inline checkpoints at `INLINE_PAGES`; nothing else changes.
 * - `stop()` is synchronous (persistence's `close()` is): it asks the worker to close its
 *   connection and waits for that, up to `STOP_WAIT_MS` (a checkpoint in progress finishes first).
 */
import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './schema.ts';

/** `wal_autocheckpoint` without the worker (SQLite's default is 1,000; schema.ts sets this). */
export const INLINE_PAGES = 10_000;
/** `wal_autocheckpoint` while the worker runs: the bound on the WAL, about 160 MB. */
export const FALLBACK_PAGES = 10_000;
const STOP_WAIT_MS = 10_000;

export interface CheckpointerOptions {
  /** Delay after a checkpoint that copied frames, ms. */
  busyMs?: number;
  /** Delay after one that found nothing to copy, ms. */
  idleMs?: number;
  /** Each checkpoint's frame counts (tests). */
  onCheckpoint?: (frames: { log: number; checkpointed: number }) => void;
}

export interface Checkpointer {
  /** Whether the worker is up (false after a failure or `stop`). */
  readonly running: boolean;
  stop(): void;
}

export function startCheckpointer(db: SqliteDatabase, file: string, options: CheckpointerOptions = {}): Checkpointer {
  const state = new SharedArrayBuffer(4);
  const flags = new Int32Array(state);
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
    workerData: { file, state, busyMs: options.busyMs ?? 50, idleMs: options.idleMs ?? 1_000 },
  });
  // The worker never holds the process open: a stop that never comes must not hang an exit.
  worker.unref();
  let running = true;
  const inline = (): void => {
    if (!running) return;
    running = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${INLINE_PAGES}`);
  };
  worker.on('message', (message: { log: number; checkpointed: number } | { error: string }) => {
    if ('error' in message) inline();
    else options.onCheckpoint?.(message);
  });
  worker.on('error', inline);
  worker.on('exit', inline);
  db.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
  return {
    get running() {
      return running;
    },
    stop() {
      // A worker that failed has nothing to close (and would never answer).
      if (running && Atomics.load(flags, 0) === 0) {
        worker.postMessage('close');
        Atomics.wait(flags, 0, 0, STOP_WAIT_MS);
      }
      inline();
      void worker.terminate();
    },
  };
}
