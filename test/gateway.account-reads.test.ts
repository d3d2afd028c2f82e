/**
 * The account-scoped reads (interface.md "Public and account reads", "History and summary
 * responses"; supplement §5, §6, §7, §11, §12) through `inject()`: state is built with engine
 * commands on the harness's exchange, then each read's exact shape is asserted. One `describe`
 * per rule; test names quote it.
 *
 * Units (default markets): BTC-USD price tick 0.1, size step 1e-8, so 0.01 BTC at 97000 is
 * 970 USD of notional; fees are Tier 1 (maker 150 ppm, taker 450 ppm).
 */
import { quoteOf } from '../engine/account.ts';
import { describe, expect, it } from 'vitest';
import { findAccount, priceToTicks, sizeToQuantums, type PlaceOrderCommand } from '../engine/index.ts';
import { usd } from '../gateway/contract/format.ts';
import { DEFAULT_HISTORY_LIMIT } from '../gateway/read-models/history.ts';
import { registerKey, revokeKey } from '../gateway/auth/keys.ts';
import { DAY_US, gateway, placeOrderRequest, SQLITE_HISTORY, T0_US, USD, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const HOUR_US = 3_600_000_000;
/** The first whole hour after T0_US: where the first funding and interest settle. */
const FIRST_HOUR = Math.floor(T0_US / HOUR_US) * HOUR_US + HOUR_US;

/** A gateway with Alice and Bob funded. */
async function ready(): Promise<GatewayHarness> {
  const h = await gateway();
  h.fund(alice, 100_000n);
  h.fund(bob, 100_000n);
  return h;
}

interface Order {
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  market?: number;
  accountIndex?: number;
  clientId?: string;
  tif?: 0 | 2;
  tpsl?: { type: 'STOP_LOSS' | 'TAKE_PROFIT'; stop: string };
}

function place(h: GatewayHarness, w: Wallet, o: Order): number {
  const ms = h.exchange.engine.markets.get(o.market ?? 1)!;
  const command: Omit<PlaceOrderCommand, 'time'> = {
    type: 'placeOrder',
    address: w.address,
    accountIndex: o.accountIndex ?? 0,
    marketId: ms.spec.id,
    side: o.side === 'BUY' ? 0 : 1,
    orderType: 0,
    tif: o.tif ?? 0,
    price: priceToTicks(ms.spec, o.price)!,
    size: sizeToQuantums(ms.spec, o.quantity)!,
    reduceOnly: o.tpsl !== undefined,
    clientId: o.clientId,
    goodTilTime: h.now.us + 40 * DAY_US,
    tpslType: o.tpsl?.type,
    stopPrice: o.tpsl === undefined ? undefined : priceToTicks(ms.spec, o.tpsl.stop)!,
  };
  const result = h.exchange.submit(command);
  if (result.kind !== 'order') throw new Error(`order not accepted: ${JSON.stringify(result)}`);
  return result.orderId;
}

/** Alice rests a buy, Bob sells into it: Alice long (maker), Bob short (taker). */
function cross(h: GatewayHarness, quantity = '0.01', price = '97000.0', market = 1): number {
  const id = place(h, alice, { side: 'BUY', price, quantity, market });
  place(h, bob, { side: 'SELL', price, quantity, market });
  return id;
}

function oracle(h: GatewayHarness, marketId: number, price: string): void {
  const ms = h.exchange.engine.markets.get(marketId)!;
  h.exchange.submit({ type: 'setOraclePrice', marketId, price: priceToTicks(ms.spec, price)! });
}

function advanceTo(h: GatewayHarness, us: number): void {
  h.now.us = us;
  h.exchange.submit({ type: 'advanceTime' });
}

async function get(h: GatewayHarness, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, body: res.json() };
}

const hex = (id: number): string => id.toString(16);

