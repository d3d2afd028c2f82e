import { describe, expect, it } from 'vitest';
import { account } from '../gateway/operations/account.ts';
import { OPERATIONS } from '../gateway/operations/index.ts';
import { gateway, placeOrderRequest, wallet } from './support/gateway-fixture.ts';

describe('operations that declare their reply schemas', () => {
  it('GET /v1/account leaves the compiled serializer exactly as the handler wrote it, positions map included', async () => {
    const h = await gateway();
    const alice = wallet(1);
    const bob = wallet(2);
    for (const w of [alice, bob]) {
      h.key(w);
      h.fund(w, 100_000n);
    }
    for (const [w, side] of [[alice, 'BUY'], [bob, 'SELL']] as const) {
      const req = placeOrderRequest(h, w, { side, quantity: '0.01', price: '97000.0' });
      expect((await h.app.inject({ method: 'POST', url: req.url, headers: req.headers, payload: req.payload })).statusCode).toBe(202);
    }
    const res = await h.app.inject({ method: 'GET', url: `/v1/account?address=${alice.address}` });
    const direct = await account.handle(h.state, { body: undefined, query: { address: alice.address, accountIndex: 0 }, params: {}, headers: {}, ip: '127.0.0.1', path: '/v1/account', rawBody: undefined });
    expect(Object.keys((res.json() as { positions: object }).positions)).toEqual(['1']);
    expect(res.body).toBe(JSON.stringify(direct.body));
  });

  it('the order and cancel writes, and only they, declare the errorSource their structured errors carry', () => {
    const sources = Object.fromEntries(OPERATIONS.filter((op) => op.errorSource !== undefined).map((op) => [op.name, op.errorSource]));
    expect(sources).toEqual({
      placeOrder: 'Order',
      modifyOrder: 'Order',
      batchPlaceOrders: 'Order',
      batchModifyOrders: 'Order',
      cancelOrder: 'Cancel',
      batchCancelOrders: 'Cancel',
      cancelAllOrders: 'Cancel',
      scheduleCancel: 'Cancel',
    });
  });

  it('the OpenAPI document shows each declared reply, by status code', async () => {
    const h = await gateway();
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>>;
    };
    const declared = OPERATIONS.filter((op) => op.response !== undefined);
    expect(declared.map((op) => op.name)).toEqual(expect.arrayContaining(['account', 'cancelAllOrders', 'cancelOrder', 'modifyOrder', 'placeOrder', 'scheduleCancel']));
    for (const op of declared) {
      const responses = doc.paths[op.path]![op.method.toLowerCase()]!.responses;
      for (const status of Object.keys(op.response!)) {
        const shown = responses[status.toUpperCase()]?.content?.['application/json']?.schema.properties;
        expect(Object.keys(shown ?? {}), `${op.name} ${status}`).toEqual(Object.keys((op.response![status] as { properties: object }).properties));
      }
    }
  });
});
