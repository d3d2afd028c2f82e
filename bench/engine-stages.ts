/**
 * What the engine's time per op is made of, by construction: `npm run bench -- engine-stages`
 * (or `node --expose-gc --import tsx bench/engine-stages.ts`).
 *
 * Earlier passes bounded stages by deleting them from a copy of the engine; this builds the
 * work up instead, on the engine of the bench world (bench:engine's stream replayed once, so the
 * books hold ~1,000 orders per market over 2,000 maker accounts):
 *
 * 1. Per command kind, the whole engine: the bench stream replayed with a timer around each op
 *    (the timer's own cost, calibrated in the same run, is taken off), and the harness's command
 *    build alone per kind.
 * 2. A rest + cancel pair (the 74 % of the stream that is GTT/ALO places that rest and cancels)
 *    built stage by stage from the engine's own functions, each level adding one stage to both
 *    halves: harness command → `apply` shell (timers, fee folding, risk queue, book/record flush,
 *    dispatch, a `done` result: measured as `apply` of a reused advanceTime command) → account
 *    and market lookup → validation → order record and id → order table → account order list →
 *    pre-trade → exposure upkeep → expiry heap → book delta and bbo records (touch/dirty, and the
 *    records the shell's flush then writes) → book levels (level lists, price index, sorted
 *    level array) → the cancel's modify-buffer entry →
 *    order event records → result objects. The last level is the real engine (`apply` of the
 *    place and of the cancel) on the same pairs: its distance from the level before is the glue
 *    the construction leaves out (the command switch, status checks, `finish`, `spareEnded`).
 *    Each level runs RING live orders at once (places in batches of BATCH, then cancels of the
 *    oldest BATCH), timed per batch, so rests and cancels are timed apart; levels rotate through
 *    ROUNDS rounds and the median round counts.
 *
 * The harness is bench:engine's (BENCH_COMMANDS, bench/perpsim-runner.ts): `reused` (default)
 * refills one command record per kind and runs the engine in result-reuse mode, `fresh` builds a
 * new command and result object per op (the way before). The harness stage is the command's
 * build; the result stage, the result's.
 *
 * Env: BENCH_OPS (the stream, default 1,000,000), BENCH_PAIRS (pairs per level and round,
 * default 200,000), BENCH_ROUNDS (default 3), BENCH_SEED, BENCH_LEVELS (a comma list: time only
 * those levels, e.g. for a profile).
 * Ends with {"bench":"engine-stages",…}: ns per op by kind, and ns per rest / cancel by stage.
 */
import { apply } from '../engine/index.ts';
import { getAccount, type Engine } from '../engine/state.ts';
import { newOrder, spareOrder, type Order } from '../engine/order.ts';
import { deleteOrder, getOrder, putOrder } from '../engine/order-table.ts';
import { linkOrder, unlinkOrder } from '../engine/account.ts';
import { addExposure, preTrade } from '../engine/risk.ts';
import { addExpiry } from '../engine/expiry.ts';
import { bestPrice, insertOrder, removeOrder } from '../engine/book.ts';
import { emitOrder, markDirty, touch } from '../engine/emit.ts';
import { rememberCancel } from '../engine/modify-buffer.ts';
import { checkTargetRef, onlineMarket, orderResult, validAccountRef } from '../engine/commands/validate.ts';
import { validatePlace } from '../engine/commands/place.ts';
import type { AdvanceTimeCommand, CancelOrderCommand, CommandResult, PlaceOrderCommand } from '../engine/types.ts';
import { bareRunner } from './runners.ts';
import { commandAt, harnessFromEnv, opTime, perpsimRunner, type AccountColumns, type PerpsimState } from './perpsim-runner.ts';
import { generateStream, MIX_PLACE_HEAVY, OP_CANCEL, OP_NAMES, type Stream } from './stream.ts';
import { GTT_AHEAD_US, MAKER_ACCOUNTS, MARKETS, marketId, START_MID } from './setup.ts';
import { envInt } from './env.ts';

