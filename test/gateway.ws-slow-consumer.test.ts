/**
 * Slow consumers on the WebSocket (gateway/ws/server.ts "send budget"): a client that stops
 * reading costs the server a bounded queue, is told `degraded` and gets no channel data while
 * over budget; when it reads again it gets a fresh snapshot per subscription and the book's
 * sequence ids continue from it; one that never reads is closed and its queue freed; other
 * clients keep receiving everything meanwhile.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BookContents } from '../client/types.ts';
import { priceToTicks } from '../engine/index.ts';
import { attachWebSocket, type SendBudget, type WsHandle } from '../gateway/ws/server.ts';
import { createPrng } from '../sim/prng.ts';
import { DAY_US, gateway, type GatewayHarness } from './support/gateway-fixture.ts';
import { applyDelta, bookView, connectBookClient, createLocalBook, seedBook } from './support/ws-book-client.ts';

type Frame = Record<string, unknown>;

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const BUDGET: Partial<SendBudget> = { maxBytes: 32 * 1024, maxFrames: 2_000, hardMaxBytes: 1024 * 1024 };
const MAKER = '0x' + '5c'.repeat(20);
/** Book identities the slow client holds: 40 copies of every delta fill its socket buffers 40 times faster. */
const COPIES = 40;

interface Rig {
  h: GatewayHarness;
  ws: WsHandle;
  url: string;
  /** Applies `n` book changes on BTC-USD (resting places and cancels of one maker), yielding to the sockets between chunks. */
  churn(n: number): Promise<void>;
}

async function rig(budget: Partial<SendBudget>): Promise<Rig> {
  const h = await gateway({ rateLimit: { enabled: false } });
  // Data leaves at the end of each event-loop iteration: the churn's bursts stay the size the budget is set for.
  const ws = attachWebSocket(h.app, h.state, { sendBudget: budget, periodicTickMs: 20, coalesceMs: 0 });
  closers.push(() => h.app.close());
  closers.push(() => ws.close());
  const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
  h.fund({ address: MAKER, apiKey: '', secret: new Uint8Array() }, 10_000_000n);
  const ms = h.exchange.engine.markets.get(1)!;
  const mid = priceToTicks(ms.spec, '100000')!;
  const rng = createPrng(7);
  const resting: number[] = [];
  const churn = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      if (resting.length >= 200 || (resting.length > 0 && rng.next() < 0.4)) {
        const [orderId] = resting.splice(rng.int(resting.length), 1);
        h.exchange.submit({ type: 'cancelOrder', address: MAKER, accountIndex: 0, marketId: 1, orderId });
      } else {
        const side = rng.next() < 0.5 ? 0 : 1;
        const price = side === 0 ? mid - 1 - rng.int(300) : mid + 1 + rng.int(300);
        const r = h.exchange.submit({ type: 'placeOrder', address: MAKER, accountIndex: 0, marketId: 1, side, orderType: 0, tif: 0, price, size: 10_000 + rng.int(100_000), reduceOnly: false, goodTilTime: h.now.us + 40 * DAY_US });
        if (r.kind === 'order' && r.status === 'OPEN') resting.push(r.orderId);
      }
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { h, ws, url: address, churn };
}

interface SlowClient {
  ws: WebSocket;
  socket: Socket;
  frames: Frame[];
  closed: Promise<number>;
}

/** A client that subscribes to COPIES book identities of BTC-USD, waits for every snapshot, then stops reading its TCP socket. */
async function slowClient(url: string): Promise<SlowClient> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/ws', { perMessageDeflate: false });
  closers.push(() => ws.terminate());
  const frames: Frame[] = [];
  ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as Frame));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  for (let n = 100; n > 100 - COPIES; n--) ws.send(JSON.stringify({ type: 'subscribe', channel: 'l2OrderbookUpdates', id: 'BTC-USD', nLevels: n }));
  const deadline = Date.now() + 5_000;
  while (frames.filter((f) => f.type === 'subscribed').length < COPIES && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(frames.filter((f) => f.type === 'subscribed')).toHaveLength(COPIES);
  const socket = (ws as unknown as { _socket: Socket })._socket;
  socket.pause();
  return { ws, socket, frames, closed };
}

/** Churns until the server degrades a connection; returns the largest queue seen per connection. */
async function churnUntilDegraded(r: Rig, maxChanges: number): Promise<{ maxBytes: number; maxFrames: number; changes: number }> {
  let maxBytes = 0;
  let maxFrames = 0;
  let changes = 0;
  while (changes < maxChanges) {
    await r.churn(500);
    changes += 500;
    const queues = r.ws.sendQueues();
    for (const q of queues) {
      maxBytes = Math.max(maxBytes, q.bufferedBytes);
      maxFrames = Math.max(maxFrames, q.queuedFrames);
    }
    if (queues.some((q) => q.degraded)) break;
  }
  return { maxBytes, maxFrames, changes };
}

