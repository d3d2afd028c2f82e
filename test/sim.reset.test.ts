import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MEMORY_IMAGES, replayFile } from '../gateway/persistence/index.ts';
import { startServer, type Server, type ServerOptions } from '../sim/server.ts';
import * as ed from '@noble/ed25519';
import { nowMicros } from '../sim/clock.ts';
import { placeOrderRequest, wallet } from './support/gateway-fixture.ts';
import { get, onboard, placeOrder, post, tempDb } from './support/persistence-fixture.ts';
import { levelCount } from '../engine/book.ts';

let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

async function start(options: ServerOptions): Promise<Server> {
  const server = await startServer({ port: 0, ...options });
  servers.push(server);
  return server;
}

const alice = wallet(0xa1);

describe('POST /sim/reset: back to the configured initial state, same seed', () => {
  it('forgets accounts, keys and orders and gives the state the server started with', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    const initial = server.persistence.hash();
    await onboard(server, alice);
    expect((await placeOrder(server, alice, { marketId: 2, quantity: '1', price: '3300.00' })).status).toBe(202);
    expect(server.persistence.hash()).not.toBe(initial);
    expect(await post(server, '/sim/reset', {})).toEqual({ status: 200, body: { status: 'reset' } });
    expect(server.persistence.hash()).toBe(initial);
    expect((await get(server, `/v1/account?address=${alice.address}`)).status).toBe(404);
    expect(server.state.keys.byKey.size).toBe(0);
    expect((await get(server, `/v1/orders?address=${alice.address}`)).body).toMatchObject({ orders: [], total: 0 });
  });

  it('quotes the book again from the same seed', async () => {
    const server = await start({ clock: 'virtual' });
    const quoted = (): number => levelCount(server.exchange.engine.markets.get(1)!.book.bids);
    expect(quoted()).toBeGreaterThanOrEqual(20);
    const initial = server.persistence.hash();
    await post(server, '/sim/oracle', { market: 'BTC-USD', price: '90000.0' });
    expect((await fetch(server.url + '/sim/reset', { method: 'POST' })).status).toBe(200);
    expect(quoted()).toBeGreaterThanOrEqual(20);
    expect(server.persistence.hash()).toBe(initial);
  });
});

describe('POST /sim/snapshot {name} and POST /sim/restore {name}: named state images', () => {
  it('restores the state saved under a name, whatever happened since', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    await onboard(server, alice);
    expect(await post(server, '/sim/snapshot', { name: 'funded' })).toEqual({ status: 200, body: { name: 'funded', status: 'saved' } });
    const saved = server.persistence.hash();
    expect((await placeOrder(server, alice, { marketId: 2, quantity: '1', price: '3300.00' })).status).toBe(202);
    await post(server, '/sim/deposit', { address: alice.address, amount: '5' });
    expect(await post(server, '/sim/restore', { name: 'funded' })).toEqual({ status: 200, body: { name: 'funded', status: 'restored' } });
    expect(server.persistence.hash()).toBe(saved);
    expect((await get(server, `/v1/account?address=${alice.address}`)).body).toMatchObject({ netQuoteBalance: '100000.0' });
    expect((await get(server, `/v1/openOrders?address=${alice.address}`)).body).toMatchObject({ total: 0 });
  });

  it('keeps the replay slots and their ages: an order signed before the snapshot is 409 after the restore, in either letter case', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    await onboard(server, alice);
    const sign = (m: string): string => Buffer.from(ed.sign(new TextEncoder().encode(m), alice.secret)).toString('hex');
    const signed = (price: string) => placeOrderRequest({ exchange: server.exchange, now: { us: nowMicros(server.clock) }, sign } as never, alice, { marketId: 2, quantity: '1', price });
    const before = signed('3300.00');
    expect((await post(server, before.url, before.payload, before.headers)).status).toBe(202);
    await post(server, '/sim/snapshot', { name: 'signed' });
    const slots = server.state.replay.image();
    const after = signed('3299.00');
    expect((await post(server, after.url, after.payload, after.headers)).status).toBe(202);
    expect(server.state.replay.size).toBe(2);
    expect((await post(server, '/sim/restore', { name: 'signed' })).status).toBe(200);
    expect(server.state.replay.image()).toEqual(slots);
    const upper = { ...before.headers, 'x-signature': before.headers['x-signature']!.toUpperCase() };
    expect((await post(server, before.url, before.payload, upper)).status).toBe(409);
    expect((await post(server, before.url, before.payload, before.headers)).status).toBe(409);
  });

  it('answers 404 in the control API\'s error shape for an unknown name, 400 for a bad one', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    expect(await post(server, '/sim/restore', { name: 'nope' })).toEqual({ status: 404, body: { error: 'no snapshot named nope' } });
    expect((await post(server, '/sim/snapshot', { name: '' })).status).toBe(400);
    expect((await post(server, '/sim/snapshot', { name: 'a b' })).status).toBe(400);
    expect((await post(server, '/sim/restore', {})).status).toBe(400);
  });

  it('keeps at most MAX_MEMORY_IMAGES names in memory: a new name past it is 409, a known name is still replaced', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    for (let i = 0; i < MAX_MEMORY_IMAGES; i++) expect((await post(server, '/sim/snapshot', { name: `s${i}` })).status).toBe(200);
    const refused = await post(server, '/sim/snapshot', { name: 'one-more' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: expect.stringContaining('too many snapshots') });
    expect(await post(server, '/sim/snapshot', { name: 's0' })).toEqual({ status: 200, body: { name: 's0', status: 'saved' } });
    expect((await post(server, '/sim/restore', { name: 'one-more' })).status).toBe(404);
  });

  it('keeps images on disk with --db, and a restart recovers through a restore and a reset exactly as a from-scratch replay does', async () => {
    const db = tempDb();
    const options: ServerOptions = { db, clock: 'virtual', agents: false, persistence: { keepJournal: true, snapshotOnClose: false } };
    const first = await start(options);
    await onboard(first, alice);
    await post(first, '/sim/snapshot', { name: 'funded' });
    await post(first, '/sim/reset', {});
    await onboard(first, wallet(0xb2));
    await post(first, '/sim/restore', { name: 'funded' });
    await placeOrder(first, alice, { marketId: 2, quantity: '1', price: '3300.00' });
    servers = [];
    await first.close();
    const before = first.persistence.hash();
    expect(replayFile(db).hash).toBe(before);
    const second = await start(options);
    expect(second.persistence.hash()).toBe(before);
    await post(second, '/sim/deposit', { address: alice.address, amount: '1' });
    expect((await post(second, '/sim/restore', { name: 'funded' })).status).toBe(200);
    expect((await get(second, `/v1/account?address=${alice.address}`)).body).toMatchObject({ netQuoteBalance: '100000.0' });
  });
});

describe('the control routes appear in the OpenAPI document', () => {
  it('lists /sim/reset, /sim/snapshot and /sim/restore with their bodies', async () => {
    const server = await start({ clock: 'virtual', agents: false });
    const doc = (await get(server, '/openapi.json')).body as { paths: Record<string, { post?: { requestBody?: unknown } }> };
    for (const path of ['/sim/reset', '/sim/snapshot', '/sim/restore']) expect(doc.paths[path]?.post, path).toBeDefined();
    expect(doc.paths['/sim/snapshot']!.post!.requestBody).toBeDefined();
  });
});
