/**
 * The JSONL reader thread's entry (jsonl-pipeline.ts starts it): registers tsx, whose loader
 * hooks do not reach worker threads on Node 20, then runs jsonl-worker.ts. Plain JavaScript, so
 * it loads under any runner. A failure to load is reported as the reader's error message, so
 * the replaying thread never waits for a worker that is not there.
 */
import { workerData } from 'node:worker_threads';

let run;
try {
  const { register } = await import('tsx/esm/api');
  register();
  ({ run } = await import('./jsonl-worker.ts'));
} catch (err) {
  workerData.port.postMessage({ error: `the JSONL reader thread did not start: ${err instanceof Error ? err.message : String(err)}` });
  // control[PRODUCED]: see jsonl-worker.ts.
  Atomics.add(workerData.control, 0, 1);
  Atomics.notify(workerData.control, 0);
}
if (run !== undefined) run(workerData);
