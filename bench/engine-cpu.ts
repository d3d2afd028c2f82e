/**
 * CPU time of the perpsim runner alone on the 1M-op stream (`node --expose-gc --import tsx
 * bench/engine-cpu.ts`): one warm-up pass, then BENCH_PASSES timed passes on fresh engines,
 * each reported as process CPU time (user + system, `process.cpuUsage`), which a shared machine
 * disturbs far less than wall-clock time. Compare engines by running this script from two
 * checkouts in separate processes, alternating (docs/decisions.md "Engine throughput").
 * Ends with one JSON line: {"bench":"engine-cpu","cpuMs":[…],"wallMs":[…]}.
 */
import { perpsimRunner } from './perpsim-runner.ts';
import { generateStream, MIX_PLACE_HEAVY } from './stream.ts';
import { envInt } from './env.ts';

const OPS = envInt('BENCH_OPS', 1_000_000);
const PASSES = envInt('BENCH_PASSES', 2);
const s = generateStream({ ops: OPS, seed: envInt('BENCH_SEED', 42), mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const warm = perpsimRunner.prepare(s);
perpsimRunner.run(warm, s, s.prefill, s.length);
const cpuMs: number[] = [];
const wallMs: number[] = [];
for (let pass = 0; pass < PASSES; pass++) {
  const st = perpsimRunner.prepare(s);
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  perpsimRunner.run(st, s, s.prefill, s.length);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  cpuMs.push(Math.round((c.user + c.system) / 1_000));
  wallMs.push(Math.round(wall));
}
console.log(JSON.stringify({ bench: 'engine-cpu', ops: OPS, cpuMs, wallMs, summary: perpsimRunner.summary(warm) }));
