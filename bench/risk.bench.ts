/**
 * Risk bench (issue 3): `npm run bench:risk`.
 *
 * 1. Oracle tick with many positions: 100,000 open positions over 10 markets (BENCH_POSITIONS),
 *    built by pairing funded accounts through the book, then BENCH_TICKS oracle updates per
 *    market that move the price by up to 0.3 % either way (a seeded random walk that liquidates some of the
 *    higher-leverage positions by ADL, there being no book). Each update
 *    is timed alone; the median and p99 are printed. The baseline in the same run is a naive
 *    check that scans every position of the market on each tick (what the liquidation index
 *    avoids), timed on the same updates.
 * 2. Full engine: the issue 2 stream (bench/stream.ts, BENCH_OPS ops) through the engine with
 *    funded accounts — risk, matching and events — in ops/s, with bench:engine's harness
 *    (BENCH_COMMANDS, reused command records and results by default), then with a new command and
 *    result object per op (the harness before, `fresh*` fields).
 * Ends with one JSON line: {"bench":"risk","oracleTickMsMedian":…,"positions":…,"fullEngineOpsPerSec":…,
 * "fullEngineOpsPerCpuSecond":…,"freshFullEngineOpsPerSec":…,"freshFullEngineOpsPerCpuSecond":…}.
 */
import { apply, createEngine, type Engine } from '../engine/index.ts';
import { crossRisk } from '../engine/margin.ts';
import { createPrng } from '../sim/prng.ts';
import { perpsimRunner, perpsimRunnerWith } from './perpsim-runner.ts';
import { MARKETS, marketDefs } from './setup.ts';
import { generateStream, MIX_PLACE_HEAVY } from './stream.ts';
import { envInt } from './env.ts';


const POSITIONS = envInt('BENCH_POSITIONS', 100_000);
const TICKS = envInt('BENCH_TICKS', 200);
const OPS = envInt('BENCH_OPS', 1_000_000);

const T0 = 1_700_000_000_000_000;
const MID = 10_000;
const USD = 1_000_000_000n;


function address(i: number): string {
  return '0x' + (0xa1000000 + i).toString(16).padStart(40, '0');
}