const OPS = envInt('BENCH_OPS', 1_000_000);
const PAIRS = envInt('BENCH_PAIRS', 200_000);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const SEED = envInt('BENCH_SEED', 42);
const RING = 8_192;
const BATCH = 512;
const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc');

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// Sinks that keep what a stage built reachable, so that nothing is optimized away.
let keepCommand: unknown = null;
let keepResult: unknown = null;
let keepCount = 0;

// ---------------------------------------------------------------------------------------------
// 1. Per command kind, the whole engine

const stream = generateStream({ ops: OPS, seed: SEED, mix: MIX_PLACE_HEAVY, targetPerMarket: 1_000 });
const KINDS = OP_NAMES.length;

/** Timer cost: the mean gap between two `performance.now()` calls. */
function timerCost(n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    sum += performance.now() - t0;
  }
  return (sum / n) * 1e6;
}

interface KindTimes {
  ns: Float64Array;
  count: Float64Array;
}

/** The stream's benchmark ops through the engine, each op timed alone; ns per op by kind. */
function perKind(st: PerpsimState, s: Stream): KindTimes {
  const ns: Float64Array = new Float64Array(KINDS);
  const count = new Float64Array(KINDS);
  const engine = st.engine;
  for (let i = s.prefill; i < s.length; i++) {
    const k = s.kind[i]!;
    const t0 = performance.now();
    keepResult = apply(engine, commandAt(st, s, i));
    ns[k] = ns[k]! + performance.now() - t0;
    count[k] = count[k]! + 1;
  }
  for (let k = 0; k < KINDS; k++) ns[k] = (ns[k]! / Math.max(1, count[k]!)) * 1e6;
  return { ns, count };
}

/** The harness's command build alone, per kind (batches of one kind, timed as a whole). */
function harnessPerKind(st: PerpsimState, s: Stream): Float64Array {
  const byKind: number[][] = Array.from({ length: KINDS }, () => []);
  for (let i = s.prefill; i < s.length; i++) byKind[s.kind[i]!]!.push(i);
  const out = new Float64Array(KINDS);
  for (let k = 0; k < KINDS; k++) {
    const idx = Int32Array.from(byKind[k]!);
    const t0 = performance.now();
    for (let j = 0; j < idx.length; j++) keepCommand = commandAt(st, s, idx[j]!);
    out[k] = ((performance.now() - t0) / Math.max(1, idx.length)) * 1e6;
  }
  return out;
}

const HARNESS = harnessFromEnv();
console.log(
  `engine stages: ${fmt(OPS)}-op stream (seed ${SEED}), ${fmt(PAIRS)} rest+cancel pairs per level, ${ROUNDS} rounds, ` +
    `harness ${HARNESS} (BENCH_COMMANDS), node ${process.version}`,
);
const warm = perpsimRunner.prepare(stream);
perpsimRunner.run(warm, stream, stream.prefill, stream.length);
perKind(perpsimRunner.prepare(stream), stream);
const timer = timerCost(2_000_000);
const kindRounds: Float64Array[] = [];
let kindCounts: Float64Array = new Float64Array(KINDS);
for (let r = 0; r < ROUNDS; r++) {
  const st = perpsimRunner.prepare(stream);
  gc();
  const t = perKind(st, stream);
  kindRounds.push(t.ns);
  kindCounts = t.count;
}
harnessPerKind(warm, stream);
const harnessRounds = Array.from({ length: ROUNDS }, () => harnessPerKind(warm, stream));
const kindNs = Array.from({ length: KINDS }, (_, k) => median(kindRounds.map((x) => x[k]!)) - timer);
const harnessNs = Array.from({ length: KINDS }, (_, k) => median(harnessRounds.map((x) => x[k]!)));
const benchOps = stream.length - stream.prefill;
const weighted = kindNs.reduce((a, ns, k) => a + ns * kindCounts[k]!, 0) / benchOps;
const harnessWeighted = harnessNs.reduce((a, ns, k) => a + ns * kindCounts[k]!, 0) / benchOps;

