/**
 * A taker by construction: `npm run bench -- engine-taker` (or `node --expose-gc --import tsx
 * bench/engine-taker.ts`); `A=<checkout> B=<checkout>` compares two engines in one process.
 *
 * The bench:engine world (its stream replayed once: 2,100 accounts with rows in ten markets,
 * ~1,000 orders a book) gets an eleventh market with an empty book. Each batch rests B·N maker
 * orders there (GTT, one level, from maker accounts in turn), then sends B takers (IOC from the
 * taker accounts in turn) that each fill exactly N makers; batches alternate sides, so positions
 * go back and forth around a position taken first (below) instead of growing. Makers and takers
 * are timed per batch apart: the taker figure is the whole taker path (validation, pre-trade,
 * matching, each fill's money, positions, risk rows and events, the end-of-command risk re-check
 * and trigger refresh, the book delta), the maker's is a rest in the same run, for a ratio that
 * load moves less. Timed in process CPU time unless BENCH_CLOCK=wall.
 *
 * With A and B set, each checkout's engine (and bench harness) builds its own world and the two
 * take turns batch by batch (the order flips every batch), as bench/engine-ab.ts does for the
 * whole stream: the ratios B/A of taker and rest times are what to read (one shared heap, so a
 * change in garbage shows muted).
 *
 * Env: BENCH_TAKERS (takers per N and round, default 100,000), BENCH_ROUNDS (default 5),
 * BENCH_FILLS (a comma list of N, default 1,2,4), BENCH_OPS / BENCH_SEED (the world's stream).
 * Ends with {"bench":"engine-taker",…}: ns per taker and per rest, by N (median round).
 */
import type { PlaceOrderCommand, TifCode } from '../engine/types.ts';
import type { Stream } from './stream.ts';
import { envInt } from './env.ts';
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

/**
 * Process CPU time in ms (the default: a shared machine disturbs it far less than the wall
 * clock) or wall time (BENCH_CLOCK=wall).
 */
const now: () => number =
  process.env.BENCH_CLOCK === 'wall'
    ? () => performance.now()
    : () => {
        const c = process.cpuUsage();
        return (c.user + c.system) / 1_000;
      };

interface Checkout {
  apply(engine: unknown, command: unknown): { kind: string; status?: string };
  perpsimRunner: { prepare(s: Stream): { engine: unknown }; run(st: unknown, s: Stream, from: number, to: number): void };
  accountColumns(): { addresses: string[]; indices: Int32Array };
  opTime(i: number): number;
}

async function load(dir: string): Promise<Checkout> {
  const engine = (await import(dir + '/engine/index.ts')) as Pick<Checkout, 'apply'>;
  const runner = (await import(dir + '/bench/perpsim-runner.ts')) as Omit<Checkout, 'apply'>;
  return { apply: engine.apply, perpsimRunner: runner.perpsimRunner, accountColumns: runner.accountColumns, opTime: runner.opTime };
}

/** One world: B·n makers rest, then B takers fill n each; `batch` returns [ms of rests, ms of takers]. */
interface World {
  batch(n: number): [number, number];
  failures(): number;
}

