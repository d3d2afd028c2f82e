import { describe, expect, it } from 'vitest';
import type { EngineEvent, OrderEvent } from '../engine/index.ts';
import { orderOf } from '../gateway/read-models/history-store.ts';
import type { RateLimitOptions } from '../gateway/rate-limit/index.ts';
import { DAY_US, gateway, placeOrderRequest, wallet, type GatewayHarness, type OrderInput } from './support/gateway-fixture.ts';
import {
  batchRequest,
  cancelElement,
  cancelOrderRequest,
  modifyElement,
  modifyOrderRequest,
  placeElement,
  scheme2Request,
  timestampNs,
  type RestingOrder,
  type SignedRequest,
} from './support/order-write-signing.ts';

const alice = wallet(0xa1);

async function ready(rateLimit?: RateLimitOptions): Promise<GatewayHarness> {
  const h = await gateway(rateLimit === undefined ? {} : { rateLimit });
  h.fund(alice, 100_000n);
  h.key(alice);
  return h;
}

async function send(h: GatewayHarness, req: SignedRequest) {
  return h.app.inject({ method: 'POST', url: req.url, payload: req.payload, headers: req.headers });
}

/** Places a resting order through the REST API and returns what the client knows of it. */
async function rest(h: GatewayHarness, input: Partial<OrderInput> = {}): Promise<RestingOrder> {
  const order: OrderInput = { quantity: '0.01', price: '96000.0', ...input };
  const res = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, order) });
  expect(res.statusCode).toBe(202);
  const body = res.json();
  const resting: RestingOrder = { orderId: body.orderId, side: order.side ?? 'BUY', timeInForce: order.timeInForce ?? 'GTT', reduceOnly: order.reduceOnly === true, goodTilTime: body.goodTilTime };
  if (order.clientId !== undefined) resting.clientId = order.clientId;
  return resting;
}

function orderEvent(h: GatewayHarness, orderId: string): OrderEvent {
  return orderOf(h.exchange, Number.parseInt(orderId, 16))!;
}

function recordEvents(h: GatewayHarness): EngineEvent[] {
  const events: EngineEvent[] = [];
  h.exchange.listeners.add((batch) => events.push(...batch));
  return events;
}

describe('cancelOrder: "Target by exactly one of orderId or clientId"; both or neither gives 400', () => {
  it('answers 400 errorSource Cancel / InvalidRequest for both and for neither, and charges nothing', async () => {
    const h = await ready();
    const order = await rest(h, { clientId: 'c-1' });
    for (const input of [{ orderId: order.orderId, clientId: 'c-1' }, {}]) {
      const res = await send(h, cancelOrderRequest(h, alice, input));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ errorSource: 'Cancel', errorType: 'InvalidRequest' });
      expect(res.json().error).toMatch(/exactly one of orderId or clientId/);
    }
    expect(orderEvent(h, order.orderId).status).toBe('OPEN');
    expect(h.state.pools.get(alice.address.slice(2) + '/0')?.cancel.used ?? 0).toBe(0);
  });

  it('answers 400 when `kind` names the identifier the body does not carry', async () => {
    const h = await ready();
    const order = await rest(h);
    const res = await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId, kind: 'clientId' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorSource: 'Cancel', errorType: 'InvalidRequest' });
  });
});

