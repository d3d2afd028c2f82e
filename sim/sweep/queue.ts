/**
 * Sweeps across machines on BullMQ (Redis): the submitter puts each run on a queue as a job
 * whose id is the run's key; `perpsim worker` processes on any machine take jobs and run them
 * on their own thread pool (pool.ts); the submitter collects the jobs' results.
 *
 * Contract:
 * - Resumable: a job id is the run's key, so a repeated sweep finds finished runs (completed
 *   jobs are kept) and reuses their results; a run that finished with an error, or a job that
 *   failed, is run again.
 * - A worker killed mid-run loses nothing: its job's lock (`lockMs`) expires, and another
 *   worker's stalled-job check (every `lockMs`) puts it back on the queue (BullMQ's stalled-job
 *   handling), up to MAX_STALLED times.
 * - The data file is named by its path: every worker must see it there (a shared disk); a worker
 *   that cannot read it finishes the run with that error (run.ts), it does not hang.
 * - An unreachable Redis is a usage error (exit 2) naming the URL, before any run is queued.
 */
import { Job, Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { SweepUsageError } from './grid.ts';
import { createRunPool } from './pool.ts';
import type { RunResult, RunTask } from './run.ts';

const MAX_STALLED = 3;
/** Attempts of a job whose processing threw (a run itself never throws: run.ts). */
const ATTEMPTS = 2;

export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
}

/** redis://[user:password@]host[:port][/db] */
export function parseRedisUrl(url: string): RedisTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SweepUsageError(`--queue ${url}: expected redis://host:port/db`);
  }
  if (u.protocol !== 'redis:') throw new SweepUsageError(`--queue ${url}: expected a redis:// URL`);
  const db = u.pathname === '' || u.pathname === '/' ? 0 : Number(u.pathname.slice(1));
  if (!Number.isInteger(db) || db < 0) throw new SweepUsageError(`--queue ${url}: the database must be a number, e.g. redis://127.0.0.1:6379/0`);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port === '' ? 6379 : Number(u.port),
    db,
    ...(u.username !== '' && { username: decodeURIComponent(u.username) }),
    ...(u.password !== '' && { password: decodeURIComponent(u.password) }),
  };
}

/** Connects once and pings; an unreachable server is a SweepUsageError naming the URL. */
export async function checkRedis(url: string, timeoutMs = 3000): Promise<RedisTarget> {
  const target = parseRedisUrl(url);
  const client = new Redis({ ...target, lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw new SweepUsageError(`cannot reach Redis at ${url}: ${(err as Error).message || String(err)}`);
  } finally {
    client.disconnect();
  }
  return target;
}

function connection(target: RedisTarget): RedisTarget & { maxRetriesPerRequest: null } {
  return { ...target, maxRetriesPerRequest: null };
}

/**
 * Runs `tasks` through the queue; `onResult` gets each run's result once (in completion order).
 * `reused` counts runs found finished in the queue.
 */
export async function runOnQueue(url: string, queueName: string, tasks: readonly RunTask[], onResult: (r: RunResult) => void): Promise<{ reused: number }> {
  const target = await checkRedis(url);
  const queue = new Queue<RunTask, RunResult>(queueName, { connection: connection(target) });
  const events = new QueueEvents(queueName, { connection: connection(target) });
  const pending = new Map<string, RunTask>();
  for (const t of tasks) pending.set(t.key, t);
  let reused = 0;
  let settle: () => void = () => {};
  const allDone = new Promise<void>((resolve) => (settle = resolve));
  const finish = (key: string, result: RunResult): void => {
    if (!pending.delete(key)) return;
    onResult({ ...result, key });
    if (pending.size === 0) settle();
  };
  /** Looks at a job: finished (completed or failed for good) → its result. */
  const inspect = async (key: string): Promise<void> => {
    const job = await Job.fromId<RunTask, RunResult>(queue, key);
    if (job === undefined) return;
    const state = await job.getState();
    if (state === 'completed' && job.returnvalue !== null && job.returnvalue !== undefined) finish(key, job.returnvalue);
    else if (state === 'failed') finish(key, { key, error: `the run's job failed: ${job.failedReason}` });
  };
  try {
    await events.waitUntilReady();
    events.on('completed', ({ jobId }) => void inspect(jobId).catch(() => {}));
    events.on('failed', ({ jobId }) => void inspect(jobId).catch(() => {}));
    // What is already there: finished runs are reused; errors and failures run again.
    const toAdd: RunTask[] = [];
    const keys = [...pending.keys()];
    for (let i = 0; i < keys.length; i += 200) {
      await Promise.all(
        keys.slice(i, i + 200).map(async (key) => {
          const job = await Job.fromId<RunTask, RunResult>(queue, key);
          if (job === undefined) return void toAdd.push(pending.get(key)!);
          const state = await job.getState();
          if (state === 'completed' && job.returnvalue?.summaryJson !== undefined) {
            reused++;
            finish(key, job.returnvalue);
          } else if (state === 'completed' || state === 'failed') {
            await job.remove();
            toAdd.push(pending.get(key)!);
          }
          // waiting, active, delayed: another sweep queued it; its result will come.
        }),
      );
    }
    const order = new Map(tasks.map((t, i) => [t.key, i]));
    toAdd.sort((a, b) => order.get(a.key)! - order.get(b.key)!);
    for (let i = 0; i < toAdd.length; i += 500) {
      await queue.addBulk(toAdd.slice(i, i + 500).map((t) => ({ name: 'run', data: t, opts: { jobId: t.key, attempts: ATTEMPTS, removeOnComplete: false, removeOnFail: false } })));
    }
    // Events are the fast path; a slow poll covers any the subscription missed.
    const poll = setInterval(() => {
      for (const key of [...pending.keys()].slice(0, 200)) void inspect(key).catch(() => {});
    }, 2000);
    if (pending.size > 0) await allDone;
    clearInterval(poll);
  } finally {
    await events.close();
    await queue.close();
  }
  return { reused };
}

export interface QueueWorkerOptions {
  url: string;
  queueName: string;
  threads: number;
  lockMs: number;
  log: (line: string) => void;
}

/** `perpsim worker`: takes runs from the queue until stopped; answers a function that stops it cleanly. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<{ close(): Promise<void> }> {
  const target = await checkRedis(options.url);
  const pool = createRunPool(options.threads);
  const worker = new Worker<RunTask, RunResult>(
    options.queueName,
    async (job) => {
      options.log(`run started ${job.id}`);
      const result = await pool.run(job.data);
      options.log(`run finished ${job.id}${result.error === undefined ? '' : ` with error: ${result.error}`}`);
      return result;
    },
    { connection: connection(target), concurrency: options.threads, lockDuration: options.lockMs, stalledInterval: options.lockMs, maxStalledCount: MAX_STALLED },
  );
  worker.on('error', (err) => options.log(`worker error: ${err.message}`));
  await worker.waitUntilReady();
  options.log(`worker ready on ${options.url} queue ${options.queueName} with ${options.threads} threads`);
  return {
    close: async () => {
      await worker.close();
      await pool.close();
    },
  };
}
