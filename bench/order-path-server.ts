/**
 * What the in-process order-path benches (order-path-ab.ts, order-split.ts) share: a perpsim
 * built as bench:gateway builds it (auth on, rate limits off, agents off, virtual clock, the 256
 * funded accounts of gateway-orders.ts) from any checkout's `startServer`, and placeOrder's
 * `handle` run on a list of signed orders, 16 in flight, timed by this thread's CPU.
 */
import { fundAndRegister } from './gateway-driver.ts';
import { GTT_AHEAD_US, type BenchWallet, type SignedRequest } from './gateway-orders.ts';
import { threadCpuUs } from './thread-cpu.ts';
import type { Server, ServerOptions } from '../sim/server.ts';

const IN_FLIGHT = 16;

export type Handle = (state: unknown, request: object) => Promise<{ status: number }> | { status: number };

/** The signed orders' clock: set from the first server's virtual clock, shared by every later one. */
export interface PlanClock {
  baseNs: bigint;
  goodTilTimeUs: number;
}

export async function startOrderServer(startServer: (options: ServerOptions) => Promise<Server>, wallets: readonly BenchWallet[], plan: PlanClock): Promise<Server> {
  const server = await startServer({ host: '127.0.0.1', port: 0, clock: 'virtual', agents: false, rateLimits: false, auth: true });
  if (plan.baseNs === 0n) {
    const clock = (await server.app.inject({ method: 'GET', url: '/sim/clock' })).json<{ timeUs: number }>();
    plan.baseNs = BigInt(clock.timeUs) * 1000n;
    plan.goodTilTimeUs = clock.timeUs + GTT_AHEAD_US;
  }
  await fundAndRegister(server, wallets);
  return server;
}

/**
 * Swaps the server's verifier for one that accepts every signature at once (what is timed is
 * perpsim's own work); returns the close that puts the real one back first, so its worker is
 * closed with the server (closed with the stand-in in place, its worker thread kept the process alive).
 */
export function acceptAllSignatures(server: Server): () => Promise<void> {
  const real = server.state.verifier;
  server.state.verifier = { threads: 1, verify: () => Promise.resolve(0), close: async () => {} };
  return () => {
    if (real !== undefined) server.state.verifier = real;
    return server.close();
  };
}

/** Runs `handle` on every order of `list`; resolves to this thread's CPU µs an order and the count not acknowledged (202). */
export async function runOrders(handle: Handle, state: unknown, list: readonly SignedRequest[]): Promise<{ us: number; refused: number }> {
  let next = 0;
  let refused = 0;
  const start = threadCpuUs();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < list.length) {
        const r = list[next++]!;
        const address = r.path.slice(r.path.indexOf('=') + 1);
        const reply = await handle(state, { body: JSON.parse(r.body) as unknown, query: { address }, params: {}, headers: r.headers, ip: '127.0.0.1', path: r.path, rawBody: r.body });
        if (reply.status !== 202) refused++;
      }
    }),
  );
  return { us: (threadCpuUs() - start) / list.length, refused };
}