describe('a slow consumer costs a bounded queue and is told so', () => {
  it('a client that stops reading is degraded within its budget; others keep every delta; once it reads again it gets fresh snapshots and contiguous sequence ids', async () => {
    const r = await rig({ ...BUDGET, degradedCloseMs: 60_000 });
    const healthy = await connectBookClient({ url: r.url, market: 'BTC-USD', nLevels: 100 });
    closers.push(() => healthy.close());
    const slow = await slowClient(r.url);

    const seen = await churnUntilDegraded(r, 200_000);
    const queues = r.ws.sendQueues();
    const degraded = queues.filter((q) => q.degraded);
    expect(degraded, `no connection degraded after ${seen.changes} book changes`).toHaveLength(1);
    expect(degraded[0]!.subscriptions).toBe(COPIES);
    // Bounded: the budget plus one turn's frames (10 changes × COPIES deltas of under 300 bytes) and the degraded notices.
    expect(seen.maxBytes).toBeLessThan(BUDGET.maxBytes! + 10 * COPIES * 300 + COPIES * 200);
    expect(seen.maxFrames).toBeLessThan(BUDGET.maxFrames! + 10 * COPIES + COPIES);
    // Degraded: more changes do not grow its queue.
    const before = degraded[0]!.bufferedBytes;
    await r.churn(2_000);
    const after = r.ws.sendQueues().find((q) => q.degraded)!;
    expect(after.bufferedBytes).toBeLessThanOrEqual(before);
    // The healthy client saw every change, in order, without a gap.
    const rest = (await r.h.app.inject({ url: '/v1/l2OrderBook/BTC-USD?nLevels=100' })).json() as { lastSequenceId: number; bids: unknown[]; asks: unknown[] };
    await healthy.caughtUp(rest.lastSequenceId);
    expect(healthy.resubscribes).toBe(0);
    expect(healthy.degraded).toBe(0);
    expect(healthy.view(100)).toMatchObject({ bids: rest.bids, asks: rest.asks });

    // The slow client reads again: the backlog, a degraded notice per subscription, then a
    // `subscribed` snapshot per subscription, then deltas contiguous from that snapshot. While it
    // catches up with what the kernel still holds it may be degraded again: each time the same.
    slow.socket.resume();
    await r.churn(300);
    const deadline = Date.now() + 10_000;
    const resynced = (): Frame[] => slow.frames.filter((f) => f.type === 'subscribed' && f.resync === true);
    while (resynced().length < COPIES && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(resynced().length).toBeGreaterThanOrEqual(COPIES);
    const notices = slow.frames.filter((f) => f.type === 'degraded');
    expect(notices.length).toBeGreaterThanOrEqual(COPIES);
    expect(notices.length % COPIES).toBe(0);
    expect(notices[0]).toMatchObject({ channel: 'l2OrderbookUpdates', id: 'BTC-USD', retryAfterMs: 1000 });
    expect(typeof notices[0]!.reason).toBe('string');
    // Nothing of the channel arrives between a degraded notice and the resync that follows it.
    let paused = false;
    for (const f of slow.frames) {
      if (f.type === 'degraded') paused = true;
      else if (f.type === 'subscribed' && f.resync === true) paused = false;
      else if (paused) expect(f.type).not.toBe('channel_data');
    }

    await r.churn(300);
    const final = (await r.h.app.inject({ url: '/v1/l2OrderBook/BTC-USD?nLevels=100' })).json() as { lastSequenceId: number; bids: unknown[]; asks: unknown[] };
    const until = Date.now() + 5_000;
    const lastSeq = (): number => {
      const data = slow.frames.filter((f) => f.type === 'channel_data' && f.channel === 'l2OrderbookUpdates');
      return data.length === 0 ? 0 : (data.at(-1)!.contents as BookContents).lastSequenceId;
    };
    while (lastSeq() < final.lastSequenceId && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    // The whole stream replayed as a bot keeps a book: seeded by every snapshot (each identity's
    // holds at least 61 levels; frames do not name nLevels), every delta applied (each comes once
    // per identity: the copies are stale), and never a gap.
    const book = createLocalBook(100);
    let resyncs = 0;
    for (const f of slow.frames) {
      if (f.channel !== 'l2OrderbookUpdates') continue;
      if (f.type === 'subscribed') {
        if (f.resync === true) resyncs++;
        seedBook(book, f.contents as BookContents);
      } else if (f.type === 'channel_data') {
        expect(applyDelta(book, f.contents as BookContents)).not.toBe('gap');
      }
    }
    expect(resyncs).toBeGreaterThanOrEqual(1);
    expect(bookView(book, 50)).toMatchObject({ bids: final.bids.slice(0, 50), asks: final.asks.slice(0, 50), lastSequenceId: final.lastSequenceId, exact: true });
    expect(r.ws.sendQueues().every((q) => !q.degraded)).toBe(true);
  }, 60_000);

  it('a client that never reads again is closed after degradedCloseMs and its queue is freed', async () => {
    const r = await rig({ ...BUDGET, degradedCloseMs: 300 });
    const other = await connectBookClient({ url: r.url, market: 'BTC-USD', nLevels: 20 });
    closers.push(() => other.close());
    const slow = await slowClient(r.url);
    expect(r.ws.sendQueues()).toHaveLength(2);
    await churnUntilDegraded(r, 200_000);
    expect(r.ws.sendQueues().filter((q) => q.degraded)).toHaveLength(1);
    const deadline = Date.now() + 5_000;
    while (r.ws.sendQueues().length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const left = r.ws.sendQueues();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ degraded: false, subscriptions: 1 });
    slow.socket.resume();
    // The close frame (1008) went out after the backlog; the socket was cut within the grace second.
    expect([1008, 1006]).toContain(await slow.closed);
    expect(other.degraded).toBe(0);
  }, 60_000);
});