describe('cancelOrder replies 202 CANCEL_ACKNOWLEDGED with orderId "also when targeted by clientId"; definitive refusals on the 200 path', () => {
  it('acknowledges a cancel by orderId with the required fields and the cancel pool snapshot', async () => {
    const h = await ready();
    const order = await rest(h, { clientId: 'c-1' });
    const res = await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId, kind: 'orderId' }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      address: alice.address,
      accountIndex: 0,
      orderId: order.orderId,
      clientId: 'c-1',
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      status: 'CANCEL_ACKNOWLEDGED',
      updateTime: h.now.us,
      rateLimit: { pool: 'cancel', remaining: 39_999 },
    });
    expect(orderEvent(h, order.orderId).status).toBe('CANCELED');
  });

  it('echoes the orderId when the cancel named a clientId', async () => {
    const h = await ready();
    const order = await rest(h, { clientId: 'Mixed-Case_1' });
    const res = await send(h, cancelOrderRequest(h, alice, { clientId: 'Mixed-Case_1' }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ orderId: order.orderId, clientId: 'Mixed-Case_1', status: 'CANCEL_ACKNOWLEDGED' });
  });

  it('answers 200 REJECTED ORDER_NOT_FOUND for an unknown or already canceled order', async () => {
    const h = await ready();
    const unknown = await send(h, cancelOrderRequest(h, alice, { clientId: 'nope' }));
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toMatchObject({ orderId: '', clientId: 'nope', status: 'REJECTED', rejectionReason: 'ORDER_NOT_FOUND', rateLimit: { pool: 'cancel', remaining: 39_999 } });
    const order = await rest(h);
    expect((await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId }))).statusCode).toBe(202);
    const again = await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId }));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ orderId: order.orderId, status: 'REJECTED', rejectionReason: 'ORDER_NOT_FOUND', remainingSize: '0.01', filledSize: '0.0' });
  });

  it('answers 401 {"error":"invalid signature"} for a tampered body and 409 for a replay', async () => {
    const h = await ready();
    const order = await rest(h);
    const other = await rest(h);
    const tampered = cancelOrderRequest(h, alice, { orderId: order.orderId });
    tampered.payload.orderId = other.orderId;
    const bad = await send(h, tampered);
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: 'invalid signature' });
    const req = cancelOrderRequest(h, alice, { orderId: order.orderId });
    expect((await send(h, req)).statusCode).toBe(202);
    expect((await send(h, req)).statusCode).toBe(409);
  });

  it('refuses a request whose validUntil (epoch ms) has passed with 400, and processes one still valid', async () => {
    const h = await ready();
    const order = await rest(h);
    const nowMs = Math.floor(h.now.us / 1000);
    const expired = await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId, validUntil: nowMs - 1 }));
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual({ error: 'request expired: validUntil has passed', errorSource: 'Cancel', errorType: 'InvalidRequest' });
    expect(orderEvent(h, order.orderId).status).toBe('OPEN');
    expect((await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId, validUntil: nowMs + 5000 }))).statusCode).toBe(202);
  });
});

describe('modifyOrder: "exactly one of orderId or clientId identifies the target; both or neither gives a validation error"', () => {
  it('answers 400 errorSource Order / InvalidRequest for both and for neither', async () => {
    const h = await ready();
    const order = await rest(h, { clientId: 'm-1' });
    const both = modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' });
    both.payload.clientId = 'm-1';
    const neither = modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' });
    delete neither.payload.orderId;
    for (const req of [both, neither]) {
      const res = await send(h, req);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ errorSource: 'Order', errorType: 'InvalidRequest' });
    }
  });
});

describe('modifyOrder: "A new [goodTilTime] value performs a cancel-replace"; otherwise the same order is updated in place', () => {
  it('modifies in place: one orders update, 202 ACK with originalSize, remainingSize and filledSize', async () => {
    const h = await ready();
    const order = await rest(h, { clientId: 'm-1' });
    const events = recordEvents(h);
    const res = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95500.0', quantity: '0.02', clientTime: '1700000000000000000' }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      address: alice.address,
      accountIndex: 0,
      clientTime: 1700000000000000000,
      orderId: order.orderId,
      clientId: 'm-1',
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      status: 'ACK',
      updateTime: h.now.us,
      goodTilTime: order.goodTilTime,
      originalSize: '0.01',
      remainingSize: '0.02',
      filledSize: '0.0',
      rateLimit: { pool: 'order', remaining: 19_998 },
    });
    const updates = events.filter((e): e is OrderEvent => e.type === 'order');
    expect(updates.map((e) => [e.status, e.cancelReason])).toEqual([['OPEN', undefined]]);
    expect(orderEvent(h, order.orderId)).toMatchObject({ price: 955_000, size: 2_000_000 });
  });

  it('cancel-replaces on a new goodTilTime: CANCELED (MODIFY_CANCELED) first, then the replacement under the same orderId', async () => {
    const h = await ready();
    const order = await rest(h);
    const events = recordEvents(h);
    const newGtt = String(h.now.us + 50 * DAY_US);
    const res = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95500.0', quantity: '0.01', goodTilTime: newGtt }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'ACK', orderId: order.orderId, goodTilTime: newGtt });
    const updates = events.filter((e): e is OrderEvent => e.type === 'order');
    expect(updates.map((e) => [e.orderId, e.status, e.cancelReason])).toEqual([
      [Number.parseInt(order.orderId, 16), 'CANCELED', 'MODIFY_CANCELED'],
      [Number.parseInt(order.orderId, 16), 'OPEN', undefined],
    ]);
    expect(updates[1]!.accountSeq).toBeGreaterThan(updates[0]!.accountSeq);
    expect(orderEvent(h, order.orderId).goodTilTime).toBe(Number(newGtt));
  });

  it('echoing the resting goodTilTime and immutable fields is no change: modified in place', async () => {
    const h = await ready();
    const order = await rest(h);
    const events = recordEvents(h);
    const res = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95500.0', quantity: '0.01', echoImmutables: true }));
    expect(res.statusCode).toBe(202);
    expect(events.filter((e): e is OrderEvent => e.type === 'order').map((e) => e.status)).toEqual(['OPEN']);
  });
});

