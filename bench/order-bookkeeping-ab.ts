/**
 * The exchange's own bookkeeping of a signed order's events (what `applyStamped` does after the
 * engine and before the listeners: the `orders` map, the memory history's closed, fill, trade
 * and ledger lists, `history.record`), two checkouts compared: `A=<checkout> B=<checkout> node
 * --import tsx bench/order-bookkeeping-ab.ts`. The events of N (default 60,000) signed
 * placeOrders are captured from this checkout's order path (as order-path-ab runs it), then
 * replayed, command by command, into each checkout's fresh exchange (`createExchange`, the
 * default limits, so the per-market trade lists reach their cap half-way), alternating, ROUNDS
 * (12, the first two warm-up) each, timed by the process's CPU (getrusage, exact to the µs):
 * median µs an order of each, less a floor side that does all but the bookkeeping. Before each
 * command the side reads every event (as the order path has just written them: in cache) and,
 * with THRASH=<bytes> (default 256 KiB), walks that much memory, as the rest of an order's path
 * does between two commands of an account: what the bookkeeping then costs is mostly cache
 * misses on its maps and lists, as in the server (THRASH=0: everything stays in cache).
 * LISTENER=1 also runs each checkout's gateway listener (`followGateway`, portfolio sampling
 * off) on the same fresh state after the bookkeeping, as `applyStamped` does. A checkout is
 * driven through its `recordEvents` when it has one, else `recordEvent` per event.
 */
import { envInt } from './env.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { captureOrderEvents, listenerFactory } from './listener-state.ts';

const N = envInt('N', 60_000);
const ROUNDS = envInt('ROUNDS', 12);
const LISTENER = process.env.LISTENER === '1';
const THRASH = process.env.THRASH === '0' ? 0 : envInt('THRASH', 262_144);
const junk = new Float64Array(THRASH / 8);

function processCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

const { state: serverState, batches, close } = await captureOrderEvents(N);
console.log(`${N} orders: ${batches.length} commands, ${batches.reduce((a, b) => a + b.length, 0)} events`);

type Events = readonly unknown[];
type Run = (events: Events) => void;
const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const trees = [process.env.A ?? here, process.env.B ?? here];
const sides: { name: string; tree: string; make: () => Run }[] = [{ name: 'floor', tree: '(none)', make: () => () => {} }];
for (const [k, tree] of trees.entries()) {
  const x = await import(tree + '/gateway/read-models/exchange.ts');
  const makeListener = await listenerFactory(tree);
  sides.push({
    name: k === 0 ? 'A' : 'B',
    tree,
    make: () => {
      const exchange = x.createExchange({ markets: defaultMarkets() }, () => 0);
      const book: Run =
        x.recordEvents !== undefined
          ? (events) => x.recordEvents(exchange, events)
          : (events) => {
              for (const e of events) x.recordEvent(exchange, e);
              exchange.history.record(events);
            };
      if (!LISTENER) return book;
      const listener = makeListener(serverState, { exchange: Object.assign(Object.create(null), serverState.exchange, { accountKeys: exchange.accountKeys }) });
      return (events) => {
        book(events);
        listener(events);
      };
    },
  });
}

const us: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 ? [...sides].reverse() : sides) {
    const run = s.make();
    let seen = 0;
    const t0 = processCpuUs();
    for (const b of batches) {
      for (let i = 0; i < b.length; i++) seen += (b[i] as { globalSeq: number }).globalSeq;
      for (let i = 0; i < junk.length; i += 8) junk[i]! += 1;
      run(b);
    }
    const t = (processCpuUs() - t0) / N;
    if (seen < 0) throw new Error('unreachable');
    if (round >= 2) (us[s.name] ??= []).push(t);
  }
}
const median = (a: number[]): number => [...a].sort((p, q) => p - q)[a.length >> 1]!;
const floor = median(us.floor!);
console.log(`floor: median ${floor.toFixed(3)} µs an order (reading the events${THRASH > 0 ? ` and ${THRASH} bytes` : ''})`);
for (const s of sides.slice(1)) console.log(`${s.name} ${s.tree}: median ${(median(us[s.name]!) - floor).toFixed(3)} µs an order above the floor (${us[s.name]!.map((t) => (t - floor).toFixed(2)).join(' ')})`);
const [ua, ub] = sides.slice(1).map((s) => median(us[s.name]!) - floor);
console.log(JSON.stringify({ bench: 'order-bookkeeping-ab', orders: N, listener: LISTENER, thrashBytes: THRASH, a: trees[0], b: trees[1], aUsPerOrder: +ua!.toFixed(3), bUsPerOrder: +ub!.toFixed(3), aOverB: +(ua! / ub!).toFixed(3) }));
await close();
