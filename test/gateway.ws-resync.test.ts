/**
 * The WebSocket as a venue bot consumes it: a local book kept from l2OrderbookUpdates by the
 * resync rules, and one account's order lifecycle and sequence numbers across channels
 * (interface.md "Sequencing", "States and transitions"; supplement §9).
 */
import * as ed from '@noble/ed25519';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isTransitionAllowed } from '../engine/order.ts';
import type { OrderStatus } from '../engine/spec.ts';
import { onTierTick, priceToTicks } from '../engine/index.ts';
import { scheme1Payload } from '../gateway/auth/index.ts';
import { advance } from '../sim/clock.ts';
import { createPrng } from '../sim/prng.ts';
import { startServer, type Server } from '../sim/server.ts';
import { DAY_US, wallet, type Wallet } from './support/gateway-fixture.ts';
import { applyDelta, bookView, connectBookClient, createLocalBook, seedBook, type WsBookClient } from './support/ws-book-client.ts';

let server: Server | undefined;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  server = undefined;
});

type Frame = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function post(path: string, body: unknown): Promise<Frame> {
  const res = await fetch(server!.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as Frame;
}

async function bookClient(market: string, deliver?: (frame: Frame) => boolean): Promise<WsBookClient> {
  const client = await connectBookClient({ url: server!.url, market, nLevels: 100, ...(deliver === undefined ? {} : { deliver }) });
  closers.push(() => client.close());
  return client;
}

/** GET /v1/l2OrderBook at 100 levels, and the local book caught up to the same sequence. */
async function compareWithRest(client: WsBookClient, market: string): Promise<{ rest: { bids: unknown[]; asks: unknown[]; lastSequenceId: number }; local: ReturnType<WsBookClient['view']> }> {
  const res = await fetch(`${server!.url}/v1/l2OrderBook/${market}?nLevels=100`);
  expect(res.status).toBe(200);
  const rest = (await res.json()) as { bids: unknown[]; asks: unknown[]; lastSequenceId: number };
  await client.caughtUp(rest.lastSequenceId);
  return { rest, local: client.view(100) };
}

// ---------------------------------------------------------------------------------------------
// The book: the resync rules on hand-made frames, then against the running simulator.

describe('a local book follows the resync rules of interface.md Sequencing', () => {
  it('seeds from the snapshot, ignores stale deltas, accepts a first delta a few sequences ahead, and reports a mid-stream gap', () => {
    const book = createLocalBook(100);
    seedBook(book, { bids: [['100.0', '1.0'], ['99.0', '2.0']], asks: [['101.0', '3.0']], lastSequenceId: 10 });
    expect(applyDelta(book, { bids: [['100.0', '5.0']], asks: [], lastSequenceId: 9 })).toBe('stale');
    expect(applyDelta(book, { bids: [['100.0', '5.0']], asks: [], lastSequenceId: 10 })).toBe('stale');
    expect(applyDelta(book, { bids: [['99.0', '0']], asks: [['102.0', '1.5']], lastSequenceId: 13 })).toBe('applied');
    expect(book.stats.firstDeltaSkips).toBe(1);
    expect(applyDelta(book, { bids: [['98.0', '4.0']], asks: [['101.0', '0.0']], lastSequenceId: 14 })).toBe('applied');
    expect(bookView(book, 100)).toMatchObject({ bids: [['100.0', '1.0'], ['98.0', '4.0']], asks: [['102.0', '1.5']], lastSequenceId: 14, exact: true });
    expect(applyDelta(book, { bids: [['98.0', '0']], asks: [], lastSequenceId: 16 })).toBe('gap');
    expect(bookView(book, 100).bids).toHaveLength(2);
    seedBook(book, { bids: [['97.0', '1.0']], asks: [], lastSequenceId: 20 });
    expect(bookView(book, 100)).toMatchObject({ bids: [['97.0', '1.0']], asks: [], lastSequenceId: 20 });
    expect(applyDelta(book, { bids: [], asks: [['103.0', '1.0']], lastSequenceId: 21 })).toBe('applied');
  });

  it('a side that came back full is exact only down to its worst snapshot level', () => {
    const book = createLocalBook(2);
    seedBook(book, { bids: [['100.0', '1.0'], ['99.0', '1.0']], asks: [['101.0', '1.0']], lastSequenceId: 1 });
    expect(bookView(book, 2).exact).toBe(true);
    applyDelta(book, { bids: [['100.0', '0']], asks: [], lastSequenceId: 2 });
    // 99.0 is the best bid now; the next one (below the horizon) was never shown.
    expect(bookView(book, 2).exact).toBe(false);
    expect(bookView(book, 1).exact).toBe(true);
  });
});

describe('l2OrderbookUpdates against GET /v1/l2OrderBook', () => {
  it('a client keeping a local book from l2OrderbookUpdates matches GET /v1/l2OrderBook/<market>?nLevels=100 after a long random run', async () => {
    // 20× accelerated with a 1 s feed step: each market's 50-order ladder is requoted 20 times a
    // second (a cancel-all and 50 placements, each its own delta) and the noise taker trades
    // against it. Faster clocks make the timer catch up in 50-step bursts that starve the rest.
    server = await startServer({ port: 0, clock: 'accelerated', speed: 20, feedMs: 1000, tickMs: 20, seed: 11 });
    const market = 'ETH-USD';
    const ms = server.exchange.engine.markets.get(2)!;
    const me = wallet(0x71).address;
    await post('/sim/deposit', { address: me, amount: '10000000' });
    const client = await bookClient(market);

    // My own seeded stream: resting orders near the oracle, cancels, modifies and IOC takers,
    // at most 40 resting so a side stays well under 100 levels (the snapshot then shows all).
    const rng = createPrng(20_240_601);
    const live: number[] = [];
    let actions = 0;
    const priceNear = (bps: number, side: 0 | 1): number => {
      let p = Math.max(1, Math.round(ms.oraclePrice * (1 + ((rng.next() * 2 - 1) * bps) / 10_000)));
      while (!onTierTick(ms.spec, p)) p += side === 0 ? -1 : 1;
      return p;
    };
    const act = (): void => {
      const roll = rng.next();
      const side = rng.next() < 0.5 ? 0 : 1;
      const common = { address: me, accountIndex: 0, marketId: ms.spec.id, reduceOnly: false, goodTilTime: server!.exchange.clock() + 40 * DAY_US };
      if (roll < 0.45 && live.length < 40) {
        const r = server!.exchange.submit({ type: 'placeOrder', ...common, side, orderType: 0, tif: 0, price: priceNear(30, side), size: 1_000_000 + rng.int(20_000_000) });
        if (r.kind === 'order' && (r.status === 'OPEN' || r.status === 'PARTIALLY_FILLED')) live.push(r.orderId);
      } else if (roll < 0.75 && live.length > 0) {
        const [orderId] = live.splice(rng.int(live.length), 1);
        server!.exchange.submit({ type: 'cancelOrder', address: me, accountIndex: 0, marketId: ms.spec.id, orderId });
      } else if (roll < 0.9 && live.length > 0) {
        const orderId = live[rng.int(live.length)]!;
        const resting = server!.exchange.orders.get(orderId);
        if (resting !== undefined) {
          server!.exchange.submit({ type: 'modifyOrder', address: me, accountIndex: 0, marketId: ms.spec.id, orderId, price: priceNear(30, resting.side), size: resting.filled + 1_000_000 + rng.int(20_000_000) });
        }
      } else {
        server!.exchange.submit({ type: 'placeOrder', ...common, side, orderType: 0, tif: 2, price: priceNear(60, side === 0 ? 1 : 0), size: 1_000_000 + rng.int(5_000_000) });
      }
      actions++;
    };
    const stream = setInterval(() => {
      for (let i = 0; i < 20; i++) act();
    }, 5);
    await sleep(3_000);
    clearInterval(stream);

    // A quiet moment: the simulator's clock goes virtual (its timer then steps nothing), and
    // in-flight frames drain before the comparison.
    await post('/sim/clock', { mode: 'virtual' });
    await sleep(50);
    const { rest, local } = await compareWithRest(client, market);
    expect(rest.lastSequenceId).toBe(ms.seq);
    expect(local.lastSequenceId).toBe(rest.lastSequenceId);
    expect(local.exact).toBe(true);
    expect(local.bids).toEqual(rest.bids);
    expect(local.asks).toEqual(rest.asks);
    expect(rest.bids.length).toBeGreaterThan(5);
    expect(rest.asks.length).toBeGreaterThan(5);
    // A long run: thousands of deltas through one subscription, all contiguous.
    expect(actions).toBeGreaterThan(1_000);
    expect(client.book.stats.applied).toBeGreaterThan(3_000);
    expect(client.errors).toEqual([]);
    expect(client.resubscribes).toBe(client.book.stats.gaps);
  });

  it('a delta lost mid-stream makes the client re-subscribe and take the fresh snapshot as its baseline', async () => {
    server = await startServer({ port: 0, clock: 'virtual', agents: false });
    const me = wallet(0x72).address;
    await post('/sim/deposit', { address: me, amount: '1000000' });
    const ms = server.exchange.engine.markets.get(2)!;
    let deltas = 0;
    let dropped = 0;
    const client = await bookClient('ETH-USD', (frame) => {
      // Lose the third delta on the wire.
      if (frame.type !== 'channel_data' || ++deltas !== 3) return true;
      dropped++;
      return false;
    });
    const place = (side: 0 | 1, price: string): void => {
      server!.exchange.submit({ type: 'placeOrder', address: me, accountIndex: 0, marketId: 2, side, orderType: 0, tif: 0, price: priceToTicks(ms.spec, price)!, size: 10_000_000, reduceOnly: false, goodTilTime: server!.exchange.clock() + 40 * DAY_US });
    };
    for (let i = 0; i < 6; i++) place(0, (3390 - i).toFixed(2));
    await sleep(100);
    for (let i = 0; i < 3; i++) place(1, (3410 + i).toFixed(2));
    const { rest, local } = await compareWithRest(client, 'ETH-USD');
    expect(dropped).toBe(1);
    expect(client.resubscribes).toBe(1);
    expect(client.book.stats.snapshots).toBe(2);
    expect(local.bids).toEqual(rest.bids);
    expect(local.asks).toEqual(rest.asks);
    expect(local.bids).toHaveLength(6);
    expect(local.asks).toHaveLength(3);
  });
});

// ---------------------------------------------------------------------------------------------
// One account over the socket: signed writes over RPC, lifecycle on orders, sequences.

interface Socket {
  frames: Frame[];
  send(frame: unknown): void;
  next(match: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
}

async function socket(): Promise<Socket> {
  const ws = new WebSocket(server!.url.replace('http', 'ws') + '/v1/ws');
  closers.push(() => ws.close());
  const frames: Frame[] = [];
  const waiters = new Set<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }>();
  ws.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as Frame;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (!w.match(frame)) continue;
      waiters.delete(w);
      w.resolve(frame);
    }
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    frames,
    send: (frame) => ws.send(JSON.stringify(frame)),
    next: (match, timeoutMs = 2_000) =>
      new Promise((resolve, reject) => {
        const seen = frames.find(match);
        if (seen !== undefined) return resolve(seen);
        const waiter = { match, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error('no matching frame'));
        }, timeoutMs).unref();
      }),
  };
}