bareRunner.run(bareRunner.prepare(stream), stream, stream.prefill, stream.length);
const bareMs = median(
  Array.from({ length: ROUNDS }, () => {
    const b = bareRunner.prepare(stream);
    const t0 = performance.now();
    bareRunner.run(b, stream, stream.prefill, stream.length);
    return performance.now() - t0;
  }),
);
const bareNs = (bareMs * 1e6) / benchOps;

console.log(`\n1. per command kind, the whole engine (ns per op, wall, timer of ${timer.toFixed(0)} ns taken off; median of ${ROUNDS})`);
console.log(`${'kind'.padEnd(12)} ${'share'.padStart(6)} ${'engine'.padStart(8)} ${'harness'.padStart(8)} ${'ns/op of mix'.padStart(13)}`);
for (let k = 0; k < KINDS; k++) {
  console.log(
    `${OP_NAMES[k]!.padEnd(12)} ${((100 * kindCounts[k]!) / benchOps).toFixed(1).padStart(5)}% ${fmt(kindNs[k]!).padStart(8)} ` +
      `${fmt(harnessNs[k]!).padStart(8)} ${((kindNs[k]! * kindCounts[k]!) / benchOps).toFixed(0).padStart(13)}`,
  );
}
console.log(`${'mix'.padEnd(12)} ${'100%'.padStart(6)} ${fmt(weighted).padStart(8)} ${fmt(harnessWeighted).padStart(8)}   (bare book ${bareNs.toFixed(0)} ns/op on the same stream)`);

// ---------------------------------------------------------------------------------------------
// 2. A rest + cancel pair, built stage by stage

const STAGES = [
  'harness command',
  'apply shell (advanceTime)',
  'account + market lookup',
  'validation',
  'order record + id',
  'order table',
  'account order list',
  'pre-trade',
  'exposure upkeep',
  'expiry heap',
  'book delta + bbo records',
  'book levels (insert/remove)',
  'modify-buffer entry',
  'order event records',
  'result objects',
] as const;
const REAL = STAGES.length;
const L_SHELL = 1;
const L_LOOKUP = 2;
const L_VALID = 3;
const L_ORDER = 4;
const L_TABLE = 5;
const L_LIST = 6;
const L_PRETRADE = 7;
const L_EXPOSURE = 8;
const L_EXPIRY = 9;
const L_BOOKREC = 10;
const L_BOOK = 11;
const L_REMEMBER = 12;
const L_EVENTS = 13;
const L_RESULT = 14;

interface PairState {
  engine: Engine;
  accts: AccountColumns;
  time: number;
  /** Live constructed orders, oldest first (a ring of RING). */
  ring: (Order | null)[];
  ringIds: Float64Array;
  ringAccounts: Int32Array;
  ringMarkets: Int32Array;
  head: number;
  count: number;
  j: number;
  advance: AdvanceTimeCommand;
  /** The harness's reused command records (BENCH_COMMANDS=reused), or null: a new object per op. */
  commands: { place: PlaceOrderCommand; cancel: CancelOrderCommand } | null;
}

/** The bench world's engine after one replay of the stream: its books and accounts are warm. */
function pairState(): PairState {
  const st = perpsimRunner.prepare(stream);
  perpsimRunner.run(st, stream, stream.prefill, stream.length);
  const time = opTime(stream.length);
  return {
    engine: st.engine,
    accts: st.accts,
    time,
    ring: new Array<Order | null>(RING).fill(null),
    ringIds: new Float64Array(RING),
    ringAccounts: new Int32Array(RING),
    ringMarkets: new Int32Array(RING),
    head: 0,
    count: 0,
    j: 0,
    advance: { type: 'advanceTime', time },
    commands: st.commands === null ? null : { place: st.commands.place, cancel: st.commands.cancel },
  };
}

