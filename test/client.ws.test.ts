/**
 * The SDK's WebSocket surface against an in-process perpsim: subscriptions with typed payloads,
 * RPC correlated by id, and reconnection after the server closes the socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ConnectionClosedError, type ChannelFrame, type Order } from '../client/index.ts';
import { clientHarness } from './support/client-fixture.ts';

const h = clientHarness();
afterEach(() => h.close());

/** Frames collected by a handler, and a way to wait for the one a test expects. */
function collector<C extends ChannelFrame['channel']>(): { frames: ChannelFrame<C>[]; handler: (frame: ChannelFrame<C>) => void; next(match: (frame: ChannelFrame<C>) => boolean): Promise<ChannelFrame<C>> } {
  const frames: ChannelFrame<C>[] = [];
  const waiters = new Set<{ match: (frame: ChannelFrame<C>) => boolean; resolve: (frame: ChannelFrame<C>) => void }>();
  return {
    frames,
    handler: (frame) => {
      frames.push(frame);
      for (const waiter of [...waiters]) {
        if (!waiter.match(frame)) continue;
        waiters.delete(waiter);
        waiter.resolve(frame);
      }
    },
    next: (match) =>
      new Promise((resolve) => {
        const seen = frames.find(match);
        if (seen !== undefined) resolve(seen);
        else waiters.add({ match, resolve });
      }),
  };
}

describe('WS: subscribe / unsubscribe with typed channel payloads', () => {
  it('orders: the subscribed snapshot, then one order record per update; nothing after unsubscribe', async () => {
    await h.start({ clock: 'virtual' });
    const client = await h.trader('a1');
    const orders = collector<'orders'>();
    const sub = await client.ws.subscribe({ channel: 'orders', id: client.address! }, orders.handler);
    const snapshot = sub.subscribed.contents;
    expect('isSnapshot' in snapshot && snapshot.isSnapshot).toBe(true);
    expect(snapshot).toMatchObject({ orders: [], recentClosedOrders: [] });

    const ack = await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.2' });
    const open = await orders.next((f) => f.type === 'channel_data' && (f.contents as Order).orderId === ack.orderId);
    expect(open.contents).toMatchObject({ orderId: ack.orderId, status: 'OPEN', side: 'BUY', price: '3300.00', remainingSize: '0.2' });
    expect(open).toMatchObject({ channel: 'orders', id: client.address!, accountIndex: 0 });

    await sub.unsubscribe();
    const before = orders.frames.length;
    await client.cancelOrder({ market: 'ETH-USD', orderId: ack.orderId });
    // An RPC answered after the cancel's frames would have been sent: the socket is in order.
    await client.ws.get('mids');
    expect(orders.frames.length).toBe(before);
  });

  it('market channels: bbo and trades frames with the market echoed as id; a refused subscribe throws ApiError', async () => {
    await h.start({ clock: 'virtual' });
    const maker = await h.trader('b1');
    const taker = await h.trader('b2');
    const bbo = collector<'bbo'>();
    const trades = collector<'trades'>();
    await maker.ws.subscribe({ channel: 'bbo', id: 'sol-usd' }, bbo.handler);
    await maker.ws.subscribe({ channel: 'trades', id: 'SOL-USD' }, trades.handler);
    await maker.placeOrder({ market: 'SOL-USD', side: 'SELL', price: '191.000', quantity: '2' });
    const top = await bbo.next((f) => f.type === 'channel_data' && f.contents.bestAsk !== null);
    expect(top).toMatchObject({ id: 'SOL-USD', contents: { bestAsk: { price: '191.000', size: '2.0' }, bestBid: null } });
    await taker.placeOrder({ market: 'SOL-USD', side: 'BUY', price: '191.000', quantity: '0.5', timeInForce: 'IOC' });
    const traded = await trades.next((f) => f.type === 'channel_data');
    expect(traded.contents).toEqual([expect.objectContaining({ price: '191.000', size: '0.5' })]);
    await expect(maker.ws.subscribe({ channel: 'bbo', id: 'NOPE-USD' }, () => undefined)).rejects.toBeInstanceOf(ApiError);
  });
});

