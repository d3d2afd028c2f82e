/**
 * The SDK's REST surface against an in-process perpsim: every operation family through its typed
 * method, refusals as typed errors, and the optional 429 retry.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ApiKey, Client, type Order, type OrderAck } from '../client/index.ts';
import { fundingRateString } from '../gateway/read-models/funding-rates-store.ts';
import { marketsById } from '../gateway/read-models/markets.ts';
import { startServer, type Server } from '../sim/server.ts';

let server: Server;
const wallet = privateKeyToAccount(generatePrivateKey());
const address = wallet.address.toLowerCase();
const other = '0x' + 'c1'.repeat(20);
let trader: Client;
let counterparty: Client;
/** A GTT bid that rests on ETH-USD, and the trade of a crossed pair on BTC-USD. */
let resting: Order;
let tradeId: string;

beforeAll(async () => {
  server = await startServer({ port: 0, agents: false });
  const key = await ApiKey.generate();
  trader = new Client({ baseUrl: server.url, address, key });
  // Withdraw by API key needs the withdraw permission, which only the operator grants.
  await trader.sim.registerApiKey(address, key.publicKey, { permissions: ['trade', 'withdraw'] });
  await trader.sim.deposit(address, '100000');
  const otherKey = await ApiKey.generate();
  counterparty = new Client({ baseUrl: server.url, address: other, key: otherKey });
  await counterparty.sim.registerApiKey(other, otherKey.publicKey);
  await counterparty.sim.deposit(other, '100000');

  const ack = await trader.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5', clientId: 'rest-bid-1' });
  resting = await trader.order(ack.orderId);
  // The counterparty's ask makes ETH-USD two-sided, so its mid is a number: (3300.00 + 3500.01) / 2.
  await counterparty.placeOrder({ market: 'ETH-USD', side: 'SELL', price: '3500.01', quantity: '0.2' });
  await counterparty.placeOrder({ market: 'BTC-USD', side: 'SELL', price: '97000.0', quantity: '0.01' });
  await trader.placeOrder({ market: 'BTC-USD', side: 'BUY', price: '97000.0', quantity: '0.01', timeInForce: 'IOC' });
  tradeId = (await trader.fills()).fills[0]!.tradeId;
});

afterAll(async () => {
  await server.close();
});

/** [marketId, display name, status] of the server's markets, by ascending id. */
function serverMarkets(): [number, string, string][] {
  return marketsById(server.exchange).map((ms) => [ms.spec.id, ms.spec.displayName, ms.spec.status]);
}

/** The rates `on` has settled for a market, newest first, as GET /v1/fundingRates rows. */
function settledRates(on: Server, marketId: number): { marketId: number; marketDisplayName: string; fundingRate: string; time: number }[] {
  const rows = on.state.fundingRates.byMarket.get(marketId) ?? [];
  const name = on.exchange.engine.markets.get(marketId)!.spec.displayName;
  return rows.map((e) => ({ marketId, marketDisplayName: name, fundingRate: fundingRateString(e.rate), time: e.time })).reverse();
}

type Row = [name: string, call: () => Promise<unknown>, check: (reply: any) => void];

