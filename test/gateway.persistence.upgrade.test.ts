/**
 * A --db file written by the version before the engine kept its wiring and per-command scratch
 * apart from its state (test/fixtures/db-before-engine-wiring.sqlite3: Alice funded with
 * 100,000 USD and five resting bids on market 2, then a clean stop) opens in this version: the
 * engine image of the old layout grafts, the orders and the account are there, and the state
 * hash is stable from one restart to the next. The hash differs from the one the old version
 * logged for the same state (56e7b998…): wiring and scratch are no longer part of the digested
 * graph (docs/decisions.md, "Engine core, second design").
 */
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type Server } from '../sim/server.ts';
import { wallet } from './support/gateway-fixture.ts';
import { get, tempDb } from './support/persistence-fixture.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/db-before-engine-wiring.sqlite3', import.meta.url));
const alice = wallet(0xa1);

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