/** Signed order writes over WebSocket RPC (Scheme 1), stamped with the simulator's clock. */
function rpc(s: Socket, w: Wallet) {
  let id = 0;
  let offset = 0;
  const stamp = (): bigint => BigInt(server!.exchange.clock()) * 1000n + BigInt(++offset);
  const sign = (message: string): string => Buffer.from(ed.sign(new TextEncoder().encode(message), w.secret)).toString('hex');
  const call = async (type: string, ts: bigint, signature: string, payload: Frame): Promise<Frame> => {
    const callId = ++id;
    s.send({ type: 'post', id: callId, request: { type, apiKey: w.apiKey, timestamp: ts.toString(), signature, payload } });
    return s.next((f) => f.id === callId && f.method === type);
  };
  const ms = server!.exchange.engine.markets.get(2)!;
  const ticks = (price: string): number => priceToTicks(ms.spec, price)!;
  const quantums = (quantity: string): number => Math.round(Number(quantity) * 1e7);
  return {
    place(side: 'BUY' | 'SELL', quantity: string, price: string, goodTilTime: string): Promise<Frame> {
      const ts = stamp();
      const message = scheme1Payload(1, { address: w.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(goodTilTime) * 1000n, marketId: 2, priceTicks: ticks(price), sizeQuantums: quantums(quantity), reduceOnly: false, side: side === 'BUY' ? 0 : 1, timeInForce: 0 });
      return call('placeOrder', ts, sign(message), { address: w.address, accountIndex: 0, marketId: 2, orderSide: side, orderType: 'LIMIT', timeInForce: 'GTT', quantity, price, goodTilTime, timestamp: Number(ts) });
    },
    /** Interface form: `id` always, g/r/s/t echo the order (g the new expiry when it changes). */
    modify(orderId: string, side: 'BUY' | 'SELL', quantity: string, price: string, goodTilTime: string): Promise<Frame> {
      const ts = stamp();
      const message = scheme1Payload(3, { address: w.address, accountIndex: 0, orderId, clientTimeNs: ts, goodTilTimeNs: BigInt(goodTilTime) * 1000n, marketId: 2, priceTicks: ticks(price), sizeQuantums: quantums(quantity), reduceOnly: false, side: side === 'BUY' ? 0 : 1, timeInForce: 0 });
      return call('modifyOrder', ts, sign(message), { address: w.address, accountIndex: 0, marketId: 2, orderId, quantity, price, goodTilTime, clientTime: ts.toString() });
    },
    cancel(orderId: string): Promise<Frame> {
      const ts = stamp();
      const message = scheme1Payload(2, { address: w.address, accountIndex: 0, clientTimeNs: ts, orderId, marketId: 2 });
      return call('cancel', ts, sign(message), { address: w.address, accountIndex: 0, marketId: 2, orderId, timestamp: Number(ts) });
    },
  };
}

