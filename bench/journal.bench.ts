/**
 * The journal's cost (`npm run bench:journal`): signed placeOrder over REST against perpsim
 * with the SQLite journal (--db) and in memory (--memory), in the same run; then the restart
 * time with a 1,000,000-order journal.
 *
 * Throughput: two perpsim servers in-process (auth on, rate limits off, agents off, virtual
 * clock), one on a temporary SQLite file (synchronous=NORMAL, the default), one in memory, the
 * accounts of `gateway-orders.ts` funded on both. The load generator (autocannon in a child
 * process, `gateway-load.ts`) pre-signs the same requests for each server (a request is
 * accepted once per server) and sends each once; passes alternate memory, journal, after a
 * warm-up pass on each, BENCH_CONNECTIONS connections (default 16). Orders/s counts 202 ACKs.
 *
 * Restart: a server on a fresh file (default snapshot settings: every 100,000 records; the
 * whole journal kept) takes 1,000,000 placeOrder commands (seeded limit orders around each
 * market's price on four markets from 1,000 funded accounts; about half trade, the rest rest)
 * straight into its exchange, journaled in group commits of 10,000; then it stops without the
 * snapshot a clean stop writes — what a kill -9 after the last commit leaves. Timed from the
 * call to listening (modules already loaded, no hash logged): the restart after that crash
 * (newest periodic snapshot + the journal after it: the figure the target is on), the restart
 * from a copy of the file without snapshots (all 1,000,000 replayed: the worst case, reported as
 * fullReplaySecondsFor1MOrders), and the restart after a clean stop (snapshot only). BENCH_QUICK=1 runs 1-second passes and a 100,000-order
 * journal (BENCH_RESTART_ORDERS sets it) with snapshots every tenth of it; figures are not
 * scaled, and the JSON line then reports the restart times of the smaller journal (restartJournalOrders
 * says its size).
 *
 * Target (the issue's): journaled ≥ 0.8 × in-memory orders/s; restart ≤ 5 s. Ends with
 * {"bench":"journal","journaledOrdersPerSec":…,"memoryOrdersPerSec":…,"restartSecondsFor1MOrders":…,
 * "fullReplaySecondsFor1MOrders":…,"cleanRestartSeconds":…,"restartJournalOrders":…}.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { sqliteDriver } from '../gateway/persistence/sqlite-driver.ts';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { createPrng } from '../sim/prng.ts';
import { DEFAULT_PRICES } from '../sim/markets.ts';
import { DEFAULT_SNAPSHOT_RECORDS } from '../gateway/persistence/index.ts';
import { startServer, type Server } from '../sim/server.ts';
import { envInt } from './env.ts';
import { ask, count, drive, fundAndRegister, perSec, startLoad, stopLoad, type Pass } from './gateway-driver.ts';
import { benchWallets, GTT_AHEAD_US } from './gateway-orders.ts';

const Database = sqliteDriver();

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = envInt('BENCH_SECONDS', QUICK ? 1 : 6);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const WARMUP_ORDERS = QUICK ? 200 : 3_000;
const RESTART_ORDERS = envInt('BENCH_RESTART_ORDERS', QUICK ? 100_000 : 1_000_000);
// The default cadence at 1,000,000 orders; the same tenth of the journal at other sizes.
const SNAPSHOT_EVERY = Math.max(1, Math.round((RESTART_ORDERS / 1_000_000) * DEFAULT_SNAPSHOT_RECORDS));
const TARGET_RATIO = 0.8;
const TARGET_RESTART_S = 5;

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function serverOptions(db?: string): Parameters<typeof startServer>[0] {
  return { host: '127.0.0.1', port: 0, clock: 'virtual', agents: false, rateLimits: false, auth: true, ...(db !== undefined && { db }) };
}

/** Orders/s of signed placeOrders `first .. first + n - 1` against `server`. */
async function signedPass(load: ReturnType<typeof startLoad>, server: Server, first: number, n: number, baseNs: bigint, goodTilTimeUs: number): Promise<Pass> {
  const reply = await ask(load, { kind: 'sign', options: { first, count: n, baseNs: baseNs.toString(), goodTilTimeUs } });
  if (reply.kind !== 'signed' || reply.count !== n) throw new Error('pre-signing failed');
  const pass = await drive(load, { url: server.url, connections: CONNECTIONS, source: { kind: 'signed' } });
  const acked = count(pass, (s) => s === 202);
  if (acked < 0.99 * n) throw new Error(`only ${acked} of ${n} signed orders were ACKed: ${JSON.stringify(pass.statuses)}`);
  return pass;
}

