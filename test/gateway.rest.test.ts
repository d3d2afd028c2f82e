import { describe, expect, it } from 'vitest';
import { gateway, placeOrderRequest, wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);

describe('GET / returns service info: service, version, status, endpoints[] of {path, method, description}', () => {
  it('lists every served endpoint', async () => {
    const h = await gateway();
    const res = await h.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ service: 'api-gateway', status: 'running', version: 'perpsim-test' });
    expect(body.endpoints).toContainEqual({ path: '/v1/placeOrder', method: 'POST', description: 'place an order' });
  });
});

describe('GET /health and GET /v1/time', () => {
  it('answers liveness and the simulated clock in nanoseconds', async () => {
    const h = await gateway();
    expect((await h.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/v1/time' })).json()).toEqual({ timeNs: h.now.us * 1000 });
  });
});

describe('GET /v1/markets is sorted by ascending marketId; a market filter takes a name (case-insensitive) or an id', () => {
  it('returns the default universe in id order with the record fields', async () => {
    const h = await gateway();
    const body = (await h.app.inject({ method: 'GET', url: '/v1/markets' })).json();
    const ids = body.markets.map((m: { marketId: number }) => m.marketId);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const btc = body.markets[0];
    expect(btc).toMatchObject({ marketDisplayName: 'BTC-USD', marketId: 1, status: 'ONLINE', quoteAsset: 'USD', tickSize: '0.1', stepSize: '0.00000001', type: 'PERPETUAL', category: 'CRYPTO', minOrderNotional: '5', minOrderSize: '0.0001', maxOrderSize: '10000', oraclePrice: '97000.0', isOutsideRth: false });
    expect(btc.tickTiers[0]).toEqual({ upToPrice: '500000', tick: '0.1' });
    expect(btc.tickTiers.at(-1)).toEqual({ tick: '5' });
    const offline = body.markets.find((m: { marketDisplayName: string }) => m.marketDisplayName === 'F-USD');
    expect(offline).toMatchObject({ status: 'OFFLINE', markPrice: '0', isOutsideRth: null });
  });

  it('filters by name or id, and answers 400 for an unresolvable market', async () => {
    const h = await gateway();
    expect((await h.app.inject({ method: 'GET', url: '/v1/markets?market=eth-usd' })).json().markets[0].marketId).toBe(2);
    expect((await h.app.inject({ method: 'GET', url: '/v1/markets?market=3' })).json().markets[0].marketDisplayName).toBe('SOL-USD');
    const bad = await h.app.inject({ method: 'GET', url: '/v1/markets?market=NOPE' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'unknown market: NOPE' });
  });
});

describe('GET /v1/account answers 404 until the account has its first activity (a deposit)', () => {
  it('404 then the account record', async () => {
    const h = await gateway();
    const before = await h.app.inject({ method: 'GET', url: `/v1/account?address=${alice.address}` });
    expect(before.statusCode).toBe(404);
    expect(before.json()).toEqual({ error: 'this account has no activity yet' });
    h.fund(alice, 1000n);
    const after = (await h.app.inject({ method: 'GET', url: `/v1/account?address=${alice.address.toUpperCase().replace('0X', '0x')}` })).json();
    expect(after).toMatchObject({ accountIndex: 0, address: alice.address, netQuoteBalance: '1000.0', equity: '1000.0', freeCollateral: '1000.0', netDeposits: '1000.0', positions: {} });
  });

  it('rejects an invalid address or accountIndex above 9 with 400', async () => {
    const h = await gateway();
    expect((await h.app.inject({ method: 'GET', url: '/v1/account?address=0x123' })).statusCode).toBe(400);
    expect((await h.app.inject({ method: 'GET', url: `/v1/account?address=${alice.address}&accountIndex=10` })).statusCode).toBe(400);
  });
});

describe('POST /v1/placeOrder: signed, 202 ACK with orderId, definitive rejections on the 200 path', () => {
  async function ready() {
    const h = await gateway();
    h.fund(alice, 100_000n);
    h.key(alice);
    return h;
  }

  it('acknowledges a signed order with 202, status ACK and an orderId, and rests it', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0', clientId: 'c-1' });
    const res = await h.app.inject({ method: 'POST', ...req });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toMatchObject({ status: 'ACK', clientId: 'c-1', marketId: 1, marketDisplayName: 'BTC-USD', quantity: '0.01', price: '96000.0', remainingSize: '0.01', filledSize: '0.0' });
    expect(typeof body.orderId).toBe('string');
    expect(body.rateLimit).toEqual({ pool: 'order', remaining: 19_999 });
  });

  it('answers 401 invalid signature for a tampered body', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    req.payload.price = '96000.1';
    const res = await h.app.inject({ method: 'POST', ...req });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid signature' });
  });

  it('answers 403 when address is not the key\'s master address', async () => {
    const h = await ready();
    h.fund(bob, 1000n);
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    req.url = `/v1/placeOrder?address=${bob.address}`;
    req.payload.address = bob.address;
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(403);
  });

  it('answers 401 for a timestamp in milliseconds or out of the 30 s window', async () => {
    const h = await ready();
    const ms = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' }, { timestampNs: BigInt(Math.floor(h.now.us / 1000)) });
    expect((await h.app.inject({ method: 'POST', ...ms })).statusCode).toBe(401);
    const old = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' }, { timestampNs: BigInt(h.now.us - 31_000_000) * 1000n });
    expect((await h.app.inject({ method: 'POST', ...old })).statusCode).toBe(401);
  });

  it('answers 400 errorType Tick for a price off the tick', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.05' });
    const res = await h.app.inject({ method: 'POST', ...req });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'price is not a multiple of tick size', errorSource: 'Order', errorType: 'Tick' });
  });

  it('answers 400 InvalidRequest below the 5 USD minimum notional', async () => {
    const h = await ready();
    const res = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.00005', price: '96000.0' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorSource: 'Order', errorType: 'InvalidRequest' });
  });

  it('answers a definitive engine rejection on the 200 path with rejectionReason', async () => {
    const h = await ready();
    const res = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0', timeInForce: 'IOC' }) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'REJECTED', rejectionReason: 'IOC_CANCELED' });
  });

  it('refuses a replayed signed request (409)', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(202);
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(409);
  });

  it('validates the body: bad orderSide gives 400 with errorSource Order', async () => {
    const h = await ready();
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '96000.0' });
    req.payload.orderSide = 'UP';
    const res = await h.app.inject({ method: 'POST', ...req });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ errorSource: 'Order', errorType: 'InvalidRequest' });
  });
});

describe('unknown routes answer 404 in the error shape', () => {
  it('404', async () => {
    const h = await gateway();
    const res = await h.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not found' });
  });
});
