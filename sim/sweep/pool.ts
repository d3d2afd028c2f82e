/**
 * Local sweep execution: runs on worker threads with piscina (a well-kept pool: queueing,
 * thread reuse, clean shutdown), one run at a time per thread. Each thread loads the backtester
 * and the strategy once, while the caller still plans, and runs many tasks.
 *
 * What a thread loads is plain JavaScript: run.ts bundled once with esbuild, the pure-JavaScript
 * packages it imports inlined (typebox alone is some 700 module files to resolve and open one by
 * one), the native ones (NATIVE) left to `require` beside node_modules. In the checkout the
 * bundle is cached in node_modules/.cache/perpsim/, named by a hash of the sources, the
 * installed packages and the build options; the installed package ships it as dist/sweep-run.js.
 * Without esbuild or a writable cache the threads load run.ts through tsx.
 */
import { fork, type ChildProcess } from 'node:child_process';
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

/** What a thread reports once it is ready (run-worker.mjs), before its first run. */
export interface ThreadStart {
  /** Since the pool was created, ms. */
  wallMs: number;
  /** The thread's own CPU time to get there (NaN where the platform does not tell), ms. */
  cpuMs: number;
  /** Strategy modules loaded at start, and those that failed to (their runs report why). */
  preloaded: string[];
  failed: string[];
}

export interface PoolStats {
  runs: number;
  /** Wall and thread-CPU time the threads spent inside runs, ms. */
  busyMs: number;
  busyCpuMs: number;
  /** CPU time of the threads in total so far (start, runs, between runs), as of their last report, ms. */
  threadCpuMs: number;
}

export interface RunPool {
  run(task: RunTask): Promise<RunResult>;
  /** Resolves once every thread has loaded the backtester and the preloaded strategies. */
  ready(): Promise<ThreadStart[]>;
  /** Milliseconds the threads spent in runs so far (the rest of the wall time is the pool's overhead). */
  busyMs(): number;
  stats(): PoolStats;
  close(): Promise<void>;
}

export type Isolation = 'threads' | 'processes';

export interface RunPoolOptions {
  /** Strategy files (absolute paths) each thread imports as it starts, before the first task arrives. */
  preload?: readonly string[];
  /**
   * 'threads' (default): worker threads in this process (piscina). 'processes': one child
   * process per worker (the same entry over IPC): V8's helper threads and task queue are per
   * process, and threads of one process contend on them (docs/decisions.md).
   */
  isolation?: Isolation;
}

/** Packages with native addons: loaded from node_modules at run time, never inlined. */
const NATIVE = ['sodium-native', 'better-sqlite3', 'better-sqlite3-node20'];
/** Changes whenever the bundle's options below change, so a stale cached bundle is not reused. */
const BUNDLE_FORMAT = 'sweep-run/2: packages inlined except NATIVE';

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
    const hash = createHash('sha1').update(BUNDLE_FORMAT);
    for (const dir of ['engine', 'gateway', 'sim', 'client']) if (existsSync(join(root, dir))) hashSources(hash, join(root, dir));
    // The inlined packages: npm's record of what is installed.
    for (const lock of ['node_modules/.package-lock.json', 'package-lock.json']) if (existsSync(join(root, lock))) hash.update(readFileSync(join(root, lock)));
    const cache = join(root, 'node_modules', '.cache', 'perpsim');
    const path = join(cache, `sweep-run-${hash.digest('hex').slice(0, 16)}.mjs`);
    if (!existsSync(path)) {
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const { outputFiles } = esbuild.buildSync({
        entryPoints: [entry],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        external: NATIVE,
        // Inlined CommonJS packages call require(): an ESM bundle has none of its own.
        banner: { js: "import { createRequire as __sweepCreateRequire } from 'node:module'; const require = __sweepCreateRequire(import.meta.url);" },
        logLevel: 'silent',
      });
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

/**
 * The parent's runtime flags without its module loaders (`--import tsx` and the like): the
 * worker loads the plain-JavaScript bundle first and registers tsx itself when a strategy
 * needs it (run-worker.mjs), as a thread does.
 */
function withoutLoaders(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (/^--(import|require|loader|experimental-loader)$/.test(arg) || arg === '-r') i++;
    else if (!/^--(import|require|loader|experimental-loader)=/.test(arg)) out.push(arg);
  }
  return out;
}

/** A thread's answer to a task (run-worker.mjs). */
interface ThreadReply {
  result: RunResult;
  ms: number;
  cpuMs: number;
  threadCpuMs: number;
  threadId: number;
}

/** How a pool's workers are started, given their tasks and stopped (piscina's threads or child processes). */
interface Workers {
  run(task: RunTask): Promise<ThreadReply>;
  close(): Promise<void>;
}