/** One rest at construction level L (L === REAL: the engine's own `apply`). */
function rest(p: PairState, L: number): void {
  const engine = p.engine;
  const j = p.j++;
  // Accounts and markets spread like the bench's makers: a multiplicative hash of the pair number.
  const n = Math.imul(j, 2_654_435_761) >>> 0;
  const a = n % MAKER_ACCOUNTS;
  const m = (n >>> 12) % MARKETS;
  const side = (n >>> 20) & 1;
  const time = ++p.time;
  const mkt = marketId(m);
  const ms0 = engine.bySlot[m]!;
  const best = bestPrice(side === 0 ? ms0.book.bids : ms0.book.asks);
  const depth = 1 + (j % 40);
  const price = side === 0 ? (best > 0 ? best : START_MID) - depth : (best > 0 ? best : START_MID) + depth;
  const size = 100 + ((j * 7_919) % 1_900);
  let c: PlaceOrderCommand;
  if (p.commands === null) {
    c = {
      type: 'placeOrder', time, address: p.accts.addresses[a]!, accountIndex: p.accts.indices[a]!,
      marketId: mkt, side: side === 0 ? 0 : 1, orderType: 0, tif: 0,
      price, size, reduceOnly: false, goodTilTime: time + GTT_AHEAD_US,
    };
  } else {
    c = p.commands.place;
    c.time = time;
    c.address = p.accts.addresses[a]!;
    c.accountIndex = p.accts.indices[a]!;
    c.marketId = mkt;
    c.side = side === 0 ? 0 : 1;
    c.orderType = 0;
    c.tif = 0;
    c.price = price;
    c.size = size;
    c.goodTilTime = time + GTT_AHEAD_US;
  }
  keepCommand = c;
  const slot = (p.head + p.count) % RING;
  p.ringAccounts[slot] = a;
  p.ringMarkets[slot] = m;
  // A well-formed id for the cancel's command at the levels that make no order.
  p.ringIds[slot] = 1;
  p.count++;
  if (L === REAL) {
    const res = apply(engine, c);
    keepResult = res;
    if (res.kind !== 'order' || res.status !== 'OPEN') throw new Error(`a constructed rest did not rest: ${JSON.stringify(res)}`);
    p.ringIds[slot] = res.orderId;
    p.ring[slot] = null;
    return;
  }
  if (L >= L_LOOKUP) {
    if (!validAccountRef(c.address, c.accountIndex)) throw new Error('bad account');
    const ms = onlineMarket(engine, c.marketId);
    if ('kind' in ms) throw new Error('bad market');
    const account = getAccount(engine, c.address, c.accountIndex);
    if (L >= L_VALID && validatePlace(engine, ms, c) !== undefined) throw new Error('invalid place');
    if (L >= L_ORDER) {
      engine.time = time;
      const order = newOrder(engine.nextOrderId++, account, c.marketId, ms.slot, c.side, c.orderType, c.tif, c.reduceOnly, c.clientId, c.price, c.size, c.goodTilTime, engine.time);
      p.ring[slot] = order;
      p.ringIds[slot] = order.id;
      if (L >= L_PRETRADE && preTrade(engine, account, ms, c.side, c.price, c.size, false) !== undefined) throw new Error('pre-trade refused');
      if (L >= L_TABLE) putOrder(engine.orders, order);
      if (L >= L_LIST) linkOrder(account, order);
      if (L >= L_EXPOSURE) addExposure(engine, account, ms, order.side, order.remaining, 1);
      if (L >= L_EXPIRY) addExpiry(engine.expiry, order);
      if (L >= L_BOOKREC) {
        order.status = 'OPEN';
        touch(engine, ms);
        if (L >= L_BOOK) insertOrder(ms.book, order);
        markDirty(engine, ms, order.side, order.price);
      }
      if (L >= L_EVENTS) emitOrder(engine, order);
      if (L >= L_RESULT) keepResult = orderResult(engine, order);
    }
  }
  if (L >= L_SHELL) {
    p.advance.time = time;
    keepResult = apply(engine, p.advance);
  }
}

