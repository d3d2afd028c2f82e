/**
 * The fan-out's index (gateway/ws/server.ts `concerned`): a command's events are offered only
 * to connections that can receive them — those with a global subscription, those subscribed to
 * a market channel of a market the events name, and those subscribed to an account channel of
 * an address they carry — not to every subscribed connection; the frames each connection receives are the same either
 * way, text included (channel_data frames are written from a per-subscription head).
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { priceToTicks, TIF_GTT } from '../engine/index.ts';
import { CHANNELS } from '../gateway/ws/channels.ts';
import { attachWebSocket } from '../gateway/ws/server.ts';
import { DAY_US, gateway } from './support/gateway-fixture.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const ALICE = '0x' + 'a1'.repeat(20);
const BOB = '0x' + 'b0'.repeat(20);
const CAROL = '0x' + 'c0'.repeat(20);
const DAVE = '0x' + 'd0'.repeat(20);

interface Client {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  texts: string[];
}

async function client(url: string, subscriptions: readonly Record<string, unknown>[]): Promise<Client> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  closers.push(() => ws.terminate());
  const c: Client = { ws, frames: [], texts: [] };
  ws.on('message', (raw: Buffer) => {
    c.texts.push(raw.toString('utf8'));
    c.frames.push(JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  for (const s of subscriptions) ws.send(JSON.stringify({ type: 'subscribe', ...s }));
  while (c.frames.filter((f) => f.type === 'subscribed').length < subscriptions.length) await new Promise((resolve) => setTimeout(resolve, 5));
  return c;
}

describe('the fan-out', () => {
  it('offers a command only to connections watching an address it carries, a market it names, or every command', async () => {
    const h = await gateway({ rateLimit: { enabled: false } });
    const ws = attachWebSocket(h.app, h.state, { periodicTickMs: 1_000_000, coalesceMs: 0 });
    closers.push(() => h.app.close());
    closers.push(() => ws.close());
    const url = (await h.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws') + '/v1/ws';
    for (const address of [ALICE, BOB]) h.fund({ address, apiKey: '', secret: new Uint8Array() }, 10_000_000n);

    // Who the orders channel's updates are asked for, by subscribed address.
    const asked: string[] = [];
    const updates = CHANNELS.orders.updates;
    (CHANNELS.orders as { updates: typeof updates }).updates = (state, sub, events) => {
      asked.push(sub.address!);
      return updates(state, sub, events);
    };
    closers.push(() => void ((CHANNELS.orders as { updates: typeof updates }).updates = updates));

    const alice = await client(url, [{ channel: 'orders', id: ALICE, accountIndex: 0 }]);
    // Bob's connection also holds a market channel: it is offered every command.
    const bob = await client(url, [
      { channel: 'orders', id: BOB, accountIndex: 0 },
      { channel: 'trades', id: 'BTC-USD' },
    ]);
    // Another market's reader and a global subscriber, each also watching an idle address.
    const carol = await client(url, [
      { channel: 'orders', id: CAROL, accountIndex: 0 },
      { channel: 'l2OrderbookUpdates', id: 'ETH-USD' },
    ]);
    const dave = await client(url, [
      { channel: 'orders', id: DAVE, accountIndex: 0 },
      { channel: 'oraclePrices' },
    ]);
    const watchers = await Promise.all(Array.from({ length: 20 }, (_, i) => client(url, [{ channel: 'orders', id: '0x' + 'ee'.repeat(19) + i.toString(16).padStart(2, '0'), accountIndex: 0 }])));

    const mid = priceToTicks(h.exchange.engine.markets.get(1)!.spec, '100000')!;
    const place = (address: string, price: number): void =>
      void h.exchange.submit({ type: 'placeOrder', address, accountIndex: 0, marketId: 1, side: 0, orderType: 0, tif: TIF_GTT, price, size: 10_000, reduceOnly: false, goodTilTime: h.now.us + 40 * DAY_US });

    place(ALICE, mid - 10);
    expect(asked.sort()).toEqual([ALICE, BOB, DAVE]);
    asked.length = 0;
    place(BOB, mid - 11);
    expect(asked.sort()).toEqual([BOB, DAVE]);

    const data = (c: Client): Record<string, unknown>[] => c.frames.filter((f) => f.type === 'channel_data');
    while (data(alice).length < 1 || data(bob).length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(data(alice)).toHaveLength(1);
    expect(data(bob)).toHaveLength(1);
    for (const w of [carol, dave, ...watchers]) expect(data(w)).toHaveLength(0);
    // The frame's text is JSON.stringify of {type, channel, id, accountIndex, contents}, in that order.
    const text = alice.texts.find((t) => t.startsWith('{"type":"channel_data"'))!;
    const frame = JSON.parse(text) as { contents: unknown };
    expect(text).toBe(JSON.stringify({ type: 'channel_data', channel: 'orders', id: ALICE, accountIndex: 0, contents: frame.contents }));
    expect(frame.contents).toMatchObject({ address: ALICE, status: 'OPEN' });

    // Unsubscribed or gone: no longer offered anything.
    alice.ws.send(JSON.stringify({ type: 'unsubscribe', channel: 'orders', id: ALICE, accountIndex: 0 }));
    while (!alice.frames.some((f) => f.type === 'unsubscribed')) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const gone of [bob, dave]) {
      gone.ws.close();
      await new Promise((resolve) => gone.ws.once('close', resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    asked.length = 0;
    place(ALICE, mid - 12);
    place(BOB, mid - 13);
    expect(asked).toEqual([]);
  });
});