describe('GET /v1/positions: {positions: {"<marketId>": position}, total}; {} when flat; accepts market', () => {
  it('reads {} and total 0 when flat, also for an address with no activity', async () => {
    const h = await ready();
    expect(await get(h, `/v1/positions?address=${alice.address}`)).toEqual({ status: 200, body: { positions: {}, total: 0 } });
    expect((await get(h, `/v1/positions?address=0x${'cd'.repeat(20)}`)).body).toEqual({ positions: {}, total: 0 });
  });

  it('keys open positions by marketId string with the position record fields', async () => {
    const h = await ready();
    cross(h);
    const { status, body } = await get(h, `/v1/positions?address=${alice.address}`);
    expect(status).toBe(200);
    expect(body.total).toBe(1);
    expect(Object.keys(body.positions)).toEqual(['1']);
    expect(body.positions['1']).toEqual({
      address: alice.address,
      accountIndex: 0,
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      side: 'LONG',
      size: '0.01',
      averageEntryPrice: '97000.0',
      leverage: '40.00',
      marginMode: 'CROSS',
      borrowedCapital: '-945.75',
      marginUsed: '24.25',
      positionValueNotional: '970.0',
      unrealizedPnl: '0.0',
      markPx: '97000.0',
      cumulativeFunding: { allTime: '0.0', sinceOpen: '0.0', sinceChange: '0.0' },
    });
    const short = (await get(h, `/v1/positions?address=${bob.address}`)).body.positions['1'];
    expect(short).toMatchObject({ side: 'SHORT', size: '-0.01', positionValueNotional: '-970.0' });
  });

  it('filters by market name (case-insensitive) or id; an unresolvable market is 400', async () => {
    const h = await ready();
    cross(h);
    expect((await get(h, `/v1/positions?address=${alice.address}&market=btc-usd`)).body.total).toBe(1);
    expect((await get(h, `/v1/positions?address=${alice.address}&market=1`)).body.total).toBe(1);
    expect((await get(h, `/v1/positions?address=${alice.address}&market=ETH-USD`)).body).toEqual({ positions: {}, total: 0 });
    expect(await get(h, `/v1/positions?address=${alice.address}&market=NOPE`)).toEqual({ status: 400, body: { error: 'unknown market: NOPE' } });
  });

  it('answers 400 for an invalid address or an accountIndex above 9', async () => {
    const h = await ready();
    expect((await get(h, '/v1/positions?address=0x123')).status).toBe(400);
    expect((await get(h, '/v1/positions')).status).toBe(400);
    expect((await get(h, `/v1/positions?address=${alice.address}&accountIndex=10`)).status).toBe(400);
  });
});

describe('GET /v1/leverages: {address, accountIndex, leverages: [{marketId, marketDisplayName, leverage (int), isolated, marginMode}]}, every market', () => {
  it('lists every market by ascending id at its default leverage (the market maximum), cross', async () => {
    const h = await ready();
    const { status, body } = await get(h, `/v1/leverages?address=${alice.address.toUpperCase().replace('0X', '0x')}&accountIndex=3`);
    expect(status).toBe(200);
    expect(body.address).toBe(alice.address);
    expect(body.accountIndex).toBe(3);
    expect(body.leverages.map((l: { marketId: number }) => l.marketId)).toEqual([1, 2, 3, 4, 9, 10, 11, 12]);
    expect(body.leverages[0]).toEqual({ marketId: 1, marketDisplayName: 'BTC-USD', leverage: 40, isolated: false, marginMode: 'CROSS' });
    expect(body.leverages[3]).toEqual({ marketId: 4, marketDisplayName: 'DOGE-USD', leverage: 10, isolated: false, marginMode: 'CROSS' });
  });

  it('reflects setLeverage (integer, isolated flag, marginMode ISOLATED); market narrows to one row', async () => {
    const h = await ready();
    h.exchange.submit({ type: 'setLeverage', address: alice.address, accountIndex: 0, marketId: 2, leverage: 5, isolated: true });
    expect((await get(h, `/v1/leverages?address=${alice.address}&market=eth-usd`)).body).toEqual({
      address: alice.address,
      accountIndex: 0,
      leverages: [{ marketId: 2, marketDisplayName: 'ETH-USD', leverage: 5, isolated: true, marginMode: 'ISOLATED' }],
    });
    expect((await get(h, `/v1/leverages?address=${alice.address}&market=NOPE`)).status).toBe(400);
  });
});

describe('GET /v1/account/stats: rollingVolume, lifetimeVolume, lifetimeFeesPaid and the fee tier (makerFeePpm / takerFeePpm)', () => {
  it('reads zeros and the first tier before any trade', async () => {
    const h = await ready();
    expect(await get(h, `/v1/account/stats?address=${alice.address}`)).toEqual({
      status: 200,
      body: { address: alice.address, accountIndex: 0, rollingVolume: '0.0', lifetimeVolume: '0.0', lifetimeFeesPaid: '0.0', feeTier: 'Tier 1', makerFeePpm: 150, takerFeePpm: 450 },
    });
  });

  it('counts filled notional and fees; rollingVolume drops trades older than 30 days, lifetimeVolume keeps them', async () => {
    const h = await ready();
    cross(h);
    expect((await get(h, `/v1/account/stats?address=${alice.address}`)).body).toEqual({
      address: alice.address,
      accountIndex: 0,
      rollingVolume: '970.0',
      lifetimeVolume: '970.0',
      lifetimeFeesPaid: '0.1455',
      feeTier: 'Tier 1',
      makerFeePpm: 150,
      takerFeePpm: 450,
    });
    expect((await get(h, `/v1/account/stats?address=${bob.address}`)).body.lifetimeFeesPaid).toBe('0.4365');
    h.now.us += 31 * DAY_US;
    expect((await get(h, `/v1/account/stats?address=${alice.address}`)).body).toMatchObject({ rollingVolume: '0.0', lifetimeVolume: '970.0' });
  });
});

