/**
 * A taker by construction: `npm run bench -- engine-taker` (or `node --expose-gc --import tsx
 * bench/engine-taker.ts`).
 *
 * The bench:engine world (its stream replayed once: 2,100 accounts with rows in ten markets,
 * ~1,000 orders a book) gets an eleventh market with an empty book. Each batch rests B·N maker
 * orders there (GTT, one level, from maker accounts in turn), then sends B takers (IOC from the
 * taker accounts in turn) that each fill exactly N makers; batches alternate sides, so positions
 * go back and forth around a position taken first (see below) instead of growing. Makers and takers are timed per batch apart: the taker
 * figure is the whole taker path (validation, pre-trade, matching, each fill's money, positions,
 * risk rows and events, the end-of-command risk re-check and trigger refresh, the book delta),
 * the maker's is a rest in the same run, for a ratio that load does not move much.
 *
 * Timed in process CPU time unless BENCH_CLOCK=wall.
 * Env: BENCH_TAKERS (takers per N and round, default 100,000), BENCH_ROUNDS (default 5),
 * BENCH_FILLS (a comma list of N, default 1,2,4), BENCH_OPS / BENCH_SEED (the world's stream).
 * Ends with {"bench":"engine-taker",…}: ns per taker and per rest, by N (median round).
 */
import { apply } from '../engine/index.ts';
import type { PlaceOrderCommand, TifCode } from '../engine/types.ts';
import { envInt } from './env.ts';
import { accountColumns, opTime, perpsimRunner } from './perpsim-runner.ts';
import { MAKER_ACCOUNTS, marketDefs, START_MID, ACCOUNTS, GTT_AHEAD_US } from './setup.ts';
import { generateStream, MIX_PLACE_HEAVY } from './stream.ts';

const OPS = envInt('BENCH_OPS', 1_000_000);
const TAKERS = envInt('BENCH_TAKERS', 100_000);
const ROUNDS = envInt('BENCH_ROUNDS', 5);
const SEED = envInt('BENCH_SEED', 42);
const FILLS = (process.env.BENCH_FILLS ?? '1,2,4').split(',').map(Number);
const BATCH = 256;
const MAKER_SIZE = 100;
const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc');

const stream = generateStream({ ops: OPS, seed: SEED, mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const st = perpsimRunner.prepare(stream);
perpsimRunner.run(st, stream, stream.prefill, stream.length);
const engine = st.engine;
const accts = accountColumns();
const MARKET = marketDefs().length + 1;
let time = opTime(stream.length) + 1_000;
{
  const def = { ...marketDefs()[0]!, id: MARKET, displayName: 'TAKER-USD', baseAsset: 'TAKER' };
  const added = apply(engine, { type: 'addMarket', time, market: def });
  if (added.kind !== 'done') throw new Error(`addMarket refused: ${JSON.stringify(added)}`);
  apply(engine, { type: 'setOraclePrice', time, marketId: MARKET, price: START_MID });
}

const command: PlaceOrderCommand = {
  type: 'placeOrder', time, address: '', accountIndex: 0, marketId: MARKET, side: 0, orderType: 0, tif: 0,
  price: START_MID, size: MAKER_SIZE, reduceOnly: false, goodTilTime: time + GTT_AHEAD_US,
};
let nextMaker = 0;
let nextTaker = 0;
let side = 0;
let failures = 0;

function place(account: number, sideCode: 0 | 1, tif: TifCode, size: number): void {
  const c = command;
  c.time = ++time;
  c.address = accts.addresses[account]!;
  c.accountIndex = accts.indices[account]!;
  c.side = sideCode;
  c.tif = tif;
  c.size = size;
  c.goodTilTime = time + GTT_AHEAD_US;
  const r = apply(engine, c);
  if (r.kind !== 'order' || (tif === 2 && r.status !== 'FILLED') || (tif === 0 && r.status !== 'OPEN')) failures++;
}

/**
 * Process CPU time in ms (BENCH_CLOCK=cpu, the default: a shared machine disturbs it far less than
 * the wall clock) or wall time (BENCH_CLOCK=wall).
 */
const now: () => number = process.env.BENCH_CLOCK === 'wall' ? () => performance.now() : () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1_000;
};

/** One batch: B·n makers rest, then B takers fill n each. Returns [ns per rest, ns per taker]. */
function batch(n: number): [number, number] {
  const makerSide = side as 0 | 1;
  side = 1 - side;
  const t0 = now();
  for (let i = 0; i < BATCH * n; i++) {
    place(nextMaker, makerSide, 0, MAKER_SIZE);
    nextMaker = (nextMaker + 1) % MAKER_ACCOUNTS;
  }
  const t1 = now();
  for (let i = 0; i < BATCH; i++) {
    place(MAKER_ACCOUNTS + nextTaker, (1 - makerSide) as 0 | 1, 2, MAKER_SIZE * n);
    nextTaker = (nextTaker + 1) % (ACCOUNTS - MAKER_ACCOUNTS);
  }
  const t2 = now();
  return [((t1 - t0) * 1e6) / (BATCH * n), ((t2 - t1) * 1e6) / BATCH];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

console.log(`engine taker: ${TAKERS.toLocaleString('en-US')} takers per N and round, ${ROUNDS} rounds, N = ${FILLS.join(', ')} makers each, node ${process.version}`);
// Every account first takes a position well away from zero on one side (makers short ten fills,
// takers long), so that the alternating batches move positions without opening, closing or
// flipping them: in the bench:engine stream ~11 % of fills open or close a position and ~1.6 %
// of the re-checks take the full trigger refresh; here none do.
for (let i = 0; i < Math.ceil((10 * MAKER_ACCOUNTS) / BATCH); i++) {
  side = 1;
  batch(1);
}
for (const n of FILLS) for (let i = 0; i < 200; i++) batch(n);
const out: Record<string, { restNs: number; takerNs: number; perFillNs?: number }> = {};
const batches = Math.max(1, Math.round(TAKERS / BATCH));
const rounds: Record<number, { rest: number[]; taker: number[] }> = {};
for (const n of FILLS) rounds[n] = { rest: [], taker: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const n of FILLS) {
    gc();
    let rest = 0;
    let taker = 0;
    for (let b = 0; b < batches; b++) {
      const [x, y] = batch(n);
      rest += x;
      taker += y;
    }
    rounds[n]!.rest.push(rest / batches);
    rounds[n]!.taker.push(taker / batches);
  }
}
if (failures > 0) throw new Error(`${failures} orders did not rest or fill as constructed`);
console.log(`${'N'.padStart(3)} ${'rest ns'.padStart(9)} ${'taker ns'.padStart(9)} ${'taker/rest'.padStart(11)}`);
for (const n of FILLS) {
  const rest = median(rounds[n]!.rest);
  const taker = median(rounds[n]!.taker);
  out[n] = { restNs: Math.round(rest), takerNs: Math.round(taker) };
  console.log(`${String(n).padStart(3)} ${Math.round(rest).toLocaleString('en-US').padStart(9)} ${Math.round(taker).toLocaleString('en-US').padStart(9)} ${(taker / rest).toFixed(2).padStart(11)}`);
}
console.log(JSON.stringify({ bench: 'engine-taker', takers: TAKERS, rounds: ROUNDS, byFills: out }));
