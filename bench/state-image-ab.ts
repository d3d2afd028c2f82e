/**
 * Do two checkouts write the same state? `A=<checkout> B=<checkout> node --import tsx
 * bench/state-image-ab.ts`. Each checkout, in a fresh process of its own, runs one scripted
 * trading history through the gateway test harness (4 wallets, BTC and ETH, fills from 0.001 to
 * 150 BTC, so that candle notionals and leaderboard totals cross 2^52 and 2^53 quote quantums;
 * clock steps from 1 s to 6 h), with SQLite history tables, then prints the sha256 of
 * `captureImage`, the state hash, the closed candle rows and the snapshot image the store wrote;
 * then the same history without a database (every bar in the memory series). A change to how
 * read models or services hold their numbers must leave all of them identical. Without a
 * database the image is also restored, 100 more steps run, and the image taken again
 * (`memoryAfterRestoreSha`: a digest of its decoded values, since after a restore V8 may hold
 * a number in another representation from run to run, and v8.serialize's bytes follow it). CAPS=small lowers the exchange's history caps (closed orders 37,
 * fills 53, trades 61, ledger entries 7 per key) so the memory lists drop entries, before and
 * after the restore. Ends with one JSON line: `identical` and each side's digests.
 * `TREE=<checkout>` runs one side.
 */
import { sqliteDriver } from '../gateway/persistence/sqlite-driver.ts';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';

interface Side {
  imageSha: string;
  imageBytes: number;
  hash: string;
  candleRows: number;
  rowsOverTwoPow52: number;
  rowsSha: string;
  snapshotSha: string;
  memoryImageSha: string;
  memoryHash: string;
  memoryAfterRestoreSha: string;
}

const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

async function history(tree: string, withDb: boolean): Promise<{ imageSha: string; imageBytes: number; hash: string; rows: { notional: string }[]; snapshotSha: string; afterRestoreSha: string }> {
  const fx = (await import(tree + '/test/support/gateway-fixture.ts')) as typeof import('../test/support/gateway-fixture.ts');
  const { openPersistence } = (await import(tree + '/gateway/persistence/index.ts')) as typeof import('../gateway/persistence/index.ts');
  const { captureImage, restoreImage, stateHash } = (await import(tree + '/gateway/persistence/durable-state.ts')) as typeof import('../gateway/persistence/durable-state.ts');
  const { priceToTicks, sizeToQuantums } = (await import(tree + '/engine/index.ts')) as typeof import('../engine/index.ts');
  const dir = mkdtempSync(join(tmpdir(), 'state-image-ab-'));
  const file = join(dir, 'perpsim.db');
  const persistence = withDb ? openPersistence({ file }) : undefined;
  const h = await fx.gateway({ rateLimit: { enabled: false }, persistence });
  const wallets = [0x31, 0x32, 0x33, 0x34].map(fx.wallet);
  for (const w of wallets) h.fund(w, 10_000_000_000n);
  const ex = h.exchange;
  if (process.env.CAPS === 'small') Object.assign(ex.limits, { closedOrdersPerAccount: 37, fillsPerAccount: 53, tradesPerMarket: 61, ledgerEntriesPerAccount: 7 });
  const btc = ex.engine.markets.get(1)!.spec;
  const eth = ex.engine.markets.get(2)!.spec;
  const steps = (from: number, to: number): void => {
  for (let step = from; step < to; step++) {
    h.now.us += [1_000_000, 20_000_000, 61_000_000, 3_600_000_000, 21_600_000_000][step % 5]!;
    const spec = step % 3 === 0 ? eth : btc;
    const px = String(spec === btc ? 97_000 + (step % 50) * 10 : 3_300 + (step % 40));
    const size = String(spec === btc ? [0.001, 0.5, 20, 150][step % 4] : [0.01, 5, 400, 2000][step % 4]);
    const maker = wallets[step % 4]!;
    const taker = wallets[(step + 1 + ((step >> 2) % 3)) % 4]!;
    const side = (step % 2) as 0 | 1;
    const order = { type: 'placeOrder' as const, accountIndex: 0, marketId: spec.id, orderType: 0 as const, price: priceToTicks(spec, px)!, size: sizeToQuantums(spec, size)!, reduceOnly: false, goodTilTime: h.now.us + 40 * 86_400_000_000 };
    ex.submit({ type: 'setOraclePrice', marketId: spec.id, price: priceToTicks(spec, px)! });
    ex.submit({ ...order, address: maker.address, side, tif: 0 });
    ex.submit({ ...order, address: taker.address, side: (1 - side) as 0 | 1, tif: 2 });
  }
  };
  steps(0, 400);
  await persistence?.committed();
  const image = captureImage(h.state);
  const out = { imageSha: sha(image), imageBytes: image.length, hash: stateHash(h.state), rows: [] as { notional: string }[], snapshotSha: '', afterRestoreSha: '' };
  if (persistence === undefined) {
    restoreImage(h.state, image);
    steps(400, 500);
    const values = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? { map: [...v] } : v instanceof Set ? { set: [...v] } : v);
    out.afterRestoreSha = sha(JSON.stringify(deserialize(captureImage(h.state)), values));
  }
  if (persistence !== undefined) {
    persistence.snapshot();
    persistence.close();
    // The file is read with this checkout's driver: the SQLite format is the same.
    const Database = sqliteDriver();
    const db = new Database(file, { readonly: true });
    out.rows = db.prepare('SELECT market, timeframe, open_time, open, high, low, close, volume, taker_buy_volume, notional, taker_buy_notional, trade_count FROM history_candles ORDER BY market, timeframe, open_time').all() as { notional: string }[];
    const snapshots = db.prepare('SELECT * FROM snapshots').all() as Record<string, unknown>[];
    out.snapshotSha = sha(snapshots.flatMap((r) => Object.values(r).filter((v): v is Buffer => Buffer.isBuffer(v)).map(sha)).join());
    db.close();
  }
  rmSync(dir, { recursive: true, force: true });
  return out;
}

async function side(tree: string): Promise<Side> {
  const db = await history(tree, true);
  const memory = await history(tree, false);
  return {
    imageSha: db.imageSha,
    imageBytes: db.imageBytes,
    hash: db.hash,
    candleRows: db.rows.length,
    rowsOverTwoPow52: db.rows.filter((r) => BigInt(r.notional) >= 2n ** 52n).length,
    rowsSha: sha(JSON.stringify(db.rows)),
    snapshotSha: db.snapshotSha,
    memoryImageSha: memory.imageSha,
    memoryHash: memory.hash,
    memoryAfterRestoreSha: memory.afterRestoreSha,
  };
}

if (process.env.TREE !== undefined) {
  console.log(JSON.stringify(await side(process.env.TREE)));
} else {
  const A = process.env.A;
  const B = process.env.B;
  if (!A || !B) throw new Error('set A and B to the two checkouts to compare (or TREE for one)');
  const run = (tree: string): Side => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], { env: { ...process.env, TREE: tree }, encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!) as Side;
  };
  const a = run(A);
  const b = run(B);
  for (const [k, v] of Object.entries(a)) console.log(`${k.padEnd(18)} ${String(v).padEnd(66)} ${v === b[k as keyof Side] ? 'same' : 'DIFFERS: ' + String(b[k as keyof Side])}`);
  const identical = Object.keys(a).every((k) => a[k as keyof Side] === b[k as keyof Side]);
  console.log(JSON.stringify({ bench: 'state-image-ab', a: A, b: B, identical, aSide: a, bSide: b }));
}