describe('modifyOrder signatures: "Accept each form; fill missing fields from the resting order" (supplement §12)', () => {
  const forms = [
    ['interface', 'orderId'],
    ['interface', 'clientId'],
    ['newer', 'orderId'],
    ['newer', 'clientId'],
    ['older', 'orderId'],
    ['older', 'clientId'],
  ] as const;
  for (const [form, by] of forms) {
    it(`verifies the ${form} form targeted by ${by} (body without side / timeInForce / goodTilTime)`, async () => {
      const h = await ready();
      const order = await rest(h, { clientId: 'form-1' });
      const res = await send(h, modifyOrderRequest(h, alice, order, { by, form, price: '95000.0', quantity: '0.01' }));
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ orderId: order.orderId, clientId: 'form-1', status: 'ACK' });
    });
  }

  it('answers 401 invalid signature when the signed price differs from the body', async () => {
    const h = await ready();
    const order = await rest(h);
    const req = modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' });
    req.payload.price = '94000.0';
    const res = await send(h, req);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid signature' });
  });
});

describe('modifyOrder: engine refusals are definitive, answered 200 REJECTED with rejectionReason', () => {
  it('MODIFY_CHANGED_IMMUTABLE_FIELD leaves the order unchanged', async () => {
    const h = await ready();
    const order = await rest(h);
    const res = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01', side: 'SELL' }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'REJECTED', rejectionReason: 'MODIFY_CHANGED_IMMUTABLE_FIELD', orderId: order.orderId, originalSize: '0.01', remainingSize: '0.01' });
    expect(orderEvent(h, order.orderId)).toMatchObject({ status: 'OPEN', price: 960_000 });
  });

  it('MODIFY_SUPERSEDED_BY_CANCEL right after a cancel, ORDER_NOT_FOUND_FOR_MODIFY once the order has ended', async () => {
    const h = await ready();
    const order = await rest(h);
    expect((await send(h, cancelOrderRequest(h, alice, { orderId: order.orderId }))).statusCode).toBe(202);
    const superseded = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' }));
    expect(superseded.statusCode).toBe(200);
    expect(superseded.json()).toMatchObject({ status: 'REJECTED', rejectionReason: 'MODIFY_SUPERSEDED_BY_CANCEL', orderId: order.orderId });
    h.now.us += 2_000_000;
    const ended = await send(h, modifyOrderRequest(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' }));
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toMatchObject({ status: 'REJECTED', rejectionReason: 'ORDER_NOT_FOUND_FOR_MODIFY', orderId: order.orderId });
  });
});

describe('batchPlaceOrders: "failed row status ERROR + error"; the rest proceed; one rateLimit for the batch', () => {
  it('places the good elements and answers a row per element, in order', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const elements = [
      placeElement(h, alice, { quantity: '0.01', price: '95000.0', clientId: 'a' }, ts),
      placeElement(h, alice, { quantity: '0.01', price: '95000.05', clientId: 'b' }, ts),
      placeElement(h, alice, { quantity: '0.01', price: '94000.0', clientId: 'c' }, ts),
    ];
    elements[2]!.signature = elements[0]!.signature;
    elements.push(placeElement(h, alice, { quantity: '0.01', price: '93000.0', clientId: 'd' }, ts));
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts));
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body.rateLimit).toEqual({ pool: 'order', remaining: 19_996 });
    expect(body.responses.map((r: { status: string; clientId: string }) => [r.clientId, r.status])).toEqual([
      ['a', 'ACK'],
      ['b', 'ERROR'],
      ['c', 'ERROR'],
      ['d', 'ACK'],
    ]);
    expect(body.responses[1]).toEqual({ orderId: '', clientId: 'b', status: 'ERROR', error: 'price is not a multiple of tick size' });
    expect(body.responses[2]).toEqual({ orderId: '', clientId: 'c', status: 'ERROR', error: 'invalid order signature' });
    expect(body.responses[0]).toMatchObject({ marketId: 1, marketDisplayName: 'BTC-USD', price: '95000.0', quantity: '0.01' });
    expect(orderEvent(h, body.responses[3].orderId).status).toBe('OPEN');
  });

  it('does not verify the X-Signature value (any non-empty value is accepted)', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', [placeElement(h, alice, { quantity: '0.01', price: '95000.0' }, ts)], ts, { xSignature: 'anything' }));
    expect(res.statusCode).toBe(202);
  });
});

