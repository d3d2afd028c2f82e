/**
 * Local sweep execution: runs on worker threads with piscina (a well-kept pool: queueing,
 * thread reuse, clean shutdown), one run at a time per thread. Each thread loads the strategy
 * once and runs many tasks.
 *
 * A thread loads run.ts and everything it imports (engine, gateway, backtester): through tsx
 * that is a per-file transform taking seconds per thread, so run.ts is bundled once with
 * esbuild into node_modules/.cache/perpsim/ (beside the packages it imports, so they resolve),
 * named by a hash of the sources, and threads load the bundle. Without esbuild or a writable
 * cache the threads load run.ts through tsx.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { RunResult, RunTask } from './run.ts';

/** run-worker.mjs next to this module (sources; the package's dist/, where scripts/build.mjs copies it), or in the checkout's sim/sweep/ from a bundle elsewhere. */
export function runWorkerUrl(): URL {
  for (const relative of ['./run-worker.mjs', '../sim/sweep/run-worker.mjs']) {
    const url = new URL(relative, import.meta.url);
    if (url.protocol === 'file:' && existsSync(fileURLToPath(url))) return url;
  }
  throw new Error('the sweep worker (sim/sweep/run-worker.mjs) is not installed');
}

export interface RunPool {
  run(task: RunTask): Promise<RunResult>;
  /** Milliseconds the threads spent in runs so far (the rest of the wall time is the pool's overhead). */
  busyMs(): number;
  close(): Promise<void>;
}

function hashSources(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) hashSources(hash, path);
    else if (entry.name.endsWith('.ts')) hash.update(`${path}\n`).update(readFileSync(path));
  }
}

let bundleUrl: string | null | undefined;

/** The cached bundle of run.ts (built when missing), or null when it cannot be built. */
export function runBundle(): string | null {
  if (bundleUrl !== undefined) return bundleUrl;
  // The installed package: scripts/build.mjs built run.ts as dist/sweep-run.js beside this module.
  const packaged = new URL('./sweep-run.js', import.meta.url);
  if (packaged.protocol === 'file:' && existsSync(fileURLToPath(packaged))) return (bundleUrl = packaged.href);
  bundleUrl = null;
  const entry = fileURLToPath(new URL('./run.ts', import.meta.url));
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!existsSync(entry) || !existsSync(join(root, 'node_modules'))) return bundleUrl;
  try {
    const hash = createHash('sha1');
    for (const dir of ['engine', 'gateway', 'sim', 'client']) if (existsSync(join(root, dir))) hashSources(hash, join(root, dir));
    const cache = join(root, 'node_modules', '.cache', 'perpsim');
    const path = join(cache, `sweep-run-${hash.digest('hex').slice(0, 16)}.mjs`);
    if (!existsSync(path)) {
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const { outputFiles } = esbuild.buildSync({ entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', packages: 'external' });
      mkdirSync(cache, { recursive: true });
      const partial = `${path}.${process.pid}.partial`;
      writeFileSync(partial, outputFiles[0]!.text);
      renameSync(partial, path);
    }
    bundleUrl = pathToFileURL(path).href;
  } catch {
    // No esbuild, or a read-only checkout: run.ts through tsx.
  }
  return bundleUrl;
}

export function createRunPool(threads: number): RunPool {
  const pool = new Piscina({ filename: runWorkerUrl().href, minThreads: threads, maxThreads: threads, idleTimeout: 60_000, workerData: { runModule: runBundle() } });
  let busy = 0;
  return {
    run: async (task) => {
      try {
        const { result, ms } = (await pool.run(task)) as { result: RunResult; ms: number };
        busy += ms;
        return result;
      } catch (err) {
        // runOne never throws; this is the thread itself failing (e.g. out of memory).
        return { key: task.key, error: `worker thread failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
    busyMs: () => busy,
    close: () => pool.destroy(),
  };
}
