/**
 * perpsim's engine as a bench runner, plus the resting-order memory probe.
 *
 * Commands are built when applied (as a gateway builds one per request) from the stream's
 * typed arrays. Cancels and modifies name orders by the id the engine returned for the
 * corresponding place. The engine numbers orders in placement order and every place of the
 * stream is valid, so ref r gets orderId `idBase + r`: the runner computes it, as a client
 * knows the ids it was given, rather than reading a table of a million ids at random (a cache
 * miss per op that a gateway does not have); each place's result is checked against it.
 *
 * Two harnesses (BENCH_COMMANDS): `reused` (the default) fills one command record per kind and
 * runs the engine in result-reuse mode (`reuseResults`), as an in-process caller such as the
 * backtester can: no object per op on either side of `apply`. `fresh` is the way before it: a
 * new command object per op, as a gateway builds one per request, and a new result object.
 * bench:engine prints both.
 */
import { apply, createEngine, reuseResults, useEventRecords } from '../engine/index.ts';
import type {
  CancelOrderCommand,
  Command,
  CommandResult,
  EngineEvent,
  EventSink,
  ModifyOrderCommand,
  PlaceOrderCommand,
} from '../engine/types.ts';
import type { Runner } from './runners.ts';
import {
  accounts,
  GTT_AHEAD_US,
  MAKER_ACCOUNTS,
  MARKETS,
  marketDefs,
  marketId,
  START_MID,
  START_TIME_US,
} from './setup.ts';
import { OP_ALO, OP_CANCEL, OP_GTT, OP_MARKET, OP_NAMES, type Stream } from './stream.ts';

type Engine = ReturnType<typeof createEngine>;

/** Each bench account's deposit: ten million USD in quote quantums. */
const BENCH_FUNDING = 10_000_000n * 1_000_000_000n;

/** Counts of result shapes and event types, keyed by a readable label. */
export type Tally = Map<string, number>;

function bump(t: Tally, key: string): void {
  t.set(key, (t.get(key) ?? 0) + 1);
}

export interface PerpsimState {
  engine: Engine;
  /**
   * Bench accounts as parallel arrays by stream account number: a gateway has the address of a
   * request in hand, so building a command should not cost a read of a cold record per op.
   */
  accts: AccountColumns;
  /** The orderId of stream ref 0: ref r is orderId idBase + r. */
  idBase: number;
  counter: { events: number };
  /** Present on the validation pass only: results and events by kind. */
  tally: Tally | null;
  eventTally: Tally | null;
  /** Null: a new command object per op (the `fresh` harness); else the records reused per kind. */
  commands: ReusedCommands | null;
}

/** One command record per kind, refilled for every op (the `reused` harness). */
export interface ReusedCommands {
  place: PlaceOrderCommand;
  cancel: CancelOrderCommand;
  modify: ModifyOrderCommand;
}

export type Harness = 'reused' | 'fresh';

/** The harness BENCH_COMMANDS names (default `reused`). */
export function harnessFromEnv(): Harness {
  const h = process.env.BENCH_COMMANDS ?? 'reused';
  if (h !== 'reused' && h !== 'fresh') throw new Error('BENCH_COMMANDS must be reused or fresh');
  return h;
}

function reusedCommands(): ReusedCommands {
  // The fields of freshCommandAt's literals, in their order and with values of the kinds they
  // will hold (times are doubles from the start), so that a record and a fresh command share one
  // hidden class and refilling a record never changes its fields' representation.
  const time = opTime(0);
  return {
    place: {
      type: 'placeOrder', time, address: '', accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: 0,
      price: 1, size: 1, reduceOnly: false, goodTilTime: time + GTT_AHEAD_US,
    },
    cancel: { type: 'cancelOrder', time, address: '', accountIndex: 0, marketId: 1, orderId: 1 },
    modify: { type: 'modifyOrder', time, address: '', accountIndex: 0, marketId: 1, orderId: 1, price: 1, size: 1 },
  };
}

export interface AccountColumns {
  addresses: string[];
  indices: Int32Array;
}

export function accountColumns(): AccountColumns {
  const list = accounts();
  return { addresses: list.map((a) => a.address), indices: Int32Array.from(list, (a) => a.accountIndex) };
}

/** The stream's op i happens 1 µs after op i-1; setup commands come just before op 0. */
export function opTime(i: number): number {
  return START_TIME_US + 1_000 + i;
}