describe('batch X-Signature: "omitting it or sending it empty rejects every element with `invalid order signature`"', () => {
  for (const xSignature of [null, '']) {
    it(`rejects every element when X-Signature is ${xSignature === null ? 'missing' : 'empty'}, placing and charging nothing`, async () => {
      const h = await ready();
      const ts = timestampNs(h);
      const elements = [placeElement(h, alice, { quantity: '0.01', price: '95000.0', clientId: 'a' }, ts), placeElement(h, alice, { quantity: '0.01', price: '94000.0' }, ts)];
      const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts, { xSignature }));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'invalid order signature',
        responses: [
          { orderId: '', clientId: 'a', status: 'ERROR', error: 'invalid order signature' },
          { orderId: '', clientId: '', status: 'ERROR', error: 'invalid order signature' },
        ],
      });
      expect([...h.exchange.orders.values()]).toHaveLength(0);
      expect(h.state.pools.size).toBe(0);
    });
  }

  it('applies to batchCancelOrders and batchModifyOrders too', async () => {
    const h = await ready();
    const order = await rest(h);
    const ts = timestampNs(h);
    const cancels = await send(h, batchRequest(alice, 'batchCancelOrders', [cancelElement(h, alice, { orderId: order.orderId }, ts)], ts, { xSignature: null }));
    expect(cancels.statusCode).toBe(401);
    expect(cancels.json().responses).toEqual([{ orderId: order.orderId, clientId: '', status: 'ERROR', error: 'invalid order signature' }]);
    const modifies = await send(h, batchRequest(alice, 'batchModifyOrders', [modifyElement(h, alice, order, { by: 'orderId', price: '95000.0', quantity: '0.01' }, ts)], ts, { xSignature: '' }));
    expect(modifies.statusCode).toBe(401);
    expect(orderEvent(h, order.orderId)).toMatchObject({ status: 'OPEN', price: 960_000 });
  });
});

describe('batches: "The whole batch consumes one replay slot" (made of its elements\' slots, one per signature)', () => {
  it('takes a slot per element and answers 409 to the same batch sent again', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const elements = [1, 2, 3].map((i) => placeElement(h, alice, { quantity: '0.01', price: `9${i}000.0` }, ts));
    const req = batchRequest(alice, 'batchPlaceOrders', elements, ts);
    const before = h.state.replay.size;
    expect((await send(h, req)).statusCode).toBe(202);
    expect(h.state.replay.size).toBe(before + 3);
    const again = await send(h, req);
    expect(again.statusCode).toBe(409);
    expect([...h.exchange.orders.values()]).toHaveLength(3);
  });
});

describe('batches: "A batch 429 rejects all elements" with clientIds aligned by position', () => {
  it('refuses the whole batch when the order pool cannot cover N', async () => {
    const h = await ready({ pools: { startingCap: { order: 2, cancel: 40_000 } } });
    const ts = timestampNs(h);
    const ids = ['a', undefined, 'c', 'd'];
    const elements = ids.map((clientId, i) => placeElement(h, alice, { quantity: '0.01', price: `9${i}000.0`, ...(clientId === undefined ? {} : { clientId }) }, ts));
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts));
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ error: 'rate limited', reason: 'account_partial', clientIds: ['a', '', 'c', 'd'] });
    expect([...h.exchange.orders.values()]).toHaveLength(0);
  });
});