describe('GET /v1/openOrders: {orders: [order record], total}; open = OPEN / PARTIALLY_FILLED and untriggered TPSL; filters market, status, side, from/to (µs on createdAt), limit 1-1000', () => {
  async function book(): Promise<{ h: GatewayHarness; ids: number[] }> {
    const h = await ready();
    const ids = [place(h, alice, { side: 'BUY', price: '96000.0', quantity: '0.01', clientId: 'b-1' })];
    h.now.us += 1_000_000;
    ids.push(place(h, alice, { side: 'BUY', price: '95000.0', quantity: '0.02' }));
    h.now.us += 1_000_000;
    ids.push(place(h, alice, { side: 'SELL', price: '3500.0', quantity: '0.5', market: 2 }));
    return { h, ids };
  }

  it('lists resting orders newest first, each an exact order record', async () => {
    const { h, ids } = await book();
    const { status, body } = await get(h, `/v1/openOrders?address=${alice.address}`);
    expect(status).toBe(200);
    expect(body.total).toBe(3);
    expect(body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([hex(ids[2]!), hex(ids[1]!), hex(ids[0]!)]);
    expect(body.orders[2]).toEqual({
      orderId: hex(ids[0]!),
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      side: 'BUY',
      status: 'OPEN',
      price: '96000.0',
      originalSize: '0.01',
      remainingSize: '0.01',
      updatedAt: T0_US,
      clientId: 'b-1',
      address: alice.address,
      type: 'LIMIT',
      filledSize: '0.0',
      timeInForce: 'GTC',
      goodTilTime: String(T0_US + 40 * DAY_US),
      state: 'OPEN',
      createdAt: T0_US,
    });
  });

  it('keeps a partially filled order and drops filled and canceled ones', async () => {
    const { h, ids } = await book();
    place(h, bob, { side: 'SELL', price: '96000.0', quantity: '0.004' });
    h.exchange.submit({ type: 'cancelOrder', address: alice.address, accountIndex: 0, marketId: 2, orderId: ids[2] });
    const { body } = await get(h, `/v1/openOrders?address=${alice.address}`);
    expect(body.total).toBe(2);
    expect(body.orders[1]).toMatchObject({ orderId: hex(ids[0]!), status: 'PARTIALLY_FILLED', remainingSize: '0.006', filledSize: '0.004', avgFillPrice: '96000.0' });
  });

  it('counts an untriggered TPSL as open (status filter UNTRIGGERED)', async () => {
    const h = await ready();
    cross(h);
    const tpsl = place(h, alice, { side: 'SELL', price: '89000.0', quantity: '0.01', tpsl: { type: 'STOP_LOSS', stop: '90000.0' } });
    const open = (await get(h, `/v1/openOrders?address=${alice.address}`)).body;
    expect(open.total).toBe(1);
    expect(open.orders[0]).toMatchObject({ orderId: hex(tpsl), status: 'TPSL_PLACED', tpslType: 'STOP_LOSS', triggerPrice: '90000.0', reduceOnly: true });
    expect((await get(h, `/v1/openOrders?address=${alice.address}&status=UNTRIGGERED`)).body.total).toBe(1);
    expect((await get(h, `/v1/openOrders?address=${alice.address}&status=OPEN`)).body).toEqual({ orders: [], total: 0 });
  });

  it('filters by market, side and createdAt window; limit caps rows but not total, clamps above 1000', async () => {
    const { h, ids } = await book();
    const q = `/v1/openOrders?address=${alice.address}`;
    expect((await get(h, `${q}&market=ETH-USD`)).body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([hex(ids[2]!)]);
    expect((await get(h, `${q}&side=buy`)).body.total).toBe(2);
    expect((await get(h, `${q}&from=${T0_US + 1_000_000}&to=${T0_US + 1_000_000}`)).body.orders.map((o: { orderId: string }) => o.orderId)).toEqual([hex(ids[1]!)]);
    const limited = (await get(h, `${q}&limit=2`)).body;
    expect(limited.orders).toHaveLength(2);
    expect(limited.total).toBe(3);
    expect((await get(h, `${q}&limit=5000`)).body.orders).toHaveLength(3);
  });

  it('answers 400 for limit 0, a millisecond-scale bound, from after to, and unknown side or status values', async () => {
    const { h } = await book();
    const q = `/v1/openOrders?address=${alice.address}`;
    expect((await get(h, `${q}&limit=0`)).status).toBe(400);
    expect((await get(h, `${q}&from=${Math.floor(T0_US / 1000)}`)).status).toBe(400);
    expect((await get(h, `${q}&from=${T0_US + 1}&to=${T0_US}`)).body).toEqual({ error: 'from must not be after to' });
    expect(await get(h, `${q}&side=LONG`)).toEqual({ status: 400, body: { error: 'invalid side: LONG' } });
    expect(await get(h, `${q}&status=PENDING`)).toEqual({ status: 400, body: { error: 'invalid status: PENDING' } });
  });
});

describe('GET /v1/orders: open and recent closed orders, {orders, total}; filters market, status (OPEN, UNTRIGGERED, FILLED, CANCELED, REJECTED, LIQUIDATED, ADL), side, from/to', () => {
  async function history(): Promise<{ h: GatewayHarness; filled: number; canceled: number; open: number }> {
    const h = await ready();
    const filled = cross(h);
    h.now.us += 1_000_000;
    const canceled = place(h, alice, { side: 'BUY', price: '90000.0', quantity: '0.01' });
    h.exchange.submit({ type: 'cancelOrder', address: alice.address, accountIndex: 0, marketId: 1, orderId: canceled });
    h.now.us += 1_000_000;
    const open = place(h, alice, { side: 'SELL', price: '99000.0', quantity: '0.01' });
    return { h, filled, canceled, open };
  }

  it('lists open and closed orders newest first by createdAt', async () => {
    const { h, filled, canceled, open } = await history();
    const { status, body } = await get(h, `/v1/orders?address=${alice.address}`);
    expect(status).toBe(200);
    expect(body.total).toBe(3);
    expect(body.orders.map((o: { orderId: string; status: string }) => [o.orderId, o.status])).toEqual([
      [hex(open), 'OPEN'],
      [hex(canceled), 'CANCELED'],
      [hex(filled), 'FILLED'],
    ]);
    expect(body.orders[2]).toMatchObject({ state: 'FILLED', filledSize: '0.01', remainingSize: '0.0', avgFillPrice: '97000.0' });
  });

  it('filters by status (one value or several, comma-separated), side and market', async () => {
    const { h, filled, canceled } = await history();
    const q = `/v1/orders?address=${alice.address}`;
    const ids = async (url: string): Promise<string[]> => (await get(h, url)).body.orders.map((o: { orderId: string }) => o.orderId);
    expect(await ids(`${q}&status=FILLED`)).toEqual([hex(filled)]);
    expect(await ids(`${q}&status=canceled`)).toEqual([hex(canceled)]);
    expect(await ids(`${q}&status=FILLED,CANCELED`)).toEqual([hex(canceled), hex(filled)]);
    expect(await ids(`${q}&status=REJECTED`)).toEqual([]);
    expect(await ids(`${q}&side=SELL`)).toHaveLength(1);
    expect(await ids(`${q}&market=ETH-USD`)).toEqual([]);
    expect((await get(h, `${q}&status=NOPE`)).status).toBe(400);
  });

  it('shows a subaccount only its own orders', async () => {
    const { h } = await history();
    expect((await get(h, `/v1/orders?address=${alice.address}&accountIndex=1`)).body).toEqual({ orders: [], total: 0 });
  });
});

describe('GET /v1/order/{orderId}: the bare order record; 404 if unknown', () => {
  it('returns the latest record of one of the address\'s orders, closed ones included', async () => {
    const h = await ready();
    const id = cross(h);
    const { status, body } = await get(h, `/v1/order/${hex(id)}?address=${alice.address}`);
    expect(status).toBe(200);
    const listed = (await get(h, `/v1/orders?address=${alice.address}`)).body.orders[0];
    expect(body).toEqual(listed);
    expect(body).toMatchObject({ orderId: hex(id), status: 'FILLED' });
    expect((await get(h, `/v1/order/0x${hex(id)}?address=${alice.address}&accountIndex=0`)).status).toBe(200);
  });

  it('answers 404 for an unknown id, a malformed id, another address\'s order or another subaccount', async () => {
    const h = await ready();
    const id = place(h, alice, { side: 'BUY', price: '96000.0', quantity: '0.01' });
    const notFound = { status: 404, body: { error: 'order not found' } };
    expect(await get(h, `/v1/order/fffff?address=${alice.address}`)).toEqual(notFound);
    expect(await get(h, `/v1/order/not-an-id?address=${alice.address}`)).toEqual(notFound);
    expect(await get(h, `/v1/order/${hex(id)}?address=${bob.address}`)).toEqual(notFound);
    expect(await get(h, `/v1/order/${hex(id)}?address=${alice.address}&accountIndex=1`)).toEqual(notFound);
    expect((await get(h, `/v1/order/${hex(id)}?address=0x12`)).status).toBe(400);
  });
});

describe('GET /v1/fills: {fills: [fill record], total} newest first; filters market, role (MAKER/TAKER), side, from/to, limit', () => {
  async function trades(): Promise<GatewayHarness> {
    const h = await ready();
    cross(h);
    h.now.us += 1_000_000;
    // Alice now takes: Bob rests a sell, Alice buys into it.
    place(h, bob, { side: 'SELL', price: '97100.0', quantity: '0.005' });
    place(h, alice, { side: 'BUY', price: '97100.0', quantity: '0.005', tif: 2 });
    return h;
  }

  it('lists the account\'s fills newest first, each an exact fill record', async () => {
    const h = await trades();
    const { status, body } = await get(h, `/v1/fills?address=${alice.address}`);
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.fills.map((f: { role: string }) => f.role)).toEqual(['TAKER', 'MAKER']);
    const maker = body.fills[1];
    expect(maker).toEqual({
      tradeId: maker.tradeId,
      orderId: maker.orderId,
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      side: 'BUY',
      size: '0.01',
      price: '97000.0',
      fee: '0.1455',
      role: 'MAKER',
      createdAt: T0_US,
      address: alice.address,
      closedPnl: '-0.1455',
      originalSize: '0.01',
      remainingSize: '0.0',
      positionEffect: 'OPEN_LONG',
    });
    expect(body.fills[0]).toMatchObject({ price: '97100.0', size: '0.005', fee: '0.218475', positionEffect: 'ADD_LONG', createdAt: T0_US + 1_000_000 });
  });

  it('filters by role, side, market and createdAt window; limit caps rows but not total', async () => {
    const h = await trades();
    const q = `/v1/fills?address=${alice.address}`;
    expect((await get(h, `${q}&role=MAKER`)).body.fills.map((f: { price: string }) => f.price)).toEqual(['97000.0']);
    expect((await get(h, `${q}&role=taker`)).body.total).toBe(1);
    expect((await get(h, `${q}&side=SELL`)).body).toEqual({ fills: [], total: 0 });
    expect((await get(h, `${q}&market=ETH-USD`)).body.total).toBe(0);
    expect((await get(h, `${q}&to=${T0_US}`)).body.fills.map((f: { price: string }) => f.price)).toEqual(['97000.0']);
    const limited = (await get(h, `${q}&limit=1`)).body;
    expect(limited).toMatchObject({ total: 2 });
    expect(limited.fills).toHaveLength(1);
    expect((await get(h, `${q}&role=ALPHA`)).status).toBe(400);
    expect((await get(h, `${q}&from=1700000000`)).status).toBe(400);
  });
});

describe('GET /v1/fill/{tradeId}: the single fill an account owns for that trade', () => {
  it('returns each side\'s own fill of the trade; 404 for a trade the account is not in', async () => {
    const h = await ready();
    cross(h);
    const [fill] = (await get(h, `/v1/fills?address=${alice.address}`)).body.fills;
    const mine = await get(h, `/v1/fill/${fill.tradeId}?address=${alice.address}`);
    expect(mine).toEqual({ status: 200, body: fill });
    expect((await get(h, `/v1/fill/${fill.tradeId}?address=${bob.address}`)).body).toMatchObject({ tradeId: fill.tradeId, role: 'TAKER', side: 'SELL' });
    const notFound = { status: 404, body: { error: 'fill not found' } };
    expect(await get(h, `/v1/fill/${fill.tradeId}?address=0x${'cd'.repeat(20)}`)).toEqual(notFound);
    expect(await get(h, `/v1/fill/ffff?address=${alice.address}`)).toEqual(notFound);
    expect(await get(h, `/v1/fill/${fill.tradeId}?address=${alice.address}&accountIndex=1`)).toEqual(notFound);
  });

  it('finds a subaccount\'s fill without accountIndex', async () => {
    const h = await ready();
    h.fund(alice, 10_000n, 2);
    place(h, alice, { side: 'BUY', price: '97000.0', quantity: '0.01', accountIndex: 2 });
    place(h, bob, { side: 'SELL', price: '97000.0', quantity: '0.01' });
    const [fill] = (await get(h, `/v1/fills?address=${alice.address}&accountIndex=2`)).body.fills;
    expect(fill.accountIndex).toBe(2);
    expect((await get(h, `/v1/fill/${fill.tradeId}?address=${alice.address}`)).body).toEqual(fill);
  });
});

describe('GET /v1/funding: fundingPayments[] of {marketId, marketDisplayName, fundingRate, size, payment (positive = received), time (µs, whole millisecond)} and total; to defaults to now, from to 30 days before', () => {
  /** Alice long 0.01 BTC, Bob short; a premium sample, then the hour settles at rate 0.00125 %. */
  async function settled(): Promise<GatewayHarness> {
    const h = await ready();
    cross(h);
    h.now.us += 2_000_000;
    oracle(h, 1, '97000.0');
    advanceTo(h, FIRST_HOUR + 1_000_000);
    return h;
  }

  it('reports each side\'s payment at the hour: longs pay a positive rate, shorts receive it', async () => {
    const h = await settled();
    expect(await get(h, `/v1/funding?address=${alice.address}`)).toEqual({
      status: 200,
      body: {
        fundingPayments: [{ marketId: 1, marketDisplayName: 'BTC-USD', fundingRate: '0.0000125', size: '0.01', payment: '-0.012125', time: FIRST_HOUR }],
        total: 1,
      },
    });
    expect((await get(h, `/v1/funding?address=${bob.address}`)).body.fundingPayments).toEqual([
      { marketId: 1, marketDisplayName: 'BTC-USD', fundingRate: '0.0000125', size: '-0.01', payment: '0.012125', time: FIRST_HOUR },
    ]);
    expect(FIRST_HOUR % 1000).toBe(0);
  });

  it('is also served as /v1/fundingPayments (supplement §11)', async () => {
    const h = await settled();
    const direct = await get(h, `/v1/funding?address=${alice.address}`);
    expect(await get(h, `/v1/fundingPayments?address=${alice.address}`)).toEqual(direct);
  });

  it('lists newest first; limit caps rows (total counts all); market and window filter', async () => {
    const h = await settled();
    oracle(h, 1, '97000.0');
    advanceTo(h, FIRST_HOUR + HOUR_US + 1_000_000);
    const q = `/v1/funding?address=${alice.address}`;
    const both = (await get(h, q)).body;
    expect(both.fundingPayments.map((p: { time: number }) => p.time)).toEqual([FIRST_HOUR + HOUR_US, FIRST_HOUR]);
    const one = (await get(h, `${q}&limit=1`)).body;
    expect(one.total).toBe(2);
    expect(one.fundingPayments.map((p: { time: number }) => p.time)).toEqual([FIRST_HOUR + HOUR_US]);
    expect((await get(h, `${q}&to=${FIRST_HOUR}`)).body.total).toBe(1);
    expect((await get(h, `${q}&market=ETH-USD`)).body).toEqual({ fundingPayments: [], total: 0 });
    expect((await get(h, `${q}&market=NOPE`)).status).toBe(400);
  });

  it('defaults the window to the 30 days before now; an explicit from reaches further back', async () => {
    const h = await settled();
    h.now.us = FIRST_HOUR + 31 * DAY_US;
    const q = `/v1/funding?address=${alice.address}`;
    expect((await get(h, q)).body).toEqual({ fundingPayments: [], total: 0 });
    expect((await get(h, `${q}&from=${T0_US}`)).body.total).toBe(1);
  });

  it('answers 400 without address, with a second-scale bound, or limit 0', async () => {
    const h = await settled();
    expect((await get(h, '/v1/funding')).status).toBe(400);
    expect((await get(h, `/v1/funding?address=${alice.address}&to=1700000000`)).status).toBe(400);
    expect((await get(h, `/v1/funding?address=${alice.address}&limit=0`)).status).toBe(400);
    expect((await get(h, `/v1/funding?address=${alice.address}&limit=100000`)).body.total).toBe(1);
  });
});

describe('GET /v1/interest: interestPayments[] of {payment, time}, each one settlement of accrued borrow interest from the account to the lending vault', () => {
  it('reports the hourly settlement of a negative quote balance as a positive payment (paid to the vault)', async () => {
    const h = await gateway();
    h.fund(alice, 100n);
    h.fund(bob, 100_000n);
    cross(h);
    oracle(h, 1, '117000.0'); // Alice's long is now 200 USD up.
    h.exchange.submit({ type: 'setLeverage', address: alice.address, accountIndex: 0, marketId: 2, leverage: 1, isolated: true });
    cross(h, '0.04', '3400.0', 2); // an isolated 1× position: its pool takes 136 USD from quote
    const acct = findAccount(h.exchange.engine.accounts, alice.address, 0)!;
    expect(quoteOf(acct)).toBeLessThan(0n);
    const vault = h.exchange.engine.lendingVault;
    advanceTo(h, FIRST_HOUR + 1_000_000);
    const paid = h.exchange.engine.lendingVault - vault;
    expect(paid).toBeGreaterThan(0n);
    const { status, body } = await get(h, `/v1/interest?address=${alice.address}`);
    expect(status).toBe(200);
    expect(body).toEqual({ interestPayments: [{ payment: usd(paid), time: FIRST_HOUR }] });
    expect((await get(h, `/v1/interest?address=${bob.address}`)).body).toEqual({ interestPayments: [] });
    expect((await get(h, `/v1/interest?address=${alice.address}&to=${FIRST_HOUR - 1}`)).body).toEqual({ interestPayments: [] });
    h.now.us = FIRST_HOUR + 31 * DAY_US;
    expect((await get(h, `/v1/interest?address=${alice.address}`)).body).toEqual({ interestPayments: [] });
    expect((await get(h, `/v1/interest?address=${alice.address}&accountIndex=12`)).status).toBe(400);
  });
});

describe('GET /v1/accountTransferUpdates: {accountTransferUpdates: [{id, amount, netQuoteBalance, globalSequenceId, createdAt, address, accountIndex, rejectReason, sourceAccountId, destinationAccountId, …}]} newest first; from/to in µs', () => {
  async function moves(): Promise<GatewayHarness> {
    const h = await gateway();
    h.fund(alice, 1000n);
    h.now.us += 1_000_000;
    h.exchange.submit({ type: 'withdraw', address: alice.address, accountIndex: 0, amount: 10n * USD, nonce: 'w-1' });
    h.now.us += 1_000_000;
    h.exchange.submit({ type: 'transfer', address: alice.address, fromAccountIndex: 0, toAccountIndex: 1, amount: 5n * USD, nonce: 't-1' });
    h.now.us += 1_000_000;
    h.exchange.submit({ type: 'withdraw', address: alice.address, accountIndex: 0, amount: 5000n * USD, nonce: 'w-2' });
    return h;
  }

  it('lists deposits, withdrawals and transfers newest first with exact rows', async () => {
    const h = await moves();
    const accounts = h.exchange.engine.accounts;
    const main = findAccount(accounts, alice.address, 0)!.id;
    const sub = findAccount(accounts, alice.address, 1)!.id;
    const { status, body } = await get(h, `/v1/accountTransferUpdates?address=${alice.address}`);
    expect(status).toBe(200);
    const rows = body.accountTransferUpdates;
    expect(rows.map((r: { type: string; status: string }) => `${r.type} ${r.status}`)).toEqual(['WITHDRAWAL REJECTED', 'TRANSFER_OUT COMPLETED', 'WITHDRAWAL COMPLETED', 'DEPOSIT COMPLETED']);
    const seqs = rows.map((r: { globalSequenceId: number }) => r.globalSequenceId);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(rows[3]).toEqual({
      id: rows[3].id,
      type: 'DEPOSIT',
      status: 'COMPLETED',
      amount: '1000.0',
      netQuoteBalance: '1000.0',
      globalSequenceId: rows[3].globalSequenceId,
      createdAt: T0_US,
      address: alice.address,
      accountIndex: 0,
      rejectReason: null,
      sourceAccountId: null,
      destinationAccountId: main,
    });
    expect(rows[2]).toMatchObject({ type: 'WITHDRAWAL', amount: '10.0', netQuoteBalance: '990.0', sourceAccountId: main, destinationAccountId: null, createdAt: T0_US + 1_000_000 });
    expect(rows[1]).toMatchObject({ type: 'TRANSFER_OUT', amount: '5.0', netQuoteBalance: '985.0', sourceAccountId: main, destinationAccountId: sub, fromAccountIndex: 0, toAccountIndex: 1 });
    expect(rows[0]).toMatchObject({ type: 'WITHDRAWAL', status: 'REJECTED', amount: '5000.0', netQuoteBalance: '985.0', rejectReason: 'INSUFFICIENT_FREE_COLLATERAL' });
    const incoming = (await get(h, `/v1/accountTransferUpdates?address=${alice.address}&accountIndex=1`)).body.accountTransferUpdates;
    expect(incoming).toEqual([
      {
        id: rows[1].id,
        type: 'TRANSFER_IN',
        status: 'COMPLETED',
        amount: '5.0',
        netQuoteBalance: '5.0',
        globalSequenceId: rows[1].globalSequenceId + 1,
        createdAt: T0_US + 2_000_000,
        address: alice.address,
        accountIndex: 1,
        rejectReason: null,
        sourceAccountId: main,
        destinationAccountId: sub,
        fromAccountIndex: 0,
        toAccountIndex: 1,
      },
    ]);
  });

  it('filters by from/to in microseconds and limit; millisecond-scale bounds are 400 (supplement §12)', async () => {
    const h = await moves();
    const q = `/v1/accountTransferUpdates?address=${alice.address}`;
    const types = async (url: string): Promise<string[]> => (await get(h, url)).body.accountTransferUpdates.map((r: { type: string }) => r.type);
    expect(await types(`${q}&from=${T0_US + 1_000_000}&to=${T0_US + 2_000_000}`)).toEqual(['TRANSFER_OUT', 'WITHDRAWAL']);
    expect(await types(`${q}&limit=1`)).toEqual(['WITHDRAWAL']);
    expect((await get(h, `${q}&from=${Math.floor(T0_US / 1000)}`)).status).toBe(400);
    expect((await get(h, `/v1/accountTransferUpdates?address=0x${'cd'.repeat(20)}`)).body).toEqual({ accountTransferUpdates: [] });
  });
});

describe('GET /v1/rateLimit: address, accountIndex (the index actually served), order and cancel each {used, cap, nextAvailableMs}; a misspelled accountIndex is ignored and resolves to 0; above 9 gives 400', () => {
  it('reads the starting caps for an account never charged', async () => {
    const h = await ready();
    expect(await get(h, `/v1/rateLimit?address=${alice.address}`)).toEqual({
      status: 200,
      body: { address: alice.address, accountIndex: 0, order: { used: 0, cap: 20_000, nextAvailableMs: 0 }, cancel: { used: 0, cap: 40_000, nextAvailableMs: 0 } },
    });
  });

  it('counts order-pool charges and grows the cap with lifetime notional (one unit per 0.10 USD)', async () => {
    const h = await ready();
    h.key(alice);
    const req = placeOrderRequest(h, alice, { quantity: '0.01', price: '97000.0' });
    expect((await h.app.inject({ method: 'POST', ...req })).statusCode).toBe(202);
    place(h, bob, { side: 'SELL', price: '97000.0', quantity: '0.01' });
    expect((await get(h, `/v1/rateLimit?address=${alice.address}`)).body).toEqual({
      address: alice.address,
      accountIndex: 0,
      order: { used: 1, cap: 29_700, nextAvailableMs: 0 },
      cancel: { used: 0, cap: 49_700, nextAvailableMs: 0 },
    });
  });

  it('serves the camelCase accountIndex only; a misspelled one serves 0; above 9 is 400', async () => {
    const h = await ready();
    expect((await get(h, `/v1/rateLimit?address=${alice.address}&accountIndex=3`)).body.accountIndex).toBe(3);
    expect((await get(h, `/v1/rateLimit?address=${alice.address}&account_index=3`)).body.accountIndex).toBe(0);
    expect((await get(h, `/v1/rateLimit?address=${alice.address}&accountindex=3`)).body.accountIndex).toBe(0);
    expect((await get(h, `/v1/rateLimit?address=${alice.address}&accountIndex=10`)).status).toBe(400);
  });
});

describe('GET /v1/apiKeys (auth key: X-API-Key only): {apiKeys: [{apiKey, address, allSubaccounts, accountIndex?, apiWalletName, status, permissions[], validUntil, createdAt}]}; without accountIndex the keys of all subaccounts, each tagged', () => {
  const second = wallet(0xc3);

  async function keyed(): Promise<GatewayHarness> {
    const h = await ready();
    h.key(alice);
    registerKey(h.state.keys, { apiKey: second.apiKey, address: alice.address, accountIndex: 2, apiWalletName: 'bot-2', permissions: ['trade'], validUntil: Math.floor(T0_US / 1000) + 7 * 86_400_000, createdAt: T0_US + 5 });
    return h;
  }

  it('lists every key of the address, oldest first, single-subaccount keys tagged with accountIndex', async () => {
    const h = await keyed();
    expect(await get(h, `/v1/apiKeys?address=${alice.address}`, { 'x-api-key': alice.apiKey })).toEqual({
      status: 200,
      body: {
        apiKeys: [
          { apiKey: alice.apiKey, address: alice.address, allSubaccounts: true, apiWalletName: 'test', status: 'ACTIVE', permissions: ['trade'], validUntil: 0, createdAt: T0_US },
          { apiKey: second.apiKey, address: alice.address, allSubaccounts: false, accountIndex: 2, apiWalletName: 'bot-2', status: 'ACTIVE', permissions: ['trade'], validUntil: Math.floor(T0_US / 1000) + 7 * 86_400_000, createdAt: T0_US + 5 },
        ],
      },
    });
  });

  it('with accountIndex, that subaccount\'s keys and the all-subaccount keys', async () => {
    const h = await keyed();
    const keys = async (index: number): Promise<string[]> =>
      (await get(h, `/v1/apiKeys?address=${alice.address}&accountIndex=${index}`, { 'x-api-key': alice.apiKey })).body.apiKeys.map((k: { apiKey: string }) => k.apiKey);
    expect(await keys(2)).toEqual([alice.apiKey, second.apiKey]);
    expect(await keys(1)).toEqual([alice.apiKey]);
  });

  it('answers a keyless call (as live), 401 for an unregistered key and 403 when the key is not the address\'s (or not the subaccount\'s)', async () => {
    const h = await keyed();
    const q = `/v1/apiKeys?address=${alice.address}`;
    expect((await get(h, q)).body.apiKeys).toHaveLength(2);
    expect(await get(h, q, { 'x-api-key': 'nothex' })).toEqual({ status: 401, body: { error: 'missing or invalid key' } });
    expect(await get(h, q, { 'x-api-key': bob.apiKey })).toEqual({ status: 401, body: { error: 'invalid api key' } });
    h.key(bob);
    expect(await get(h, q, { 'x-api-key': bob.apiKey })).toEqual({ status: 403, body: { error: 'address does not match the api key' } });
    expect((await get(h, `${q}&accountIndex=1`, { 'x-api-key': second.apiKey })).status).toBe(403);
    expect((await get(h, `${q}&accountIndex=2`, { 'x-api-key': second.apiKey })).status).toBe(200);
  });

  it('answers 401 for an expired or revoked key; revoked keys are still listed, status DELETED', async () => {
    const h = await keyed();
    h.now.us += 8 * DAY_US;
    expect((await get(h, `/v1/apiKeys?address=${alice.address}&accountIndex=2`, { 'x-api-key': second.apiKey })).status).toBe(401);
    revokeKey(h.state.keys, second.apiKey);
    const listed = (await get(h, `/v1/apiKeys?address=${alice.address}`, { 'x-api-key': alice.apiKey })).body.apiKeys;
    expect(listed.map((k: { status: string }) => k.status)).toEqual(['ACTIVE', 'DELETED']);
    revokeKey(h.state.keys, alice.apiKey);
    expect((await get(h, `/v1/apiKeys?address=${alice.address}`, { 'x-api-key': alice.apiKey })).body).toEqual({ error: 'invalid api key' });
  });
});

describe('account ledgers (gateway/read-models/history.ts): kept by the exchange, bounded per account and kind', () => {
  // The memory store's own bound; the SQLite tables' reads are capped at the default.
  it.skipIf(SQLITE_HISTORY)('keeps the newest `ledgerEntriesPerAccount` entries (10,000 by default), dropping the oldest', async () => {
    const h = await gateway();
    expect(h.exchange.limits.ledgerEntriesPerAccount).toBe(DEFAULT_HISTORY_LIMIT);
    expect(DEFAULT_HISTORY_LIMIT).toBe(10_000);
    h.exchange.limits.ledgerEntriesPerAccount = 3;
    for (let i = 0; i < 5; i++) h.fund(alice, BigInt(i + 1));
    const rows = (await get(h, `/v1/accountTransferUpdates?address=${alice.address}`)).body.accountTransferUpdates;
    expect(rows.map((r: { amount: string }) => r.amount)).toEqual(['5.0', '4.0', '3.0']);
  });
});