export function newEngine(sink: EventSink): Engine {
  const engine = createEngine({ markets: marketDefs() }, sink);
  for (let m = 0; m < MARKETS; m++) {
    const res = apply(engine, { type: 'setOraclePrice', time: START_TIME_US, marketId: marketId(m), price: START_MID });
    if (res.kind !== 'done') throw new Error(`setOraclePrice for market ${marketId(m)} refused: ${JSON.stringify(res)}`);
  }
  // Funded accounts: every maker and taker can carry its orders' initial margin.
  for (const { address, accountIndex } of accounts()) {
    const res = apply(engine, { type: 'deposit', time: START_TIME_US, address, accountIndex, amount: BENCH_FUNDING });
    if (res.kind !== 'transfer') throw new Error(`deposit refused: ${JSON.stringify(res)}`);
  }
  return engine;
}

/**
 * The command for op i, built when it is applied from the stream's typed arrays: a new object
 * (as a gateway builds one per request) or the kind's reused record refilled.
 */
export function commandAt(st: PerpsimState, s: Stream, i: number): Command {
  return st.commands === null ? freshCommandAt(s, i, st.accts, st.idBase) : reusedCommandAt(st.commands, s, i, st.accts, st.idBase);
}

function reusedCommandAt(r: ReusedCommands, s: Stream, i: number, accts: AccountColumns, idBase: number): Command {
  const k = s.kind[i]!;
  const n = s.account[i]!;
  const time = opTime(i);
  if (k === OP_CANCEL) {
    const c = r.cancel;
    c.time = time;
    c.address = accts.addresses[n]!;
    c.accountIndex = accts.indices[n]!;
    c.marketId = marketId(s.market[i]!);
    c.orderId = idBase + s.ref[i]!;
    return c;
  }
  if (k > OP_CANCEL) {
    const c = r.modify;
    c.time = time;
    c.address = accts.addresses[n]!;
    c.accountIndex = accts.indices[n]!;
    c.marketId = marketId(s.market[i]!);
    c.orderId = idBase + s.ref[i]!;
    c.price = s.price[i]!;
    c.size = s.total[i]!;
    return c;
  }
  const c = r.place;
  c.time = time;
  c.address = accts.addresses[n]!;
  c.accountIndex = accts.indices[n]!;
  c.marketId = marketId(s.market[i]!);
  c.side = s.side[i] === 0 ? 0 : 1;
  c.orderType = k === OP_MARKET ? 1 : 0;
  c.tif = k === OP_GTT ? 0 : k === OP_ALO ? 3 : 2;
  c.price = s.price[i]!;
  c.size = s.size[i]!;
  c.goodTilTime = time + GTT_AHEAD_US;
  return c;
}

function freshCommandAt(s: Stream, i: number, accts: AccountColumns, idBase: number): Command {
  const k = s.kind[i]!;
  const n = s.account[i]!;
  const address = accts.addresses[n]!;
  const accountIndex = accts.indices[n]!;
  const time = opTime(i);
  const mkt = marketId(s.market[i]!);
  if (k === OP_CANCEL) {
    const c: CancelOrderCommand = {
      type: 'cancelOrder', time, address, accountIndex,
      marketId: mkt, orderId: idBase + s.ref[i]!,
    };
    return c;
  }
  if (k > OP_CANCEL) {
    const c: ModifyOrderCommand = {
      type: 'modifyOrder', time, address, accountIndex,
      marketId: mkt, orderId: idBase + s.ref[i]!, price: s.price[i]!, size: s.total[i]!,
    };
    return c;
  }
  const c: PlaceOrderCommand = {
    type: 'placeOrder', time, address, accountIndex,
    marketId: mkt,
    side: s.side[i] === 0 ? 0 : 1,
    orderType: k === OP_MARKET ? 1 : 0,
    tif: k === OP_GTT ? 0 : k === OP_ALO ? 3 : 2,
    price: s.price[i]!,
    size: s.size[i]!,
    reduceOnly: false,
    goodTilTime: time + GTT_AHEAD_US,
  };
  return c;
}

/** A place must have been given the orderId its ref implies, or every later cancel would miss. */
function checkOrderId(res: CommandResult, expected: number): void {
  if (res.kind !== 'order' || res.orderId !== expected) {
    throw new Error(`a place was not given orderId ${expected}: ${JSON.stringify(res)}`);
  }
}

function runPlain(st: PerpsimState, s: Stream, from: number, to: number): void {
  const { engine, idBase } = st;
  const { kind, ref } = s;
  for (let i = from; i < to; i++) {
    const res = apply(engine, commandAt(st, s, i));
    if (kind[i]! < OP_CANCEL) checkOrderId(res, idBase + ref[i]!);
  }
}

function resultLabel(op: number, res: CommandResult): string {
  const name = OP_NAMES[op]!;
  switch (res.kind) {
    case 'order':
      return `${name}: order ${res.status}${res.rejectionReason ? ` (${res.rejectionReason})` : ''}`;
    case 'rejected':
      return `${name}: rejected ${res.rejectionReason}`;
    case 'invalid':
      return `${name}: invalid ${res.errorType}${res.field ? ` [${res.field}]` : ''}: ${res.error}`;
    case 'limited':
      return `${name}: limited: ${res.error}`;
    case 'conflict':
      return `${name}: conflict: ${res.error}`;
    case 'batch':
      return `${name}: batch of ${res.results.length}`;
    case 'buffered':
      return `${name}: buffered`;
    case 'done':
    case 'transfer':
    case 'leverage':
    case 'cancelAll':
    case 'scheduleCancel':
    case 'margin':
      return `${name}: ${res.kind}`;
  }
}

