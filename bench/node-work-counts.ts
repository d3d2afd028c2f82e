/**
 * Counts the node work a process's main thread does (bench/ws-order-ab.ts, COUNT=1): listeners
 * added and removed and events emitted (by event name), nextTicks (by function), socket writes
 * and corks, async resources created (promises included, by type), messages to worker threads
 * and garbage collections (by kind). Deterministic, unlike CPU time: two sides' counts per frame
 * show where one does more (bench/ws-order-ab.ts, bench/order-floor-diff.ts). Patches
 * EventEmitter, process.nextTick, net.Socket's and Worker's prototypes: a bench's process only.
 */
import { createHook } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

export interface NodeWorkCounts {
  reset(): void;
  read(): Map<string, number>;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

export function startNodeWorkCounts(): NodeWorkCounts {
  const counts = new Map<string, number>();
  const bump = (name: string, by = 1): void => void counts.set(name, (counts.get(name) ?? 0) + by);
  const proto = EventEmitter.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['on', 'once', 'removeListener', 'emit', 'prependListener']) {
    const original = proto[method]!;
    proto[method] = function (this: unknown, name: unknown, ...rest: unknown[]) {
      bump(`${method} ${String(name)}`);
      return original.call(this, name, ...rest);
    };
    if (method === 'on') proto.addListener = proto.on!;
    if (method === 'removeListener') proto.off = proto.removeListener!;
  }
  const tick = process.nextTick;
  process.nextTick = ((fn: (...a: unknown[]) => void, ...args: unknown[]) => {
    bump(`nextTick ${fn.name || '?'}`);
    tick(fn, ...args);
  }) as typeof process.nextTick;
  const sock = Socket.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['write', 'cork', 'uncork', '_writeGeneric', '_writev', 'setTimeout']) {
    const original = sock[method]!;
    sock[method] = function (this: unknown, ...a: unknown[]) {
      bump(`socket.${method}`);
      return original.apply(this, a);
    };
  }
  createHook({ init: (_id, type) => bump(`async ${type}`) }).enable();
  // Messages to worker threads (the verify threads): each may wake one, an eventfd write when it sleeps.
  const worker = Worker.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const post = worker.postMessage!;
  worker.postMessage = function (this: unknown, ...a: unknown[]) {
    bump('worker.postMessage');
    return post.apply(this, a);
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind: number } }).detail?.kind ?? -1] ?? 'other';
      bump(`gc ${kind}`);
      bump(`gc ${kind} µs`, entry.duration * 1000);
    }
  }).observe({ entryTypes: ['gc'] });
  return { reset: () => counts.clear(), read: () => new Map(counts) };
}