describe('REST: a typed method per read operation, decimal strings out', () => {
  const rows: Row[] = [
    ['serviceInfo GET /', () => trader.serviceInfo(), (r) => expect(r).toMatchObject({ service: 'api-gateway', status: 'running' })],
    ['health', () => trader.health(), (r) => expect(r).toEqual({ status: 'ok' })],
    ['time', () => trader.time(), (r) => {
      expect(Number.isInteger(r.timeNs) && r.timeNs > 1e18).toBe(true);
      // The server's clock in µs, read just after the reply: not before it, and within a few seconds.
      expect(server.exchange.clock() - Math.floor(r.timeNs / 1000)).toBeGreaterThanOrEqual(-1);
      expect(server.exchange.clock() - Math.floor(r.timeNs / 1000)).toBeLessThan(5_000_000);
    }],
    ['markets', () => trader.markets(), (r) => expect(r.markets.find((m: { marketDisplayName: string }) => m.marketDisplayName === 'ETH-USD')).toMatchObject({ tickSize: '0.01', stepSize: '0.0000001' })],
    ['markets filtered', () => trader.markets({ market: 'BTC-USD' }), (r) => expect(r.markets.map((m: { marketId: number }) => m.marketId)).toEqual([1])],
    ['bbo', () => trader.bbo('ETH-USD'), (r) => expect(r).toMatchObject({ bestBid: { price: '3300.00', size: '0.5' }, bestAsk: { price: '3500.01', size: '0.2' } })],
    ['l2OrderBook', () => trader.l2OrderBook('ETH-USD', { nLevels: 5 }), (r) => expect(r).toMatchObject({ bids: [['3300.00', '0.5']], asks: [['3500.01', '0.2']] })],
    // Only ETH-USD has both sides; an odd sum of ticks prints one more digit; a one-sided or empty book prints "".
    ['mids', () => trader.mids(), (r) => expect(r.mids).toEqual(Object.fromEntries(serverMarkets().filter(([, , status]) => status === 'ONLINE').map(([, name]) => [name, name === 'ETH-USD' ? '3400.005' : ''])))],
    ['prices', () => trader.prices({ market: 'ETH-USD' }), (r) => expect(r['2']).toMatchObject({ marketDisplayName: 'ETH-USD', oraclePrice: '3400.00' })],
    ['trades', () => trader.trades({ market: 'BTC-USD' }), (r) => expect(r.trades[0]).toMatchObject({ tradeId, price: '97000.0', size: '0.01' })],
    ['trade', () => trader.trade(tradeId), (r) => expect(r).toMatchObject({ tradeId, marketDisplayName: 'BTC-USD', side: 'BUY', price: '97000.0', size: '0.01', takerAddress: address, makerAddress: other })],
    ['candles', () => trader.candles({ market: 'BTC-USD', timeframe: '1m', to: Number(BigInt(Date.now()) * 1000n) + 60_000_000, from: Number(BigInt(Date.now()) * 1000n) - 600_000_000 }), (r) => expect(r.candles[0]).toMatchObject({ close: '97000.0' })],
    // The server's store of settled rates (filled by its own test below on a virtual clock).
    ['fundingRates', () => trader.fundingRates({ market: 'ETH-USD' }), (r) => expect(r.fundingRates).toEqual(settledRates(server, 2))],
    ['feeTiers', () => trader.feeTiers(), (r) => expect(r.feeTiers).toEqual(server.exchange.engine.risk.feeTiers.map((t, i) => ({ level: i + 1, name: t.name, minRollingVolume: expect.any(String), makerFeePpm: t.makerFeePpm, takerFeePpm: t.takerFeePpm })))],
    // Loopback has no country and the server blocks none; the address is not screened out.
    ['compliance', () => trader.compliance({ address }), (r) => expect(r).toEqual({ geo: { country: '', region: '', restrictions: { perpetuals: false, spot: false }, bypassed: false }, address: { address: address.toLowerCase(), status: 'COMPLIANT' } })],
    ['apiMetaMarkets', () => trader.apiMetaMarkets(), (r) => expect(r.markets.map((m: { marketId: number; marketDisplayName: string; status: string }) => [m.marketId, m.marketDisplayName, m.status])).toEqual(serverMarkets())],
    ['apiMetaOverview', () => trader.apiMetaOverview(), (r) => expect(r.BTC).toMatchObject({ marketId: 1, marketDisplayName: 'BTC-USD', lastTradePrice: '97000.0', volume24h: '0.01', volume24hNotional: '970.0', trades24h: 1, openInterest: '0.01' })],
    ['apiMetaSpotOverview', () => trader.apiMetaSpotOverview(), (r) => expect(r).toEqual({})],
    ['account', () => trader.account(), (r) => expect(r).toMatchObject({ address, accountIndex: 0 })],
    ['positions', () => trader.positions(), (r) => expect(r.positions['1']).toMatchObject({ side: 'LONG', size: '0.01' })],
    ['leverages', () => trader.leverages({ market: 'ETH-USD' }), (r) => expect(r.leverages[0]).toMatchObject({ marketId: 2, leverage: 25 })],
    // One taker fill: 0.01 × 97000 = 970 USD of volume at the tier-1 taker fee, 450 ppm = 0.4365 USD.
    ['accountStats', () => trader.accountStats(), (r) => expect(r).toMatchObject({ address, accountIndex: 0, rollingVolume: '970.0', lifetimeVolume: '970.0', lifetimeFeesPaid: '0.4365', feeTier: 'Tier 1', takerFeePpm: 450 })],
    ['openOrders', () => trader.openOrders({ market: 'ETH-USD' }), (r) => expect(r.orders.map((o: Order) => o.orderId)).toEqual([resting.orderId])],
    ['orders', () => trader.orders({ status: 'FILLED' }), (r) => expect(r.orders[0]).toMatchObject({ marketDisplayName: 'BTC-USD', status: 'FILLED' })],
    ['order', () => trader.order(resting.orderId), (r) => expect(r).toMatchObject({ orderId: resting.orderId, clientId: 'rest-bid-1', side: 'BUY', price: '3300.00' })],
    ['fills', () => trader.fills({ role: 'TAKER' }), (r) => expect(r.fills[0]).toMatchObject({ tradeId, role: 'TAKER', size: '0.01' })],
    ['fill', () => trader.fill(tradeId), (r) => expect(r).toMatchObject({ tradeId, marketDisplayName: 'BTC-USD', side: 'BUY', price: '97000.0', size: '0.01', fee: '0.4365', role: 'TAKER', positionEffect: 'OPEN_LONG' })],
    ['funding', () => trader.funding(), (r) => expect(r.fundingPayments).toEqual([])],
    ['interest', () => trader.interest(), (r) => expect(r.interestPayments).toEqual([])],
    ['accountTransferUpdates', () => trader.accountTransferUpdates(), (r) => expect(r.accountTransferUpdates).toMatchObject([{ type: 'DEPOSIT', status: 'COMPLETED', amount: '100000.0', address, accountIndex: 0 }])],
    // Two orders placed; the cap is the starting 20,000 plus one per 0.10 USD of the 970 USD traded.
    ['rateLimit', () => trader.rateLimit(), (r) => expect(r).toEqual({ address, accountIndex: 0, order: { used: 2, cap: 29_700, nextAvailableMs: 0 }, cancel: { used: 0, cap: 49_700, nextAvailableMs: 0 } })],
    ['apiKeys', () => trader.apiKeys(), (r) => expect(r.apiKeys[0]).toMatchObject({ apiKey: trader.key!.publicKey, status: 'ACTIVE' })],
  ];
  it.each(rows)('%s', async (_name, call, check) => {
    check(await call());
  });
});

