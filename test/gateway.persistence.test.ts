import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sqliteDriver } from '../gateway/persistence/sqlite-driver.ts';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createJournal, readJournal } from '../gateway/persistence/journal.ts';
import { openDatabase, PersistenceError, SCHEMA_VERSION } from '../gateway/persistence/schema.ts';
import { replayFile } from '../gateway/persistence/index.ts';
import { decodeGraph, encodeGraph } from '../gateway/persistence/graph-codec.ts';
import { stateHash } from '../gateway/persistence/state-hash.ts';
import { captureImage, restoreImage, stateHash as durableHash } from '../gateway/persistence/durable-state.ts';
import type { Command } from '../engine/index.ts';
import { deserialize, serialize } from 'node:v8';
import { startServer, type Server, type ServerOptions } from '../sim/server.ts';
import { wallet } from './support/gateway-fixture.ts';
import { get, onboard, placeOrder, post, serverPool, tempDb } from './support/persistence-fixture.ts';

const Database = sqliteDriver();

const { start, stop } = serverPool();

const alice = wallet(0xa1);
const bob = wallet(0xb2);

/** Deposits, keys, resting and crossing orders, a leverage change: a bit of everything. */
async function trade(server: Server): Promise<string[]> {
  await onboard(server, alice);
  await onboard(server, bob);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const placed = await placeOrder(server, alice, { marketId: 2, side: 'BUY', quantity: '1', price: (3300 + i).toFixed(2) });
    expect(placed.status).toBe(202);
    ids.push(placed.body.orderId as string);
  }
  expect((await placeOrder(server, bob, { marketId: 2, side: 'SELL', quantity: '2', price: '3303.00' })).status).toBe(202);
  return ids;
}

describe('restart = newest snapshot + replay of the journal after it, and yields exactly the state before the stop: the state hashes at shutdown and start-up match', () => {
  it('recovers orders, balances, keys and history after a clean stop (snapshot at close)', async () => {
    const db = tempDb();
    const first = await start({ db, clock: 'virtual', agents: false });
    const ids = await trade(first);
    const before = await stop(first);
    const second = await start({ db, clock: 'virtual', agents: false });
    expect(second.persistence.hash()).toBe(before);
    const orders = (await get(second, `/v1/orders?address=${alice.address}`)).body.orders as { orderId: string }[];
    expect(orders.map((o) => o.orderId).sort()).toEqual([...ids].sort());
    expect(((await get(second, `/v1/fills?address=${bob.address}`)).body.fills as unknown[]).length).toBeGreaterThan(0);
    // The key registered before the stop still signs.
    expect((await placeOrder(second, alice, { marketId: 2, side: 'BUY', quantity: '1', price: '3290.00' })).status).toBe(202);
  });

  it('replays the journal tail after the newest periodic snapshot when the stop wrote none, with liquidity agents and price feeds running', async () => {
    const db = tempDb();
    const options: ServerOptions = { db, feedMs: 100, tickMs: 50, persistence: { snapshotEveryRecords: 1000, snapshotOnClose: false, keepJournal: true } };
    const first = await start(options);
    await trade(first);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Committed by the stop itself, after every periodic snapshot: the tail is never empty.
    first.exchange.submit({ type: 'deposit', address: alice.address, accountIndex: 1, amount: 1_000_000_000n });
    const before = await stop(first);
    const fromScratch = replayFile(db);
    expect(fromScratch.hash).toBe(before);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    await start({ ...options, logger });
    const recovered = lines.find((l) => l.msg === 'perpsim state recovered')!;
    expect(recovered.snapshotSeq).toBeGreaterThan(0);
    expect(recovered.replayed).toBeGreaterThan(0);
    expect(recovered.stateHash).toBe(before);
  });
});