async function throughput(dir: string): Promise<{ journaled: number; memory: number }> {
  const load = startLoad();
  const memory = await startServer(serverOptions());
  const journaled = await startServer(serverOptions(join(dir, 'throughput.db')));
  try {
    const timeUs = Math.max(memory.exchange.clock(), journaled.exchange.clock());
    const baseNs = BigInt(timeUs) * 1000n;
    const goodTilTimeUs = timeUs + GTT_AHEAD_US;
    const wallets = benchWallets();
    await fundAndRegister(memory, wallets);
    await fundAndRegister(journaled, wallets);
    const warm = await signedPass(load, memory, 0, WARMUP_ORDERS, baseNs, goodTilTimeUs);
    await signedPass(load, journaled, 0, WARMUP_ORDERS, baseNs, goodTilTimeUs);
    const orders = Math.max(CONNECTIONS * 10, Math.round(1.5 * (count(warm, (s) => s === 202) / warm.durationS) * SECONDS));
    const rates = { journaled: [] as number[], memory: [] as number[] };
    let first = WARMUP_ORDERS;
    for (let round = 0; round < 2; round++, first += orders) {
      for (const [name, server] of [['memory', memory], ['journaled', journaled]] as const) {
        const pass = await signedPass(load, server, first, orders, baseNs, goodTilTimeUs);
        const rate = perSec(count(pass, (s) => s === 202), pass);
        rates[name].push(rate);
        console.log(`${`signed placeOrder, ${name === 'memory' ? '--memory' : '--db (journal)'}`.padEnd(34)} ${fmt(rate).padStart(8)} orders/s  p50 ${pass.p50Ms.toFixed(2)} ms  p99 ${pass.p99Ms.toFixed(2)} ms  (${fmt(orders)} orders, round ${round + 1})`);
      }
    }
    const best = (xs: number[]): number => Math.max(...xs);
    return { journaled: best(rates.journaled), memory: best(rates.memory) };
  } finally {
    await stopLoad(load);
    await memory.close();
    await journaled.close();
  }
}

/** Journals `n` placeOrders (plus the accounts' deposits) into `db` and stops without the closing snapshot. */
async function writeJournal(db: string, n: number): Promise<void> {
  const server = await startServer({ ...serverOptions(db), persistence: { snapshotEveryRecords: SNAPSHOT_EVERY, snapshotEveryMs: Number.MAX_SAFE_INTEGER, snapshotOnClose: false, keepJournal: true } });
  const exchange = server.exchange;
  const rng = createPrng(42);
  const accounts = Array.from({ length: 1_000 }, (_, i) => '0x' + (0x5000_0000 + i).toString(16).padStart(40, '0'));
  for (const address of accounts) exchange.submit({ type: 'deposit', address, accountIndex: 0, amount: 10_000_000n * 1_000_000_000n });
  const markets = [1, 2, 3, 4].map((id) => {
    const ms = exchange.engine.markets.get(id)!;
    const mid = priceToTicks(ms.spec, DEFAULT_PRICES[ms.spec.displayName]!)!;
    return { id, mid, size: sizeToQuantums(ms.spec, { 1: '0.001', 2: '0.01', 3: '1', 4: '100' }[id]!)! };
  });
  const gtt = exchange.clock() + GTT_AHEAD_US;
  for (let i = 0; i < n; i++) {
    const m = markets[i & 3]!;
    const side = rng.next() < 0.5 ? 0 : 1;
    // Within ±0.5 % of the price: about half of the orders cross the other side.
    const offset = Math.round((rng.next() - 0.5) * 0.01 * m.mid);
    // On a grid of 100 ticks, so that orders share levels the way a real book's do.
    const price = m.mid + offset;
    exchange.submit({ type: 'placeOrder', address: accounts[Math.floor(rng.next() * accounts.length)]!, accountIndex: 0, marketId: m.id, side, orderType: 0, tif: 0, price: price - (price % 100), size: m.size, reduceOnly: false, goodTilTime: gtt });
    if (i % 10_000 === 9_999) await server.persistence.committed();
  }
  await server.close();
}

