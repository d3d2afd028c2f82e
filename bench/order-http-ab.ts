/**
 * Two checkouts' signed placeOrder over HTTP, each in its own process: `A=<checkout>
 * B=<checkout> node --import tsx bench/order-http-ab.ts`. Each side is bench/order-http-server.ts
 * (perpsim as bench:gateway builds it, the real verifier and its thread); the load generator
 * of bench:gateway (gateway-load.ts, autocannon in a child process, 16 connections) sends the
 * same pre-signed orders to both, CHUNK (default 8,000) a round at RATE orders/s (default
 * 6,000: the same pace for both, since a loop's cost per request depends on its rate), the order
 * of the two flipping every round; ROUNDS (default 6) after a warm-up round. Each chunk is
 * timed by the receiving server's main-thread CPU (the event loop: bench:gateway's
 * `mainThreadCpuUsPerOrder`). Prints each side's median µs an order and A/B. Judge a change
 * both ways round. DISCARD (default 1) warm-up rounds; PREFILL=<n> first sends n untimed orders
 * to each side at RATE (e.g. 48,000: the per-market trade lists then start at their 5,000 cap).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { ask, startLoad, stopLoad } from './gateway-driver.ts';
import { envInt } from './env.ts';

const A = process.env.A;
const B = process.env.B;
if (!A || !B) throw new Error('set A and B to the two checkouts to compare');
const CHUNK = envInt('CHUNK', 8_000);
const ROUNDS = envInt('ROUNDS', 6);
const RATE = envInt('RATE', 6_000);
const DISCARD = envInt('DISCARD', 1);
const PREFILL = envInt('PREFILL', 0);

interface Side { name: string; tree: string; child: ChildProcess; url: string; us: number[] }

function start(name: string, tree: string): Promise<Side & { baseNs: string; goodTilTimeUs: number }> {
  const child = fork(new URL('./order-http-server.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, TREE: tree }, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
    child.once('message', (m: { url: string; baseNs: string; goodTilTimeUs: number }) => resolve({ name, tree, child, url: m.url, us: [], baseNs: m.baseNs, goodTilTimeUs: m.goodTilTimeUs }));
  });
}

function cpu(side: Side): Promise<number> {
  return new Promise((resolve) => {
    side.child.once('message', (m: { us: number }) => resolve(m.us));
    side.child.send({ kind: 'cpu' });
  });
}

const sides = [await start('A', A), await start('B', B)];
// Both servers' virtual clocks start at the same instant; the first one's sets the plan.
const { baseNs, goodTilTimeUs } = sides[0]!;
const load = startLoad();
try {
  if (PREFILL > 0) {
    const signed = await ask(load, { kind: 'sign', options: { first: 0, count: PREFILL, baseNs, goodTilTimeUs } });
    if (signed.kind !== 'signed') throw new Error('sign failed');
    for (const side of sides) {
      const r = await ask(load, { kind: 'run', target: { url: side.url, connections: 16, source: { kind: 'signed', rate: RATE } } });
      if (r.kind !== 'result' || (r.statuses['202'] ?? 0) !== PREFILL) throw new Error(`${side.name}: prefill not acknowledged`);
    }
  }
  for (let round = 0; round < ROUNDS + DISCARD; round++) {
    const signed = await ask(load, { kind: 'sign', options: { first: PREFILL + round * CHUNK, count: CHUNK, baseNs, goodTilTimeUs } });
    if (signed.kind !== 'signed') throw new Error('sign failed');
    for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[k]!;
      const before = await cpu(side);
      const r = await ask(load, { kind: 'run', target: { url: side.url, connections: 16, source: { kind: 'signed', rate: RATE } } });
      const used = (await cpu(side)) - before;
      if (r.kind !== 'result') throw new Error('run failed');
      const acked = r.statuses['202'] ?? 0;
      if (acked !== CHUNK) throw new Error(`${side.name}: ${acked} of ${CHUNK} acknowledged (${JSON.stringify(r.statuses)})`);
      if (round >= DISCARD) side.us.push(used / CHUNK);
    }
  }
} finally {
  await stopLoad(load);
  for (const s of sides) s.child.send({ kind: 'exit' });
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const s of sides) console.log(`${s.name} ${s.tree}: median ${median(s.us).toFixed(2)} µs an order (${s.us.map((u) => u.toFixed(1)).join(' ')})`);
console.log(`A/B ${(median(sides[0]!.us) / median(sides[1]!.us)).toFixed(3)}`);
console.log(JSON.stringify({ bench: 'order-http-ab', chunk: CHUNK, rounds: ROUNDS, rate: RATE, discard: DISCARD, prefill: PREFILL, aUsPerOrder: +median(sides[0]!.us).toFixed(2), bUsPerOrder: +median(sides[1]!.us).toFixed(2), aOverB: +(median(sides[0]!.us) / median(sides[1]!.us)).toFixed(3) }));
