/**
 * REST replies against the live venue's captured shapes (docs/decisions.md "Fidelity to the
 * live venue"): field names and JSON types as public clients' captures show them. Fixtures are
 * written here from those facts (values of this harness, shapes of the venue), not copied.
 */
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { registerKey } from '../gateway/auth/keys.ts';
import { shapeOf } from './support/json-shape.ts';
import { DAY_US, gateway, T0_US, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const HOUR_US = 3_600_000_000;

function place(h: GatewayHarness, w: Wallet, side: 'BUY' | 'SELL', price: string, quantity: string, marketId = 1): void {
  const ms = h.exchange.engine.markets.get(marketId)!;
  const result = h.exchange.submit({
    type: 'placeOrder', address: w.address, accountIndex: 0, marketId, side: side === 'BUY' ? 0 : 1, orderType: 0, tif: 0,
    price: priceToTicks(ms.spec, price)!, size: sizeToQuantums(ms.spec, quantity)!, reduceOnly: false, goodTilTime: h.now.us + DAY_US * 30,
  });
  if (result.kind !== 'order') throw new Error(JSON.stringify(result));
}

/** Alice rests, Bob takes: one trade at `price`. */
function cross(h: GatewayHarness, price: string, quantity: string, marketId = 1): void {
  place(h, alice, 'BUY', price, quantity, marketId);
  place(h, bob, 'SELL', price, quantity, marketId);
}

async function funded(): Promise<GatewayHarness> {
  const h = await gateway();
  h.fund(alice, 1_000_000n);
  h.fund(bob, 1_000_000n);
  return h;
}

async function get(h: GatewayHarness, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, body: res.json() };
}

describe('GET /v1/apiKeys answers a keyless call as the live venue does', () => {
  it('lists the address\'s keys with 200 and no X-API-Key header', async () => {
    const h = await gateway();
    registerKey(h.state.keys, { apiKey: alice.apiKey, address: alice.address, accountIndex: 0, apiWalletName: 'bot', permissions: ['trade'], validUntil: 0, createdAt: T0_US });
    const reply = await get(h, `/v1/apiKeys?address=${alice.address}`);
    expect(reply.status).toBe(200);
    // Live row (captured): apiKey, address, allSubaccounts, accountIndex (single-subaccount keys), apiWalletName, status, validUntil ms, createdAt µs.
    expect(shapeOf(reply.body)).toEqual({
      apiKeys: [{ apiKey: 'string', address: 'string', allSubaccounts: 'boolean', accountIndex: 'integer', apiWalletName: 'string', status: 'string', permissions: ['string'], validUntil: 'integer', createdAt: 'integer' }],
    });
  });

  it('an address without keys reads an empty list; a malformed address is still 400', async () => {
    const h = await gateway();
    expect(await get(h, `/v1/apiKeys?address=${alice.address}`)).toEqual({ status: 200, body: { apiKeys: [] } });
    expect((await get(h, '/v1/apiKeys?address=0x12')).status).toBe(400);
    expect((await get(h, '/v1/apiKeys')).status).toBe(400);
  });

  it('a presented key is still checked (interface: auth key)', async () => {
    const h = await gateway();
    expect((await get(h, `/v1/apiKeys?address=${alice.address}`, { 'x-api-key': alice.apiKey })).status).toBe(401);
  });
});

describe('GET /v1/compliance has the live geo and address sections', () => {
  it('geo carries country, region, restrictions {perpetuals, spot} and bypassed', async () => {
    const h = await gateway();
    const reply = await get(h, '/v1/compliance');
    expect(reply.status).toBe(200);
    expect(shapeOf(reply.body)).toEqual({ geo: { country: 'string', region: 'string', restrictions: { perpetuals: 'boolean', spot: 'boolean' }, bypassed: 'boolean' } });
  });

  it('the address section echoes the address (lowercase) with its status, as the live capture', async () => {
    const h = await gateway();
    const mixed = '0x000000000000000000000000000000000000dEaD';
    const reply = await get(h, `/v1/compliance?address=${mixed}`);
    expect(reply.body.address).toEqual({ address: mixed.toLowerCase(), status: 'COMPLIANT' });
  });
});

