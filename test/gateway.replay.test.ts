/**
 * Replay protection of signed writes, probed the way an attacker who saw one accepted request
 * would: the same signature spelled in another letter case, batch elements reordered,
 * repeated, upper-cased, split off as single requests. One signature is one slot, ever.
 */
import * as ed from '@noble/ed25519';
import { describe, expect, it } from 'vitest';
import { scheme1Payload } from '../gateway/auth/index.ts';
import { gateway, placeOrderRequest, scheme2Headers, wallet, type GatewayHarness } from './support/gateway-fixture.ts';
import { batchRequest, cancelElement, cancelOrderRequest, placeElement, scheme2Request, timestampNs, type SignedRequest } from './support/order-write-signing.ts';
import { simHarness } from './support/sim-harness.ts';
import { connectClient, type Frame } from './support/ws-client.ts';

const alice = wallet(0xa7);

async function ready(): Promise<GatewayHarness> {
  const h = await gateway();
  h.fund(alice, 100_000n);
  h.key(alice);
  return h;
}

async function send(h: GatewayHarness, req: SignedRequest) {
  return h.app.inject({ method: 'POST', url: req.url, payload: req.payload, headers: req.headers });
}

/** `text` with its letters' case changed: all upper, or alternating. */
function recase(text: string, how: 'upper' | 'mixed'): string {
  if (how === 'upper') return text.toUpperCase();
  return [...text].map((ch, i) => (i % 2 === 0 ? ch.toUpperCase() : ch)).join('');
}

function withSignature(req: SignedRequest, signature: string): SignedRequest {
  return { ...req, headers: { ...req.headers, 'x-signature': signature } };
}

function orderCount(h: GatewayHarness): number {
  return h.exchange.orders.size;
}

describe('the replay slot of a single signed write does not depend on how its signature\'s hex is written', () => {
  it('placeOrder resent with X-Signature upper-cased or mixed-case is 409 and places nothing', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(202);
    for (const how of ['upper', 'mixed'] as const) {
      const again = await h.app.inject({ method: 'POST', ...req, headers: { ...req.headers, 'x-signature': recase(req.headers['x-signature']!, how) } });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ error: 'replayed request' });
    }
    expect(orderCount(h)).toBe(1);
  });

  it('a first request signed in upper case takes the slot of the lowercase spelling too', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    const upper = { ...req, headers: { ...req.headers, 'x-signature': req.headers['x-signature']!.toUpperCase() } };
    expect((await h.app.inject({ method: 'POST', ...upper })).statusCode).toBe(202);
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(409);
    expect(orderCount(h)).toBe(1);
  });

  it('cancelOrder, setLeverage and cancelAllOrders resent with the signature recased are 409', async () => {
    const h = await ready();
    const placed = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' }) });
    const cancel = cancelOrderRequest(h, alice, { orderId: placed.json().orderId });
    expect((await send(h, cancel)).statusCode).toBe(202);
    expect((await send(h, withSignature(cancel, recase(cancel.headers['x-signature']!, 'upper')))).statusCode).toBe(409);

    const leverage = { address: alice.address, marketId: 1, leverage: 10 };
    const leverageHeaders = scheme2Headers(h, alice, 'setLeverage', leverage);
    const url = `/v1/setLeverage?address=${alice.address}`;
    expect((await h.app.inject({ method: 'POST', url, payload: leverage, headers: leverageHeaders })).statusCode).toBe(200);
    const recased = { ...leverageHeaders, 'x-signature': recase(leverageHeaders['x-signature']!, 'mixed') };
    expect((await h.app.inject({ method: 'POST', url, payload: leverage, headers: recased })).statusCode).toBe(409);

    await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '95000.0' }) });
    const cancelAll = scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0 });
    expect((await send(h, cancelAll)).statusCode).toBe(202);
    await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '94000.0' }) });
    const again = await send(h, withSignature(cancelAll, recase(cancelAll.headers['x-signature']!, 'upper')));
    expect(again.statusCode).toBe(409);
    expect([...h.exchange.orders.values()].filter((o) => o.status === 'OPEN')).toHaveLength(1);
  });
});

