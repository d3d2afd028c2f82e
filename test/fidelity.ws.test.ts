/**
 * WebSocket frames against the live venue's captured shapes and the live connectors' strict
 * decoders (docs/decisions.md "Fidelity to the live venue"): field names and JSON types of
 * trades, positions, oraclePrices and markets contents. The server runs in process on a
 * virtual clock, no agents; fixtures are written here from the public facts.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import type { Server } from '../sim/server.ts';
import { DAY_US, wallet } from './support/gateway-fixture.ts';
import { shapeOf } from './support/json-shape.ts';
import { simHarness } from './support/sim-harness.ts';
import { connectClient, type Client, type Frame } from './support/ws-client.ts';

const sim = simHarness();
const sockets = sim.sockets;
let server: Server | undefined;

const alice = wallet(0x61).address;
const bob = wallet(0x62).address;
const ETH = 2;

async function start(): Promise<Server> {
  server = await sim.start();
  for (const a of [alice, bob]) server.exchange.submit({ type: 'deposit', address: a, accountIndex: 0, amount: 1_000_000n * 1_000_000_000n });
  return server;
}

async function subscribe(c: Client, frame: Frame): Promise<Frame> {
  const before = c.frames.length;
  c.send({ type: 'subscribe', ...frame });
  return c.next((f) => c.frames.indexOf(f) >= before && (f.type === 'subscribed' || f.type === 'error'));
}

function place(address: string, side: 0 | 1, price: string, size: string, tif: 0 | 2 = 0): void {
  const spec = server!.exchange.engine.markets.get(ETH)!.spec;
  const result = server!.exchange.submit({
    type: 'placeOrder', address, accountIndex: 0, marketId: ETH, side, orderType: 0, tif,
    price: priceToTicks(spec, price)!, size: sizeToQuantums(spec, size)!, reduceOnly: false, goodTilTime: server!.exchange.clock() + 40 * DAY_US,
  });
  if (result.kind !== 'order') throw new Error(JSON.stringify(result));
}

describe('trades channel rows are the live trade rows', () => {
  it('each row carries marketId and the taker side, with the live fields and JSON types', async () => {
    await start();
    const c = await connectClient(server!.url, sockets);
    await subscribe(c, { channel: 'trades', id: 'ETH-USD' });
    place(bob, 1, '3400.00', '0.5');
    place(alice, 0, '3400.00', '0.5', 2);
    const rows = (await c.next((f) => f.channel === 'trades' && f.type === 'channel_data')).contents as Frame[];
    // Live trade row (public Go client's model, hummingbot connector's reads): side is the taker's.
    expect(shapeOf(rows)).toEqual([{
      marketId: 'integer', marketDisplayName: 'string', side: 'string', price: 'string', size: 'string', tradeId: 'string', timestamp: 'integer',
      takerOrderId: 'string', takerAddress: 'string', makerOrderId: 'string', makerAddress: 'string', sequenceNumber: 'integer',
    }]);
    expect(rows[0]).toMatchObject({ marketId: ETH, side: 'BUY', takerAddress: alice, makerAddress: bob });
  });
});

describe('positions channel contents are a map keyed by marketId, as the REST positions reply', () => {
  it('snapshot and deltas key rows by the market id string', async () => {
    await start();
    place(bob, 1, '3400.00', '1.0');
    place(alice, 0, '3400.00', '1.0', 2);
    const c = await connectClient(server!.url, sockets);
    const snap = (await subscribe(c, { channel: 'positions', id: alice })).contents as Frame;
    expect(Object.keys(snap.positions as Frame)).toEqual([String(ETH)]);
    const rest = (await (await fetch(`${server!.url}/v1/positions?address=${alice}`)).json()) as Frame;
    expect(Object.keys(snap.positions as Frame)).toEqual(Object.keys(rest.positions as Frame));
    place(bob, 1, '3400.00', '0.25');
    place(alice, 0, '3400.00', '0.25', 2);
    const delta = (await c.next((f) => f.channel === 'positions' && f.type === 'channel_data')).contents as Frame;
    expect((delta.positions as Record<string, Frame>)[String(ETH)]).toMatchObject({ marketId: ETH, size: '1.25', sequenceNumber: expect.any(Number) });
  });
});

describe('oraclePrices carries epoch and markEpochNanos as JSON integers (int64 ns)', () => {
  it('the raw frame text has the exact nanosecond digits, unquoted', async () => {
    await start();
    const ws = new WebSocket(server!.url.replace('http', 'ws') + '/v1/ws');
    sockets.push(ws);
    const texts: string[] = [];
    ws.on('message', (data: Buffer) => texts.push(data.toString()));
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'oraclePrices' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const spec = server!.exchange.engine.markets.get(ETH)!.spec;
    server!.exchange.submit({ type: 'setOraclePrice', marketId: ETH, price: priceToTicks(spec, '3401.00')! });
    const us = server!.exchange.engine.time;
    for (let i = 0; i < 50 && !texts.some((t) => t.includes('channel_data')); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const text = texts.find((t) => t.includes('channel_data'))!;
    expect(text).toContain(`"epoch":${us}000,`);
    expect(text).toContain(`"markEpochNanos":${us}000}`);
    const contents = (JSON.parse(text) as Frame).contents as Frame;
    expect(shapeOf(contents)).toEqual({ epoch: 'integer', prices: [{ marketDisplayName: 'string', marketId: 'integer', price: 'string', markPrice: 'string', markEpochNanos: 'integer' }] });
  });

  it('prints every µs time before 2^62 ns as its exact ns digits', () => {
    for (let i = 0; i < 100_000; i++) {
      const us = Math.floor(Math.random() * 4.6e15);
      expect(JSON.stringify(us * 1000)).toBe(`${us}000`);
    }
  });
});

describe('markets channel rows are the REST market rows', () => {
  it('the snapshot is a map by id string of the same rows GET /v1/markets returns', async () => {
    await start();
    const c = await connectClient(server!.url, sockets);
    const snap = (await subscribe(c, { channel: 'markets' })).contents as { isSnapshot: boolean; markets: Record<string, Frame> };
    const rest = (await (await fetch(`${server!.url}/v1/markets`)).json()) as { markets: Frame[] };
    expect(snap.isSnapshot).toBe(true);
    expect(Object.values(snap.markets).map((m) => Object.keys(m))).toEqual(rest.markets.map((m) => Object.keys(m)));
    expect(snap.markets['1']).toMatchObject({ fundingRate: expect.any(String), nextFundingAt: expect.any(Number), trades24h: 0, openInterestCapNotional: null });
  });
});

describe('bbo and l2Orderbook frames have the captured live shapes', () => {
  it('the subscribed bbo frame and its updates: {bestBid, bestAsk, lastSequenceId, globalSequenceId, timestamp}; the book snapshot: bids/asks arrays of [price, size]', async () => {
    await start();
    place(bob, 1, '3401.00', '0.5');
    place(alice, 0, '3399.00', '0.5');
    const c = await connectClient(server!.url, sockets);
    const bbo = await subscribe(c, { channel: 'bbo', id: 'ETH-USD' });
    const level = { price: 'string', size: 'string' };
    const shape = { bestBid: level, bestAsk: level, lastSequenceId: 'integer', globalSequenceId: 'integer', timestamp: 'integer' };
    expect(bbo).toMatchObject({ type: 'subscribed', channel: 'bbo', id: 'ETH-USD' });
    expect(shapeOf(bbo.contents)).toEqual(shape);
    place(alice, 0, '3400.00', '0.1');
    const update = await c.next((f) => f.channel === 'bbo' && f.type === 'channel_data');
    expect(shapeOf(update.contents)).toEqual(shape);
    const book = await subscribe(c, { channel: 'l2Orderbook', id: 'ETH-USD' });
    expect(shapeOf(book.contents)).toEqual({ bids: [['string', 'string'], ['string', 'string']], asks: [['string', 'string']], lastSequenceId: 'integer', globalSequenceId: 'integer', timestamp: 'integer' });
  });
});
