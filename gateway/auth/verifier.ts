/**
 * Where signatures are verified: on worker threads, so that verification runs on every core
 * while the event loop parses, answers and applies commands.
 *
 * Contract: `verify(key, signature, candidates)` resolves to the index of the first candidate
 * message the signature covers, or -1. Jobs asked for in one event-loop turn leave together
 * in one task per thread (a message per job would cost the event loop about what the
 * verification saves). With `threads: 0` verification happens inline, synchronously, and the
 * promise is already settled: the choice for tests and for in-process fixtures that want no
 * threads. Results do not depend on the mode; only timing does — callers that must keep an
 * account's commands in arrival order use `sequencer.ts`.
 *
 * The threads are plain `worker_threads` Workers running `verify-worker.mjs`: a message per
 * task to the worker, answered in order (a queue of tasks in flight per worker) by a message
 * that covers every task the worker took in one of its turns (each message woken costs the
 * event loop about as much as a verification's share of the round trip). A worker that dies
 * is replaced, and its tasks in flight are verified inline; so are the jobs in flight or asked
 * for after `close()`: a stop never answers a correct signature as wrong (a request in flight
 * during SIGTERM was once refused 401 "invalid signature"). piscina did the same
 * job with more bookkeeping: a task cost the event loop about twice as much with it
 * (docs/decisions.md, Authentication). A worker holds the process open only while it has tasks.
 */
import { Worker } from 'node:worker_threads';
import { verifyEd25519 } from './ed25519.ts';

export interface Verifier {
  readonly threads: number;
  verify(apiKeyHex: string, signatureHex: string, candidates: readonly string[]): Promise<number>;
  /**
   * `verify`, then `next(index)` when the answer arrives, its value (or throw) settling the one
   * promise returned: a `then` on verify's promise would cost a second promise and microtask
   * turn per job. Optional: callers use `verify(...).then(next)` on a verifier without it.
   */
  verifyThen?<R>(apiKeyHex: string, signatureHex: string, candidates: readonly string[], next: (index: number) => R): Promise<Awaited<R>>;
  close(): Promise<void>;
}

interface Thread {
  worker: Worker;
  /** Tasks sent and not yet answered, oldest first: the worker answers in order. */
  inFlight: Job[][];
}

interface Job {
  key: string;
  signature: string;
  candidates: readonly string[];
  /** Settles the job's promise with `next(index)`, or with the index when there is no `next`. */
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  next: ((index: number) => unknown) | undefined;
}

/** A job's answer: its `next` applied (a throw rejects), else the index itself. */
function settle(job: Job, index: number): void {
  if (job.next === undefined) return job.resolve(index);
  try {
    job.resolve(job.next(index));
  } catch (error) {
    job.reject(error);
  }
}

/** The same answer on the calling thread. */
export function verifyInline(apiKeyHex: string, signatureHex: string, candidates: readonly string[]): number {
  for (let i = 0; i < candidates.length; i++) if (verifyEd25519(apiKeyHex, candidates[i]!, signatureHex)) return i;
  return -1;
}

/** A job a thread could not answer, answered here; input that breaks the check (as it broke the worker) is -1. */
function answerInline(job: Job): void {
  let found = -1;
  try {
    found = verifyInline(job.key, job.signature, job.candidates);
  } catch {
    // not verified
  }
  settle(job, found);
}

export function createVerifier(options: { threads: number }): Verifier {
  const threads = Math.max(0, Math.floor(options.threads));
  if (threads === 0) {
    return {
      threads,
      verify: (key, signature, candidates) => Promise.resolve(verifyInline(key, signature, candidates)),
      close: async () => {},
    };
  }
  const filename = new URL('./verify-worker.mjs', import.meta.url);
  const workers: Thread[] = [];
  let closed = false;
  const spawn = (slot: number): void => {
    const worker = new Worker(filename, { workerData: { perpsimVerifier: true } });
    worker.unref();
    const thread: Thread = { worker, inFlight: [] };
    workers[slot] = thread;
    // One answer may cover several tasks, oldest first (the worker answers the tasks of one of
    // its turns together): the results are read across the slices in flight.
    worker.on('message', (found: Int16Array) => {
      for (let at = 0; at < found.length; ) {
        const slice = thread.inFlight.shift();
        if (slice === undefined) break;
        for (let i = 0; i < slice.length; i++) settle(slice[i]!, found[at + i]!);
        at += slice.length;
      }
      if (thread.inFlight.length === 0) worker.unref();
    });
    const died = (): void => {
      if (workers[slot] !== thread) return;
      for (const slice of thread.inFlight.splice(0)) for (const job of slice) answerInline(job);
      if (!closed) spawn(slot);
    };
    worker.on('error', died);
    worker.on('exit', died);
  };
  for (let slot = 0; slot < threads; slot++) spawn(slot);

  let queued: Job[] = [];
  let scheduled = false;
  const dispatch = (): void => {
    scheduled = false;
    const jobs = queued;
    queued = [];
    if (closed) {
      for (const job of jobs) answerInline(job);
      return;
    }
    const per = Math.ceil(jobs.length / threads);
    for (let from = 0, slot = 0; from < jobs.length; from += per, slot++) {
      const slice = per === jobs.length ? jobs : jobs.slice(from, from + per);
      const keys = new Array<string>(slice.length);
      const signatures = new Array<string>(slice.length);
      const candidates = new Array<readonly string[]>(slice.length);
      for (let i = 0; i < slice.length; i++) {
        keys[i] = slice[i]!.key;
        signatures[i] = slice[i]!.signature;
        candidates[i] = slice[i]!.candidates;
      }
      const thread = workers[slot]!;
      if (thread.inFlight.length === 0) thread.worker.ref();
      thread.inFlight.push(slice);
      thread.worker.postMessage({ keys, signatures, candidates });
    }
  };
  const enqueue = <R>(key: string, signature: string, candidates: readonly string[], next: ((index: number) => R) | undefined): Promise<Awaited<R>> =>
    new Promise<Awaited<R>>((resolve, reject) => {
      queued.push({ key, signature, candidates, resolve: resolve as (value: unknown) => void, reject, next });
      if (!scheduled) {
        scheduled = true;
        setImmediate(dispatch);
      }
    });
  return {
    threads,
    verify: (key, signature, candidates) => enqueue<number>(key, signature, candidates, undefined),
    verifyThen: (key, signature, candidates, next) => enqueue(key, signature, candidates, next),
    close: async () => {
      // Jobs not yet dispatched, and any asked for from now on, are verified inline by
      // dispatch; those in flight inline by their worker's exit.
      closed = true;
      await Promise.all(workers.map((thread) => thread.worker.terminate()));
    },
  };
}