describe('batchPlaceOrders TPSL grouping: "entryTpsl: element 0 = entry order, then 1-2 TPSL legs" (op 4, tpsl_type or tpslType)', () => {
  it('places the entry and its legs, the legs tied to the entry', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const elements = [
      placeElement(h, alice, { quantity: '0.01', price: '96000.0', clientId: 'entry' }, ts),
      placeElement(h, alice, { side: 'SELL', quantity: '0.01', price: '89900.0', reduceOnly: true, tpslType: 'STOP_LOSS', stopPrice: '90000.0', clientId: 'sl' }, ts),
      placeElement(h, alice, { side: 'SELL', quantity: '0.01', price: '105000.0', reduceOnly: true, tpslType: 'TAKE_PROFIT', tpslKey: 'tpslType', stopPrice: '104000.0', clientId: 'tp' }, ts),
    ];
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts, { extra: { grouping: 'entryTpsl' } }));
    expect(res.statusCode).toBe(202);
    const rows = res.json().responses;
    expect(rows.map((r: { status: string }) => r.status)).toEqual(['ACK', 'ACK', 'ACK']);
    const entry = Number.parseInt(rows[0].orderId, 16);
    expect(orderEvent(h, rows[1].orderId)).toMatchObject({ tpslType: 'STOP_LOSS', parentOrderId: entry });
    expect(orderEvent(h, rows[2].orderId)).toMatchObject({ tpslType: 'TAKE_PROFIT', parentOrderId: entry });
  });

  it('answers 400 InvalidRequest for a shape violation (duplicate legs) and places nothing', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const leg = (price: string, stop: string) => placeElement(h, alice, { side: 'SELL', quantity: '0.01', price, reduceOnly: true, tpslType: 'STOP_LOSS', stopPrice: stop }, ts);
    const elements = [placeElement(h, alice, { quantity: '0.01', price: '96000.0' }, ts), leg('89900.0', '90000.0'), leg('88900.0', '89000.0')];
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts, { extra: { grouping: 'entryTpsl' } }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorSource: 'Order', errorType: 'InvalidRequest' });
    expect([...h.exchange.orders.values()]).toHaveLength(0);
  });

  it('places nothing of a group whose element failed, and says so on every row', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const elements = [
      placeElement(h, alice, { quantity: '0.01', price: '96000.0' }, ts),
      placeElement(h, alice, { side: 'SELL', quantity: '0.01', price: '89900.05', reduceOnly: true, tpslType: 'STOP_LOSS', stopPrice: '90000.0' }, ts),
    ];
    const res = await send(h, batchRequest(alice, 'batchPlaceOrders', elements, ts, { extra: { grouping: 'entryTpsl' } }));
    expect(res.statusCode).toBe(200);
    expect(res.json().responses.map((r: { status: string; error: string }) => [r.status, r.error])).toEqual([
      ['ERROR', 'entryTpsl group not placed: element 1 was rejected'],
      ['ERROR', 'price is not a multiple of tick size'],
    ]);
    expect([...h.exchange.orders.values()]).toHaveLength(0);
  });
});

describe('batchCancelOrders: "each targeting exactly one of orderId or clientId (both gives 400)"; rows echo orderId / clientId', () => {
  it('answers 400 for the whole request when one element names both, canceling nothing', async () => {
    const h = await ready();
    const a = await rest(h, { clientId: 'a' });
    const b = await rest(h, { clientId: 'b' });
    const ts = timestampNs(h);
    const elements = [cancelElement(h, alice, { orderId: a.orderId }, ts), cancelElement(h, alice, { orderId: b.orderId, clientId: 'b' }, ts)];
    const res = await send(h, batchRequest(alice, 'batchCancelOrders', elements, ts));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorSource: 'Cancel', errorType: 'InvalidRequest' });
    expect(orderEvent(h, a.orderId).status).toBe('OPEN');
  });

  it('answers one row per element and one rateLimit snapshot for the batch', async () => {
    const h = await ready();
    const a = await rest(h, { clientId: 'a' });
    const b = await rest(h, { clientId: 'b' });
    const ts = timestampNs(h);
    const elements = [cancelElement(h, alice, { orderId: a.orderId }, ts), cancelElement(h, alice, { clientId: 'b', kind: 'clientId' }, ts), cancelElement(h, alice, { clientId: 'gone' }, ts)];
    const res = await send(h, batchRequest(alice, 'batchCancelOrders', elements, ts));
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body.rateLimit).toEqual({ pool: 'cancel', remaining: 39_997 });
    expect(body.responses.map((r: Record<string, string>) => [r.orderId, r.clientId, r.status, r.rejectionReason])).toEqual([
      [a.orderId, 'a', 'CANCEL_ACKNOWLEDGED', undefined],
      [b.orderId, 'b', 'CANCEL_ACKNOWLEDGED', undefined],
      ['', 'gone', 'REJECTED', 'ORDER_NOT_FOUND'],
    ]);
    expect(orderEvent(h, b.orderId).status).toBe('CANCELED');
  });

  it('answers 200 when every row is already definitive', async () => {
    const h = await ready();
    const ts = timestampNs(h);
    const res = await send(h, batchRequest(alice, 'batchCancelOrders', [cancelElement(h, alice, { clientId: 'x' }, ts)], ts));
    expect(res.statusCode).toBe(200);
    expect(res.json().responses[0]).toMatchObject({ status: 'REJECTED', rejectionReason: 'ORDER_NOT_FOUND' });
  });
});

