/**
 * The differential harness: the live engine (engine/) and the reference engine
 * (test/reference/engine/, today's engine frozen as the model) take the same command stream;
 * every command must give equal results and equal event sequences, and every `digestEvery`
 * commands (and at the end) the two states must hash alike.
 *
 * The state hash is gateway/persistence/state-hash.ts over a layout-free copy of the engine's
 * durable data (canonical-state.ts): the image `detachEngine` leaves, wiring and per-command
 * scratch left out, orders and book levels read through each engine's own layout, so that a
 * change of storage (typed arrays) or of field order does not count as a change of state. Used by test/engine.differential.test.ts and bench/differential.ts.
 */
import * as live from '../../engine/index.ts';
import * as reference from '../reference/engine/index.ts';
import * as referenceAccount from '../reference/engine/account.ts';
import * as referencePosition from '../reference/engine/position.ts';
import type { Command, CommandResult, EngineEvent } from '../../engine/types.ts';
import { stateHash } from '../../gateway/persistence/state-hash.ts';
import { canonicalState, LINKED_LAYOUT, type StateLayout } from './canonical-state.ts';
import { LIVE_LAYOUT } from './live-layout.ts';
import { AccountMarket } from '../../engine/position.ts';
import { AW, findRow, QUOTE_F, QUOTE_PENDING_B, SUM_CHANGES, SUM_EPOCH, SUM_EQ, SUM_IM, SUM_MM } from '../../engine/risk-table.ts';
import { quoteOf } from '../../engine/account.ts';
import { COMMAND_KINDS, createCommandStream, differentialConfig, EVENT_KINDS, type EventKind, type StreamShape } from './differential-stream.ts';

type Slots = Record<string, unknown>;

/** Key orders of the reference engine's account and per-market records: the layout both engines' digests use. */
const ACCOUNT_KEYS = Object.keys(referenceAccount.getOrCreateAccount(referenceAccount.createAccountIndex(), '0x0', 0, 1));
const MARKET_KEYS = Object.keys(referencePosition.createAccountMarket(0, 0));
const ACCOUNT_SUMS: Record<string, number> = { sumEpoch: SUM_EPOCH, sumEq: SUM_EQ, sumIm: SUM_IM, sumMm: SUM_MM, sumChanges: SUM_CHANGES, quoteF: QUOTE_F };

/**
 * The live engine's accounts in the reference's layout: each account with its per-market records
 * (from the risk table's rows) by slot and its active list, and its float margin sums; one view
 * object per row, so the active list and the slot array share them as the reference's do.
 */
export function liveAccountViews(engine: live.Engine): (value: object) => object {
  const t = engine.accounts.table;
  const slots = engine.bySlot.length;
  const rows = new Map<number, Slots>();
  const rowView = (row: number): Slots => {
    let view = rows.get(row);
    if (view === undefined) {
      const am = new AccountMarket(t, row) as unknown as Slots;
      view = {};
      for (const key of MARKET_KEYS) view[key] = am[key];
      rows.set(row, view);
    }
    return view;
  };
  const accounts = new Set<object>(engine.accounts.all);
  return (value) => {
    if (!accounts.has(value)) return value;
    const account = value as live.Account;
    const source = value as unknown as Slots;
    const view: Slots = {};
    for (const key of ACCOUNT_KEYS) {
      if (key === 'markets') {
        view.markets = Array.from({ length: slots }, (_, slot) => {
          const row = findRow(t, account.id, slot);
          return row < 0 ? undefined : rowView(row);
        });
      } else if (key === 'active') view.active = account.active.map(rowView);
      else if (key in ACCOUNT_SUMS) view[key] = t.accountSums[account.id * AW + ACCOUNT_SUMS[key]!];
      // The balance is `quote` plus the pending double; the one last converted, likewise.
      else if (key === 'quote') view.quote = quoteOf(account);
      else if (key === 'quoteB') view.quoteB = account.quoteB + BigInt(t.accountSums[account.id * AW + QUOTE_PENDING_B]!);
      else view[key] = source[key];
    }
    return view;
  };
}

/** The reference's accounts with their per-market arrays as long as the engine's market list (it grows them only on use). */
export function referenceAccountViews(engine: reference.Engine): (value: object) => object {
  const accounts = new Set<object>(engine.accounts.all);
  const slots = engine.bySlot.length;
  return (value) => {
    if (!accounts.has(value)) return value;
    const view = { ...(value as unknown as Slots) };
    const markets = view.markets as unknown[];
    view.markets = Array.from({ length: slots }, (_, slot) => markets[slot]);
    return view;
  };
}

