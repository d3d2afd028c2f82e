/**
 * Where a backtest run allocates: V8's sampling heap profiler (objects later collected included)
 * over one run of bench/backtest-gc.ts's market maker (the 1,000,000-event bench recording,
 * through the sweep threads' bundle of run.ts), after one warm-up run in the same thread. Prints
 * the sampled bytes by source file and by the allocating function with its two callers (bundle
 * lines mapped back to their source file), then {"bench":"backtest-alloc","allocatedMB":…}.
 *
 *   node --import tsx bench/backtest-alloc.ts        (BENCH_EVENTS, SAMPLE_BYTES=4096, TOP=30)
 *
 * SURVIVORS=1 leaves out what scavenges collected: what is left is what survived them (promoted,
 * or live at the end), the part of the garbage that costs the GC work.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { envInt } from './env.ts';
import { markedRuns } from './marked-runs.ts';
import { binaryFile, recordingFile } from './recording.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const TOP = envInt('TOP', 30);
const data = binaryFile(recordingFile(EVENTS));
const SURVIVORS = process.env.SURVIVORS === '1';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

// The marked runs print their marks on stdout: swallow them.
const write = process.stdout.write.bind(process.stdout);
const quiet = (): void => void (process.stdout.write = (() => true) as typeof process.stdout.write);
const loud = (): void => void (process.stdout.write = write);

quiet();
await markedRuns(data, 1, '@@run');
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
// The two include flags keep the samples of objects the GC has collected: garbage is what is measured.
await session.post('HeapProfiler.startSampling', { samplingInterval: envInt('SAMPLE_BYTES', 4096), includeObjectsCollectedByMinorGC: !SURVIVORS, includeObjectsCollectedByMajorGC: true } as never);
await markedRuns(data, 1, '@@run');
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
session.disconnect();
loud();

/** A bundle's line back to the source file esbuild named in the comment above it. */
const bundles = new Map<string, string[]>();
function sourceOf(url: string, line: number): string {
  if (!url.startsWith('file://') || !url.endsWith('.mjs') || !url.includes('/.cache/')) return url.split('/').slice(-2).join('/') || '(native)';
  let lines = bundles.get(url);
  if (lines === undefined) {
    lines = readFileSync(new URL(url), 'utf8').split('\n');
    bundles.set(url, lines);
  }
  for (let i = line; i >= 0; i--) if (lines[i]!.startsWith('// ')) return lines[i]!.slice(3);
  return '(bundle)';
}

const byFile = new Map<string, number>();
const bySite = new Map<string, number>();
let total = 0;
const add = (map: Map<string, number>, key: string, n: number): void => void map.set(key, (map.get(key) ?? 0) + n);
function walk(node: ProfileNode, stack: string[]): void {
  const name = `${node.callFrame.functionName || '(anonymous)'}@${sourceOf(node.callFrame.url, node.callFrame.lineNumber)}`;
  const here = [...stack, name];
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byFile, node.callFrame.url === '' ? `(native) in ${stack.at(-1)}` : sourceOf(node.callFrame.url, node.callFrame.lineNumber), node.selfSize);
    add(bySite, here.slice(-3).reverse().join(' < '), node.selfSize);
  }
  for (const child of node.children) walk(child, here);
}
walk(profile.head, []);
const mb = (n: number): string => (n / 1e6).toFixed(1).padStart(7);
console.log(`${SURVIVORS ? 'survived a scavenge' : 'allocated'} in one run (sampled): ${(total / 1e6).toFixed(0)} MB\nby file:`);
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${mb(v)} MB  ${k}`);
console.log('by function < caller < caller:');
for (const [k, v] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${mb(v)} MB  ${k}`);
console.log(JSON.stringify({ bench: 'backtest-alloc', events: EVENTS, ...(SURVIVORS ? { survivedMB: Math.round(total / 1e6) } : { allocatedMB: Math.round(total / 1e6) }) }));
