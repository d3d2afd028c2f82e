/**
 * Local sweep execution: runs on worker threads with piscina (a well-kept pool: queueing,
 * thread reuse, clean shutdown), one run at a time per thread. Each thread loads the strategy
 * once and runs many tasks.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { RunResult, RunTask } from './run.ts';

/** run-worker.mjs next to this module (sources), or in the checkout's sim/sweep/ from dist/'s bundle. */
export function runWorkerUrl(): URL {
  for (const relative of ['./run-worker.mjs', '../sim/sweep/run-worker.mjs']) {
    const url = new URL(relative, import.meta.url);
    if (url.protocol === 'file:' && existsSync(fileURLToPath(url))) return url;
  }
  throw new Error('the sweep worker (sim/sweep/run-worker.mjs) is not installed');
}

export interface RunPool {
  run(task: RunTask): Promise<RunResult>;
  close(): Promise<void>;
}

export function createRunPool(threads: number): RunPool {
  const pool = new Piscina({ filename: runWorkerUrl().href, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  return {
    run: async (task) => {
      try {
        return (await pool.run(task)) as RunResult;
      } catch (err) {
        // runOne never throws; this is the thread itself failing (e.g. out of memory).
        return { key: task.key, error: `worker thread failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
    close: () => pool.destroy(),
  };
}
