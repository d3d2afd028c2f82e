/**
 * Engine throughput and memory bench: `npm run bench:engine`.
 *
 * One seeded stream (BENCH_OPS benchmark ops, default 1,000,000, over 10 markets, after an
 * untimed prefill that builds ~1,000 resting orders per market) is replayed by three runners
 * in this process: perpsim's engine, a bare typed-array book (the ceiling) and the
 * `nodejs-order-book` package. Each runner gets a full warm-up pass on a fresh book, then a
 * timed pass on another fresh book. Then 1,000,000 orders are rested in a fresh engine to
 * measure heap per resting order. perpsim runs twice: with a new command object and a new result
 * object per op (`perpsim (fresh)`, the harness of every figure before engine9), then with the
 * command records reused and the engine in result-reuse mode (`perpsim`, the headline figure);
 * see bench/perpsim-runner.ts.
 *
 * Env: BENCH_OPS (ops), BENCH_SEED, BENCH_MIX (place-heavy | exchange-core),
 * BENCH_MEM_ORDERS (resting orders for the memory probe; default 1M, or 100k when
 * BENCH_OPS < 1M so a smoke run stays quick).
 *
 * The figures are reported, not asserted: targets are ≥ 2M ops/s, ≥ 0.15 × the bare book,
 * ≤ 250 MB per 1M resting orders (the goal beyond: 5M ops/s).
 */
import { bareRunner, nobMemory, nobRunner, type Runner } from './runners.ts';
import { MARKETS, START_MID } from './setup.ts';
import {
  generateStream,
  MIX_EXCHANGE_CORE,
  MIX_PLACE_HEAVY,
  OP_NAMES,
  PLACED_NAMES,
  type Stream,
} from './stream.ts';
import { envInt } from './env.ts';


const OPS = envInt('BENCH_OPS', 1_000_000);
const SEED = envInt('BENCH_SEED', 42);
const MEM_ORDERS = envInt('BENCH_MEM_ORDERS', OPS >= 1_000_000 ? 1_000_000 : 100_000);
const MIX_NAME = process.env.BENCH_MIX ?? MIX_PLACE_HEAVY.name;
const MIX = [MIX_PLACE_HEAVY, MIX_EXCHANGE_CORE].find((m) => m.name === MIX_NAME);
if (!MIX) throw new Error(`BENCH_MIX must be ${MIX_PLACE_HEAVY.name} or ${MIX_EXCHANGE_CORE.name}`);
const TARGET_PER_MARKET = 1_000;

const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:engine does)');

