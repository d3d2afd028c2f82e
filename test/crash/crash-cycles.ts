/**
 * The crash test: signed writes against a real `perpsim serve --db` process, kill -9 at a random
 * moment, restart, and check the journal's promise.
 *
 * Each cycle: start the server on the same file (the first cycle funds the wallets and
 * registers their keys), run concurrent signed placeOrders (resting, each with its own
 * clientId) and kill -9 the process at a random moment while they are in flight; start it
 * again and check that every order that got a 2xx is there (GET /v1/order/{id}) and that each
 * wallet has no more open orders than were acknowledged plus those whose request was still in
 * flight at the kill (a write that got an error reply, or none, is not acknowledged); stop it
 * cleanly and check that the state hash it logs at shutdown equals a from-scratch replay of the
 * whole journal (the server runs with --keep-journal).
 */
import * as ed from '@noble/ed25519';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createExchange } from '../../gateway/read-models/exchange.ts';
import { replayFile } from '../../gateway/persistence/index.ts';
import { wallMicros } from '../../sim/clock.ts';
import { defaultMarkets } from '../../sim/markets.ts';
import { createPrng } from '../../sim/prng.ts';
import { placeOrderRequest, wallet, type GatewayHarness, type Wallet } from '../support/gateway-fixture.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Running {
  child: ChildProcess;
  url: string;
  /** Resolves with the process's log lines once it has exited. */
  exited: Promise<Record<string, unknown>[]>;
}

/** `perpsim serve --db db` as a child process (the crash test's flags, then `extra`), once it listens. */
export function startProcess(db: string, extra: readonly string[] = []): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'serve', '--db', db, '--port', '0', '--keep-journal', '--no-rate-limits', '--snapshot-every', '2000', '--log-level', 'info', ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Record<string, unknown>[]>((resolve) => child.on('exit', () => resolve(lines)));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      lines.push(entry);
      if (entry.msg === 'perpsim listening') resolve({ child, url: entry.url as string, exited });
    });
    void exited.then(() => reject(new Error(`perpsim exited before listening: ${stderr}`)));
  });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface CrashOptions {
  cycles: number;
  db: string;
  seed?: number;
  /** Concurrent writers. */
  writers?: number;
  log?: (line: string) => void;
}

export interface CrashResult {
  cyclesPassed: number;
  writesChecked: number;
}

const MARKETS = [1, 2, 3, 4];
const PRICES: Record<number, string> = { 1: '20000.0', 2: '1000.00', 3: '50.000', 4: '0.05000' };
const WRITES_PER_CYCLE = 150;
const SIZES: Record<number, string> = { 1: '0.001', 2: '0.01', 3: '1', 4: '200' };

export async function runCrashCycles(options: CrashOptions): Promise<CrashResult> {
  const rng = createPrng(options.seed ?? 7);
  const writers = options.writers ?? 8;
  const wallets: Wallet[] = Array.from({ length: writers }, (_, i) => wallet(0x31 + i));
  const specs = createExchange({ markets: defaultMarkets() }, () => 0);
  const sign = (message: string, w: Wallet): string => Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
  /** Open orders each wallet is known to have (checked after the last restart). */
  const known = new Map<string, number>(wallets.map((w) => [w.address, 0]));
  let writesChecked = 0;
  let serial = 0;

  for (let cycle = 0; cycle < options.cycles; cycle++) {
    const server = await startProcess(options.db);
    if (cycle === 0) {
      for (const w of wallets) {
        if ((await post(server.url + '/sim/deposit', { address: w.address, amount: '1000000000' })).status !== 200) throw new Error('deposit refused');
        if ((await post(server.url + '/sim/apiKeys', { address: w.address, publicKey: w.apiKey })).status !== 200) throw new Error('key refused');
      }
    }
    const inflight = new Map<string, number>(wallets.map((w) => [w.address, 0]));
    const acked = new Map<string, string[]>(wallets.map((w) => [w.address, []]));
    let killed = false;
    const writer = async (w: Wallet): Promise<void> => {
      // Bounded so that no wallet reaches the open-orders cap of a market in 20 cycles.
      for (let n = 0; n < WRITES_PER_CYCLE && !killed; n++) {
        const marketId = MARKETS[Math.floor(rng.next() * MARKETS.length)]!;
        const harness = { exchange: specs, now: { us: wallMicros() }, sign } as unknown as GatewayHarness;
        const request = placeOrderRequest(harness, w, { marketId, side: 'BUY', quantity: SIZES[marketId]!, price: PRICES[marketId]!, clientId: `c${++serial}` });
        inflight.set(w.address, inflight.get(w.address)! + 1);
        try {
          const reply = await post(server.url + request.url, request.payload, request.headers);
          if (reply.status >= 200 && reply.status < 300 && reply.body.status === 'ACK') acked.get(w.address)!.push(reply.body.orderId as string);
          else if (!killed) throw new Error(`write refused: ${reply.status} ${JSON.stringify(reply.body)}`);
          inflight.set(w.address, inflight.get(w.address)! - 1);
        } catch (err) {
          if (!killed) throw err;
          return; // no reply: the kill came first; its outcome is unknown
        }
      }
    };
    const load = Promise.all(wallets.map(writer));
    await new Promise((resolve) => setTimeout(resolve, 500 + rng.next() * 2000));
    killed = true;
    server.child.kill('SIGKILL');
    await Promise.allSettled([load, server.exited]);

    const restarted = await startProcess(options.db);
    for (const [address, orders] of acked) {
      for (const orderId of orders) {
        const res = await fetch(`${restarted.url}/v1/order/${orderId}?address=${address}`);
        if (res.status !== 200) throw new Error(`cycle ${cycle + 1}: acknowledged order ${orderId} of ${address} is missing after the restart (${res.status})`);
        writesChecked++;
      }
      const open = (await (await fetch(`${restarted.url}/v1/openOrders?address=${address}&limit=1`)).json()) as { total: number };
      const least = known.get(address)! + orders.length;
      const most = least + inflight.get(address)!;
      if (open.total < least || open.total > most) throw new Error(`cycle ${cycle + 1}: ${address} has ${open.total} open orders; acknowledged ${least}, at most ${most} with those in flight at the kill`);
      known.set(address, open.total);
    }
    restarted.child.kill('SIGTERM');
    const lines = await restarted.exited;
    const stopped = lines.find((l) => l.msg === 'perpsim stopped');
    if (stopped === undefined) throw new Error(`cycle ${cycle + 1}: no shutdown hash logged`);
    const replay = replayFile(options.db);
    if (replay.hash !== stopped.stateHash) throw new Error(`cycle ${cycle + 1}: shutdown hash ${String(stopped.stateHash)} != from-scratch replay ${replay.hash} (${replay.replayed} records)`);
    options.log?.(`cycle ${cycle + 1}: ${writesChecked} writes checked, hash ${replay.hash.slice(0, 12)} = replay of ${replay.replayed} records`);
  }
  return { cyclesPassed: options.cycles, writesChecked };
}