describe('REST: fundingRates reads the rates the server settled', () => {
  it('a rate fixed for the hour reads back once the hour settles', async () => {
    const virtual = await startServer({ port: 0, agents: false, clock: 'virtual' });
    try {
      const client = new Client({ baseUrl: virtual.url });
      expect((await client.fundingRates({ market: 'ETH-USD' })).fundingRates).toEqual([]);
      await client.sim.setFunding('ETH-USD', '0.0000125');
      await client.sim.advanceClock(3_600_000);
      const { fundingRates } = await client.fundingRates({ market: 'ETH-USD' });
      expect(fundingRates).toEqual(settledRates(virtual, 2));
      expect(fundingRates[0]).toMatchObject({ marketId: 2, marketDisplayName: 'ETH-USD', fundingRate: '0.0000125' });
      expect(fundingRates[0]!.time % 3_600_000_000).toBe(0);
    } finally {
      await virtual.close();
    }
  });
});

describe('REST: every write returns its orderId / status', () => {
  it('placeOrder, modifyOrder (in place and cancel-replace), cancelOrder by orderId and by clientId', async () => {
    const ack = await trader.placeOrder({ market: 'SOL-USD', side: 'SELL', price: '200.000', quantity: '1', clientId: 'sol-ask' });
    expect(ack).toMatchObject({ status: 'ACK', marketDisplayName: 'SOL-USD', clientId: 'sol-ask' });
    expect(ack.orderId).toMatch(/^[0-9a-f]+$/);
    const order = await trader.order(ack.orderId);
    const modified = await trader.modifyOrder(order, { price: '201.000', quantity: '2' });
    expect(modified).toMatchObject({ orderId: ack.orderId, status: 'ACK' });
    expect(await trader.order(ack.orderId)).toMatchObject({ price: '201.000', originalSize: '2.0' });
    const later = String(BigInt(order.goodTilTime!) + 86_400_000_000n);
    expect(await trader.modifyOrder(await trader.order(ack.orderId), { price: '202.000', quantity: '2', goodTilTime: later })).toMatchObject({ status: 'ACK' });
    expect(await trader.order(ack.orderId)).toMatchObject({ price: '202.000', goodTilTime: later });
    expect(await trader.cancelOrder({ market: 'SOL-USD', clientId: 'sol-ask' })).toMatchObject({ status: 'CANCEL_ACKNOWLEDGED', orderId: ack.orderId });
    const second = await trader.placeOrder({ market: 'SOL-USD', side: 'SELL', price: '200.000', quantity: '1' });
    expect(await trader.cancelOrder({ market: 'SOL-USD', orderId: second.orderId })).toMatchObject({ status: 'CANCEL_ACKNOWLEDGED' });
    expect((await trader.order(second.orderId)).status).toBe('CANCELED');
  });

  it('batchPlaceOrders, batchModifyOrders, batchCancelOrders: one row per element', async () => {
    const placed = await trader.batchPlaceOrders([
      { market: 'DOGE-USD', side: 'BUY', price: '0.30000', quantity: '100' },
      { market: 'DOGE-USD', side: 'BUY', price: '0.29000', quantity: '100', clientId: 'doge-2' },
    ]);
    expect(placed.responses.map((r) => r.status)).toEqual(['ACK', 'ACK']);
    const orders = await Promise.all(placed.responses.map((r) => trader.order(r.orderId)));
    const modified = await trader.batchModifyOrders(orders.map((target) => ({ target, change: { price: '0.28000', quantity: '200' } })));
    expect(modified.responses.map((r) => r.status)).toEqual(['ACK', 'ACK']);
    expect((await trader.openOrders({ market: 'DOGE-USD' })).orders.map((o) => o.price)).toEqual(['0.28000', '0.28000']);
    const canceled = await trader.batchCancelOrders([
      { market: 'DOGE-USD', orderId: placed.responses[0]!.orderId },
      { market: 'DOGE-USD', clientId: 'doge-2' },
    ]);
    expect(canceled.responses.map((r) => r.status)).toEqual(['CANCEL_ACKNOWLEDGED', 'CANCEL_ACKNOWLEDGED']);
    expect((await trader.openOrders({ market: 'DOGE-USD' })).total).toBe(0);
  });

  it('cancelAllOrders and scheduleCancel (Scheme 2)', async () => {
    await trader.placeOrder({ market: 'XAU-USD', side: 'BUY', price: '2600.00', quantity: '0.1' });
    expect(await trader.cancelAllOrders({ market: 'XAU-USD' })).toMatchObject({ status: 'CANCEL_ALL_ACKNOWLEDGED', marketDisplayName: 'XAU-USD' });
    expect((await trader.openOrders({ market: 'XAU-USD' })).total).toBe(0);
    const now = Number((await trader.sim.clock()).timeUs);
    expect(await trader.scheduleCancel({ time: now + 60_000_000 })).toMatchObject({ status: 'scheduled', time: now + 60_000_000 });
    expect(await trader.scheduleCancel({})).toMatchObject({ status: 'disarmed' });
  });

  it('setLeverage and adjustIsolatedMargin (Scheme 2)', async () => {
    expect(await trader.setLeverage({ market: 'SPX-USD', leverage: 5, isolated: true })).toMatchObject({ status: 'APPLIED', leverage: 5, marginMode: 'ISOLATED' });
    await counterparty.placeOrder({ market: 'SPX-USD', side: 'SELL', price: '6000.00', quantity: '0.1' });
    await trader.placeOrder({ market: 'SPX-USD', side: 'BUY', price: '6000.00', quantity: '0.1', timeInForce: 'IOC' });
    expect(await trader.adjustIsolatedMargin({ market: 'SPX-USD', amount: '25.5' })).toMatchObject({ status: 'APPLIED', amount: '25.5' });
    const refused = await trader.setLeverage({ market: 'SPX-USD', leverage: 500 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 400 });
  });

  it('withdraw by API key and by wallet signature, transfer by wallet signature', async () => {
    expect(await trader.withdraw({ amount: '10' })).toMatchObject({ status: 'PENDING', amount: '10000000000', ethereumAddress: address });
    expect(await trader.withdraw({ amount: '5.5', wallet })).toMatchObject({ status: 'PENDING', amount: '5500000000' });
    expect(await trader.transfer(wallet, { fromAccountIndex: 0, toAccountIndex: 3, amount: '100' })).toMatchObject({ status: 'PENDING', amount: '100000000000' });
    expect((await trader.account({ accountIndex: 3 })).netQuoteBalance).toBe('100.0');
  });
});