describe('WS: RPC post / get correlated by id', () => {
  it('concurrent calls each resolve with their own reply, whatever order they are answered in', async () => {
    await h.start({ clock: 'virtual' });
    const client = await h.trader('c1');
    await client.placeOrder({ market: 'BTC-USD', side: 'BUY', price: '90000.0', quantity: '0.01' });
    await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3000.00', quantity: '0.1' });
    const [btc, eth, placed, orders, refused] = await Promise.all([
      client.ws.get<{ bids: [string, string][] }>('l2orderbook', { market: 'BTC-USD' }),
      client.ws.get<{ bids: [string, string][] }>('l2orderbook', { market: 'ETH-USD' }),
      client.ws.placeOrder({ market: 'DOGE-USD', side: 'BUY', price: '0.30000', quantity: '100', clientId: 'ws-doge' }),
      client.ws.get<{ orders: Order[] }>('orders', { address: client.address! }),
      client.ws.placeOrder({ market: 'DOGE-USD', side: 'BUY', price: '0.300001', quantity: '100' }).catch((e: unknown) => e),
    ]);
    expect(btc.bids).toEqual([['90000.0', '0.01']]);
    expect(eth.bids).toEqual([['3000.00', '0.1']]);
    expect(placed).toMatchObject({ status: 'ACK', clientId: 'ws-doge', marketDisplayName: 'DOGE-USD' });
    expect(orders.orders.length).toBeGreaterThanOrEqual(2);
    // Off the tick: no signable form, refused before it is sent.
    expect(refused).toBeInstanceOf(RangeError);
  });

  it('writes over RPC: cancel, modify, batches and Scheme 2 methods; refusals reject with ApiError', async () => {
    await h.start({ clock: 'virtual' });
    const client = await h.trader('d1');
    const ack = await client.ws.placeOrder({ market: 'ETH-USD', side: 'SELL', price: '3500.00', quantity: '0.3' });
    const order = await client.order(ack.orderId);
    expect(await client.ws.modifyOrder(order, { price: '3510.00', quantity: '0.4' })).toMatchObject({ status: 'ACK', orderId: ack.orderId });
    expect(await client.ws.cancelOrder({ market: 'ETH-USD', orderId: ack.orderId })).toMatchObject({ status: 'CANCEL_ACKNOWLEDGED' });
    const batch = await client.ws.batchPlaceOrders([
      { market: 'ETH-USD', side: 'SELL', price: '3600.00', quantity: '0.1' },
      { market: 'ETH-USD', side: 'SELL', price: '3601.00', quantity: '0.1' },
    ]);
    expect(batch.responses.map((r) => r.status)).toEqual(['ACK', 'ACK']);
    const rested = await Promise.all(batch.responses.map((r) => client.order(r.orderId)));
    expect((await client.ws.batchModifyOrders(rested.map((target) => ({ target, change: { price: '3700.00', quantity: '0.1' } })))).responses.map((r) => r.status)).toEqual(['ACK', 'ACK']);
    expect((await client.ws.batchCancelOrders([{ market: 'ETH-USD', orderId: rested[0]!.orderId }])).responses[0]).toMatchObject({ status: 'CANCEL_ACKNOWLEDGED' });
    expect(await client.ws.cancelAllOrders()).toMatchObject({ status: 'CANCEL_ALL_ACKNOWLEDGED' });
    const now = (await client.sim.clock()).timeUs;
    expect(await client.ws.scheduleCancel({ market: 'ETH-USD', time: now + 30_000_000 })).toMatchObject({ status: 'scheduled', marketDisplayName: 'ETH-USD' });
    expect(await client.ws.scheduleCancel({ market: 'ETH-USD' })).toMatchObject({ status: 'disarmed' });
    expect(await client.ws.setLeverage({ market: 'ETH-USD', leverage: 3 })).toMatchObject({ status: 'ACK' });
    expect((await client.leverages({ market: 'ETH-USD' })).leverages[0]).toMatchObject({ leverage: 3 });
    const tpsl = await client.ws.placeOrder({ market: 'ETH-USD', side: 'SELL', price: '3000.00', quantity: '0.1', tpslType: 'STOP_LOSS', stopPrice: '3000.00', reduceOnly: true }).catch((e: unknown) => e);
    expect(tpsl).toBeInstanceOf(ApiError);
    expect(tpsl).toMatchObject({ status: 501, errorType: 'NotImplemented' });
    await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.1' });
    const crossed = await client.ws.placeOrder({ market: 'ETH-USD', side: 'SELL', price: '3300.00', quantity: '0.1' }).catch((e: unknown) => e);
    expect(crossed).toMatchObject({ status: 200, rejectionReason: 'SELF_TRADE' });
  });
});

describe('WS: reconnect with back-off after the server closes the socket (1001 on restart)', () => {
  it('reconnects to the restarted server and subscribes again: a fresh subscribed frame marked resubscribed, RPC works', async () => {
    await h.start({ clock: 'virtual' });
    const port = Number(new URL(h.server.url).port);
    const client = await h.trader('e1');
    const closes: number[] = [];
    client.ws.on((event) => {
      if (event.type === 'close') closes.push(event.code!);
    });
    const bbo = collector<'bbo'>();
    await client.ws.subscribe({ channel: 'bbo', id: 'ETH-USD' }, bbo.handler);
    const inFlight = client.ws.get('l2orderbook', { market: 'ETH-USD' }).then(
      () => 'answered',
      (error: unknown) => error,
    );

    await h.server.close();
    await h.start({ port, clock: 'virtual' });
    const again = await bbo.next((f) => f.type === 'subscribed' && f.resubscribed === true);
    expect(again.contents).toMatchObject({ bestBid: null, bestAsk: null });
    expect(closes[0]).toBe(1001);
    expect(client.ws.reconnects).toBeGreaterThanOrEqual(1);
    // The call in flight when the socket closed was either answered or rejected: never left hanging.
    const outcome = await inFlight;
    if (outcome !== 'answered') expect(outcome).toBeInstanceOf(ConnectionClosedError);

    // The new server knows nothing of the old key: register again, then trade and see the update.
    await client.sim.registerApiKey(client.address!, client.key!.publicKey);
    await client.sim.deposit(client.address!, '1000');
    await client.ws.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3333.00', quantity: '0.1' });
    const top = await bbo.next((f) => f.type === 'channel_data' && f.contents.bestBid !== null);
    expect(top.contents.bestBid).toEqual({ price: '3333.00', size: '0.1' });
  });
});
