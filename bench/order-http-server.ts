/**
 * One side of bench/order-http-ab.ts: a perpsim built as bench:gateway builds it (startServer
 * from the checkout this file is run from or TREE: auth on, rate limits off, agents off,
 * virtual clock, the 256 funded accounts), listening on loopback. Reports over IPC its URL, its
 * virtual clock and its pid; answers `cpu` with its main thread's CPU time, µs (threadCpuUs
 * on the main thread: the event loop alone, as bench:gateway's figure).
 */
import { benchWallets } from './gateway-orders.ts';
import { startOrderServer, type PlanClock } from './order-path-server.ts';
import { threadCpuUs } from './thread-cpu.ts';
import type { Server, ServerOptions } from '../sim/server.ts';

const tree = process.env.TREE ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const { startServer } = (await import(tree + '/sim/server.ts')) as { startServer: (options: ServerOptions) => Promise<Server> };
const plan: PlanClock = { baseNs: 0n, goodTilTimeUs: 0 };
const server = await startOrderServer(startServer, benchWallets(), plan);
process.on('message', (m: { kind: string }) => {
  if (m.kind === 'cpu') process.send!({ kind: 'cpu', us: threadCpuUs() });
  else if (m.kind === 'exit') void server.close().then(() => process.exit(0));
});
process.send!({ kind: 'ready', url: server.url, baseNs: plan.baseNs.toString(), goodTilTimeUs: plan.goodTilTimeUs, tree });
