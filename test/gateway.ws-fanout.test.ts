/**
 * Fan-out to many subscribers (gateway/ws/server.ts "Writes"): channel data of a window leaves
 * in one write per connection, connections with the same subscriptions share one buffer, and
 * a window's flush is cut into chunks of connections with event-loop turns between them. What
 * every subscriber receives must not depend on any of that: the same frames, in the same order,
 * whether its connection was flushed in the first chunk or the last, and a reply in between
 * comes after the data queued before it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { priceToTicks, TIF_GTT, TIF_IOC } from '../engine/index.ts';
import { attachWebSocket } from '../gateway/ws/server.ts';
import { createPrng } from '../sim/prng.ts';
import { DAY_US, gateway } from './support/gateway-fixture.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const MAKER = '0x' + '6d'.repeat(20);
const TAKER = '0x' + '7e'.repeat(20);
/** More than one flush chunk of connections. */
const SUBSCRIBERS = 600;
const CHANNELS = ['l2OrderbookUpdates', 'trades', 'bbo'] as const;

interface Subscriber {
  ws: WebSocket;
  /** The text of every channel_data frame, in arrival order. */
  data: string[];
  /** Every frame's type, in arrival order. */
  types: string[];
}

async function subscriber(url: string, channels: readonly string[]): Promise<Subscriber> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  closers.push(() => ws.terminate());
  const s: Subscriber = { ws, data: [], types: [] };
  ws.on('message', (raw: Buffer) => {
    const text = raw.toString('utf8');
    const type = (JSON.parse(text) as { type: string }).type;
    s.types.push(type);
    if (type === 'channel_data') s.data.push(text);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  for (const channel of channels) ws.send(JSON.stringify({ type: 'subscribe', channel, id: 'BTC-USD' }));
  while (s.types.filter((t) => t === 'subscribed').length < channels.length) await new Promise((resolve) => setTimeout(resolve, 5));
  return s;
}

describe('a window of channel data reaches every one of many subscribers whole and in order', () => {
  it(`${SUBSCRIBERS} connections on one book get the same frames in the same order, and replies after the data queued before them`, async () => {
    const h = await gateway({ rateLimit: { enabled: false } });
    const ws = attachWebSocket(h.app, h.state, { periodicTickMs: 1_000_000 });
    closers.push(() => h.app.close());
    closers.push(() => ws.close());
    const url = (await h.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws') + '/v1/ws';
    h.fund({ address: MAKER, apiKey: '', secret: new Uint8Array() }, 10_000_000n);
    h.fund({ address: TAKER, apiKey: '', secret: new Uint8Array() }, 10_000_000n);

    const subs: Subscriber[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 50) subs.push(...(await Promise.all(Array.from({ length: 50 }, () => subscriber(url, CHANNELS)))));
    // One connection with a different set (its own plan) and one without bbo, among the others.
    const other = await subscriber(url, ['trades', 'l2OrderbookUpdates']);

    const ms = h.exchange.engine.markets.get(1)!;
    const mid = priceToTicks(ms.spec, '100000')!;
    const rng = createPrng(11);
    const place = (side: 0 | 1, price: number, tif: typeof TIF_GTT | typeof TIF_IOC = TIF_GTT): void => {
      h.exchange.submit({ type: 'placeOrder', address: tif === TIF_GTT ? MAKER : TAKER, accountIndex: 0, marketId: 1, side, orderType: 0, tif, price, size: 10_000 + rng.int(50_000), reduceOnly: false, goodTilTime: h.now.us + 40 * DAY_US });
    };
    for (let i = 0; i < 300; i++) {
      place(i % 2 === 0 ? 0 : 1, i % 2 === 0 ? mid - 1 - rng.int(200) : mid + 1 + rng.int(200));
      if (i % 7 === 6) place(rng.int(2) === 0 ? 0 : 1, rng.int(2) === 0 ? mid - 300 : mid + 300, TIF_IOC); // through the book: trades
      if (i % 25 === 24) {
        // A reply between windows: it must come after the data queued before it on that connection.
        subs[i % SUBSCRIBERS]!.ws.send(JSON.stringify({ type: 'unsubscribe', channel: 'bbo', id: 'BTC-USD' }));
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // Every subscriber got the same stream: wait until the last one has as many frames as the first.
    const deadline = Date.now() + 20_000;
    const reference = subs.find((s) => !s.types.includes('unsubscribed'))!;
    let settled = false;
    while (!settled && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const counts = subs.filter((s) => !s.types.includes('unsubscribed')).map((s) => s.data.length);
      settled = counts.every((n) => n === reference.data.length) && reference.data.length > 0 && Math.min(...counts) === Math.max(...counts);
      if (settled) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        settled = subs.filter((s) => !s.types.includes('unsubscribed')).every((s) => s.data.length === reference.data.length);
      }
    }
    expect(reference.data.some((d) => d.includes('"channel":"trades"'))).toBe(true);
    for (const s of subs) {
      if (s.types.includes('unsubscribed')) {
        // Its stream up to the unsubscribe is the reference's; after it, the reference's without bbo.
        const cut = s.types.indexOf('unsubscribed');
        const before = s.types.slice(0, cut).filter((t) => t === 'channel_data').length;
        expect(s.data.slice(0, before)).toEqual(reference.data.slice(0, before));
        expect(s.data.slice(before)).toEqual(reference.data.slice(before).filter((d) => !d.includes('"channel":"bbo"')));
      } else {
        expect(s.data).toEqual(reference.data);
      }
    }
    expect(other.data).toEqual(reference.data.filter((d) => !d.includes('"channel":"bbo"')));
  });
});
