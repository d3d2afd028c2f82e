/**
 * Where signatures are verified: on worker threads (piscina), so that verification runs on
 * every core while the event loop parses, answers and applies commands.
 *
 * Contract: `verify(key, signature, candidates)` resolves to the index of the first candidate
 * message the signature covers, or -1. Jobs asked for in one event-loop turn leave together
 * in one task per thread (a message per job would cost the event loop about what the
 * verification saves). With `threads: 0` verification happens inline, synchronously, and the
 * promise is already settled: the choice for tests and for in-process fixtures that want no
 * threads. Results do not depend on the mode; only timing does — callers that must keep an
 * account's commands in arrival order use `sequencer.ts`.
 */
import { Piscina } from 'piscina';
import { verifyEd25519 } from './ed25519.ts';

export interface Verifier {
  readonly threads: number;
  verify(apiKeyHex: string, signatureHex: string, candidates: readonly string[]): Promise<number>;
  close(): Promise<void>;
}

interface Job {
  key: string;
  signature: string;
  candidates: readonly string[];
  resolve: (index: number) => void;
}

/** The same answer on the calling thread. */
export function verifyInline(apiKeyHex: string, signatureHex: string, candidates: readonly string[]): number {
  for (let i = 0; i < candidates.length; i++) if (verifyEd25519(apiKeyHex, candidates[i]!, signatureHex)) return i;
  return -1;
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
  const pool = new Piscina({
    filename: new URL('./verify-worker.mjs', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    // Idle workers stay: spawning one costs more than thousands of verifications.
    idleTimeout: 2 ** 31 - 1,
  });
  let queued: Job[] = [];
  let scheduled = false;
  const dispatch = (): void => {
    scheduled = false;
    const jobs = queued;
    queued = [];
    const per = Math.ceil(jobs.length / threads);
    for (let from = 0; from < jobs.length; from += per) {
      const slice = jobs.slice(from, from + per);
      const task = { keys: slice.map((j) => j.key), signatures: slice.map((j) => j.signature), candidates: slice.map((j) => j.candidates) };
      pool.run(task).then(
        (found: Int16Array) => {
          for (let i = 0; i < slice.length; i++) slice[i]!.resolve(found[i]!);
        },
        // A worker that died answers "not verified"; the pool replaces it.
        () => {
          for (const job of slice) job.resolve(-1);
        },
      );
    }
  };
  return {
    threads,
    verify(key, signature, candidates) {
      return new Promise<number>((resolve) => {
        queued.push({ key, signature, candidates, resolve });
        if (!scheduled) {
          scheduled = true;
          setImmediate(dispatch);
        }
      });
    },
    close: () => pool.destroy(),
  };
}