function buildWorld(co: Checkout, stream: Stream): World {
  const st = co.perpsimRunner.prepare(stream);
  co.perpsimRunner.run(st, stream, stream.prefill, stream.length);
  const engine = st.engine;
  const accts = co.accountColumns();
  const market = marketDefs().length + 1;
  let time = co.opTime(stream.length) + 1_000;
  const def = { ...marketDefs()[0]!, id: market, displayName: 'TAKER-USD', baseAsset: 'TAKER' };
  const added = co.apply(engine, { type: 'addMarket', time, market: def });
  if (added.kind !== 'done') throw new Error(`addMarket refused: ${JSON.stringify(added)}`);
  co.apply(engine, { type: 'setOraclePrice', time, marketId: market, price: START_MID });
  const command: PlaceOrderCommand = {
    type: 'placeOrder', time, address: '', accountIndex: 0, marketId: market, side: 0, orderType: 0, tif: 0,
    price: START_MID, size: MAKER_SIZE, reduceOnly: false, goodTilTime: time + GTT_AHEAD_US,
  };
  let nextMaker = 0;
  let nextTaker = 0;
  let side = 0;
  let failures = 0;
  const place = (account: number, sideCode: 0 | 1, tif: TifCode, size: number): void => {
    const c = command;
    c.time = ++time;
    c.address = accts.addresses[account]!;
    c.accountIndex = accts.indices[account]!;
    c.side = sideCode;
    c.tif = tif;
    c.size = size;
    c.goodTilTime = time + GTT_AHEAD_US;
    const r = co.apply(engine, c);
    if (r.kind !== 'order' || (tif === 2 && r.status !== 'FILLED') || (tif === 0 && r.status !== 'OPEN')) failures++;
  };
  const batch = (n: number): [number, number] => {
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
    return [t1 - t0, now() - t1];
  };
  // Every account first takes a position well away from zero on one side (makers short ten
  // fills, takers long), so that the alternating batches move positions without opening,
  // closing or flipping them: in the bench:engine stream ~11 % of fills open or close a position
  // and ~1.6 % of the re-checks take the full trigger refresh; here almost none do.
  for (let i = 0; i < Math.ceil((10 * MAKER_ACCOUNTS) / BATCH); i++) {
    side = 1;
    batch(1);
  }
  for (const n of FILLS) for (let i = 0; i < 200; i++) batch(n);
  return { batch, failures: () => failures };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

const dirs = process.env.A && process.env.B ? [process.env.A, process.env.B] : [new URL('..', import.meta.url).pathname.replace(/\/$/, '')];
const stream = generateStream({ ops: OPS, seed: SEED, mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const checkouts = await Promise.all(dirs.map(load));
const worlds = checkouts.map((co) => buildWorld(co, stream));
console.log(
  `engine taker: ${fmt(TAKERS)} takers per N and round, ${ROUNDS} rounds, N = ${FILLS.join(', ')} makers each` +
    `${worlds.length > 1 ? `, A=${dirs[0]} B=${dirs[1]} alternating` : ''}, node ${process.version}`,
);
const batches = Math.max(1, Math.round(TAKERS / BATCH));
// rounds[w][n] = per round, ns per rest and per taker
const rounds = worlds.map(() => new Map<number, { rest: number[]; taker: number[] }>(FILLS.map((n) => [n, { rest: [], taker: [] }])));
for (let r = 0; r < ROUNDS; r++) {
  for (const n of FILLS) {
    gc();
    const rest = worlds.map(() => 0);
    const taker = worlds.map(() => 0);
    for (let b = 0; b < batches; b++) {
      for (let k = 0; k < worlds.length; k++) {
        const w = (b + r) % 2 === 0 ? k : worlds.length - 1 - k;
        const [x, y] = worlds[w]!.batch(n);
        rest[w] = rest[w]! + x;
        taker[w] = taker[w]! + y;
      }
    }
    for (let w = 0; w < worlds.length; w++) {
      rounds[w]!.get(n)!.rest.push((rest[w]! * 1e6) / (batches * BATCH * n));
      rounds[w]!.get(n)!.taker.push((taker[w]! * 1e6) / (batches * BATCH));
    }
  }
}
const failures = worlds.reduce((a, w) => a + w.failures(), 0);
if (failures > 0) throw new Error(`${failures} orders did not rest or fill as constructed`);
const out: Record<string, Record<string, number>> = {};
console.log(`${'N'.padStart(3)} ${'world'.padStart(6)} ${'rest ns'.padStart(9)} ${'taker ns'.padStart(9)} ${'taker/rest'.padStart(11)}`);
for (const n of FILLS) {
  const row: Record<string, number> = {};
  for (let w = 0; w < worlds.length; w++) {
    const rest = median(rounds[w]!.get(n)!.rest);
    const taker = median(rounds[w]!.get(n)!.taker);
    const tag = worlds.length > 1 ? (w === 0 ? 'A' : 'B') : '';
    row[`restNs${tag}`] = Math.round(rest);
    row[`takerNs${tag}`] = Math.round(taker);
    console.log(`${String(n).padStart(3)} ${(tag || '-').padStart(6)} ${fmt(rest).padStart(9)} ${fmt(taker).padStart(9)} ${(taker / rest).toFixed(2).padStart(11)}`);
  }
  if (worlds.length > 1) {
    // Per round B/A, then the median: both worlds of a round saw the same machine.
    const ratio = (k: 'rest' | 'taker'): number => median(rounds[1]!.get(n)![k].map((b, i) => b / rounds[0]!.get(n)![k][i]!));
    row.takerBA = Number(ratio('taker').toFixed(3));
    row.restBA = Number(ratio('rest').toFixed(3));
    console.log(`${String(n).padStart(3)}    B/A  rest ${row.restBA.toFixed(3)}  taker ${row.takerBA.toFixed(3)}`);
  }
  out[n] = row;
}
console.log(JSON.stringify({ bench: 'engine-taker', takers: TAKERS, rounds: ROUNDS, byFills: out }));