/** Workers start at once (piscina's minThreads; the processes at creation), so a caller that creates the pool before planning overlaps their start with its own work. */
export function createRunPool(threads: number, options: RunPoolOptions = {}): RunPool {
  const created = performance.now();
  const start = { runModule: runBundle(), preload: options.preload ?? [], created: performance.timeOrigin + created };
  const starts: ThreadStart[] = [];
  let onStarted = (): void => {};
  const started = new Promise<ThreadStart[]>((resolve) => {
    onStarted = () => void (starts.length >= threads && resolve(starts));
  });
  const onMessage = (message: { sweepThreadStart?: ThreadStart }): void => {
    if (message?.sweepThreadStart === undefined) return;
    starts.push(message.sweepThreadStart);
    onStarted();
  };
  let workers: Workers;
  if (options.isolation === 'processes') {
    workers = processWorkers(threads, start, onMessage);
  } else {
    const pool = new Piscina({ filename: runWorkerUrl().href, minThreads: threads, maxThreads: threads, idleTimeout: 60_000, workerData: start });
    pool.on('message', onMessage);
    workers = { run: (task) => pool.run(task) as Promise<ThreadReply>, close: () => pool.destroy() };
  }
  const stats: PoolStats = { runs: 0, busyMs: 0, busyCpuMs: 0, threadCpuMs: 0 };
  /** Each worker's latest total CPU, keyed by its thread id (process id for processes). */
  const threadCpu = new Map<number, number>();
  return {
    run: async (task) => {
      try {
        const reply = await workers.run(task);
        stats.runs++;
        stats.busyMs += reply.ms;
        stats.busyCpuMs += reply.cpuMs;
        threadCpu.set(reply.threadId, reply.threadCpuMs);
        stats.threadCpuMs = [...threadCpu.values()].reduce((a, b) => a + b, 0);
        return reply.result;
      } catch (err) {
        // runOne never throws; this is the thread or process itself failing (e.g. out of memory).
        return { key: task.key, error: `worker ${options.isolation === 'processes' ? 'process' : 'thread'} failed: ${err instanceof Error ? err.message : String(err)}` };
      }
    },
    ready: () => started,
    busyMs: () => stats.busyMs,
    stats: () => ({ ...stats }),
    close: () => workers.close(),
  };
}

/**
 * `count` child processes running run-worker.mjs, one task at a time each, tasks queued in
 * order of arrival. Hand-written (a few lines over node:child_process) rather than a second
 * pool library: piscina has no process runtime, and tinypool's passes no start data and no
 * start report. A child that exits fails its task and is replaced.
 */
function processWorkers(count: number, start: object, onMessage: (message: { sweepThreadStart?: ThreadStart }) => void): Workers {
  interface Pending {
    id: number;
    task: RunTask;
    resolve: (reply: ThreadReply) => void;
    reject: (err: Error) => void;
  }
  const entry = fileURLToPath(runWorkerUrl());
  const queue: Pending[] = [];
  const busy = new Map<ChildProcess, Pending>();
  const idle: ChildProcess[] = [];
  const ready = new Set<ChildProcess>();
  let nextId = 0;
  let closing = false;
  const dispatch = (): void => {
    while (queue.length > 0 && idle.length > 0) {
      const child = idle.shift()!;
      const job = queue.shift()!;
      busy.set(child, job);
      child.send({ id: job.id, task: job.task });
    }
  };
  const spawnOne = (): ChildProcess => {
    const child = fork(entry, [], { env: { ...process.env, PERPSIM_SWEEP_WORKER: JSON.stringify(start) }, execArgv: withoutLoaders(process.execArgv), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (message: { id?: number; reply?: ThreadReply; sweepThreadStart?: ThreadStart }) => {
      if (message.sweepThreadStart !== undefined) {
        ready.add(child);
        onMessage(message);
        idle.push(child);
        dispatch();
        return;
      }
      const job = busy.get(child);
      if (job === undefined || message.id !== job.id) return;
      busy.delete(child);
      idle.push(child);
      job.resolve(message.reply!);
      dispatch();
    });
    child.on('exit', (code, signal) => {
      const job = busy.get(child);
      busy.delete(child);
      const at = idle.indexOf(child);
      if (at >= 0) idle.splice(at, 1);
      if (closing) return;
      job?.reject(new Error(`exited with ${signal ?? code}`));
      // One that never started would fail again: no respawn loop; with none left, nothing runs the queue.
      if (ready.has(child)) children.splice(children.indexOf(child), 1, spawnOne());
      else children.splice(children.indexOf(child), 1);
      if (children.length === 0) for (const waiting of queue.splice(0)) waiting.reject(new Error(`exited with ${signal ?? code} before it started`));
    });
    return child;
  };
  const children = Array.from({ length: count }, spawnOne);
  return {
    run: (task) =>
      new Promise<ThreadReply>((resolve, reject) => {
        queue.push({ id: nextId++, task, resolve, reject });
        dispatch();
      }),
    close: async () => {
      closing = true;
      await Promise.all(
        children.map((child) =>
          child.exitCode !== null || child.signalCode !== null ? undefined : new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
        ),
      );
      for (const job of queue.splice(0)) job.reject(new Error('the pool was closed'));
    },
  };
}