describe('batchModifyOrders: "A failing element shows up as a row with status ERROR while the rest proceed"', () => {
  it('modifies the good elements and answers ERROR rows for the others', async () => {
    const h = await ready();
    const a = await rest(h, { clientId: 'a' });
    const b = await rest(h, { clientId: 'b', price: '95000.0' });
    const c = await rest(h, { clientId: 'c', price: '94000.0' });
    const ts = timestampNs(h);
    const both = modifyElement(h, alice, b, { by: 'orderId', price: '95100.0', quantity: '0.01' }, ts);
    both.clientId = 'b';
    const forged = modifyElement(h, alice, c, { by: 'clientId', price: '94100.0', quantity: '0.01' }, ts);
    forged.quantity = '0.02';
    const elements = [modifyElement(h, alice, a, { by: 'clientId', price: '96100.0', quantity: '0.02' }, ts), both, forged];
    const res = await send(h, batchRequest(alice, 'batchModifyOrders', elements, ts));
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body.rateLimit).toEqual({ pool: 'order', remaining: 20_000 - 3 - 3 });
    expect(body.responses[0]).toMatchObject({ orderId: a.orderId, clientId: 'a', status: 'ACK', originalSize: '0.01', remainingSize: '0.02' });
    expect(body.responses[1]).toMatchObject({ orderId: b.orderId, clientId: 'b', status: 'ERROR' });
    expect(body.responses[1].error).toMatch(/exactly one of orderId or clientId/);
    expect(body.responses[2]).toEqual({ orderId: '', clientId: 'c', status: 'ERROR', error: 'invalid order signature' });
    expect(orderEvent(h, a.orderId)).toMatchObject({ price: 961_000, size: 2_000_000 });
    expect(orderEvent(h, b.orderId).price).toBe(950_000);
    expect(orderEvent(h, c.orderId).size).toBe(1_000_000);
  });
});

describe('cancelAllOrders (Scheme 2): marketId and marketDisplayName "echoed only when the request was scoped to one market"', () => {
  async function withOrders() {
    const h = await ready();
    const btc = await rest(h);
    const eth = await rest(h, { marketId: 2, price: '3000.00', quantity: '0.1' });
    return { h, btc, eth };
  }

  it('cancels one market and echoes it; the cancel pool is charged 1,000', async () => {
    const { h, btc, eth } = await withOrders();
    // Keys out of order on the wire: the server signs the canonical JSON of what it received.
    const res = await send(h, scheme2Request(h, alice, 'cancelAllOrders', { marketId: 1, address: alice.address, accountIndex: 0 }));
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      address: alice.address,
      accountIndex: 0,
      status: 'CANCEL_ALL_ACKNOWLEDGED',
      updateTime: h.now.us,
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      rateLimit: { pool: 'cancel', remaining: 39_000 },
    });
    expect(orderEvent(h, btc.orderId).status).toBe('CANCELED');
    expect(orderEvent(h, eth.orderId).status).toBe('OPEN');
  });

  for (const body of [{}, { marketId: null }]) {
    it(`cancels every market ${'marketId' in body ? 'with marketId null' : 'without marketId'} and echoes no market`, async () => {
      const { h, btc, eth } = await withOrders();
      const res = await send(h, scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0, ...body }));
      expect(res.statusCode).toBe(202);
      expect(Object.keys(res.json()).sort()).toEqual(['accountIndex', 'address', 'rateLimit', 'status', 'updateTime']);
      expect(orderEvent(h, btc.orderId).status).toBe('CANCELED');
      expect(orderEvent(h, eth.orderId).status).toBe('CANCELED');
    });
  }

  it('refuses an expired validUntil with 400 and a bad signature with 401 {"error":"invalid signature"}', async () => {
    const { h, btc } = await withOrders();
    const nowMs = Math.floor(h.now.us / 1000);
    const expired = await send(h, scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0, validUntil: nowMs - 1 }));
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toMatchObject({ errorSource: 'Cancel', errorType: 'InvalidRequest' });
    const forged = scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0, marketId: 2 });
    forged.payload.marketId = 1;
    const bad = await send(h, forged);
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: 'invalid signature' });
    expect(orderEvent(h, btc.orderId).status).toBe('OPEN');
    expect((await send(h, scheme2Request(h, alice, 'cancelAllOrders', { address: alice.address, accountIndex: 0, validUntil: nowMs + 60_000 }))).statusCode).toBe(202);
  });
});