/**
 * The live BTC-USD market row's fields, in order, with their JSON types (written from the
 * captured testnet/mainnet rows: docs/decisions.md "Fidelity to the live venue").
 */
const LIVE_CRYPTO_ROW = {
  marketDisplayName: 'string', fullAssetName: 'string', marketId: 'integer', status: 'string', baseAsset: 'string', quoteAsset: 'string',
  tickSize: 'string', stepSize: 'string', tickTiers: 'array', minOrderNotional: 'string', minOrderSize: 'string', maxOrderSize: 'string',
  oraclePrice: 'string', markPrice: 'string', lastTradePrice: 'string', fundingRate: 'string', nextFundingRate: 'string', nextFundingAt: 'integer',
  priceChange24h: 'string', volume24h: 'string', volume24hNotional: 'string', high24h: 'string', low24h: 'string', trades24h: 'integer',
  openInterest: 'string', openInterestCapNotional: 'null', initialMarginFraction: 'string', maintenanceMarginFraction: 'string',
  offHoursInitialMarginFraction: 'string', regularTradingHours: 'null', isOutsideRth: 'boolean', currentSettlementPrice: 'null',
  upperTradingBound: 'null', lowerTradingBound: 'null', nextUpperTradingBound: 'null', nextLowerTradingBound: 'null',
  isUpperInExpansionZone: 'null', isLowerInExpansionZone: 'null', upperZoneEnteredAt: 'null', upperExpectedExpansionAt: 'null',
  lowerZoneEnteredAt: 'null', lowerExpectedExpansionAt: 'null', type: 'string', category: 'string', addedTimestamp: 'integer',
  assetResolution: 'string', pythId: 'string',
};

const typeRow = (row: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Array.isArray(v) ? 'array' : (shapeOf(v) as string)]));

describe('GET /v1/markets rows carry the live venue\'s state fields, computed from real state', () => {
  it('a traded crypto row has every live field, in the live order, with the live JSON types', async () => {
    const h = await funded();
    cross(h, '97000.0', '0.01');
    const row = (await get(h, '/v1/markets?market=BTC-USD')).body.markets[0];
    expect(Object.keys(row)).toEqual(Object.keys(LIVE_CRYPTO_ROW));
    expect(typeRow(row)).toEqual(LIVE_CRYPTO_ROW);
  });

  it('an offline or never-traded row has no lastTradePrice/high24h/low24h and zero counters, as live', async () => {
    const h = await funded();
    const rows = (await get(h, '/v1/markets')).body.markets as Record<string, unknown>[];
    const offline = rows.find((r) => r.status === 'OFFLINE')!;
    expect(offline).toMatchObject({ fundingRate: '0', nextFundingRate: '0', priceChange24h: '0', volume24h: '0', volume24hNotional: '0', trades24h: 0, openInterestCapNotional: null });
    for (const row of rows) expect(row).not.toHaveProperty('lastTradePrice');
    for (const row of rows) expect(row).not.toHaveProperty('high24h');
    expect(rows.find((r) => r.marketDisplayName === 'BTC-USD')!.nextFundingAt).toBe(Math.floor(T0_US / HOUR_US + 1) * 3600);
  });

  it('the 24-hour fields follow the trades of the last 24 hours; lastTradePrice stays after they leave', async () => {
    const h = await funded();
    cross(h, '97000.0', '0.01');
    h.now.us += 60_000_000;
    cross(h, '98000.0', '0.02');
    h.now.us += 60_000_000;
    cross(h, '96500.5', '0.005');
    const row = async (): Promise<Record<string, unknown>> => (await get(h, '/v1/markets?market=1')).body.markets[0];
    expect(await row()).toMatchObject({
      lastTradePrice: '96500.5',
      high24h: '98000.0',
      low24h: '96500.5',
      trades24h: 3,
      volume24h: '0.04', // 0.035 rounds half up at 2 decimals, as the live venue prints volumes
      volume24hNotional: '3412.5', // 970 + 1960 + 482.5025
      priceChange24h: '-0.0051', // (96500.5 - 97000) / 97000 = -0.00515
    });
    h.now.us += DAY_US - 120_000_000; // the first trade's minute has just left the 1,440-minute window
    expect(await row()).toMatchObject({ trades24h: 2, high24h: '98000.0', volume24h: '0.03', priceChange24h: '-0.0153' }); // (96500.5 - 98000) / 98000
    h.now.us += DAY_US;
    const quiet = await row();
    expect(quiet).toMatchObject({ lastTradePrice: '96500.5', trades24h: 0, volume24h: '0', volume24hNotional: '0', priceChange24h: '0' });
    expect(quiet).not.toHaveProperty('high24h');
  });

  it('fundingRate is the last settled rate, nextFundingRate the current prediction, nextFundingAt the next settlement (unix s)', async () => {
    const h = await funded();
    h.exchange.submit({ type: 'setFundingRate', marketId: 1, rate: 12_500_000n });
    const before = (await get(h, '/v1/markets?market=1')).body.markets[0];
    expect(before).toMatchObject({ fundingRate: '0', nextFundingRate: '0.0000125' });
    const hour = Math.floor(T0_US / HOUR_US + 1) * HOUR_US;
    h.now.us = hour + 1;
    h.exchange.submit({ type: 'advanceTime' });
    const after = (await get(h, '/v1/markets?market=1')).body.markets[0];
    expect(after.fundingRate).toBe('0.0000125');
    expect(after.nextFundingAt).toBe((hour + HOUR_US) / 1_000_000);
  });
});

