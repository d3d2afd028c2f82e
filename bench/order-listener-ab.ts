/**
 * The gateway's own exchange listener (read models and services) alone, two checkouts compared:
 * `A=<checkout> B=<checkout> node --import tsx bench/order-listener-ab.ts`. The events of N
 * (default 40,000) signed placeOrders are captured from this checkout's order path (as
 * order-path-ab runs it), then replayed, command by command, through each checkout's listener
 * on fresh read-model and service stores (portfolio sampling off), alternating, ROUNDS (12, the
 * first two warm-up) each, timed by this thread's CPU: median µs an order of each. A checkout
 * without `followGateway` is run as its two listeners, read models then services.
 */
import { threadCpuUs } from './thread-cpu.ts';
import { envInt } from './env.ts';
import { captureOrderEvents, listenerFactory, type Listener } from './listener-state.ts';

const N = envInt('N', 40_000);
const ROUNDS = envInt('ROUNDS', 12);
const { state: serverState, batches, close } = await captureOrderEvents(N);
console.log(`${N} orders: ${batches.length} commands, ${batches.reduce((a, b) => a + b.length, 0)} events`);
const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const trees = [process.env.A ?? here, process.env.B ?? here];
const mods: { name: string; t: string; make: () => Listener }[] = [];
for (const [k, t] of trees.entries()) {
  const make = await listenerFactory(t);
  mods.push({ name: k === 0 ? 'A' : 'B', t, make: () => make(serverState) });
}
const res: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const m of round % 2 ? [...mods].reverse() : mods) {
    const l = m.make();
    const t0 = threadCpuUs();
    for (const b of batches) l(b);
    const us = (threadCpuUs() - t0) / N;
    if (round >= 2) (res[m.name] ??= []).push(us);
  }
}
const med = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const m of mods) console.log(`${m.name} ${m.t}: median ${med(res[m.name]!).toFixed(3)} µs an order (${res[m.name]!.map((x) => x.toFixed(2)).join(' ')})`);
const [ua, ub] = mods.map((m) => med(res[m.name]!));
console.log(JSON.stringify({ bench: 'order-listener-ab', orders: N, a: trees[0], b: trees[1], aUsPerOrder: +ua!.toFixed(3), bUsPerOrder: +ub!.toFixed(3), aOverB: +(ua! / ub!).toFixed(3) }));
await close();
