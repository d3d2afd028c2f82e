/**
 * Where a signed placeOrder's time goes inside the gateway, engine included:
 * `node --import tsx bench/order-split.ts` (TREE=<checkout> to measure another checkout that exports `recordEvent` and `followReadModels`).
 *
 * One perpsim (startServer as in bench/order-path-ab.ts: auth on, rate limits off, agents off,
 * virtual clock, the 256 funded accounts of bench:gateway, a verifier that accepts at once) runs
 * placeOrder's `handle` on signed orders, 16 in flight, in chunks of CHUNK (default 2,000) timed
 * by this thread's CPU. Inside it, `exchange.applyStamped` is replaced by a timed copy of itself
 * (same steps, same order: the engine, the exchange's own order/history bookkeeping, the history
 * store, then each listener; the gateway's first listener split into its read models and its
 * services) — the process's CPU clock read around each step (its own cost subtracted).
 *
 * The same stamped commands are then applied, chunk by chunk, to the engines of three more
 * servers built the same way, with nothing around them: objects to a sink that drops them (the
 * engine as the gateway runs it), record mode with a consumer that reads nothing (the engine
 * without event objects), and, after the last round (it would change the gateway's event
 * objects' hidden classes: see below), record mode whose consumer makes every event's object
 * (`eventAt`).
 * The gap between the engine inside the gateway and the same commands alone is the cost of
 * running between everything else (caches, the handle's garbage).
 *
 * Prints the median µs per order of each part over ROUNDS (default 8) chunks after a warm-up one,
 * and one JSON line.
 */
import { fileURLToPath } from 'node:url';
import { benchWallets, signOrders } from './gateway-orders.ts';
import { acceptAllSignatures, runOrders, startOrderServer, type Handle, type PlanClock } from './order-path-server.ts';
import { threadCpuUs } from './thread-cpu.ts';

const TREE = process.env.TREE ?? fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const CHUNK = Number(process.env.CHUNK ?? 2_000);
const ROUNDS = Number(process.env.ROUNDS ?? 8);

type Engine = import('../engine/index.ts').Engine;
type Command = import('../engine/index.ts').Command;
type EngineEvent = import('../engine/index.ts').EngineEvent;

const { startServer } = (await import(TREE + '/sim/server.ts')) as typeof import('../sim/server.ts');
const { OPERATIONS } = (await import(TREE + '/gateway/operations/index.ts')) as { OPERATIONS: readonly { name: string; handle: Handle }[] };
const engineApi = (await import(TREE + '/engine/index.ts')) as typeof import('../engine/index.ts');
const { recordEvent } = (await import(TREE + '/gateway/read-models/exchange.ts')) as typeof import('../gateway/read-models/exchange.ts');
const { followReadModels } = (await import(TREE + '/gateway/gateway.ts')) as typeof import('../gateway/gateway.ts');
const { followServices } = (await import(TREE + '/gateway/services/follow.ts')) as typeof import('../gateway/services/follow.ts');

const wallets = benchWallets();
const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };
const serve = (): ReturnType<typeof startServer> => startOrderServer(startServer, wallets, plan);

// CPU time, not wall time: on a shared machine the wall clock also counts the time this thread
// waits for a core. process.cpuUsage() (getrusage) counts every thread of the process (V8's GC
// helpers too) and costs ~0.5 µs a call: each part below is charged one call, measured and
// subtracted (`clockCostUs`).
const cpuNowUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const now = process.env.TIMER === 'wall' ? (): number => performance.now() * 1000 : cpuNowUs;
const clockCostUs = ((): number => {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const n = 100_000;
    const t0 = threadCpuUs();
    for (let i = 0; i < n; i++) now();
    best = Math.min(best, (threadCpuUs() - t0) / n);
  }
  return best;
})();

const PARTS = ['engine', 'bookkeeping', 'bookkeepingOrders', 'historyStore', 'readModels', 'services', 'wsFanout', 'otherListeners'] as const;
type Part = (typeof PARTS)[number];
const acc: Record<Part, number> = { engine: 0, bookkeeping: 0, bookkeepingOrders: 0, historyStore: 0, readModels: 0, services: 0, wsFanout: 0, otherListeners: 0 };
let events = 0;

