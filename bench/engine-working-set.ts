/**
 * What the working set costs the engine per op: `node --expose-gc --import tsx
 * bench/engine-working-set.ts`. The bench:engine stream (same mix, same seed) is generated with
 * fewer resting orders per market and fewer maker accounts, so that the orders, levels,
 * accounts and risk rows the stream touches shrink from megabytes to what stays in the caches;
 * the engine replays each world, and so does the bare typed-array book as a control (its work
 * per op hardly depends on the world). A world that is much faster per op says how much a
 * smaller working set per op (struct-of-arrays orders, denser accounts) could at most bring;
 * one that is not says the time is instructions, not misses (docs/decisions.md, "Engine core,
 * second design").
 *
 * Worlds are run round-robin, PASSES times each (default 5), each pass on a fresh engine and
 * timed by process CPU time; the median pass counts. Env: BENCH_OPS (default 1,000,000),
 * PASSES, BENCH_SEED.
 * Ends with {"bench":"engine-working-set","worlds":[{resting,makers,nsPerOp,bareNsPerOp},…]}.
 */
import { perpsimRunner } from './perpsim-runner.ts';
import { bareRunner } from './runners.ts';
import { generateStream, MIX_PLACE_HEAVY, type Stream } from './stream.ts';
import { envInt } from './env.ts';
import { MAKER_ACCOUNTS } from './setup.ts';

const OPS = envInt('BENCH_OPS', 1_000_000);
const PASSES = envInt('PASSES', 5);
const SEED = envInt('BENCH_SEED', 42);

interface World {
  resting: number;
  makers: number;
  stream: Stream;
  engineMs: number[];
  bareMs: number[];
}

const shapes: [number, number][] = [
  [1_000, MAKER_ACCOUNTS],
  [100, MAKER_ACCOUNTS],
  [1_000, 100],
  [100, 100],
  [20, 20],
];
const worlds: World[] = shapes.map(([resting, makers]) => ({
  resting,
  makers,
  stream: generateStream({ ops: OPS, seed: SEED, mix: MIX_PLACE_HEAVY, targetPerMarket: resting, makerAccounts: makers }),
  engineMs: [],
  bareMs: [],
}));

const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1_000;
};

function time<S>(runner: { prepare(s: Stream): S; run(st: S, s: Stream, from: number, to: number): void }, s: Stream): number {
  const st = runner.prepare(s);
  globalThis.gc?.();
  const c0 = cpuMs();
  runner.run(st, s, s.prefill, s.length);
  return cpuMs() - c0;
}

// Warm-up: every world once.
for (const w of worlds) {
  time(perpsimRunner, w.stream);
  time(bareRunner, w.stream);
}
for (let pass = 0; pass < PASSES; pass++) {
  for (const w of worlds) {
    w.engineMs.push(time(perpsimRunner, w.stream));
    w.bareMs.push(time(bareRunner, w.stream));
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(worlds[0]!.engineMs);
console.log(`engine working set: ${OPS.toLocaleString('en-US')} ops (seed ${SEED}), ${PASSES} passes, CPU time, median`);
console.log('resting/market  makers   engine ns/op  vs default   bare ns/op');
const out = worlds.map((w) => {
  const ms = median(w.engineMs);
  const bare = median(w.bareMs);
  const nsPerOp = Math.round((ms * 1e6) / OPS);
  const bareNsPerOp = Math.round((bare * 1e6) / OPS);
  console.log(
    `${String(w.resting).padStart(14)}  ${String(w.makers).padStart(6)}   ${String(nsPerOp).padStart(12)}  ${(ms / base).toFixed(3).padStart(10)}   ${String(bareNsPerOp).padStart(10)}`,
  );
  return { resting: w.resting, makers: w.makers, nsPerOp, ratioToDefault: Number((ms / base).toFixed(3)), bareNsPerOp };
});
console.log(JSON.stringify({ bench: 'engine-working-set', ops: OPS, passes: PASSES, worlds: out }));