/** An engine with POSITIONS open positions: pairs of accounts trade once in one market each. */
function buildPositions(): { engine: Engine; time: number } {
  // The engine bench's markets: tick 0.01, step 0.001, IMF 5 %.
  const engine = createEngine({ markets: marketDefs() });
  let time = T0;
  for (let m = 0; m < MARKETS; m++) apply(engine, { type: 'setOraclePrice', time, marketId: m + 1, price: MID });
  const rng = createPrng(11);
  const gtt = T0 + 40 * 86_400_000_000;
  for (let i = 0; i < POSITIONS / 2; i++) {
    const marketId = (i % MARKETS) + 1;
    const maker = address(2 * i);
    const taker = address(2 * i + 1);
    // Leverage between 2x and 15x: liquidation prices spread from near to far.
    const size = 1000 + rng.int(4000);
    // Notional in quote quantums is size · price · 10,000 here (tick 0.01 × step 0.001 = 1e-5 USD).
    const deposit = (BigInt(size) * BigInt(MID) * 10_000n) / BigInt(2 + rng.int(14)) + USD;
    apply(engine, { type: 'deposit', time: ++time, address: maker, accountIndex: 0, amount: deposit });
    apply(engine, { type: 'deposit', time: ++time, address: taker, accountIndex: 0, amount: deposit });
    const side = rng.int(2) as 0 | 1;
    apply(engine, { type: 'placeOrder', time: ++time, address: maker, accountIndex: 0, marketId, side, orderType: 0, tif: 0, price: MID, size, reduceOnly: false, goodTilTime: gtt });
    const r = apply(engine, { type: 'placeOrder', time: ++time, address: taker, accountIndex: 0, marketId, side: side === 0 ? 1 : 0, orderType: 0, tif: 2, price: MID, size, reduceOnly: false, goodTilTime: gtt });
    if (r.kind !== 'order' || r.status !== 'FILLED') throw new Error(`pairing trade did not fill: ${JSON.stringify(r)}`);
  }
  return { engine, time };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The baseline: what a check without an index does — every position of the market, every tick. */
function scanAll(engine: Engine, marketId: number): number {
  const ms = engine.markets.get(marketId)!;
  let below = 0;
  for (const account of ms.holders) {
    const risk = crossRisk(account, engine.bySlot);
    if (risk.equity < risk.maintenance) below++;
  }
  return below;
}

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

console.log(`risk bench: ${fmt(POSITIONS)} positions over ${MARKETS} markets, ${TICKS} oracle ticks per market, node ${process.version}`);

/**
 * Part 1, in a function of its own: its engine with POSITIONS positions is garbage once it
 * returns, so it does not sit in the heap (and in every full GC) during the full-engine runs.
 */
function oracleTicks(): { median: number; positions: number; scanMedian: number } {
  const t0 = performance.now();
  const { engine, time: built } = buildPositions();
  let positions = 0;
  for (const ms of engine.bySlot) positions += ms.holders.size;
  console.log(`built ${fmt(positions)} positions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const rng = createPrng(5);
  const prices = new Map<number, number>();
  const indexed: number[] = [];
  const scanned: number[] = [];
  let liquidations = 0;
  let time = built;
  let events = 0;
  engine.wiring.sink = (e) => {
    events++;
    if (e.type === 'liquidation') liquidations++;
  };
  for (let t = 0; t < TICKS; t++) {
    for (let m = 1; m <= MARKETS; m++) {
      const price = (prices.get(m) ?? MID) + rng.int(61) - 30;
      prices.set(m, price);
      const start = performance.now();
      apply(engine, { type: 'setOraclePrice', time: ++time, marketId: m, price });
      indexed.push(performance.now() - start);
      const scanStart = performance.now();
      scanAll(engine, m);
      scanned.push(performance.now() - scanStart);
    }
  }
  indexed.sort((a, b) => a - b);
  scanned.sort((a, b) => a - b);
  const median = percentile(indexed, 0.5);
  const scanMedian = percentile(scanned, 0.5);
  console.log(`oracle tick (liquidation index)  median ${median.toFixed(3)} ms  p99 ${percentile(indexed, 0.99).toFixed(3)} ms  (${liquidations} liquidations, ${fmt(events)} events)`);
  console.log(`baseline: scan every position   median ${scanMedian.toFixed(3)} ms  p99 ${percentile(scanned, 0.99).toFixed(3)} ms  (index = ${(scanMedian / median).toFixed(1)}x faster)`);
  console.log(`target: median <= 5 ms with 100,000 positions: ${median <= 5 && POSITIONS >= 100_000 ? 'met' : POSITIONS < 100_000 ? 'n/a (smaller run)' : 'NOT met'}`);
  return { median, positions, scanMedian };
}
const { median, positions, scanMedian } = oracleTicks();

const stream = generateStream({ ops: OPS, seed: 42, mix: MIX_PLACE_HEAVY, targetPerMarket: 1000 });
/**
 * One pass of a runner on a fresh engine: wall-clock ops/s and ops per CPU-second of the process
 * (GC threads included: steadier than wall clock on a shared VM).
 */
function fullEnginePass(runner: typeof perpsimRunner): { opsPerSec: number; opsPerCpuSec: number } {
  const st = runner.prepare(stream);
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const start = performance.now();
  runner.run(st, stream, stream.prefill, stream.length);
  const opsPerSec = OPS / ((performance.now() - start) / 1000);
  const cpu = process.cpuUsage(c0);
  return { opsPerSec, opsPerCpuSec: OPS / ((cpu.user + cpu.system) / 1e6) };
}
// Best of two passes each, the two harnesses alternating so that neither runs in a quieter or
// emptier heap than the other.
const freshRunner = perpsimRunnerWith('fresh');
let best = 0;
let bestCpu = 0;
const fresh = { best: 0, bestCpu: 0 };
for (let pass = 0; pass < 2; pass++) {
  const r = fullEnginePass(perpsimRunner);
  best = Math.max(best, r.opsPerSec);
  bestCpu = Math.max(bestCpu, r.opsPerCpuSec);
  const f = fullEnginePass(freshRunner);
  fresh.best = Math.max(fresh.best, f.opsPerSec);
  fresh.bestCpu = Math.max(fresh.bestCpu, f.opsPerCpuSec);
}
console.log(`full engine (risk + matching + events, funded accounts, issue 2 mix): ${fmt(best)} ops/s, ${fmt(bestCpu)} ops per CPU-second (target >= 2,000,000: ${best >= 2_000_000 ? 'met' : 'NOT met'})`);
// The harness before (a command and a result object per op), for figures from earlier runs.
console.log(`full engine, fresh command and result objects per op (the harness before): ${fmt(fresh.best)} ops/s, ${fmt(fresh.bestCpu)} ops per CPU-second`);
console.log(
  JSON.stringify({
    bench: 'risk', oracleTickMsMedian: Number(median.toFixed(4)), positions, fullEngineOpsPerSec: Math.round(best), scanAllMsMedian: Number(scanMedian.toFixed(4)),
    fullEngineOpsPerCpuSecond: Math.round(bestCpu), freshFullEngineOpsPerSec: Math.round(fresh.best), freshFullEngineOpsPerCpuSecond: Math.round(fresh.bestCpu),
  }),
);