describe('REST: typed errors carry status, errorType, rejectionReason and retryAfterMs', () => {
  it('an order the engine rejects throws ApiError with its rejectionReason and orderId', async () => {
    await trader.placeOrder({ market: 'AMD-USD', side: 'SELL', price: '130.00', quantity: '1', clientId: 'amd-ask' });
    const error = (await trader.placeOrder({ market: 'AMD-USD', side: 'BUY', price: '130.00', quantity: '1', timeInForce: 'ALO' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, rejectionReason: 'POST_ONLY_WOULD_CROSS' });
    expect(error.orderId).toMatch(/^[0-9a-f]+$/);
    expect((error.body as OrderAck).status).toBe('REJECTED');
  });

  it('a validation refusal throws ApiError with errorType', async () => {
    const error = await trader.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '0.01', quantity: '0.0000001' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, errorSource: 'Order', errorType: 'InvalidRequest' });
  });

  it('a price off the tick is refused before signing (it has no Scheme 1 form)', async () => {
    await expect(trader.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.001', quantity: '0.5' })).rejects.toThrow(RangeError);
  });

  it('a signature by a key the venue does not know throws 401', async () => {
    const stranger = new Client({ baseUrl: server.url, address, key: await ApiKey.generate() });
    await expect(stranger.cancelAllOrders()).rejects.toMatchObject({ status: 401 });
  });
});

describe('REST: optional retry on 429 honours Retry-After', () => {
  it('reads past the per-IP weight bucket are refused 429 with retryAfterMs, and retried after Retry-After seconds', async () => {
    // A server of its own: this test spends its IP bucket (1,500 weight, 25/s; markets weighs 20).
    const limited = await startServer({ port: 0, agents: false });
    try {
      const bare = new Client({ baseUrl: limited.url });
      let refusal: unknown;
      for (let i = 0; i < 200 && refusal === undefined; i++) refusal = await bare.markets().then(() => undefined, (e: unknown) => e);
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({ status: 429, reason: 'ip' });
      expect((refusal as ApiError).retryAfterMs).toBeGreaterThan(0);

      const delays: number[] = [];
      const patient = new Client({
        baseUrl: limited.url,
        retry: { attempts: 5 },
        sleep: (ms) => {
          delays.push(ms);
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
      const reply = await patient.markets();
      expect(reply.markets.length).toBeGreaterThan(0);
      expect(delays.length).toBeGreaterThan(0);
      // Retry-After is whole seconds: every wait is a whole number of seconds, at least one.
      for (const ms of delays) expect(ms % 1000 === 0 && ms >= 1000).toBe(true);
    } finally {
      await limited.close();
    }
  });
});