describe('after a crash (kill -9 at any moment) every write that got a 2xx reply is present after restart', () => {
  it('continues the journal sequence after a clean stop pruned the whole journal, so a crash in the next run loses nothing', async () => {
    const db = tempDb();
    const first = await start({ db, clock: 'virtual', agents: false });
    await onboard(first, alice);
    await stop(first); // its snapshot is the only one: the whole journal is pruned
    const second = await start({ db, clock: 'virtual', agents: false, persistence: { snapshotOnClose: false } });
    expect((await post(second, '/sim/deposit', { address: alice.address, amount: '5' })).status).toBe(200);
    const balance = (await get(second, `/v1/account?address=${alice.address}`)).body;
    const before = await stop(second); // a crash after the last commit: no snapshot
    const third = await start({ db, clock: 'virtual', agents: false });
    expect(third.persistence.recovery!.replayed).toBeGreaterThan(0);
    expect(third.persistence.hash()).toBe(before);
    expect((await get(third, `/v1/account?address=${alice.address}`)).body).toEqual(balance);
  });
});

describe('every command the gateway accepts is appended to a journal before its reply is sent', () => {
  it('holds the reply of a write until the journal has committed it', async () => {
    const server = await start({ db: tempDb(), clock: 'virtual', agents: false });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const committed = server.state.committed!;
    server.state.committed = () => gate.then(committed);
    let replied = false;
    const reply = post(server, '/sim/deposit', { address: alice.address, amount: '10' }).then((r) => {
      replied = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(replied).toBe(false);
    release();
    expect((await reply).status).toBe(200);
  });

  it('journals the gateway state that is not engine commands: a replayed signed order is still refused after a restart', async () => {
    const db = tempDb();
    const first = await start({ db, clock: 'virtual', agents: false });
    await onboard(first, alice);
    const { placeOrderRequest } = await import('./support/gateway-fixture.ts');
    const { nowMicros } = await import('../sim/clock.ts');
    const ed = await import('@noble/ed25519');
    const harness = { exchange: first.exchange, now: { us: nowMicros(first.clock) }, sign: (m: string) => Buffer.from(ed.sign(new TextEncoder().encode(m), alice.secret)).toString('hex') };
    const request = placeOrderRequest(harness as never, alice, { marketId: 2, quantity: '1', price: '3300.00' });
    expect((await post(first, request.url, request.payload, request.headers)).status).toBe(202);
    const pools = (await get(first, `/v1/rateLimit?address=${alice.address}`)).body;
    await stop(first);
    const second = await start({ db, clock: 'virtual', agents: false, persistence: { snapshotOnClose: false } });
    expect((await post(second, request.url, request.payload, request.headers)).status).toBe(409);
    expect((await get(second, `/v1/rateLimit?address=${alice.address}`)).body).toEqual(pools);
  });
});

describe('periodic snapshots of full engine state: a copy that keeps shared references, cycles and deep lists', () => {
  it('round-trips a 100,000-long linked list, shared references, Maps, Sets, typed arrays and bigints', () => {
    type Node = { id: number; next: Node | null; prev: Node | null };
    const head: Node = { id: 0, next: null, prev: null };
    let tail = head;
    for (let i = 1; i < 100_000; i++) {
      const node: Node = { id: i, next: null, prev: tail };
      tail.next = node;
      tail = node;
    }
    const shared = { money: 10n ** 30n, name: '\u0001not a reference' };
    const graph = { head, tail, byId: new Map([[1, shared]]), set: new Set([shared]), heap: new Float64Array([1.5, NaN]), holes: [1, , 3] };
    const copy = decodeGraph(deserialize(serialize(encodeGraph(graph)))) as typeof graph;
    expect(stateHash(copy)).toBe(stateHash(graph));
    expect(copy.head.next!.prev).toBe(copy.head);
    expect(copy.byId.get(1)).toBe([...copy.set][0]);
    expect(copy.byId.get(1)!.name).toBe('\u0001not a reference');
  });

  it('refuses a class instance instead of copying it without its prototype', () => {
    expect(() => encodeGraph({ when: new Date(0) })).toThrow(/cannot copy an instance of Date/);
  });

  it('restores an image into another server that then goes on exactly like the original', async () => {
    const original = await start({ clock: 'virtual', agents: false });
    await trade(original);
    const copy = await start({ clock: 'virtual', agents: false });
    restoreImage(copy.state, captureImage(original.state));
    expect(durableHash(copy.state)).toBe(durableHash(original.state));
    // The same commands at the same times: a crossing order, an expiry sweep a day later.
    const time = original.exchange.engine.time;
    const commands: Command[] = [
      { type: 'placeOrder', address: bob.address, accountIndex: 0, marketId: 2, side: 1, orderType: 0, tif: 2, price: 329_000, size: 30_000_000, reduceOnly: false, goodTilTime: time + 40 * 86_400_000_000, time: time + 1 },
      { type: 'advanceTime', time: time + 86_400_000_000 },
    ];
    const events = (server: Server): unknown[] => {
      const seen: unknown[] = [];
      server.exchange.listeners.add((e) => seen.push(...e));
      for (const c of commands) server.exchange.applyStamped(c);
      return seen;
    };
    const fromOriginal = events(original);
    expect(fromOriginal.some((e) => (e as { type: string }).type === 'fill')).toBe(true);
    expect(events(copy)).toEqual(fromOriginal);
    expect(durableHash(copy.state)).toBe(durableHash(original.state));
  });
});

describe('group commit: one transaction per event-loop turn', () => {
  it('commits every record appended in one turn in one transaction', async () => {
    const db = openDatabase(tempDb());
    const journal = createJournal(db);
    const commits: number[] = [];
    journal.onCommit = (count) => commits.push(count);
    for (let i = 0; i < 50; i++) journal.append({ i });
    expect(journal.pending).toBe(50);
    await journal.committed();
    journal.append({ i: 50 });
    await journal.committed();
    expect(commits).toEqual([50, 1]);
    expect(db.prepare('SELECT seq, count FROM journal ORDER BY seq').all()).toEqual([{ seq: 1, count: 50 }, { seq: 51, count: 1 }]);
    expect([...readJournal(db, 49)].map((r) => r.record)).toEqual([{ i: 49 }, { i: 50 }]);
    db.close();
  });
});

function errorOf(run: () => unknown): { name: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
}

/**
 * Opens `file` with openDatabase in a child process running as uid/gid 65534 (`nobody`) and
 * answers what it threw; `unavailable` when no such child could run (no setuid, or a checkout
 * that user cannot read).
 */
function openAsNobody(file: string): { error: { name: string; message: string } | undefined } | { unavailable: string } {
  const script = `import('./gateway/persistence/schema.ts').then(({ openDatabase }) => {
    let error = null;
    try { openDatabase(${JSON.stringify(file)}); } catch (err) { error = { name: err.name, message: err.message }; }
    console.log('OPENED ' + JSON.stringify(error));
  })`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { uid: 65534, gid: 65534, encoding: 'utf8', cwd: process.cwd(), timeout: 30_000 });
  const line = child.stdout?.split('\n').find((l) => l.startsWith('OPENED '));
  if (line === undefined) {
    const stderr = child.stderr?.trim().split('\n') ?? [];
    return { unavailable: child.error?.message ?? stderr.find((l) => /Error|EACCES|EPERM/.test(l)) ?? stderr.at(-1) ?? `exit ${child.status}` };
  }
  return { error: JSON.parse(line.slice('OPENED '.length)) ?? undefined };
}

describe('schema versioned with migrations; a database from a newer version is refused with a clear message; a corrupt or unwritable file is a clear error at start-up', () => {
  it('creates the schema at the current version', () => {
    const file = tempDb();
    openDatabase(file).close();
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
  });

  it('refuses a database written by a newer perpsim', async () => {
    const file = tempDb();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(PersistenceError);
    expect(() => openDatabase(file)).toThrow(`schema version ${SCHEMA_VERSION + 1}, newer than this perpsim understands (${SCHEMA_VERSION})`);
    await expect(startServer({ port: 0, db: file })).rejects.toThrow(/newer than this perpsim/);
  });

  it('refuses a file that is not a database', () => {
    const file = tempDb();
    writeFileSync(file, 'this is not sqlite, just text long enough to have a header '.repeat(20));
    expect(() => openDatabase(file)).toThrow(/is not a perpsim database or is corrupt/);
  });

  it('refuses a file it cannot write', (ctx) => {
    const file = tempDb();
    openDatabase(file).close();
    chmodSync(file, 0o444);
    chmodSync(dirname(file), 0o555);
    try {
      // Root ignores file modes, so as root (CI) the open runs in a child as the unprivileged `nobody`.
      let error = process.getuid?.() === 0 ? undefined : errorOf(() => openDatabase(file));
      if (process.getuid?.() === 0) {
        const child = openAsNobody(file);
        if ('unavailable' in child) ctx.skip(`as root this needs a child running as nobody, and none could run here: ${child.unavailable}`);
        else error = child.error;
      }
      expect(error).toMatchObject({ name: 'PersistenceError', message: expect.stringMatching(/is not writable|cannot (open|use) database/) });
    } finally {
      chmodSync(dirname(file), 0o755);
    }
  });

  it('refuses a second server on the same file', async () => {
    const file = tempDb();
    await start({ db: file, clock: 'virtual', agents: false });
    expect(() => openDatabase(file)).toThrow(/in use by another process/);
  });
});

describe('--memory keeps everything in memory', () => {
  it('writes no file and starts empty every time', async () => {
    const db = tempDb();
    const first = await start({ clock: 'virtual', agents: false });
    await onboard(first, alice);
    expect(existsSync(db)).toBe(false);
    await stop(first);
    const second = await start({ clock: 'virtual', agents: false });
    expect((await get(second, `/v1/account?address=${alice.address}`)).status).toBe(404);
  });
});

describe('snapshots and the journal hold the referral and notification state', () => {
  it('an affiliate code, a push token, preferences and an enrolled inbox survive a crash (no snapshot) and replay to the same hash', async () => {
    const db = tempDb();
    const options: ServerOptions = { db, clock: 'virtual', agents: false, persistence: { snapshotOnClose: false, keepJournal: true } };
    const first = await start(options);
    await onboard(first, alice);
    await onboard(first, bob);
    const { scheme2Headers } = await import('./support/gateway-fixture.ts');
    const { nowMicros } = await import('../sim/clock.ts');
    const ed = await import('@noble/ed25519');
    const h = { exchange: first.exchange, now: { us: nowMicros(first.clock) }, sign: (m: string, w: typeof alice) => Buffer.from(ed.sign(new TextEncoder().encode(m), w.secret)).toString('hex') } as never;
    const signed = (w: typeof alice, url: string, action: string, body: Record<string, unknown>) => first.app.inject({ method: 'POST', url, payload: body, headers: scheme2Headers(h, w, action, body as never) });
    expect((await signed(alice, '/v1/affiliate/createCode', 'createCode', { address: alice.address, code: 'DURABLE' })).statusCode).toBe(202);
    expect((await signed(bob, '/v1/affiliate/registerAffiliate', 'registerAffiliate', { address: bob.address, code: 'DURABLE' })).statusCode).toBe(202);
    const tokenPath = '/v1/api-meta/notifications/tokens';
    expect((await signed(alice, tokenPath, tokenPath, { token: 'ExponentPushToken[durable-1]', platform: 'ios' })).statusCode).toBe(200);
    expect((await signed(alice, '/v1/api-meta/userPreferences', 'userPreferences', { language: 'en' })).statusCode).toBeLessThan(300);
    expect((await get(first, `/v1/api-meta/notifications?address=${bob.address}`)).status).toBe(200);
    const before = await stop(first);
    expect(replayFile(db).hash).toBe(before);
    const second = await start(options);
    expect(second.persistence.hash()).toBe(before);
    expect((await get(second, '/v1/affiliate/codeAvailable?code=DURABLE')).body).toMatchObject({ available: false });
    expect(second.state.notifications!.inboxes.get(alice.address)!.tokens.map((t) => t.token)).toEqual(['ExponentPushToken[durable-1]']);
    expect(second.state.notifications!.inboxes.has(bob.address)).toBe(true);
    expect(second.state.referral!.bindings.has(bob.address)).toBe(true);
  });
});
