/**
 * Memory back to the system after a mass close of WebSocket connections (gateway/ws/server.ts
 * `massClose`). V8 keeps the pages a burst of garbage freed committed (an idle server runs no
 * memory-reducing GC), so the RSS would stay at its peak; a last-resort GC compacts the heap and
 * releases them. It pauses the event loop once (tens of ms for a heap of ~100 MB), after the
 * closes have settled, and at most once per `minGapMs`. `--expose-gc` is set at run time for this,
 * through V8's flags (node:v8) and a `gc` function taken from a fresh context (node:vm).
 */
import v8 from 'node:v8';
import vm from 'node:vm';

type GcFunction = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void;

export interface Reclaimer {
  /** Schedules one memory-reducing GC `delayMs` from now (a request while one is pending or too recent is dropped). */
  request(): void;
  /** How many have run. */
  runs(): number;
  /** Cancels a pending one. */
  close(): void;
}

export function createReclaimer(options: { delayMs?: number; minGapMs?: number; onRun?: (ms: number) => void } = {}): Reclaimer {
  const delayMs = options.delayMs ?? 1_000;
  const minGapMs = options.minGapMs ?? 10_000;
  let gc: GcFunction | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastAt = -Infinity;
  let count = 0;
  return {
    request(): void {
      if (timer !== undefined || performance.now() - lastAt < minGapMs) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (gc === undefined) {
          v8.setFlagsFromString('--expose-gc');
          gc = vm.runInNewContext('gc') as GcFunction;
        }
        const t = performance.now();
        gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
        lastAt = performance.now();
        count++;
        options.onRun?.(lastAt - t);
      }, delayMs);
      timer.unref();
    },
    runs: () => count,
    close(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