describe('GET /v1/candles answers a bar for every period, as the live venue', () => {
  const MIN = 60_000_000;
  const LIVE_CANDLE = {
    marketDisplayName: 'string', marketId: 'integer', timeframe: 'string', openTime: 'integer', open: 'string', high: 'string', low: 'string', close: 'string',
    volume: 'string', takerBuyVolume: 'string', notionalVolume: 'string', takerBuyNotionalVolume: 'string', tradeCount: 'integer', isFinal: 'boolean',
  };

  it('quiet minutes read zero-volume bars at the previous close; the newest bar is not final', async () => {
    const h = await funded();
    const m0 = Math.floor(h.now.us / MIN) * MIN;
    cross(h, '97000.0', '0.01');
    h.now.us = m0 + 4 * MIN + 1_000_000;
    const { body } = await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&from=${m0}&to=${m0 + 10 * MIN}`);
    expect(body.candles.map((c: { openTime: number }) => (c.openTime - m0) / MIN)).toEqual([4, 3, 2, 1, 0]);
    for (const c of body.candles) expect(shapeOf(c)).toEqual(LIVE_CANDLE);
    expect(body.candles[0]).toMatchObject({ open: '97000.0', high: '97000.0', low: '97000.0', close: '97000.0', volume: '0.0', notionalVolume: '0.0', tradeCount: 0, isFinal: false }); // perpsim's zero decimal (live prints "0": same value, same JSON type)
    expect(body.candles[1].isFinal).toBe(true);
    expect(body.candles[4]).toMatchObject({ volume: '0.01', tradeCount: 1, isFinal: true });
  });

  it('a quiet window after the last trade is full of bars; countback counts periods; no bars before the first trade', async () => {
    const h = await funded();
    const m0 = Math.floor(h.now.us / MIN) * MIN;
    cross(h, '97000.0', '0.01');
    h.now.us = m0 + 2 * MIN + 1;
    cross(h, '97100.0', '0.01');
    h.now.us = m0 + 60 * MIN + 1;
    const quiet = (await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&from=${m0 + 30 * MIN}&to=${m0 + 40 * MIN}`)).body.candles;
    expect(quiet).toHaveLength(10);
    expect(quiet.every((c: { close: string; tradeCount: number }) => c.close === '97100.0' && c.tradeCount === 0)).toBe(true);
    const back = (await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}&countback=5`)).body.candles;
    expect(back.map((c: { openTime: number }) => (c.openTime - m0) / MIN)).toEqual([59, 58, 57, 56, 55]);
    const all = (await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}&from=${m0 - 10 * MIN}`)).body.candles;
    expect(all).toHaveLength(61);
    expect(all[59]).toMatchObject({ open: '97000.0', close: '97000.0', tradeCount: 0 });
    expect(all[60].openTime).toBe(m0);
  });
});