/** A counterparty's order straight into the engine (IOC takes, GTT rests). */
function counterparty(address: string, side: 0 | 1, quantity: string, price: string, tif: 0 | 2): void {
  const ms = server!.exchange.engine.markets.get(2)!;
  server!.exchange.submit({ type: 'placeOrder', address, accountIndex: 0, marketId: 2, side, orderType: 0, tif, price: priceToTicks(ms.spec, price)!, size: Math.round(Number(quantity) * 1e7), reduceOnly: false, goodTilTime: server!.exchange.clock() + 40 * DAY_US });
}

const contentsOf = (f: Frame): Frame => f.contents as Frame;
const updates = (s: Socket, channel: string): Frame[] => s.frames.filter((f) => f.type === 'channel_data' && f.channel === channel);

/**
 * Alice over RPC: place 1 ETH at 3390; Bob takes 0.4 (partial fill); a modify with a new
 * goodTilTime (cancel-replace) moves the rest to 3391; a second cancel-replace reprices across
 * Bob's resting 0.2 offer at 3395 (the replacement fills on arrival, then rests); then cancel.
 */
async function lifecycle(subscribeOrder: readonly string[]): Promise<{ s: Socket; baseline: number }> {
  server = await startServer({ port: 0, clock: 'virtual', agents: false });
  const alice = wallet(0x81);
  const bob = wallet(0x82).address;
  await post('/sim/deposit', { address: alice.address, amount: '1000000' });
  await post('/sim/deposit', { address: bob, amount: '1000000' });
  await post('/sim/apiKeys', { address: alice.address, publicKey: alice.apiKey });
  const s = await socket();
  for (const channel of subscribeOrder) {
    s.send({ type: 'subscribe', channel, id: alice.address });
    await s.next((f) => f.type === 'subscribed' && f.channel === channel);
  }
  const baseline = contentsOf(await s.next((f) => f.type === 'subscribed' && f.channel === 'orders')).lastSequenceId as number;
  const orders = rpc(s, alice);
  const gtt = String(server.exchange.clock() + 40 * DAY_US);
  const placed = await orders.place('BUY', '1', '3390.00', gtt);
  expect(placed).toMatchObject({ status: 202, result: { status: 'ACK' } });
  const orderId = (placed.result as { orderId: string }).orderId;
  await s.next((f) => f.channel === 'orders' && contentsOf(f).status === 'OPEN');

  counterparty(bob, 1, '0.4', '3390.00', 2);
  await s.next((f) => f.channel === 'orders' && contentsOf(f).status === 'PARTIALLY_FILLED');

  advance(server.clock, 1_000);
  const later = String(Number(gtt) + DAY_US);
  expect(await orders.modify(orderId, 'BUY', '1', '3391.00', later)).toMatchObject({ status: 202 });
  await s.next((f) => f.channel === 'orders' && contentsOf(f).price === '3391.00');

  counterparty(bob, 1, '0.2', '3395.00', 0);
  advance(server.clock, 1_000);
  const latest = String(Number(later) + DAY_US);
  expect(await orders.modify(orderId, 'BUY', '1', '3396.00', latest)).toMatchObject({ status: 202 });
  await s.next((f) => f.channel === 'orders' && contentsOf(f).price === '3396.00');

  expect(await orders.cancel(orderId)).toMatchObject({ status: 202 });
  await s.next((f) => f.channel === 'orders' && contentsOf(f).status === 'CANCELED' && contentsOf(f).cancelReason === undefined);
  // Let any frame still in flight land.
  await sleep(50);
  return { s, baseline };
}

