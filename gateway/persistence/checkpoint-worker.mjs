/**
 * The checkpoint worker (a worker thread of checkpointer.ts): copies the database's WAL into the
 * database file, and does the fsyncs that go with it, on its own connection, so that the
 * event loop's commits never wait for them.
 *
 * Plain JavaScript for the reason verify-worker.mjs gives: a worker thread does not inherit the
 * TypeScript loader under every runner.
 *
 * workerData: { file, state (SharedArrayBuffer, Int32Array: [0] set to 1 once the connection is
 * closed), busyMs, idleMs }. A PASSIVE checkpoint never waits for the writer and never blocks it;
 * after one that copied frames the next follows after busyMs, else after idleMs. Message
 * 'close': closes the connection, sets state[0] and notifies (the owner waits on it).
 * Each checkpoint's result goes to the owner: { log, checkpointed } (frames), or { error }.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const Database = createRequire(import.meta.url)('better-sqlite3');
const { file, state, busyMs, idleMs } = workerData;
const flags = new Int32Array(state);
let db;
let timer;

function done() {
  clearTimeout(timer);
  try {
    db?.close();
  } catch {
    // Closing is all that is left to do; the owner's connection still holds the file.
  }
  db = undefined;
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
  parentPort.close();
}

function run() {
  let copied = false;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    copied = result.checkpointed > 0;
    parentPort.postMessage({ log: result.log, checkpointed: result.checkpointed });
  } catch (err) {
    // SQLITE_BUSY: the owner's connection holds a lock a checkpoint needs; try again later.
    if (err?.code !== 'SQLITE_BUSY') {
      parentPort.postMessage({ error: String(err?.message ?? err) });
      done();
      return;
    }
  }
  timer = setTimeout(run, copied ? busyMs : idleMs);
}

parentPort.on('message', (message) => {
  if (message === 'close') done();
});

try {
  db = new Database(file, { timeout: 0 });
  // This connection never writes; checkpoints are what it is for.
  db.pragma('wal_autocheckpoint = 0');
  timer = setTimeout(run, idleMs);
} catch (err) {
  parentPort.postMessage({ error: String(err?.message ?? err) });
  done();
}