function runTallied(st: PerpsimState, s: Stream, from: number, to: number): void {
  const { engine, idBase } = st;
  const tally = st.tally!;
  for (let i = from; i < to; i++) {
    const k = s.kind[i]!;
    const res = apply(engine, commandAt(st, s, i));
    if (k < OP_CANCEL) checkOrderId(res, idBase + s.ref[i]!);
    bump(tally, resultLabel(k, res));
  }
}

function prepare(s: Stream, tallied: boolean, harness: Harness): PerpsimState {
  const counter = { events: 0 };
  const eventTally: Tally | null = tallied ? new Map() : null;
  const sink: EventSink = eventTally
    ? (e: EngineEvent) => {
        counter.events++;
        bump(eventTally, e.type);
      }
    : () => {
        counter.events++;
      };
  const engine = newEngine(sink);
  // The timed runner reads the engine's event records (counting them per command) rather than
  // having an object built per event: a consumer that needs no objects makes none
  // (engine/event-records.ts). The validation pass keeps the object sink and classifies each event.
  if (!tallied) useEventRecords(engine, (records) => void (counter.events += records.count));
  if (harness === 'reused') reuseResults(engine);
  const st: PerpsimState = {
    engine,
    accts: accountColumns(),
    idBase: engine.nextOrderId,
    counter,
    tally: tallied ? new Map() : null,
    eventTally,
    commands: harness === 'reused' ? reusedCommands() : null,
  };
  (tallied ? runTallied : runPlain)(st, s, 0, s.prefill);
  return st;
}

/** The timed runner: counting sink, no result inspection beyond keeping order ids. */
export function perpsimRunnerWith(harness: Harness): Runner<PerpsimState> {
  return {
    name: harness === 'reused' ? 'perpsim' : 'perpsim (fresh)',
    prepare: (s) => prepare(s, false, harness),
    run: runPlain,
    summary: (st) => `events ${st.counter.events}`,
  };
}

/** The validation pass (also the warm-up): every result and event is classified. */
export function perpsimTalliedRunnerWith(harness: Harness): Runner<PerpsimState> {
  return {
    name: 'perpsim (validation pass)',
    prepare: (s) => prepare(s, true, harness),
    run: runTallied,
    summary: (st) => `events ${st.counter.events}`,
  };
}

/** The timed runner with BENCH_COMMANDS's harness (engine-ab, engine-cpu, engine-alloc, engine-floor). */
export const perpsimRunner: Runner<PerpsimState> = perpsimRunnerWith(harnessFromEnv());
export const perpsimTalliedRunner: Runner<PerpsimState> = perpsimTalliedRunnerWith(harnessFromEnv());

export interface MemoryResult {
  orders: number;
  heapDeltaBytes: number;
  rejected: Tally;
}

/**
 * Rests `orders` non-crossing orders over all markets (bids below, asks above the mark,
 * 500 levels a side, accounts cycling so each holds an equal share per market) and measures
 * the heap growth after full GCs. Commands are built one at a time so only what the engine
 * keeps is counted.
 */
export function perpsimMemory(orders: number): MemoryResult {
  const gc = globalThis.gc;
  if (!gc) throw new Error('run with --expose-gc');
  const accts = accounts();
  const rejected: Tally = new Map();
  let events = 0;
  const engine = newEngine(() => {
    events++;
  });
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < orders; i++) {
    const m = i % MARKETS;
    const j = Math.floor(i / MARKETS);
    const side = j & 1 ? 1 : 0;
    const level = 1 + (Math.floor(j / 2) % 500);
    const a = accts[j % MAKER_ACCOUNTS]!;
    const time = START_TIME_US + 1_000 + i;
    const res = apply(engine, {
      type: 'placeOrder', time, address: a.address, accountIndex: a.accountIndex,
      marketId: marketId(m), side, orderType: 0, tif: 0,
      price: side === 0 ? START_MID - level : START_MID + level,
      size: 100 + ((i * 7_919) % 1_900),
      reduceOnly: false,
      goodTilTime: time + GTT_AHEAD_US,
    });
    if (res.kind !== 'order' || res.status !== 'OPEN') bump(rejected, resultLabel(OP_GTT, res));
  }
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keeps the engine reachable until after the measurement.
  if (events < 0) console.log(engine);
  return { orders, heapDeltaBytes: after - before, rejected };
}