/**
 * The sha256 of an engine's durable data, read through its `layout` (orders and book) and with
 * its accounts seen through `substitute` (the risk table's rows in the reference's per-market
 * records), so that two storages of the same state hash alike (test/support/canonical-state.ts).
 */
export function engineDigest(engine: object, detach: (engine: never) => () => void, layout: StateLayout, substitute: (value: object) => object): string {
  const restore = detach(engine as never);
  try {
    return stateHash(canonicalState(engine, layout, substitute));
  } finally {
    restore();
  }
}


/** Equality of plain data: numbers (NaN equal to NaN), bigints, strings, arrays, objects with keys in the same order. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return Number.isNaN(a) && Number.isNaN(b as number);
  if (typeof a !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameData((a as Slots)[k], (b as Slots)[k])) return false;
  }
  return true;
}

export const show = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/**
 * The live engine's result in the reference's vocabulary, for comparison: the reference answers
 * every command without an order outcome with one catch-all `done` (buffered modifies, cancelAll
 * counts, switch states, transfer and leverage outcomes, and an isolated-margin refusal as
 * `done` with `rejectReason`); the live engine has one result type per command. The mapping is
 * exact, so equal results here mean no information was lost or changed.
 */
export function asReferenceResult(command: Command, result: CommandResult): unknown {
  switch (result.kind) {
    case 'transfer':
    case 'leverage':
    case 'cancelAll':
    case 'scheduleCancel':
      return { ...result, kind: 'done' };
    case 'margin':
      return { kind: 'done' };
    case 'buffered':
      return { kind: 'done', buffered: true };
    case 'rejected':
      return command.type === 'adjustIsolatedMargin' ? { kind: 'done', rejectReason: result.rejectionReason } : result;
    case 'batch':
      return { kind: 'batch', results: result.results.map((r) => asReferenceResult(command, r)) };
    default:
      return result;
  }
}

export interface DifferentialReport {
  seed: number;
  commands: number;
  events: number;
  digests: number;
  /** The final state hash (equal for both engines). */
  digest: string;
  commandCounts: Record<string, number>;
  eventCounts: Record<string, number>;
  /** Order updates by status, and a few outcomes worth seeing (liquidation orders, ADL, TPSL). */
  orderStatusCounts: Record<string, number>;
  liveSeconds: number;
  referenceSeconds: number;
}

export class DivergenceError extends Error {}

export interface DifferentialOptions {
  seed: number;
  commands: number;
  /** Compare state hashes every this many commands (and always at the end). */
  digestEvery?: number;
  /** Called every `progressEvery` commands. */
  onProgress?: (done: number) => void;
  progressEvery?: number;
  /** Changes the live engine after command `at` (to prove that a difference is caught). */
  tamper?: { at: number; apply(engine: live.Engine): void };
  /** Runs the live engine in record mode: its events are the records read back with `eventAt`. */
  eventRecords?: boolean;
  /**
   * Runs the live engine in result-reuse mode (`reuseResults`) and blanks every field of each
   * command it was given once `apply` returns, as a caller that reuses its command records
   * would overwrite them: an engine that kept a command (or a caller that kept a result) diverges.
   */
  reuse?: boolean;
  /** Prices on the upper tick tiers, larger sizes and amounts (differential-stream.ts); the default stream without. */
  shape?: StreamShape;
}