describe('one signed batch element places at most one order, ever', () => {
  async function placedBatch(h: GatewayHarness) {
    const ts = timestampNs(h);
    const elements = [1, 2, 3].map((i) => placeElement(h, alice, { quantity: '0.01', price: `9${i}000.0`, clientId: `e${i}` }, ts));
    const first = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts));
    expect(first.statusCode).toBe(202);
    expect(orderCount(h)).toBe(3);
    return { ts, elements };
  }

  it('the batch resent reordered, as a subset, with an element repeated or with its signatures upper-cased is 409 and places nothing', async () => {
    const h = await ready();
    const { ts, elements } = await placedBatch(h);
    const [a, b, c] = elements as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    const upper = elements.map((e) => ({ ...e, signature: String(e.signature).toUpperCase() }));
    for (const resent of [[c, a, b], [b], [a, c], [a, a, b, c], upper]) {
      const res = await send(h, batchRequest(alice, 'batchPlaceOrders', resent, ts));
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'replayed request' });
    }
    expect(orderCount(h)).toBe(3);
  });

  it('a batch element sent again as a single placeOrder with the same timestamp and signature is 409', async () => {
    const h = await ready();
    const { ts, elements } = await placedBatch(h);
    const { signature, ...body } = elements[1]!;
    for (const sig of [String(signature), recase(String(signature), 'mixed')]) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/v1/placeOrder?address=${alice.address}`,
        payload: body,
        headers: { 'x-api-key': alice.apiKey, 'x-timestamp': ts.toString(), 'x-signature': sig, 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(409);
    }
    expect(orderCount(h)).toBe(3);
  });

  it('a single placeOrder\'s signature resent as a batch element is refused in its row', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const element = placeElement(h, alice, { quantity: '0.01', price: '91000.0' }, ts);
    const { signature, ...body } = element;
    const single = await h.app.inject({
      method: 'POST',
      url: `/v1/placeOrder?address=${alice.address}`,
      payload: body,
      headers: { 'x-api-key': alice.apiKey, 'x-timestamp': ts.toString(), 'x-signature': String(signature), 'content-type': 'application/json' },
    });
    expect(single.statusCode).toBe(202);
    const fresh = placeElement(h, alice, { quantity: '0.01', price: '92000.0', clientId: 'fresh' }, ts);
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', [element, fresh], ts));
    expect(res.statusCode).toBe(202);
    const rows = res.json().responses as Record<string, unknown>[];
    expect(rows[0]).toEqual({ orderId: '', clientId: '', status: 'ERROR', error: 'replayed request' });
    expect(rows[1]).toMatchObject({ clientId: 'fresh', status: 'ACK' });
    expect(orderCount(h)).toBe(2);
  });

  it('a never-used element twice in one batch places one order; the repeat\'s row says so', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const element = placeElement(h, alice, { quantity: '0.01', price: '91000.0', clientId: 'twice' }, ts);
    const upperCopy = { ...element, signature: String(element.signature).toUpperCase() };
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', [element, upperCopy], ts));
    expect(res.statusCode).toBe(202);
    const rows = res.json().responses as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({ clientId: 'twice', status: 'ACK' });
    expect(rows[1]).toEqual({ orderId: '', clientId: 'twice', status: 'ERROR', error: 'replayed request' });
    expect(orderCount(h)).toBe(1);
  });

  it('a resent batch with one fresh element places only the fresh one', async () => {
    const h = await ready();
    const { ts, elements } = await placedBatch(h);
    const fresh = placeElement(h, alice, { quantity: '0.01', price: '94000.0', clientId: 'e4' }, ts);
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', [...elements, fresh], ts));
    expect(res.statusCode).toBe(202);
    const rows = res.json().responses as Record<string, unknown>[];
    expect(rows.map((r) => r.status)).toEqual(['ERROR', 'ERROR', 'ERROR', 'ACK']);
    expect(rows[0]).toEqual({ orderId: '', clientId: 'e1', status: 'ERROR', error: 'replayed request' });
    expect(orderCount(h)).toBe(4);
  });

  it('a cancel element resent as a single cancelOrder, or in another batch, is refused', async () => {
    const h = await ready();
    const placed = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' }) });
    const orderId = placed.json().orderId as string;
    const ts = timestampNs(h);
    const element = cancelElement(h, alice, { orderId }, ts);
    expect((await send(h, batchRequest(alice, 'batchCancelOrders', [element], ts))).statusCode).toBe(202);
    const { signature, ...body } = element;
    const single = await h.app.inject({
      method: 'POST',
      url: `/v1/cancelOrder?address=${alice.address}`,
      payload: body,
      headers: { 'x-api-key': alice.apiKey, 'x-timestamp': ts.toString(), 'x-signature': String(signature).toUpperCase(), 'content-type': 'application/json' },
    });
    expect(single.statusCode).toBe(409);
    const upper = { ...element, signature: String(signature).toUpperCase() };
    expect((await send(h, batchRequest(alice, 'batchCancelOrders', [upper], ts))).statusCode).toBe(409);
  });

  it('a batch refused 429 takes no slot', async () => {
    const h = await gateway({ rateLimit: { pools: { startingCap: { order: 2, cancel: 40_000 } } } });
    h.fund(alice, 100_000n);
    h.key(alice);
    const ts = timestampNs(h);
    const elements = [1, 2, 3, 4].map((i) => placeElement(h, alice, { quantity: '0.01', price: `9${i}000.0` }, ts));
    expect((await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts))).statusCode).toBe(429);
    expect(h.state.replay.size).toBe(0);
  });
});

describe('over the WebSocket, the same slots hold', () => {
  const sim = simHarness();

  it('placeOrder with the signature recased and a batch resent reordered are 409; one order per signature', async () => {
    const server = await sim.start();
    const bob = wallet(0x5b);
    server.exchange.submit({ type: 'deposit', address: bob.address, accountIndex: 0, amount: 100_000n * 1_000_000_000n });
    await fetch(server.url + '/sim/apiKeys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: bob.address, publicKey: bob.apiKey }) });
    const now = server.exchange.clock();
    const gtt = String(now + 40 * 86_400_000_000);
    const order = (ts: bigint, ticks: number, price: string) => {
      const message = scheme1Payload(1, { address: bob.address, accountIndex: 0, clientTimeNs: ts, goodTilTimeNs: BigInt(gtt) * 1000n, marketId: 2, priceTicks: ticks, sizeQuantums: 10_000_000, reduceOnly: false, side: 0, timeInForce: 0 });
      const signature = Buffer.from(ed.sign(new TextEncoder().encode(message), bob.secret)).toString('hex');
      const payload = { address: bob.address, accountIndex: 0, marketId: 2, orderSide: 'BUY', orderType: 'LIMIT', timeInForce: 'GTT', quantity: '1', price, goodTilTime: gtt, timestamp: Number(ts) };
      return { signature, payload };
    };
    const c = await connectClient(server.url, sim.sockets);
    const ts = BigInt(now) * 1000n + 1n;
    const single = order(ts, 339_000, '3390.00');
    const post = (id: number, signature: string): void =>
      c.send({ type: 'post', id, request: { type: 'placeOrder', apiKey: bob.apiKey, timestamp: ts.toString(), signature, payload: single.payload } });
    post(1, single.signature);
    expect(await c.next((f: Frame) => f.id === 1)).toMatchObject({ status: 202 });
    post(2, single.signature.toUpperCase());
    expect(await c.next((f: Frame) => f.id === 2)).toMatchObject({ id: 2, method: 'placeOrder', status: 409 });

    const bts = ts + 1n;
    const elements = [order(bts, 338_000, '3380.00'), order(bts, 337_000, '3370.00')].map((o) => ({ ...o.payload, signature: o.signature }));
    const batch = (id: number, orders: unknown[]): void => c.send({ type: 'post', id, request: { type: 'batchPlaceOrders', apiKey: bob.apiKey, timestamp: bts.toString(), payload: { orders } } });
    batch(3, elements);
    expect(await c.next((f: Frame) => f.id === 3)).toMatchObject({ status: 202 });
    batch(4, [elements[1], elements[0]]);
    expect(await c.next((f: Frame) => f.id === 4)).toMatchObject({ id: 4, method: 'batchPlaceOrders', status: 409 });
    expect(server.exchange.orders.size).toBe(3);
  });
});

describe('replay slots are dropped once the timestamp window alone refuses their requests', () => {
  const place = (h: GatewayHarness, price: string) => h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price }) });

  it('a slot is kept while the clocks are within 60 s of its taking, then dropped; its request is then refused by its timestamp, never placed again', async () => {
    const h = await ready();
    const first = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    expect((await h.app.inject({ method: 'POST', ...first })).statusCode).toBe(202);
    const firstSlot = first.headers['x-signature']!.toLowerCase();
    h.now.us += 59_000_000;
    expect((await place(h, '96001.0')).statusCode).toBe(202);
    expect(h.state.replay.has(firstSlot)).toBe(true);
    h.now.us += 2_000_000;
    expect((await place(h, '96002.0')).statusCode).toBe(202);
    expect(h.state.replay.has(firstSlot)).toBe(false);
    expect(h.state.replay.size).toBe(2);
    const again = await h.app.inject({ method: 'POST', ...first });
    expect(again.statusCode).toBe(401);
    expect(orderCount(h)).toBe(3);
  });

  it('slots stay while either clock is still within the window (a wall clock that has not moved keeps them)', async () => {
    const h = await ready();
    const wallNs = BigInt(h.now.us) * 1000n;
    h.state.clocks = () => ({ wallNs, simNs: BigInt(h.now.us) * 1000n });
    expect((await place(h, '96000.0')).statusCode).toBe(202);
    h.now.us += 3_600_000_000;
    h.state.clocks = () => ({ wallNs: wallNs + 1_000_000n, simNs: BigInt(h.now.us) * 1000n });
    expect((await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '96001.0' }) })).statusCode).toBe(202);
    expect(h.state.replay.size).toBe(2);
  });

  it('slots found without an age (restored from a file or an image) are aged from the next write', async () => {
    const h = await ready();
    const restored = 'ab'.repeat(64);
    h.state.replay.adopt(restored);
    expect((await place(h, '96000.0')).statusCode).toBe(202);
    expect(h.state.replay.has(restored)).toBe(true);
    h.now.us += 61_000_000;
    expect((await place(h, '96001.0')).statusCode).toBe(202);
    expect(h.state.replay.has(restored)).toBe(false);
    expect(h.state.replay.size).toBe(1);
  });
});