/** A missing engine is a one-liner; anything the engine throws is shown in full. */
function describe(err: unknown): string {
  const e = err as Error & { code?: string };
  if (e.code === 'ERR_MODULE_NOT_FOUND') return e.message.split('\n')[0]!;
  return e.stack ?? String(err);
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (n: number, total: number): string => ((100 * n) / total).toFixed(1) + '%';

interface Timing<K> {
  opsPerSec: number;
  seconds: number;
  /**
   * Process CPU time of the timed pass (GC threads included): on a shared VM, where the
   * wall-clock figure mostly measures how much of a core the run was given, ops per CPU-second
   * is the steadier figure.
   */
  cpuSeconds: number;
  summary: string;
  /** What `keep` took from the warm-up pass's final state (the perpsim validation tallies). */
  kept: K | undefined;
}

/**
 * The warm-up pass, in a function of its own so that its state is garbage by the time the timed
 * pass runs (a leftover engine or book would sit in the heap and slow every full GC of the runner
 * measured next): only its summary and what `keep` takes survive.
 */
function warmUp<S, K>(warmup: Runner<S>, s: Stream, keep: ((st: S) => K) | undefined): { summary: string; kept: K | undefined } {
  const warm = warmup.prepare(s);
  warmup.run(warm, s, s.prefill, s.length);
  return { summary: warmup.summary(warm), kept: keep?.(warm) };
}

/**
 * Warm-up pass on a fresh book, then the timed pass on another fresh one. The warm-up may be a
 * different (instrumented) runner over the same code under test.
 */
function measure<S, K = never>(runner: Runner<S>, s: Stream, warmup: Runner<S> = runner, keep?: (st: S) => K): Timing<K> {
  const warm = warmUp(warmup, s, keep);
  const st = runner.prepare(s);
  gc!();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  runner.run(st, s, s.prefill, s.length);
  const seconds = (performance.now() - t0) / 1_000;
  const cpu = process.cpuUsage(c0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const summary = runner.summary(st);
  return {
    opsPerSec: OPS / seconds,
    seconds,
    cpuSeconds,
    // A differing warm-up outcome would mean the runner is not deterministic.
    summary: summary === warm.summary ? summary : `${summary} (warm-up pass: ${warm.summary})`,
    kept: warm.kept,
  };
}

function report(name: string, t: Timing<unknown>): void {
  console.log(
    `${name.padEnd(18)} ${fmt(t.opsPerSec).padStart(12)} ops/s  (${t.seconds.toFixed(3)} s; ` +
      `CPU ${t.cpuSeconds.toFixed(3)} s, ${fmt(OPS / t.cpuSeconds)} ops per CPU-second)  ${t.summary}`,
  );
}

// ---------------------------------------------------------------------------------------------

console.log(`engine bench: ${fmt(OPS)} ops, ${MARKETS} markets, seed ${SEED}, mix ${MIX.name}, node ${process.version}`);
const g0 = performance.now();
const stream = generateStream({ ops: OPS, seed: SEED, mix: MIX, targetPerMarket: TARGET_PER_MARKET });
console.log(
  `stream: ${fmt(stream.prefill)} prefill + ${fmt(OPS)} benchmark ops, ${fmt(stream.refs)} orders, ` +
    `generated in ${((performance.now() - g0) / 1_000).toFixed(2)} s (not timed)`,
);
console.log(
  '  mix: ' + stream.opCounts.map((c, k) => `${OP_NAMES[k]} ${pct(c, OPS)}`).join(', '),
);
const ex = stream.expected;
console.log(
  `  reference outcome (whole stream): ` +
    ex.placed.map((c, k) => `${PLACED_NAMES[k]} ${fmt(c)}`).join(', ') +
    `; cancels ${fmt(ex.cancels)}, modifies ${fmt(ex.modifies)}, trades ${fmt(ex.trades)}, ` +
    `traded qty ${fmt(ex.tradedQty)}`,
);
console.log(
  `  resting orders: ${fmt(stream.restingAfterPrefill)} after prefill, ${fmt(ex.restingAtEnd)} at end`,
);
console.log('');

const bare = measure(bareRunner, stream);
report('bare book', bare);
const nob = measure(nobRunner, stream);
report('nodejs-order-book', nob);

let perpsim: Timing<unknown> | null = null;
let perpsimFresh: Timing<unknown> | null = null;
try {
  const mod = await import('./perpsim-runner.ts');
  // The warm-up is the validation pass: same engine, but every result and event classified.
  // The old way first, for a like-for-like comparison with earlier figures: a new command
  // object and a new result object per op (perpsim-runner.ts, BENCH_COMMANDS).
  perpsimFresh = measure(mod.perpsimRunnerWith('fresh'), stream, mod.perpsimTalliedRunnerWith('fresh'));
  report('perpsim (fresh)', perpsimFresh);
  const t = measure(mod.perpsimRunnerWith('reused'), stream, mod.perpsimTalliedRunnerWith('reused'), (st) => ({
    counter: st.counter,
    tally: st.tally,
    eventTally: st.eventTally,
  }));
  perpsim = t;
  report('perpsim', t);
  const v = t.kept!;
  console.log('');
  console.log(`perpsim validation pass (whole stream incl. prefill, ${fmt(v.counter.events)} events):`);
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  for (const [label, n] of sorted(v.tally!)) console.log(`  ${label.padEnd(48)} ${fmt(n).padStart(10)}`);
  console.log('  events: ' + sorted(v.eventTally!).map(([type, n]) => `${type} ${fmt(n)}`).join(', '));
  const fills = v.eventTally!.get('fill') ?? 0;
  console.log(
    `  fills ${fmt(fills)} vs reference ${fmt(2 * ex.trades)} (2 per trade): ` +
      (fills === 2 * ex.trades ? 'match' : 'MISMATCH'),
  );
} catch (err) {
  console.log(`perpsim: not measured (${describe(err)})`);
}

console.log('');
if (perpsim) {
  console.log(`perpsim / bare book:         ${(perpsim.opsPerSec / bare.opsPerSec).toFixed(3)}  (target ≥ 0.15; in CPU time ${(bare.cpuSeconds / perpsim.cpuSeconds).toFixed(3)})`);
  console.log(`perpsim / nodejs-order-book: ${(perpsim.opsPerSec / nob.opsPerSec).toFixed(3)}  (in CPU time ${(nob.cpuSeconds / perpsim.cpuSeconds).toFixed(3)})`);
  console.log(`perpsim ops/s target ≥ 2,000,000: ${perpsim.opsPerSec >= 2_000_000 ? 'met' : 'NOT met'} (per CPU-second ${fmt(OPS / perpsim.cpuSeconds)})`);
  if (perpsimFresh) {
    console.log(
      `perpsim (fresh: a command and a result object per op, the harness before): ${fmt(perpsimFresh.opsPerSec)} ops/s, ` +
        `${(perpsimFresh.opsPerSec / bare.opsPerSec).toFixed(3)} × the bare book, per CPU-second ${fmt(OPS / perpsimFresh.cpuSeconds)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Memory: resting orders in a fresh engine.

let heapMBPer1M: number | null = null;
const MB = 1024 * 1024;
try {
  const mod = await import('./perpsim-runner.ts');
  gc();
  const mem = mod.perpsimMemory(MEM_ORDERS);
  heapMBPer1M = (mem.heapDeltaBytes / MB) * (1_000_000 / MEM_ORDERS);
  console.log(
    `perpsim memory: ${fmt(MEM_ORDERS)} resting orders -> heap +${(mem.heapDeltaBytes / MB).toFixed(1)} MB, ` +
      `${heapMBPer1M.toFixed(1)} MB per 1M orders (target ≤ 250: ${heapMBPer1M <= 250 ? 'met' : 'NOT met'}), ` +
      `${(mem.heapDeltaBytes / MEM_ORDERS).toFixed(0)} B/order`,
  );
  for (const [label, n] of mem.rejected) console.log(`  not OPEN: ${label} ${fmt(n)}`);
} catch (err) {
  console.log(`perpsim memory: not measured (${describe(err)})`);
}
gc();
const nobBytes = nobMemory(MEM_ORDERS, START_MID);
console.log(
  `nodejs-order-book memory: ${((nobBytes / MB) * (1_000_000 / MEM_ORDERS)).toFixed(1)} MB per 1M orders ` +
    `(same layout, for reference)`,
);

const round = (n: number | null | undefined, digits = 0): number | null =>
  n === null || n === undefined ? null : Number(n.toFixed(digits));
console.log(
  JSON.stringify({
    bench: 'engine',
    opsPerSec: round(perpsim?.opsPerSec),
    bareBookOpsPerSec: round(bare.opsPerSec),
    nodejsOrderBookOpsPerSec: round(nob.opsPerSec),
    heapMBPer1MOrders: round(heapMBPer1M, 1),
    // Process CPU time: steadier than wall-clock time on a shared machine.
    opsPerCpuSecond: perpsim === null ? null : round(OPS / perpsim.cpuSeconds),
    bareBookOpsPerCpuSecond: round(OPS / bare.cpuSeconds),
    ratioToBareBook: perpsim === null ? null : round(perpsim.opsPerSec / bare.opsPerSec, 4),
    ratioToBareBookCpu: perpsim === null ? null : round(bare.cpuSeconds / perpsim.cpuSeconds, 4),
    // The harness before (a command and a result object per op), same run.
    freshOpsPerSec: round(perpsimFresh?.opsPerSec),
    freshOpsPerCpuSecond: perpsimFresh === null ? null : round(OPS / perpsimFresh.cpuSeconds),
    freshRatioToBareBook: perpsimFresh === null ? null : round(perpsimFresh.opsPerSec / bare.opsPerSec, 4),
  }),
);
