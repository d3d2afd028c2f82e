/**
 * Bytes the engine benchmark's timed runner allocates per op, by allocating function:
 * `node --expose-gc --import tsx bench/engine-alloc.ts` (DIR=<checkout> measures another
 * checkout's runner and engine). V8's sampling heap profiler runs over one pass of the 1M-op
 * stream after a warm-up pass, keeping the samples of objects the GC has already collected, so
 * the figure is all garbage made, not what survives. Unlike CPU time it does not move with the
 * machine's load (a few per cent between runs, from the sampling), which makes it the gauge for
 * changes whose aim is less garbage (docs/decisions.md "Engine throughput" and docs/performance-log.md). The function named is
 * where V8 attributes the allocation after inlining: a callee inlined into its caller shows under
 * the caller's name (run with --no-turbo-inlining to see every allocating function by itself).
 * Ends with one JSON line: {"bench":"engine-alloc","bytesPerOp":…,"top":[[name, bytesPerOp],…]}.
 */
import { Session } from 'node:inspector/promises';
import { envInt } from './env.ts';
import type { Runner } from './runners.ts';
import type { Stream } from './stream.ts';

interface ProfileNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: ProfileNode[];
}

const dir = process.env.DIR ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const { perpsimRunner } = (await import(dir + '/bench/perpsim-runner.ts')) as { perpsimRunner: Runner<unknown> };
const { generateStream, MIX_PLACE_HEAVY } = (await import(dir + '/bench/stream.ts')) as typeof import('./stream.ts');
const s: Stream = generateStream({ ops: envInt('BENCH_OPS', 1_000_000), seed: envInt('BENCH_SEED', 42), mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const warm = perpsimRunner.prepare(s);
perpsimRunner.run(warm, s, s.prefill, s.length);
const st = perpsimRunner.prepare(s);
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
// The two include flags keep collected objects in the profile (V8 ≥ 10); node's types lag behind.
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as { samplingInterval: number });
perpsimRunner.run(st, s, s.prefill, s.length);
const { profile } = await session.post('HeapProfiler.stopSampling');
session.disconnect();

const byFunction = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode): void => {
  if (node.selfSize > 0) {
    const file = node.callFrame.url.split('/').pop() ?? '';
    const key = `${node.callFrame.functionName || '(anonymous)'} ${file}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child);
};
walk(profile.head as unknown as ProfileNode);
const ops = s.length - s.prefill;
const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => [k, Math.round((v / ops) * 10) / 10] as const);
console.log(`engine allocation: ${dir}, ${ops.toLocaleString('en-US')} ops, ${(total / ops).toFixed(0)} bytes per op`);
for (const [k, v] of top) console.log(`${String(v).padStart(8)}  ${k}`);
console.log(JSON.stringify({ bench: 'engine-alloc', ops, bytesPerOp: Math.round(total / ops), top }));
