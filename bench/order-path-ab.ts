/**
 * Two gateways' order paths compared in one process: `A=<checkout> B=<checkout> node --import
 * tsx bench/order-path-ab.ts`. Each checkout's perpsim (startServer: auth on, rate limits off,
 * agents off, virtual clock) is loaded from its own directory with the 256 funded accounts of
 * bench:gateway (gateway-orders.ts); its verifier is replaced by one that accepts at once, so
 * what is timed is perpsim's own work on a signed placeOrder without HTTP: the operation's
 * `handle` (header, key and address checks, Scheme 1 payload, sequencer, replay slot, engine,
 * read models and services, the reply object), 16 in flight as in the bench. Both run the same
 * signed orders (each side its own copy) in alternating chunks of CHUNK (default 2,000; the order flips every
 * round), each chunk timed by this thread's CPU time; ROUNDS (default 10) after DISCARD (default 1)
 * warm-up rounds. PREFILL=<n> first sends n untimed orders to each side (e.g. 44,000: the
 * per-market trade lists then start at their 5,000 cap, as in bench:gateway's later orders).
 * FULL_LISTS=1 then also fills every memory-history list to its cap through the checkout's own
 * `recordEvent` (copies of the prefill's last fill, closed order and trades events: each account's
 * fills and closed orders, each market's trades), the state of a long `--memory` run.
 * Prints the median µs per order of each and A/B. Judge a change both ways round (as
 * engine-ab.ts: the two share a heap and a load). Scratch servers listen on loopback ports.
 */
import { benchWallets, signOrders, type SignedRequest } from './gateway-orders.ts';
import type { EngineEvent } from '../engine/index.ts';
import { acceptAllSignatures, runOrders, startOrderServer, type Handle, type PlanClock } from './order-path-server.ts';

const A = process.env.A;
const B = process.env.B;
if (!A || !B) throw new Error('set A and B to the two checkouts to compare');
const CHUNK = Number(process.env.CHUNK ?? 2_000);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const DISCARD = Number(process.env.DISCARD ?? 1);
const PREFILL = Number(process.env.PREFILL ?? 0);
const FULL_LISTS = process.env.FULL_LISTS === '1';

const wallets = benchWallets();
const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };

async function load(tree: string): Promise<{ run(list: readonly SignedRequest[]): Promise<number>; fillLists(): void; close(): Promise<void> }> {
  const { startServer } = (await import(tree + '/sim/server.ts')) as typeof import('../sim/server.ts');
  const { OPERATIONS } = (await import(tree + '/gateway/operations/index.ts')) as { OPERATIONS: readonly { name: string; handle: Handle }[] };
  const server = await startOrderServer(startServer, wallets, plan);
  const close = acceptAllSignatures(server);
  const handle = OPERATIONS.find((op) => op.name === 'placeOrder')!.handle;
  const { recordEvent } = (await import(tree + '/gateway/read-models/exchange.ts')) as typeof import('../gateway/read-models/exchange.ts');
  const last: Partial<Record<'order' | 'fill' | 'trades', EngineEvent>> = {};
  server.state.exchange.listeners.add((events) => {
    for (const e of events) if (e.type === 'fill' || e.type === 'trades' || (e.type === 'order' && e.status === 'FILLED')) last[e.type] = e;
  });
  return {
    close,
    fillLists() {
      const ex = server.state.exchange;
      const { order, fill, trades } = last;
      if (order === undefined || fill === undefined || trades === undefined) throw new Error('FULL_LISTS needs PREFILL orders that fill');
      let id = 2_000_000_000;
      for (const w of wallets) {
        for (let i = 0; i < ex.limits.fillsPerAccount; i++) recordEvent(ex, Object.assign({}, fill, { address: w.address, accountIndex: 0 }));
        for (let i = 0; i < ex.limits.closedOrdersPerAccount; i++) recordEvent(ex, Object.assign({}, order, { address: w.address, accountIndex: 0, orderId: id++ }));
      }
      for (const marketId of ex.engine.markets.keys()) for (let i = 0; i < ex.limits.tradesPerMarket; i++) recordEvent(ex, Object.assign({}, trades, { marketId }));
    },
    async run(list) {
      const { us, refused } = await runOrders(handle, server.state, list);
      if (refused > 0) throw new Error(`${tree}: ${refused} orders not acknowledged`);
      return us;
    },
  };
}

const sides = [{ name: 'A', tree: A, us: [] as number[] }, { name: 'B', tree: B, us: [] as number[] }];
const loaded = [await load(A), await load(B)];
for (let at = 0; at < PREFILL; at += CHUNK) for (const l of loaded) await l.run(signOrders(wallets, { first: at, count: Math.min(CHUNK, PREFILL - at), ...plan }));
if (FULL_LISTS) for (const l of loaded) l.fillLists();
for (let round = 0, first = PREFILL; round < ROUNDS + DISCARD; round++, first += CHUNK) {
  for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
    // Each side its own copy (signed again): strings shared by both would reach the second with their hashes cached.
    const us = await loaded[k]!.run(signOrders(wallets, { first, count: CHUNK, ...plan }));
    if (round >= DISCARD) sides[k]!.us.push(us);
  }
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[a.length >> 1]!;
for (const s of sides) console.log(`${s.name} ${s.tree}: median ${median(s.us).toFixed(2)} µs an order (${s.us.map((u) => u.toFixed(1)).join(' ')})`);
console.log(`A/B ${(median(sides[0]!.us) / median(sides[1]!.us)).toFixed(3)}`);
for (const l of loaded) await l.close();
