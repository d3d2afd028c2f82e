/**
 * The SDK's local order book against an in-process perpsim: kept from l2OrderbookUpdates by the
 * resync rules of interface.md "Sequencing", it equals GET /v1/l2OrderBook across deltas, after a
 * delta lost on the wire (gap → re-subscribe) and after the server's 1001 close (reconnect →
 * re-subscribe, new baseline).
 */
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client, LocalOrderBook, WebSocketConstructor, WebSocketLike } from '../client/index.ts';
import { clientHarness } from './support/client-fixture.ts';

const h = clientHarness();
afterEach(() => h.close());

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The REST book at 100 levels, and the local book once it has applied the same sequence. */
async function expectEqualToRest(client: Client, book: LocalOrderBook, market: string): Promise<void> {
  const rest = await client.l2OrderBook(market, { nLevels: 100 });
  await book.caughtUp(rest.lastSequenceId);
  const local = book.view(100);
  expect(local.lastSequenceId).toBe(rest.lastSequenceId);
  expect(local.exact).toBe(true);
  expect(local.bids).toEqual(rest.bids);
  expect(local.asks).toEqual(rest.asks);
}

/** A `ws` socket that loses the channel_data frames `lose` picks, as if dropped in transit. */
function lossy(lose: (frame: Record<string, unknown>) => boolean): WebSocketConstructor {
  return class implements WebSocketLike {
    private readonly inner: WebSocket;
    onopen: WebSocketLike['onopen'] = null;
    onmessage: WebSocketLike['onmessage'] = null;
    onclose: WebSocketLike['onclose'] = null;
    onerror: WebSocketLike['onerror'] = null;

    constructor(url: string) {
      this.inner = new WebSocket(url);
      this.inner.onopen = (event) => this.onopen?.(event);
      this.inner.onclose = (event) => this.onclose?.(event);
      this.inner.onerror = (event) => this.onerror?.(event);
      this.inner.onmessage = (event) => {
        if (!lose(JSON.parse(String(event.data)) as Record<string, unknown>)) this.onmessage?.(event);
      };
    }

    get readyState(): number {
      return this.inner.readyState;
    }

    send(data: string): void {
      this.inner.send(data);
    }

    close(code?: number, reason?: string): void {
      this.inner.close(code, reason);
    }
  };
}

describe('local order book: seed from the snapshot, apply deltas above its lastSequenceId', () => {
  it('equals the REST book across places, partial fills, modifies and cancels', async () => {
    await h.start({ clock: 'virtual' });
    const maker = await h.trader('f1');
    const taker = await h.trader('f2');
    await maker.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3390.00', quantity: '1' });
    const book = await maker.book('eth-usd');
    expect(book.status).toBe('live');
    const asks = [];
    for (let i = 0; i < 8; i++) asks.push(await maker.placeOrder({ market: 'ETH-USD', side: 'SELL', price: (3410 + i).toFixed(2), quantity: '0.5' }));
    for (let i = 0; i < 8; i++) await maker.placeOrder({ market: 'ETH-USD', side: 'BUY', price: (3380 - i * 2).toFixed(2), quantity: '0.25', clientId: `bid-${i}` });
    await taker.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3411.00', quantity: '0.75', timeInForce: 'IOC' });
    await maker.modifyOrder(await maker.order(asks[5]!.orderId), { price: '3420.00', quantity: '2' });
    await maker.cancelOrder({ market: 'ETH-USD', clientId: 'bid-3' });
    await maker.batchCancelOrders([{ market: 'ETH-USD', orderId: asks[6]!.orderId }, { market: 'ETH-USD', orderId: asks[7]!.orderId }]);
    await taker.placeOrder({ market: 'ETH-USD', side: 'SELL', price: '3300.00', quantity: '1.1', timeInForce: 'IOC' });
    await expectEqualToRest(maker, book, 'ETH-USD');
    expect(book.view(100).asks[0]).toEqual(['3411.00', '0.25']);
    expect(book.state.stats.applied).toBeGreaterThan(15);
    expect(book.resubscribes).toBe(0);
  });

  it('equals the REST book after a long run of the simulator\'s agents (accelerated clock)', async () => {
    await h.start({ agents: true, clock: 'accelerated', speed: 20, feedMs: 1000, tickMs: 20, seed: 5 });
    const client = await h.trader('f3');
    const book = await client.book('BTC-USD');
    await sleep(1_500);
    // A quiet moment: the virtual clock stops the agents, in-flight frames drain.
    await client.sim.setClockMode('virtual');
    await sleep(50);
    await expectEqualToRest(client, book, 'BTC-USD');
    expect(book.state.stats.applied).toBeGreaterThan(100);
    expect(book.view(100).bids.length).toBeGreaterThan(5);
  });
});

describe('local order book: re-subscribe on a gap', () => {
  it('a delta lost mid-stream makes the book re-subscribe and seed from the fresh snapshot', async () => {
    await h.start({ clock: 'virtual' });
    let deltas = 0;
    const WebSocketLosingOne = lossy((frame) => frame.type === 'channel_data' && frame.channel === 'l2OrderbookUpdates' && ++deltas === 3);
    const client = await h.trader('f4', { WebSocket: WebSocketLosingOne });
    const book = await client.book('SOL-USD');
    for (let i = 0; i < 6; i++) await client.placeOrder({ market: 'SOL-USD', side: 'BUY', price: (185 - i).toFixed(3), quantity: '1' });
    for (let i = 0; i < 3; i++) await client.placeOrder({ market: 'SOL-USD', side: 'SELL', price: (195 + i).toFixed(3), quantity: '1' });
    await expectEqualToRest(client, book, 'SOL-USD');
    expect(book.resubscribes).toBe(1);
    expect(book.state.stats.gaps).toBe(1);
    expect(book.state.stats.snapshots).toBe(2);
    expect(book.view(100).bids).toHaveLength(6);
    expect(book.view(100).asks).toHaveLength(3);
  });
});

describe('local order book: re-subscribe after a 1001 close', () => {
  it('the server restarts (1001): the client reconnects, the book takes the new snapshot as its baseline and follows the new server', async () => {
    await h.start({ clock: 'virtual' });
    const port = Number(new URL(h.server.url).port);
    const client = await h.trader('f5');
    for (let i = 0; i < 4; i++) await client.placeOrder({ market: 'DOGE-USD', side: 'BUY', price: (0.31 - i * 0.001).toFixed(5), quantity: '100' });
    const book = await client.book('DOGE-USD');
    await expectEqualToRest(client, book, 'DOGE-USD');
    const before = book.lastSequenceId;
    const closes: number[] = [];
    client.ws.on((event) => {
      if (event.type === 'close') closes.push(event.code!);
    });

    await h.server.close();
    await h.start({ port, clock: 'virtual' });
    await client.sim.registerApiKey(client.address!, client.key!.publicKey);
    await client.sim.deposit(client.address!, '1000');
    await client.placeOrder({ market: 'DOGE-USD', side: 'SELL', price: '0.33000', quantity: '50' });
    await expectEqualToRest(client, book, 'DOGE-USD');
    expect(closes[0]).toBe(1001);
    // The new server's sequence restarted below the old one: no continuity was assumed.
    expect(book.lastSequenceId).toBeLessThan(before);
    expect(book.view(100)).toMatchObject({ bids: [], asks: [['0.33000', '50.0']] });
    expect(book.state.stats.snapshots).toBe(2);
  });
});