/** One cancel (of the oldest constructed order) at construction level L. */
function cancel(p: PairState, L: number): void {
  const engine = p.engine;
  const slot = p.head;
  p.head = (p.head + 1) % RING;
  p.count--;
  const a = p.ringAccounts[slot]!;
  const time = ++p.time;
  let c: CancelOrderCommand;
  if (p.commands === null) {
    c = {
      type: 'cancelOrder', time, address: p.accts.addresses[a]!, accountIndex: p.accts.indices[a]!,
      marketId: marketId(p.ringMarkets[slot]!), orderId: p.ringIds[slot]!,
    };
  } else {
    c = p.commands.cancel;
    c.time = time;
    c.address = p.accts.addresses[a]!;
    c.accountIndex = p.accts.indices[a]!;
    c.marketId = marketId(p.ringMarkets[slot]!);
    c.orderId = p.ringIds[slot]!;
  }
  keepCommand = c;
  if (L === REAL) {
    const res: CommandResult = apply(engine, c);
    keepResult = res;
    if (res.kind !== 'order' || res.status !== 'CANCELED') throw new Error(`a constructed cancel missed: ${JSON.stringify(res)}`);
    return;
  }
  if (L >= L_LOOKUP) {
    if (!validAccountRef(c.address, c.accountIndex)) throw new Error('bad account');
    if (L >= L_VALID && checkTargetRef(c.orderId, c.clientId) !== undefined) throw new Error('bad ref');
    const ms = engine.markets.get(c.marketId)!;
    const account = getAccount(engine, c.address, c.accountIndex);
    const order = p.ring[slot]!;
    p.ring[slot] = null;
    if (L >= L_ORDER) {
      engine.time = time;
      if (L >= L_TABLE) {
        const found = getOrder(engine.orders, c.orderId!);
        if (found !== order || found.account !== account || found.marketId !== c.marketId) throw new Error('order table miss');
      }
      if (L >= L_REMEMBER) rememberCancel(engine.modifies, account, order.id, order.clientId, time + engine.limits.modifyBufferUs);
      if (L >= L_BOOKREC) {
        touch(engine, ms);
        markDirty(engine, ms, order.side, order.price);
        if (L >= L_BOOK) removeOrder(ms.book, order);
      }
      if (L >= L_TABLE) deleteOrder(engine.orders, order.id);
      if (L >= L_LIST) unlinkOrder(account, order);
      if (L >= L_EXPOSURE) addExposure(engine, account, ms, order.side, -order.remaining, -1);
      order.status = 'CANCELED';
      if (L >= L_EVENTS) emitOrder(engine, order);
      if (L >= L_RESULT) keepResult = orderResult(engine, order);
      spareOrder(order);
    }
  }
  if (L >= L_SHELL) {
    p.advance.time = time;
    keepResult = apply(engine, p.advance);
  }
}

/** `pairs` rest+cancel pairs at level L; returns [ns per rest, ns per cancel]. */
function runLevel(p: PairState, L: number, pairs: number): [number, number] {
  let restMs = 0;
  let cancelMs = 0;
  let rests = 0;
  let cancels = 0;
  while (p.count < RING - BATCH) {
    rest(p, L);
    keepCount++;
  }
  for (let done = 0; done < pairs; done += BATCH) {
    const t0 = performance.now();
    for (let b = 0; b < BATCH; b++) rest(p, L);
    const t1 = performance.now();
    for (let b = 0; b < BATCH; b++) cancel(p, L);
    const t2 = performance.now();
    restMs += t1 - t0;
    cancelMs += t2 - t1;
    rests += BATCH;
    cancels += BATCH;
  }
  // Leave the engine as it was: every constructed order of this level canceled.
  while (p.count > 0) cancel(p, L);
  return [(restMs * 1e6) / rests, (cancelMs * 1e6) / cancels];
}