async function timedStart(db: string): Promise<{ seconds: number; server: Server }> {
  const started = performance.now();
  const server = await startServer(serverOptions(db));
  return { seconds: (performance.now() - started) / 1000, server };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-journal-bench-'));
  try {
    const cpu = cpus();
    console.log(`journal bench${QUICK ? ' (BENCH_QUICK)' : ''}: ${cpu.length} cores (${cpu[0]?.model ?? '?'}), Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)} at start`);
    const rates = await throughput(dir);

    const db = join(dir, 'restart.db');
    const written = performance.now();
    await writeJournal(db, RESTART_ORDERS);
    const size = statSync(db).size + (statSync(db + '-wal', { throwIfNoEntry: false })?.size ?? 0);
    console.log(`journal of ${fmt(RESTART_ORDERS)} orders written in ${((performance.now() - written) / 1000).toFixed(1)} s, ${(size / 1e6).toFixed(0)} MB`);
    // A copy without snapshots: everything is replayed.
    copyFileSync(db, db + '.bare');
    const bare = new Database(db + '.bare');
    bare.exec('DELETE FROM snapshots');
    bare.close();
    const crash = await timedStart(db);
    const orders = crash.server.exchange.engine.orders.size;
    const replayed = crash.server.persistence.recovery!;
    await crash.server.close(); // a clean stop: writes the snapshot the next start loads
    const clean = await timedStart(db);
    await clean.server.close();
    const full = await timedStart(db + '.bare');
    await full.server.close();
    const restart = crash.seconds;
    console.log(`restart after a crash (newest snapshot + ${fmt(replayed.replayed)} records after it): ${crash.seconds.toFixed(2)} s, ${fmt(orders)} orders resting`);
    console.log(`restart replaying all ${fmt(RESTART_ORDERS)} orders (no snapshot): ${full.seconds.toFixed(2)} s`);
    console.log(`restart after a clean stop (its snapshot only): ${clean.seconds.toFixed(2)} s`);

    const ratio = rates.journaled / rates.memory;
    const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
    console.log(`target journaled >= ${TARGET_RATIO} x in-memory: ${ratio.toFixed(2)} x (${fmt(rates.journaled)} / ${fmt(rates.memory)}): ${verdict(ratio >= TARGET_RATIO)}`);
    console.log(`target restart with a 1,000,000-order journal <= ${TARGET_RESTART_S} s: ${restart.toFixed(2)} s: ${verdict(restart <= TARGET_RESTART_S)}`);
    const seconds = (s: number): number => Math.round(s * 100) / 100;
    console.log(
      JSON.stringify({
        bench: 'journal',
        journaledOrdersPerSec: rates.journaled,
        memoryOrdersPerSec: rates.memory,
        restartSecondsFor1MOrders: seconds(restart),
        fullReplaySecondsFor1MOrders: seconds(full.seconds),
        cleanRestartSeconds: seconds(clean.seconds),
        restartJournalOrders: RESTART_ORDERS,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