const main = await serve();
const closeMain = acceptAllSignatures(main);
const handle = OPERATIONS.find((op) => op.name === 'placeOrder')!.handle;
{
  // The timed copy of applyStamped (gateway/read-models/exchange.ts), listener by listener.
  const state = main.state;
  const exchange = state.exchange;
  const engine = exchange.engine;
  let pending: EngineEvent[] = [];
  engine.wiring.sink = (e) => pending.push(e);
  const [first, ...rest] = [...exchange.listeners];
  if (first === undefined) throw new Error('no gateway listener');
  const readModels = followReadModels(state);
  const services = followServices(state);
  const history = exchange.history;
  const record = history.record.bind(history);
  // A throw inside the wallet sequencer's turn would leave the bench waiting: say so.
  exchange.applyStamped = ((command: Command) => {
    try {
      return timedApply(command);
    } catch (err) {
      console.error('applyStamped threw', err);
      throw err;
    }
  }) as typeof exchange.applyStamped;
  const timedApply = (command: Command): unknown => {
    const t0 = now();
    const result = engineApi.apply(engine, command);
    const t1 = now();
    acc.engine += t1 - t0;
    const list = pending;
    pending = [];
    events += list.length;
    // In two passes, order events and then the rest (each kind touches its own maps, so the
    // split changes nothing): which of them the bookkeeping's time is.
    const t2 = now();
    for (const e of list) if (e.type === 'order') recordEvent(exchange, e);
    const t2b = now();
    acc.bookkeepingOrders += t2b - t2;
    for (const e of list) if (e.type !== 'order') recordEvent(exchange, e);
    const t3 = now();
    acc.bookkeeping += t3 - t2;
    record(list);
    const t4 = now();
    acc.historyStore += t4 - t3;
    if (list.length > 0) {
      readModels(list);
      const t5 = now();
      acc.readModels += t5 - t4;
      services(list);
      const t6 = now();
      acc.services += t6 - t5;
      let t = t6;
      for (let i = 0; i < rest.length; i++) {
        rest[i]!(list);
        const u = now();
        if (i === 0) acc.wsFanout += u - t;
        else acc.otherListeners += u - t;
        t = u;
      }
    }
    return result;
  };
}

// The replay engines: the same stamped commands, nothing around them.
const captured: Command[] = [];
{
  const exchange = main.state.exchange;
  const previous = exchange.onCommand;
  exchange.onCommand = (c) => {
    previous?.(c);
    captured.push(c);
  };
}
const replayObjects = await serve();
const replayRecords = await serve();
const replayRecordsToObjects = await serve();
replayObjects.state.exchange.engine.wiring.sink = () => {};
engineApi.useEventRecords(replayRecords.state.exchange.engine, () => {});
let made = 0;
engineApi.useEventRecords(replayRecordsToObjects.state.exchange.engine, (records) => {
  for (let i = 0; i < records.count; i++) if (engineApi.eventAt(records, i) !== undefined) made++;
});

function replay(engine: Engine, commands: readonly Command[]): number {
  const start = threadCpuUs();
  for (const c of commands) engineApi.apply(engine, c);
  return (threadCpuUs() - start) / commands.length;
}

const rows: Record<string, number[]> = {};
const note = (name: string, v: number): void => void (rows[name] ??= []).push(v);
const roundCommands: Command[][] = [];
for (let round = 0, first = 0; round <= ROUNDS; round++, first += CHUNK) {
  const list = signOrders(wallets, { first, count: CHUNK, ...plan });
  for (const p of PARTS) acc[p] = 0;
  events = 0;
  captured.length = 0;
  process.stderr.write(`round ${round}\n`);
  const { us: total, refused } = await runOrders(handle, main.state, list);
  if (refused > 0) throw new Error(`${refused} orders not acknowledged`);
  const commands = [...captured];
  if (commands.length !== CHUNK) throw new Error(`${commands.length} commands for ${CHUNK} orders`);
  const alone: Record<string, number> = {};
  for (let k = 0; k < 2; k++) {
    if ((round + k) % 2 === 0) alone.engineAloneObjects = replay(replayObjects.state.exchange.engine, commands);
    else alone.engineAloneRecords = replay(replayRecords.state.exchange.engine, commands);
  }
  roundCommands.push(commands);
  if (round === 0) continue;
  note('handleTotal', total);
  for (const p of PARTS) note(p, acc[p] / CHUNK - clockCostUs * (p === 'otherListeners' ? 0 : 1));
  note('eventsPerOrder', events / CHUNK);
  for (const [k, v] of Object.entries(alone)) note(k, v);
}
// The records-to-objects engine runs last, on every round's commands in turn: `eventAt` makes
// the event objects with other field representations (doubles) than the engine's own emit, which
// deprecates the hidden classes the gateway's engine makes its events with; run between the
// timed rounds, it made every fill, trades and position event of the gateway migrate at its first
// read (recordEvent), a cost that production does not have (docs/decisions.md "Event-loop cost
// per signed order (gateway REST and WS RPC)").
for (const [round, commands] of roundCommands.entries()) {
  const us = replay(replayRecordsToObjects.state.exchange.engine, commands);
  if (round > 0) note('engineAloneRecordsToObjects', us);
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
const result: Record<string, number> = {};
for (const [k, v] of Object.entries(rows)) {
  result[k] = Number(median(v).toFixed(2));
  console.log(`${k.padEnd(28)} ${median(v).toFixed(2).padStart(7)} µs an order  (${v.map((x) => x.toFixed(2)).join(' ')})`);
}
const { loadavg } = await import('node:os');
console.log(`clock ${process.env.TIMER === 'wall' ? 'wall' : 'process CPU'}, ${clockCostUs.toFixed(3)} µs a reading (subtracted once per part)`);
console.log(JSON.stringify({ bench: 'order-split', tree: TREE, clockCostUs, chunk: CHUNK, rounds: ROUNDS, load: loadavg()[0], eventObjectsMade: made, ...result }));
await closeMain();
for (const s of [replayObjects, replayRecords, replayRecordsToObjects]) await s.close();