describe('one account over the socket', () => {
  it('order lifecycle events arrive in the order the transition table requires (cancel-replace case included)', async () => {
    const { s } = await lifecycle(['orders']);
    const records = updates(s, 'orders').map(contentsOf);
    let previous: OrderStatus | null = null;
    for (const r of records) {
      const status = r.status as OrderStatus;
      expect(isTransitionAllowed(previous, status), `${previous ?? 'new'} → ${status}`).toBe(true);
      previous = status;
    }
    // Every update is the same order; the sequence numbers on one channel only increase.
    expect(new Set(records.map((r) => r.orderId)).size).toBe(1);
    const seqs = records.map((r) => r.sequenceNumber as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(records.map((r) => [r.status, r.cancelReason ?? null, r.price, r.remainingSize])).toEqual([
      ['OPEN', null, '3390.00', '1.0'],
      ['PARTIALLY_FILLED', null, '3390.00', '0.6'],
      // Cancel-replace: CANCELED with MODIFY_CANCELED, then the replacement under the same id.
      ['CANCELED', 'MODIFY_CANCELED', '3390.00', '0.6'],
      ['PARTIALLY_FILLED', null, '3391.00', '0.6'],
      ['CANCELED', 'MODIFY_CANCELED', '3391.00', '0.6'],
      // The crossing replacement takes Bob's 0.2 and rests the remaining 0.4.
      ['PARTIALLY_FILLED', null, '3396.00', '0.4'],
      ['CANCELED', null, '3396.00', '0.4'],
    ]);
    const replacements = records.filter((_, i) => i > 0 && records[i - 1]!.cancelReason === 'MODIFY_CANCELED');
    expect(replacements.map((r) => r.goodTilTime)).toEqual([String(Number(records[0]!.goodTilTime) + DAY_US), String(Number(records[0]!.goodTilTime) + 2 * DAY_US)]);
  });

  it('per-account sequences are contiguous: orders, userFills and positions share the account counter with no gap', async () => {
    // The counter is shared by every account event; this scenario makes only orders, fills and
    // positions after the snapshot, so the three channels together must show every number.
    const { s, baseline } = await lifecycle(['orders', 'userFills', 'positions']);
    const seen: { channel: string; seq: number }[] = [];
    for (const f of s.frames) {
      if (f.type !== 'channel_data') continue;
      const c = contentsOf(f);
      if (f.channel === 'positions') for (const row of Object.values(c.positions as Record<string, Frame>)) seen.push({ channel: 'positions', seq: row.sequenceNumber as number });
      else seen.push({ channel: String(f.channel), seq: c.sequenceNumber as number });
    }
    for (const channel of ['orders', 'userFills', 'positions']) {
      const seqs = seen.filter((e) => e.channel === channel).map((e) => e.seq);
      expect(seqs.length, channel).toBeGreaterThan(0);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]!, `${channel} strictly increasing`).toBeGreaterThan(seqs[i - 1]!);
    }
    const all = seen.map((e) => e.seq).sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => baseline + 1 + i));
    // orders + userFills alone increase strictly on each channel and never repeat a number.
    const ordersAndFills = seen.filter((e) => e.channel !== 'positions').map((e) => e.seq);
    expect(new Set(ordersAndFills).size).toBe(ordersAndFills.length);
  });

  // Frames of one command go out in event order across a connection's subscriptions (before
  // that, gateway/ws/server.ts grouped them by subscription and this failed: the replacement's
  // fill overtook the MODIFY_CANCELED update when userFills was subscribed first).
  it('a cancel-replace CANCELED arrives before the fill of its replacement, whatever the subscription order on the connection', async () => {
    // interface.md States and transitions: "cancel arrives before any fill/place of the
    // replacement, with increasing account sequence numbers" — in arrival order on one socket.
    const { s } = await lifecycle(['userFills', 'orders']);
    const arrival: { channel: string; seq: number; status?: unknown; cancelReason?: unknown }[] = s.frames
      .filter((f) => f.type === 'channel_data')
      .map((f) => ({ channel: String(f.channel), seq: contentsOf(f).sequenceNumber as number, status: contentsOf(f).status, cancelReason: contentsOf(f).cancelReason }));
    let lastCancel = -1;
    arrival.forEach((e, i) => {
      if (e.cancelReason === 'MODIFY_CANCELED') lastCancel = i;
    });
    const replacementFill = arrival.findIndex((e, i) => i > 0 && e.channel === 'userFills' && e.seq > arrival[lastCancel]!.seq);
    expect(replacementFill).toBeGreaterThan(lastCancel);
    const seqs = arrival.map((e) => e.seq);
    expect(seqs, 'account sequence numbers in arrival order').toEqual([...seqs].sort((a, b) => a - b));
  });
});
