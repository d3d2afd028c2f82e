/**
 * Integer and number fields hold finite numbers only. Schema coercion turns a string into a
 * number for a numeric field; "Infinity", "-Infinity" and "1e400" must not become ±Infinity and
 * slip past the field's bounds (`accountIndex` above 9 is 400, interface.md Errors).
 */
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createSchemaValidator } from '../gateway/contract/validator.ts';
import { QUANTUMS } from '../gateway/operations/support/account-writes-common.ts';
import { gateway, placeOrderRequest, wallet } from './support/gateway-fixture.ts';
import { simHarness } from './support/sim-harness.ts';
import { connectClient } from './support/ws-client.ts';

const alice = wallet(0xf1);
const NON_FINITE = ['Infinity', '-Infinity', '+Infinity', '1e400', '-1e400'];

describe('a non-finite numeric string in an integer query field is 400 in the error shape', () => {
  it('openOrders accountIndex / limit / from / to, fills limit, trades limit, candles countback', async () => {
    const h = await gateway();
    const address = alice.address;
    const targets = (value: string): string[] => [
      `/v1/openOrders?address=${address}&accountIndex=${value}`,
      `/v1/openOrders?address=${address}&accountIndex=0&limit=${value}`,
      `/v1/openOrders?address=${address}&accountIndex=0&from=${value}`,
      `/v1/openOrders?address=${address}&accountIndex=0&to=${value}`,
      `/v1/fills?address=${address}&accountIndex=0&limit=${value}`,
      `/v1/trades?market=BTC-USD&limit=${value}`,
      `/v1/candles?market=BTC-USD&timeframe=1m&to=${Math.floor(h.now.us)}&countback=${value}`,
    ];
    for (const value of NON_FINITE) {
      for (const url of targets(encodeURIComponent(value))) {
        const res = await h.app.inject({ method: 'GET', url });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
        expect(typeof res.json().error).toBe('string');
      }
    }
    // Finite values still coerce from their text.
    expect((await h.app.inject({ method: 'GET', url: `/v1/openOrders?address=${address}&accountIndex=3&limit=5` })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: `/v1/openOrders?address=${address}&accountIndex=10` })).statusCode).toBe(400);
  });

  it('a body\'s integer field sent as the string "Infinity" is 400, not a coerced infinity', async () => {
    const h = await gateway();
    h.fund(alice, 1000n);
    h.key(alice);
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    for (const value of NON_FINITE) {
      const res = await h.app.inject({ method: 'POST', ...req, payload: { ...req.payload, accountIndex: value } });
      expect(res.statusCode).toBe(400);
    }
    expect(h.exchange.orders.size).toBe(0);
  });
});

describe('the WebSocket validates with the same rule', () => {
  const sim = simHarness();
  it('get openOrders with accountIndex "Infinity" answers 400 with the call\'s id', async () => {
    const server = await sim.start();
    const c = await connectClient(server.url, sim.sockets);
    c.send({ type: 'get', id: 5, request: { type: 'openOrders', payload: { address: alice.address, accountIndex: 'Infinity' } } });
    expect(await c.next((f) => f.id === 5)).toMatchObject({ id: 5, method: 'openOrders', status: 400 });
  });
});

describe('a field that is a string or a number: a string is read only as a string', () => {
  it('"0x10", " 12", "1e3" are refused where the string form has a pattern, not coerced by the number form; a JSON number stays a number', () => {
    const validate = createSchemaValidator().compile(Type.Object({ amount: QUANTUMS, validUntil: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,16}$' })])) }));
    for (const amount of ['0x10', ' 12', '1e3', '0b11', '']) expect({ amount, valid: validate({ amount }) }).toEqual({ amount, valid: false });
    for (const validUntil of ['0x10', ' 12', '1e3']) expect({ validUntil, valid: validate({ amount: '1', validUntil }) }).toEqual({ validUntil, valid: false });
    for (const [amount, read] of [['16', '16'], [16, 16]] as const) {
      const body = { amount };
      expect(validate(body)).toBe(true);
      expect(body.amount).toBe(read);
    }
    const body = { amount: '1', validUntil: '1700000000000' };
    expect(validate(body)).toBe(true);
    expect(body.validUntil).toBe('1700000000000');
  });
});

describe('a numeric field given as text takes decimal digits only', () => {
  it('"0x10", " 12", "1e3", "12.0" are 400 for an integer query field, as a strict venue parser refuses them; "16" and "+16" are 16', async () => {
    const h = await gateway();
    const url = (limit: string) => `/v1/openOrders?address=${alice.address}&accountIndex=0&limit=${encodeURIComponent(limit)}`;
    for (const limit of ['0x10', ' 12', '12 ', '1e3', '12.0', '0b11', '0o17', '']) {
      const res = await h.app.inject({ method: 'GET', url: url(limit) });
      expect({ limit, status: res.statusCode }).toEqual({ limit, status: 400 });
      if (limit !== '') expect(res.json().error).toMatch(/limit must be integer/);
    }
    for (const limit of ['16', '+16', '016']) expect({ limit, status: (await h.app.inject({ method: 'GET', url: url(limit) })).statusCode }).toEqual({ limit, status: 200 });
  });

  it('a number field takes decimal text with an exponent, an integer field does not; JSON numbers and defaults are as before', () => {
    const validate = createSchemaValidator().compile(
      Type.Object({ n: Type.Optional(Type.Number()), i: Type.Optional(Type.Integer({ default: 7 })) }),
    );
    for (const n of ['1.5', '-.5', '2e3', '+1']) expect({ n, valid: validate({ n }) }).toEqual({ n, valid: true });
    for (const n of ['0x10', ' 1', '1.5.1', 'e3', '.']) expect({ n, valid: validate({ n }) }).toEqual({ n, valid: false });
    for (const i of ['2e3', '1.0', '0x1']) expect({ i, valid: validate({ i }) }).toEqual({ i, valid: false });
    const coerced: Record<string, unknown> = { n: '2.5', i: '3' };
    expect(validate(coerced)).toBe(true);
    expect(coerced).toEqual({ n: 2.5, i: 3 });
    const defaulted: Record<string, unknown> = { n: 1.25 };
    expect(validate(defaulted)).toBe(true);
    expect(defaulted).toEqual({ n: 1.25, i: 7 });
  });
});