describe('other reads against the live captures (field names and JSON types)', () => {
  it('GET /v1/time: timeNs is a JSON integer of nanoseconds, exact in the reply text', async () => {
    const h = await gateway();
    const res = await h.app.inject({ method: 'GET', url: '/v1/time' });
    expect(res.body).toBe(`{"timeNs":${h.now.us}000}`);
  });

  it('GET /v1/mids carries globalSequenceId (integer) beside the mids map', async () => {
    const h = await gateway();
    const { body } = await get(h, '/v1/mids');
    expect(shapeOf(body)).toMatchObject({ mids: { 'BTC-USD': 'string' }, globalSequenceId: 'integer' });
    expect(body.globalSequenceId).toBe(h.exchange.engine.seq.global);
  });

  it('GET /v1/feetiers adds the live `tiers` rows (snake_case, integer volume threshold in quote quantums, base level 0) to perpsim\'s feeTiers', async () => {
    const h = await gateway();
    const { body } = await get(h, '/v1/feetiers');
    expect(body.tiers).toHaveLength(body.feeTiers.length);
    for (const row of body.tiers) expect(shapeOf(row)).toEqual({ level: 'integer', name: 'string', volume_threshold: 'integer', maker_fee_ppm: 'integer', taker_fee_ppm: 'integer' });
    expect(body.tiers[0]).toMatchObject({ level: 0, volume_threshold: 0, maker_fee_ppm: body.feeTiers[0].makerFeePpm, taker_fee_ppm: body.feeTiers[0].takerFeePpm });
    expect(body.tiers[1].volume_threshold).toBe(Number(body.feeTiers[1].minRollingVolume) * 1e9);
  });

  it('the shapes that already agree stay pinned: prices, leverages, rateLimit, empty history pages, bbo, l2, account before activity', async () => {
    const h = await gateway();
    const a = alice.address;
    expect(shapeOf((await get(h, '/v1/prices')).body['1'])).toEqual({ marketDisplayName: 'string', oraclePrice: 'string', markPrice: 'string', sequencer: 'integer' });
    expect(shapeOf((await get(h, `/v1/leverages?address=${a}`)).body)).toMatchObject({ address: 'string', accountIndex: 'integer' });
    expect(shapeOf((await get(h, `/v1/leverages?address=${a}`)).body.leverages[0])).toEqual({ marketId: 'integer', marketDisplayName: 'string', leverage: 'integer', isolated: 'boolean', marginMode: 'string' });
    expect(shapeOf((await get(h, `/v1/rateLimit?address=${a}`)).body)).toEqual({ address: 'string', accountIndex: 'integer', order: { used: 'integer', cap: 'integer', nextAvailableMs: 'integer' }, cancel: { used: 'integer', cap: 'integer', nextAvailableMs: 'integer' } });
    expect((await get(h, `/v1/fills?address=${a}`)).body).toEqual({ fills: [], total: 0 });
    expect((await get(h, `/v1/funding?address=${a}`)).body).toEqual({ fundingPayments: [], total: 0 });
    expect((await get(h, `/v1/openOrders?address=${a}`)).body).toEqual({ orders: [], total: 0 });
    expect((await get(h, `/v1/positions?address=${a}`)).body).toEqual({ positions: {}, total: 0 });
    expect(await get(h, `/v1/account?address=${a}`)).toEqual({ status: 404, body: { error: 'this account has no activity yet' } });
    h.fund(alice, 100_000n);
    h.fund(bob, 100_000n);
    place(h, alice, 'BUY', '96999.0', '0.01');
    place(h, bob, 'SELL', '97001.0', '0.01');
    const bbo = { bestBid: { price: 'string', size: 'string' }, bestAsk: { price: 'string', size: 'string' }, lastSequenceId: 'integer', globalSequenceId: 'integer', timestamp: 'integer' };
    expect(shapeOf((await get(h, '/v1/bbo/BTC-USD')).body)).toEqual(bbo);
    expect(shapeOf((await get(h, '/v1/l2OrderBook/BTC-USD?nLevels=2')).body)).toEqual({ bids: [['string', 'string']], asks: [['string', 'string']], lastSequenceId: 'integer', globalSequenceId: 'integer', timestamp: 'integer' });
  });
});