const levels = REAL + 1;
/** BENCH_LEVELS=9,10 times only those levels (for a profile of one stage); default all. */
const only = process.env.BENCH_LEVELS?.split(',').map(Number);
const timed = (L: number): boolean => only === undefined || only.includes(L);
const restRounds: number[][] = Array.from({ length: levels }, () => []);
const cancelRounds: number[][] = Array.from({ length: levels }, () => []);
{
  const p = pairState();
  // Warm-up: every level once, so that the code is optimized for all of them before timing.
  for (let L = 0; L < levels; L++) if (timed(L)) runLevel(p, L, 20_000);
  for (let r = 0; r < ROUNDS; r++) {
    gc();
    for (let k = 0; k < levels; k++) {
      const L = (k + r * 5) % levels;
      if (!timed(L)) continue;
      const [rn, cn] = runLevel(p, L, PAIRS);
      restRounds[L]!.push(rn);
      cancelRounds[L]!.push(cn);
    }
  }
}
const restNs = restRounds.map((xs) => (xs.length === 0 ? NaN : median(xs)));
const cancelNs = cancelRounds.map((xs) => (xs.length === 0 ? NaN : median(xs)));

console.log(`\n2. a rest + cancel pair built stage by stage (ns per op, wall, median of ${ROUNDS}; each level adds one stage)`);
console.log(`${'level: + stage'.padEnd(34)} ${'rest'.padStart(7)} ${'+'.padStart(6)} ${'cancel'.padStart(7)} ${'+'.padStart(6)}`);
const figures: Record<string, unknown> = { bench: 'engine-stages', harness: HARNESS };
for (let L = 0; L < levels; L++) {
  const name = L === REAL ? 'the engine itself (apply)' : STAGES[L]!;
  const dr = L === 0 ? restNs[0]! : restNs[L]! - restNs[L - 1]!;
  const dc = L === 0 ? cancelNs[0]! : cancelNs[L]! - cancelNs[L - 1]!;
  console.log(
    `${(`${String(L).padStart(2)}: ${name}`).padEnd(34)} ${fmt(restNs[L]!).padStart(7)} ${fmt(dr).padStart(6)} ${fmt(cancelNs[L]!).padStart(7)} ${fmt(dc).padStart(6)}`,
  );
}
const stageFigures: Record<string, [number, number]> = {};
for (let L = 0; L < levels; L++) {
  const name = L === REAL ? 'engine' : STAGES[L]!;
  stageFigures[name] = [
    Math.round(L === 0 ? restNs[0]! : restNs[L]! - restNs[L - 1]!),
    Math.round(L === 0 ? cancelNs[0]! : cancelNs[L]! - cancelNs[L - 1]!),
  ];
}
figures.timerNs = Math.round(timer);
figures.nsPerOpByKind = Object.fromEntries(OP_NAMES.map((name, k) => [name, Math.round(kindNs[k]!)]));
figures.harnessNsByKind = Object.fromEntries(OP_NAMES.map((name, k) => [name, Math.round(harnessNs[k]!)]));
figures.mixNsPerOp = Math.round(weighted);
figures.bareBookNsPerOp = Math.round(bareNs);
figures.restNs = Math.round(restNs[REAL]!);
figures.cancelNs = Math.round(cancelNs[REAL]!);
figures.stageNs = stageFigures;
if (keepCount < 0) console.log(keepCommand, keepResult);
console.log(JSON.stringify(figures));

// Referenced so that a reader sees the constant the ranks relate to.
void OP_CANCEL;
