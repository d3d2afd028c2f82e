/**
 * How much of the engine's time per op is its working set, and how much is the work itself:
 * `npm run bench -- engine-floor` (or `node --expose-gc --import tsx bench/engine-floor.ts`).
 *
 * The same engine replays the issue 2 mix in three worlds, in one process:
 * - the bench world (the baseline): 2,000 makers and 100 takers, ~1,000 resting orders per
 *   market — what `npm run bench:engine` measures;
 * - hot accounts: 20 makers and 5 takers, the same book depth, so the accounts' records stay in
 *   the caches;
 * - all hot: the same 25 accounts and ~100 resting orders per market, so orders and levels do
 *   too. What remains is the engine's work per command: validation, margin, matching, fills,
 *   events.
 * Each pass times one world on a fresh engine by process CPU time; the worlds rotate through
 * the passes so load on a shared machine falls on all of them alike; the median pass counts.
 * The bare typed-array book on the bench world's stream is printed for scale.
 *
 * Env: BENCH_OPS (default 1,000,000), BENCH_PASSES (rounds, default 3), BENCH_SEED.
 * Ends with {"bench":"engine-floor",…}: ops per CPU-second of each world and of the bare book.
 */
import { bareRunner, type Runner } from './runners.ts';
import { perpsimRunner } from './perpsim-runner.ts';
import { generateStream, MIX_PLACE_HEAVY, type Stream } from './stream.ts';
import { MAKER_ACCOUNTS, TAKER_ACCOUNTS } from './setup.ts';
import { envInt } from './env.ts';

const OPS = envInt('BENCH_OPS', 1_000_000);
const PASSES = envInt('BENCH_PASSES', 3);
const SEED = envInt('BENCH_SEED', 42);
const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc');

interface World {
  key: string;
  label: string;
  stream: Stream;
}

function world(key: string, label: string, makerAccounts: number, takerAccounts: number, targetPerMarket: number): World {
  const stream = generateStream({ ops: OPS, seed: SEED, mix: MIX_PLACE_HEAVY, targetPerMarket, makerAccounts, takerAccounts });
  return { key, label, stream };
}

const worlds: World[] = [
  world('benchWorld', `bench world: ${MAKER_ACCOUNTS + TAKER_ACCOUNTS} accounts, ~1,000 orders/market`, MAKER_ACCOUNTS, TAKER_ACCOUNTS, 1_000),
  world('hotAccounts', 'hot accounts: 25 accounts, ~1,000 orders/market', 20, 5, 1_000),
  world('allHot', 'all hot: 25 accounts, ~100 orders/market', 20, 5, 100),
];

/** CPU milliseconds of one timed pass on a fresh state (the prefill is not timed). */
function cpuPass<S>(runner: Runner<S>, s: Stream): number {
  const st = runner.prepare(s);
  gc!();
  const c0 = process.cpuUsage();
  runner.run(st, s, s.prefill, s.length);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1_000;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

console.log(`engine floor: ${fmt(OPS)} ops per world, ${PASSES} rounds, seed ${SEED}, node ${process.version}`);
// Warm-up: every world once, so that the code is optimised for all of them before any timing.
for (const w of worlds) cpuPass(perpsimRunner, w.stream);
const times = new Map<string, number[]>(worlds.map((w) => [w.key, []]));
for (let round = 0; round < PASSES; round++) {
  for (let k = 0; k < worlds.length; k++) {
    const w = worlds[(round + k) % worlds.length]!;
    times.get(w.key)!.push(cpuPass(perpsimRunner, w.stream));
  }
}
cpuPass(bareRunner, worlds[0]!.stream);
const bareMs = median(Array.from({ length: PASSES }, () => cpuPass(bareRunner, worlds[0]!.stream)));

const perCpuSecond = (ms: number): number => OPS / (ms / 1_000);
const baseMs = median(times.get('benchWorld')!);
const figures: Record<string, number | string> = { bench: 'engine-floor' };
for (const w of worlds) {
  const ms = median(times.get(w.key)!);
  figures[`${w.key}OpsPerCpuSec`] = Math.round(perCpuSecond(ms));
  console.log(
    `${w.label.padEnd(52)} ${fmt(perCpuSecond(ms)).padStart(10)} ops per CPU-second ` +
      `(${((ms * 1_000) / OPS).toFixed(2)} µs/op; passes ${times.get(w.key)!.map((t) => fmt(t)).join(', ')} ms; ` +
      `× ${(baseMs / ms).toFixed(2)} the bench world)`,
  );
}
figures.bareBookOpsPerCpuSec = Math.round(perCpuSecond(bareMs));
console.log(`${'bare typed-array book, bench world stream'.padEnd(52)} ${fmt(perCpuSecond(bareMs)).padStart(10)} ops per CPU-second (${((bareMs * 1_000) / OPS).toFixed(3)} µs/op)`);
console.log(JSON.stringify(figures));