/** Runs one seeded stream through both engines; throws DivergenceError at the first difference. */
export function runDifferential(options: DifferentialOptions): DifferentialReport {
  const { seed, commands } = options;
  const digestEvery = options.digestEvery ?? 5_000;
  const progressEvery = options.progressEvery ?? 100_000;
  const liveEvents: EngineEvent[] = [];
  const refEvents: unknown[] = [];
  const liveEngine = live.createEngine(differentialConfig(), (e) => liveEvents.push(e));
  if (options.eventRecords === true) {
    live.useEventRecords(liveEngine, (records) => {
      for (let k = 0; k < records.count; k++) liveEvents.push(live.eventAt(records, k));
    });
  }
  if (options.reuse === true) live.reuseResults(liveEngine);
  const refEngine = reference.createEngine(differentialConfig() as reference.EngineConfig, (e) => refEvents.push(e));
  const stream = createCommandStream(seed, options.shape);
  const commandCounts: Record<string, number> = Object.fromEntries(COMMAND_KINDS.map((k) => [k, 0]));
  const eventCounts: Record<string, number> = Object.fromEntries(EVENT_KINDS.map((k) => [k, 0]));
  const orderStatusCounts: Record<string, number> = {};
  let events = 0;
  let digests = 0;
  let liveSeconds = 0;
  let referenceSeconds = 0;
  const fail = (i: number, command: Command, what: string): never => {
    throw new DivergenceError(`seed ${seed}, command #${i} ${show(command)}: ${what}`);
  };
  const compareDigests = (i: number, command: Command): string => {
    const a = engineDigest(liveEngine, live.detachEngine as never, LIVE_LAYOUT, liveAccountViews(liveEngine));
    const b = engineDigest(refEngine, reference.detachEngine as never, LINKED_LAYOUT, referenceAccountViews(refEngine));
    digests++;
    if (a !== b) fail(i, command, `state hashes differ after it (live ${a}, reference ${b})`);
    return a;
  };
  let digest = '';
  let last: Command | undefined;
  for (let i = 0; i < commands; i++) {
    const command = stream.next();
    last = command;
    commandCounts[command.type]!++;
    liveEvents.length = 0;
    refEvents.length = 0;
    // Each engine gets its own copy: neither may see what the other did to a command.
    const t0 = performance.now();
    const liveCommand = copyCommand(command);
    const liveResult = live.apply(liveEngine, liveCommand);
    const t1 = performance.now();
    if (options.reuse === true) blankCommand(liveCommand);
    const refResult = reference.apply(refEngine, copyCommand(command) as reference.Command);
    const t2 = performance.now();
    liveSeconds += (t1 - t0) / 1000;
    referenceSeconds += (t2 - t1) / 1000;
    if (!sameData(asReferenceResult(command, liveResult), refResult)) fail(i, command, `results differ:\n  live:      ${show(liveResult)}\n  reference: ${show(refResult)}`);
    if (liveEvents.length !== refEvents.length || !sameData(liveEvents, refEvents)) {
      let k = 0;
      while (k < liveEvents.length && k < refEvents.length && sameData(liveEvents[k], refEvents[k])) k++;
      fail(i, command, `events differ at #${k} of ${liveEvents.length} / ${refEvents.length}:\n  live:      ${show(liveEvents[k])}\n  reference: ${show(refEvents[k])}`);
    }
    for (const e of liveEvents) {
      eventCounts[e.type]!++;
      if (e.type === 'order') orderStatusCounts[e.status] = (orderStatusCounts[e.status] ?? 0) + 1;
    }
    events += liveEvents.length;
    stream.observe(command, refResult);
    if (options.tamper !== undefined && options.tamper.at === i) options.tamper.apply(liveEngine);
    if ((i + 1) % digestEvery === 0) digest = compareDigests(i, command);
    if (options.onProgress !== undefined && (i + 1) % progressEvery === 0) options.onProgress(i + 1);
  }
  if (last !== undefined && commands % digestEvery !== 0) digest = compareDigests(commands - 1, last);
  return { seed, commands, events, digests, digest, commandCounts, eventCounts, orderStatusCounts, liveSeconds, referenceSeconds };
}

/** Overwrites every field of a command (and of a batch's elements) with undefined. */
function blankCommand(command: Command): void {
  if (command.type === 'batchPlace') for (const o of command.orders) blank(o);
  blank(command);
}

function blank(record: object): void {
  for (const key of Object.keys(record)) (record as Record<string, unknown>)[key] = undefined;
}

export function copyCommand(command: Command): Command {
  if (command.type === 'batchPlace') return { ...command, orders: command.orders.map((o) => ({ ...o })) };
  if (command.type === 'addMarket') return { ...command, market: structuredClone(command.market) };
  return { ...command };
}

/** The kinds a report never saw: empty when the stream covered every command and event kind. */
export function uncovered(report: Pick<DifferentialReport, 'commandCounts' | 'eventCounts'>): string[] {
  const missing: string[] = [];
  for (const k of COMMAND_KINDS) if (!(report.commandCounts[k]! > 0)) missing.push(`command ${k}`);
  for (const k of EVENT_KINDS as readonly EventKind[]) if (!(report.eventCounts[k]! > 0)) missing.push(`event ${k}`);
  return missing;
}

/** Sums the counts of several reports. */
export function mergeCounts(into: Record<string, number>, from: Record<string, number>): Record<string, number> {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  return into;
}
