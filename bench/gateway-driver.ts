/**
 * Driving perpsim from the load generator (gateway-load.ts, a child process): the passes the
 * gateway and journal benches share, and their setup through the control API.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from '../sim/server.ts';
import { DEPOSIT_USD } from './gateway-orders.ts';
import { processCpuUs, threadCpuUs } from './thread-cpu.ts';
import type { LoadReply, LoadRequest, LoadResult, LoadTarget } from './gateway-load.ts';

export function startLoad(): ChildProcess {
  return fork(new URL('./gateway-load.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
}

/** Asks the load generator to exit; kills it if it has not within 5 s (it may be mid-pass). */
export async function stopLoad(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ kind: 'exit' } satisfies LoadRequest);
  const timer = setTimeout(() => child.kill(), 5_000);
  await exited;
  clearTimeout(timer);
}

export function ask(child: ChildProcess, request: LoadRequest): Promise<LoadReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`load generator exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (reply: LoadReply) => {
      child.off('exit', onExit);
      if (reply.kind === 'failed') reject(new Error(`load generator: ${reply.error}`));
      else resolve(reply);
    });
    child.send(request);
  });
}

/**
 * A pass's result plus the CPU time spent during it, µs: this process (the servers' side, its
 * verification threads included), its main thread (the event loop) alone, and the load
 * generator's process.
 */
export type Pass = LoadResult & { serverCpuUs: number; mainThreadCpuUs: number; loadCpuUs: number };

export async function drive(child: ChildProcess, target: LoadTarget): Promise<Pass> {
  const cpu = process.cpuUsage();
  const main = threadCpuUs();
  const load = processCpuUs(child.pid!);
  const reply = await ask(child, { kind: 'run', target });
  const used = process.cpuUsage(cpu);
  const mainThreadCpuUs = threadCpuUs() - main;
  const loadCpuUs = processCpuUs(child.pid!) - load;
  if (reply.kind !== 'result') throw new Error(`unexpected reply ${reply.kind}`);
  return { ...reply, serverCpuUs: used.user + used.system, mainThreadCpuUs, loadCpuUs };
}

export function count(r: LoadResult, predicate: (status: number) => boolean): number {
  let n = 0;
  for (const [code, c] of Object.entries(r.statuses)) if (predicate(Number(code))) n += c;
  return n;
}

export const is2xx = (s: number): boolean => s >= 200 && s < 300;
export const perSec = (n: number, r: LoadResult): number => Math.round(n / r.durationS);

/** Funds each account and registers its API key through the control API (/sim, in-process). */
export async function fundAndRegister(server: Server, accounts: ReadonlyArray<{ address: string; apiKey: string }>): Promise<void> {
  for (const w of accounts) {
    for (const [url, payload] of [
      ['/sim/deposit', { address: w.address, amount: DEPOSIT_USD }],
      ['/sim/apiKeys', { address: w.address, publicKey: w.apiKey }],
    ] as const) {
      const res = await server.app.inject({ method: 'POST', url, payload });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    }
  }
}

