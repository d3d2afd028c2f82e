import { describe, expect, it } from 'vitest';
import { account } from '../gateway/operations/account-reads/account.ts';
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
    const sources = Object.fromEntries(OPERATIONS.filter((op) => op.errorSource !== null).map((op) => [op.name, op.errorSource]));
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

  it('the OpenAPI document shows every operation\'s replies, by status code', async () => {
    const h = await gateway();
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>>;
    };
    for (const op of OPERATIONS) {
      const responses = doc.paths[op.path.replace(/(?<=\/):([A-Za-z]+)/g, '{$1}')]![op.method.toLowerCase()]!.responses;
      expect(Object.keys(responses).sort(), op.name).toEqual(Object.keys(op.response).map((status) => status.toUpperCase()).sort());
      for (const [status, schema] of Object.entries(op.response)) {
        const declared = (schema as { properties?: object }).properties;
        // Open maps and free-form documents have no named properties to show.
        if (declared === undefined) continue;
        const shown = responses[status.toUpperCase()]?.content?.['application/json']?.schema.properties;
        expect(Object.keys(shown ?? {}), `${op.name} ${status}`).toEqual(Object.keys(declared));
      }
    }
  });
});
