/**
 * A --db file written by the version before the engine kept its wiring and per-command scratch
 * apart from its state (test/fixtures/db-before-engine-wiring.sqlite3: Alice funded with
 * 100,000 USD and five resting bids on market 2, then a clean stop) opens in this version: the
 * engine image of the old layout grafts, the orders and the account are there, and the state
 * hash is stable from one restart to the next. The hash differs from the one the old version
 * logged for the same state (56e7b998…): wiring and scratch are no longer part of the digested
 * graph (docs/decisions.md, "Engine core, second design").
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../sim/server.ts';
import { activeMarkets, findAccount, positionOf } from '../engine/index.ts';
import { wallet } from './support/gateway-fixture.ts';
import { get, tempDb } from './support/persistence-fixture.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/db-before-engine-wiring.sqlite3', import.meta.url));
/**
 * Written by the version before the risk table (per-account-per-market records as objects):
 * Alice and Bob funded with 100,000 USD each, Alice's three 0.5 ETH bids at 3296-3298, Bob's
 * 0.7 IOC sell at 3297 (Alice long 0.7 at 3297.7143; 0.3 left at 3297 and 0.5 at 3296), then a clean stop.
 */
const BEFORE_RISK_TABLE = fileURLToPath(new URL('./fixtures/db-before-risk-table.sqlite3', import.meta.url));
/**
 * Written by the version before the replay slots had ages (a Set of lowercase signatures, ages
 * kept beside it and lost at a stop): Alice funded, two signed bids (3300, 3299) then a clean
 * stop (both slots in the snapshot image, the Set form), a third (3298) in a run stopped without
 * a snapshot (its slot in an old `gateway` add record of the journal). The requests and the hash
 * that version logged at the last stop are in db-before-replay-ring.requests.json.
 */
const BEFORE_REPLAY_RING = fileURLToPath(new URL('./fixtures/db-before-replay-ring.sqlite3', import.meta.url));
const BEFORE_REPLAY_RING_REQUESTS = fileURLToPath(new URL('./fixtures/db-before-replay-ring.requests.json', import.meta.url));
const alice = wallet(0xa1);
const bob = wallet(0xb2);

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

async function open(db: string): Promise<Server> {
  const server = await startServer({ port: 0, db, clock: 'virtual', agents: false });
  servers.push(server);
  return server;
}

describe('a database written before the engine wiring change opens in this version', () => {
  it('restores the account and its five resting orders, and its hash is stable across a restart', async () => {
    const db = tempDb('old.sqlite3');
    copyFileSync(FIXTURE, db);
    const first = await open(db);
    const orders = (await get(first, `/v1/orders?address=${alice.address}`)).body as { total: number; orders: { price: string; status: string }[] };
    expect(orders.total).toBe(5);
    expect(orders.orders.map((o) => [o.price, o.status])).toEqual(['3296.00', '3297.00', '3298.00', '3299.00', '3300.00'].map((p) => [p, 'OPEN']));
    expect((await get(first, `/v1/account?address=${alice.address}`)).status).toBe(200);
    expect(first.exchange.engine.orders.size).toBe(5);
    const hash = first.persistence.hash();
    await first.close();
    servers = [];
    const second = await open(db);
    expect(second.persistence.hash()).toBe(hash);
    expect(second.exchange.engine.orders.size).toBe(5);
  });
});

describe('a database written before the risk table opens in this version', () => {
  it('moves the positions into the table: the same positions, orders and margin, and a hash stable across a restart', async () => {
    const db = tempDb('old.sqlite3');
    copyFileSync(BEFORE_RISK_TABLE, db);
    const first = await open(db);
    const positions = (await get(first, `/v1/positions?address=${alice.address}`)).body as { positions: Record<string, Record<string, unknown>> };
    // What the version that wrote the file answered for the same position.
    expect(positions.positions['2']).toMatchObject({ side: 'LONG', size: '0.7', averageEntryPrice: '3297.7143', leverage: '25.00', marginMode: 'CROSS', borrowedCapital: '-2284.8', marginUsed: '95.2' });
    const short = (await get(first, `/v1/positions?address=${bob.address}`)).body as { positions: Record<string, Record<string, unknown>> };
    expect(short.positions['2']).toMatchObject({ side: 'SHORT', size: '-0.7' });
    const orders = (await get(first, `/v1/orders?address=${alice.address}`)).body as { total: number; orders: { price: string; remainingSize: string }[] };
    expect(orders.orders.filter((o) => o.remainingSize !== '0.0').map((o) => o.price)).toEqual(['3297.00', '3296.00']);
    const engine = first.exchange.engine;
    const slot = engine.markets.get(2)!.slot;
    const holder = findAccount(engine.accounts, alice.address, 0)!;
    expect(positionOf(holder, slot)).toBeGreaterThan(0);
    expect(activeMarkets(holder).map((am) => [am.marketId, am.openOrders])).toEqual([[2, 2]]);
    const hash = first.persistence.hash();
    await first.close();
    servers = [];
    const second = await open(db);
    expect(second.persistence.hash()).toBe(hash);
    expect((await get(second, `/v1/positions?address=${alice.address}`)).body).toEqual(positions);
  });
});

describe('a database written before the replay slots had ages opens in this version', () => {
  const { hash: loggedHash, requests } = JSON.parse(readFileSync(BEFORE_REPLAY_RING_REQUESTS, 'utf8')) as { hash: string; requests: { headers: Record<string, string> }[] };

  // The requests' timestamps are long out of the window (the clock starts at the wall clock), so
  // a resend would be 401 whatever the slots say: the slots are looked up directly.
  const signatures = requests.map((r) => r.headers['x-signature']!);

  it('keeps every slot of the old image and of the old journal records, found in either letter case', async () => {
    const db = tempDb('old.sqlite3');
    copyFileSync(BEFORE_REPLAY_RING, db);
    const first = await open(db);
    expect(first.state.replay.size).toBe(3);
    for (const signature of signatures) expect(first.state.replay.has(signature) && first.state.replay.has(signature.toUpperCase())).toBe(true);
    expect(first.state.replay.slots()).toEqual(signatures.map((s) => s.toLowerCase()));
    expect(first.exchange.engine.orders.size).toBe(3);
  });

  it('hashes as the old version logged, the same after a restart that wrote the new image form, and the slots are still there', async () => {
    const db = tempDb('old.sqlite3');
    copyFileSync(BEFORE_REPLAY_RING, db);
    const first = await open(db);
    expect(first.persistence.hash()).toBe(loggedHash);
    await first.close();
    servers = [];
    const second = await open(db);
    expect(second.persistence.hash()).toBe(loggedHash);
    expect(second.state.replay.slots()).toEqual(signatures.map((s) => s.toLowerCase()));
  });
});