describe('scheduleCancel (Scheme 2): "time is 5 s to 5 min ahead" arms; "without time (or null)" disarms', () => {
  it('arms with 200 scheduled, echoing time and charging the cancel pool; disarms free', async () => {
    const h = await ready();
    const time = h.now.us + 60_000_000;
    const arm = await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, accountIndex: 0, marketId: 1, time }));
    expect(arm.statusCode).toBe(200);
    expect(arm.json()).toEqual({ address: alice.address, accountIndex: 0, status: 'scheduled', marketId: 1, marketDisplayName: 'BTC-USD', time, rateLimit: { pool: 'cancel', remaining: 39_999 } });
    const refresh = await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, accountIndex: 0, marketId: 1, time: time + 1_000_000 }));
    expect(refresh.json()).toMatchObject({ status: 'scheduled', rateLimit: { pool: 'cancel', remaining: 39_998 } });
    for (const body of [{ address: alice.address, accountIndex: 0, marketId: 1 }, { address: alice.address, accountIndex: 0, marketId: 1, time: null }]) {
      const disarm = await send(h, scheme2Request(h, alice, 'scheduleCancel', body));
      expect(disarm.statusCode).toBe(200);
      expect(disarm.json()).toEqual({ address: alice.address, accountIndex: 0, status: 'disarmed', marketId: 1, marketDisplayName: 'BTC-USD' });
    }
    expect(h.state.pools.get(alice.address.slice(2) + '/0')!.cancel.used).toBe(2);
  });

  it('fires cancel-all for its scope when the deadline passes', async () => {
    const h = await ready();
    const order = await rest(h);
    expect((await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, accountIndex: 0, time: h.now.us + 10_000_000 }))).statusCode).toBe(200);
    h.now.us += 11_000_000;
    h.exchange.submit({ type: 'advanceTime' });
    expect(orderEvent(h, order.orderId).status).toBe('CANCELED');
  });

  it('answers 400 errorSource Cancel / InvalidRequest for a bad time, charging nothing', async () => {
    const h = await ready();
    for (const time of ['soon', -1, h.now.us + 1_000_000, h.now.us + 600_000_000]) {
      const res = await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, accountIndex: 0, time }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ errorSource: 'Cancel', errorType: 'InvalidRequest' });
    }
    expect(h.state.pools.size).toBe(0);
  });

  it('answers 429 when arming beyond 50 armed switches per wallet; refreshing stays allowed', async () => {
    const h = await ready();
    const time = h.now.us + 60_000_000;
    const scopes: Record<string, unknown>[] = [];
    for (let accountIndex = 0; accountIndex <= 9; accountIndex++) for (const marketId of [undefined, 1, 2, 3, 4, 9]) scopes.push(marketId === undefined ? { accountIndex } : { accountIndex, marketId });
    for (const scope of scopes.slice(0, 50)) {
      expect((await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, ...scope, time }))).statusCode).toBe(200);
    }
    const over = await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, ...scopes[50], time }));
    expect(over.statusCode).toBe(429);
    expect(over.json().error).toMatch(/armed/);
    const refresh = await send(h, scheme2Request(h, alice, 'scheduleCancel', { address: alice.address, ...scopes[0], time: time + 1_000_000 }));
    expect(refresh.statusCode).toBe(200);
  });
});
