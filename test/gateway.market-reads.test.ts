import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums, type EngineEvent, type FundingRateEvent } from '../engine/index.ts';
import { barOpenTime } from '../gateway/read-models/candles.ts';
import { accountKeyOf } from '../gateway/shared/account-key.ts';
import { usd } from '../gateway/contract/format.ts';
import { ipBucketLevel } from '../gateway/rate-limit/index.ts';
import { DAY_US, gateway, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const MIN = 60_000_000;
const HOUR = 60 * MIN;

async function funded(): Promise<GatewayHarness> {
  const h = await gateway();
  h.fund(alice, 10_000_000n);
  h.fund(bob, 10_000_000n);
  return h;
}

/** Places a LIMIT order straight into the exchange (prices and sizes as decimal strings). */
function place(h: GatewayHarness, w: Wallet, side: 'BUY' | 'SELL', price: string, quantity: string, options: { marketId?: number; tif?: 0 | 2 } = {}) {
  const marketId = options.marketId ?? 1;
  const spec = h.exchange.engine.markets.get(marketId)!.spec;
  const result = h.exchange.submit({
    type: 'placeOrder',
    address: w.address,
    accountIndex: 0,
    marketId,
    side: side === 'BUY' ? 0 : 1,
    orderType: 0,
    tif: options.tif ?? 0,
    price: priceToTicks(spec, price)!,
    size: sizeToQuantums(spec, quantity)!,
    reduceOnly: false,
    goodTilTime: h.now.us + 40 * DAY_US,
  });
  if (result.kind !== 'order' || result.status === 'REJECTED') throw new Error(`order refused: ${JSON.stringify(result)}`);
  return result;
}

async function get(h: GatewayHarness, url: string) {
  const res = await h.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() };
}

const btcSeq = (h: GatewayHarness) => h.exchange.engine.markets.get(1)!.seq;

describe('GET /v1/bbo/{market}: bestBid / bestAsk {price, size}, null when no bids / asks; lastSequenceId, globalSequenceId, timestamp', () => {
  it('answers null sides for an empty book with the sequences and the clock (µs)', async () => {
    const h = await funded();
    const { status, body } = await get(h, '/v1/bbo/BTC-USD');
    expect(status).toBe(200);
    expect(body).toEqual({ bestBid: null, bestAsk: null, lastSequenceId: 0, globalSequenceId: h.exchange.engine.seq.global, timestamp: h.now.us });
  });

  it('reports the best level of each side with its summed size', async () => {
    const h = await funded();
    place(h, alice, 'BUY', '96000.0', '0.01');
    place(h, bob, 'BUY', '96000.0', '0.02');
    place(h, alice, 'BUY', '95000.0', '0.5');
    place(h, bob, 'SELL', '97500.5', '0.003');
    const { body } = await get(h, '/v1/bbo/btc-usd');
    expect(body).toMatchObject({ bestBid: { price: '96000.0', size: '0.03' }, bestAsk: { price: '97500.5', size: '0.003' }, lastSequenceId: 4 });
  });

  it('lastSequenceId is per market (the book stream sequence), globalSequenceId across all markets', async () => {
    const h = await funded();
    place(h, alice, 'BUY', '96000.0', '0.01');
    const before = (await get(h, '/v1/bbo/BTC-USD')).body;
    place(h, alice, 'BUY', '3300.00', '1', { marketId: 2 });
    const after = (await get(h, '/v1/bbo/BTC-USD')).body;
    expect(after.lastSequenceId).toBe(before.lastSequenceId);
    expect(after.lastSequenceId).toBe(btcSeq(h));
    expect(after.globalSequenceId).toBeGreaterThan(before.globalSequenceId);
    expect(after.globalSequenceId).toBe(h.exchange.engine.seq.global);
  });

  it('answers 400 for an unresolvable market', async () => {
    const h = await funded();
    expect(await get(h, '/v1/bbo/NOPE-USD')).toEqual({ status: 400, body: { error: 'unknown market: NOPE-USD' } });
  });
});

describe('GET /v1/l2OrderBook/{market}: {bids:[[px,sz]…] desc, asks asc, lastSequenceId, globalSequenceId, timestamp}; nLevels 1-100, default 20', () => {
  async function deepBook() {
    const h = await funded();
    for (let i = 0; i < 25; i++) place(h, alice, 'BUY', (96000 - i * 10).toFixed(1), '0.01');
    for (let i = 0; i < 25; i++) place(h, bob, 'SELL', (97000 + i * 10).toFixed(1), '0.01');
    place(h, bob, 'SELL', '97000.0', '0.02');
    return h;
  }

  it('returns 20 levels per side by default, bids descending and asks ascending', async () => {
    const h = await deepBook();
    const { status, body } = await get(h, '/v1/l2OrderBook/BTC-USD');
    expect(status).toBe(200);
    expect(body.bids).toHaveLength(20);
    expect(body.asks).toHaveLength(20);
    expect(body.bids.slice(0, 2)).toEqual([['96000.0', '0.01'], ['95990.0', '0.01']]);
    expect(body.asks.slice(0, 2)).toEqual([['97000.0', '0.03'], ['97010.0', '0.01']]);
    const bidPrices = body.bids.map((l: string[]) => Number(l[0]));
    expect(bidPrices).toEqual([...bidPrices].sort((a, b) => b - a));
    expect(body).toMatchObject({ lastSequenceId: btcSeq(h), globalSequenceId: h.exchange.engine.seq.global, timestamp: h.now.us });
  });

  it('honours nLevels, clamps values above 100 and refuses values below 1', async () => {
    const h = await deepBook();
    expect((await get(h, '/v1/l2OrderBook/BTC-USD?nLevels=3')).body.bids).toHaveLength(3);
    const clamped = await get(h, '/v1/l2OrderBook/BTC-USD?nLevels=500');
    expect(clamped.status).toBe(200);
    expect(clamped.body.bids).toHaveLength(25);
    expect((await get(h, '/v1/l2OrderBook/BTC-USD?nLevels=0')).status).toBe(400);
    expect((await get(h, '/v1/l2OrderBook/BTC-USD?nLevels=abc')).status).toBe(400);
  });

  it('answers empty arrays, never null, for an empty book', async () => {
    const h = await funded();
    expect((await get(h, '/v1/l2OrderBook/ETH-USD')).body).toMatchObject({ bids: [], asks: [] });
  });

  it('answers 400 for an unresolvable market', async () => {
    const h = await funded();
    expect(await get(h, '/v1/l2OrderBook/NOPE')).toEqual({ status: 400, body: { error: 'unknown market: NOPE' } });
  });
});

describe('l2OrderBook sigFigs (2-5), roundStep (1, 2 or 5, with sigFigs 5): bids round down, asks round up', () => {
  async function book() {
    const h = await funded();
    place(h, alice, 'BUY', '96123.4', '0.01');
    place(h, alice, 'BUY', '96100.0', '0.02');
    place(h, alice, 'BUY', '95999.9', '0.04');
    place(h, bob, 'SELL', '97000.1', '0.01');
    place(h, bob, 'SELL', '97050.0', '0.02');
    place(h, bob, 'SELL', '97999.9', '0.04');
    return h;
  }

  it('sigFigs 3 groups into 100-dollar buckets and sums their sizes', async () => {
    const h = await book();
    const { body } = await get(h, '/v1/l2OrderBook/BTC-USD?sigFigs=3');
    expect(body.bids).toEqual([['96100.0', '0.03'], ['95900.0', '0.04']]);
    expect(body.asks).toEqual([['97100.0', '0.03'], ['98000.0', '0.04']]);
  });

  it('sigFigs 5 with roundStep 5 groups into 5-dollar buckets', async () => {
    const h = await book();
    const { body } = await get(h, '/v1/l2OrderBook/BTC-USD?sigFigs=5&roundStep=5');
    expect(body.bids).toEqual([['96120.0', '0.01'], ['96100.0', '0.02'], ['95995.0', '0.04']]);
    expect(body.asks).toEqual([['97005.0', '0.01'], ['97050.0', '0.02'], ['98000.0', '0.04']]);
  });

  it('answers 400 for sigFigs outside 2-5, a roundStep other than 1, 2, 5, or roundStep 2/5 without sigFigs 5', async () => {
    const h = await book();
    expect(await get(h, '/v1/l2OrderBook/BTC-USD?sigFigs=6')).toEqual({ status: 400, body: { error: 'sigFigs must be an integer from 2 to 5' } });
    expect(await get(h, '/v1/l2OrderBook/BTC-USD?sigFigs=5&roundStep=3')).toEqual({ status: 400, body: { error: 'roundStep must be 1, 2 or 5' } });
    expect(await get(h, '/v1/l2OrderBook/BTC-USD?sigFigs=4&roundStep=2')).toEqual({ status: 400, body: { error: 'roundStep 2 requires sigFigs 5' } });
    expect((await get(h, '/v1/l2OrderBook/BTC-USD?roundStep=1')).status).toBe(200);
  });
});

describe('GET /v1/mids: {mids:{"BTC-USD":"…"}} ordered by ascending marketId, ONLINE markets only, "" if unavailable', () => {
  it('lists every ONLINE market by ascending id with "" while a book side is empty', async () => {
    const h = await funded();
    const { body } = await get(h, '/v1/mids');
    expect(Object.keys(body.mids)).toEqual(['BTC-USD', 'ETH-USD', 'SOL-USD', 'DOGE-USD', 'AMD-USD', 'SPX-USD', 'XAU-USD']);
    expect(Object.values(body.mids).every((m) => m === '')).toBe(true);
    place(h, alice, 'BUY', '96000.0', '0.01');
    expect((await get(h, '/v1/mids')).body.mids['BTC-USD']).toBe('');
  });

  it('is (best bid + best ask) / 2, one more decimal when the sum is odd', async () => {
    const h = await funded();
    place(h, alice, 'BUY', '96000.0', '0.01');
    place(h, bob, 'SELL', '98000.0', '0.01');
    expect((await get(h, '/v1/mids')).body.mids['BTC-USD']).toBe('97000.0');
    place(h, alice, 'BUY', '96999.9', '0.01');
    place(h, bob, 'SELL', '97000.0', '0.01');
    expect((await get(h, '/v1/mids')).body.mids['BTC-USD']).toBe('96999.95');
  });

  it('takes a market filter (name or id); an OFFLINE market gives {}, an unresolvable one 400', async () => {
    const h = await funded();
    expect((await get(h, '/v1/mids?market=eth-usd')).body.mids).toEqual({ 'ETH-USD': '' });
    expect((await get(h, '/v1/mids?market=2')).body.mids).toEqual({ 'ETH-USD': '' });
    expect((await get(h, '/v1/mids?market=F-USD')).body.mids).toEqual({});
    expect(await get(h, '/v1/mids?market=NOPE')).toEqual({ status: 400, body: { error: 'unknown market: NOPE' } });
  });
});

describe('GET /v1/prices: {"<marketId>":{marketDisplayName, oraclePrice, markPrice, sequencer}}; prices omit OFFLINE markets', () => {
  it('keys every non-OFFLINE market by id with its oracle, mark and market sequence', async () => {
    const h = await funded();
    place(h, alice, 'BUY', '96000.0', '0.01');
    const { status, body } = await get(h, '/v1/prices');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['1', '2', '3', '4', '9', '10', '12']);
    const ms = h.exchange.engine.markets.get(1)!;
    expect(body['1']).toEqual({ marketDisplayName: 'BTC-USD', oraclePrice: '97000.0', markPrice: (ms.markPrice / 10).toFixed(1), sequencer: ms.seq });
    expect(body['1'].sequencer).toBe(1);
    expect(body['4']).toMatchObject({ marketDisplayName: 'DOGE-USD', oraclePrice: '0.32000' });
  });

  it('takes a market filter; OFFLINE gives {}, unresolvable 400', async () => {
    const h = await funded();
    expect(Object.keys((await get(h, '/v1/prices?market=SOL-USD')).body)).toEqual(['3']);
    expect((await get(h, '/v1/prices?market=11')).body).toEqual({});
    expect((await get(h, '/v1/prices?market=NOPE')).status).toBe(400);
  });
});

/** Two executions in BTC (2 pairs, then 1) and one in ETH, at three clock readings. */
async function traded() {
  const h = await funded();
  const t0 = h.now.us;
  const askA = place(h, bob, 'SELL', '97000.0', '0.01');
  const askB = place(h, bob, 'SELL', '97000.5', '0.02');
  const takerA = place(h, alice, 'BUY', '97001.0', '0.03', { tif: 2 });
  const seqA = btcSeq(h);
  h.now.us += 1_000_000;
  place(h, alice, 'BUY', '96900.0', '0.05');
  const takerB = place(h, bob, 'SELL', '96900.0', '0.05', { tif: 2 });
  const seqB = btcSeq(h);
  h.now.us += 1_000_000;
  place(h, bob, 'SELL', '3400.00', '1', { marketId: 2 });
  place(h, alice, 'BUY', '3400.00', '1', { marketId: 2, tif: 2 });
  return { h, t0, askA, askB, takerA, takerB, seqA, seqB };
}

describe('GET /v1/trades: {trades:[trade]} newest first, one row per maker/taker pair', () => {
  it('prints every field of the trade record (supplement §7); rows of one execution share takerOrderId, timestamp and sequenceNumber', async () => {
    const { h, t0, askA, askB, takerA, takerB, seqA, seqB } = await traded();
    const { status, body } = await get(h, '/v1/trades?market=BTC-USD');
    expect(status).toBe(200);
    expect(body.trades).toHaveLength(3);
    const [newest, second, oldest] = body.trades;
    expect(newest).toEqual({
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      side: 'SELL',
      price: '96900.0',
      size: '0.05',
      tradeId: expect.stringMatching(/^[0-9a-f]+$/),
      timestamp: t0 + 1_000_000,
      takerOrderId: takerB.orderId.toString(16),
      takerAddress: bob.address,
      makerOrderId: expect.any(String),
      makerAddress: alice.address,
      sequenceNumber: seqB,
    });
    expect(second).toMatchObject({ side: 'BUY', price: '97000.5', size: '0.02', makerOrderId: askB.orderId.toString(16), takerOrderId: takerA.orderId.toString(16), takerAddress: alice.address, makerAddress: bob.address, timestamp: t0, sequenceNumber: seqA });
    expect(oldest).toMatchObject({ side: 'BUY', price: '97000.0', size: '0.01', makerOrderId: askA.orderId.toString(16), takerOrderId: takerA.orderId.toString(16), timestamp: t0, sequenceNumber: seqA });
    const ids = body.trades.map((t: { tradeId: string }) => Number.parseInt(t.tradeId, 16));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('uses the same tradeId as the fills of both sides', async () => {
    const { h } = await traded();
    const [newest] = (await get(h, '/v1/trades?market=1')).body.trades;
    const fills = [alice, bob].flatMap((w) => h.exchange.history.fills(accountKeyOf(w.address, 0))).filter((f) => f.tradeId.toString(16) === newest.tradeId);
    expect(fills.map((f) => f.role).sort()).toEqual(['MAKER', 'TAKER']);
  });

  it('merges every market newest first when no market is given', async () => {
    const { h } = await traded();
    const names = (await get(h, '/v1/trades')).body.trades.map((t: { marketDisplayName: string }) => t.marketDisplayName);
    expect(names).toEqual(['ETH-USD', 'BTC-USD', 'BTC-USD', 'BTC-USD']);
  });

  it('answers 400 for an unresolvable market', async () => {
    const { h } = await traded();
    expect(await get(h, '/v1/trades?market=NOPE')).toEqual({ status: 400, body: { error: 'unknown market: NOPE' } });
  });
});

describe('trades history reads: limit 1-1000 default 1000, larger values clamped', () => {
  it('returns the newest `limit` rows, clamps above 1000 and refuses below 1', async () => {
    const { h } = await traded();
    const one = (await get(h, '/v1/trades?market=BTC-USD&limit=1')).body.trades;
    expect(one).toHaveLength(1);
    expect(one[0].price).toBe('96900.0');
    const clamped = await get(h, '/v1/trades?market=BTC-USD&limit=5000');
    expect(clamped.status).toBe(200);
    expect(clamped.body.trades).toHaveLength(3);
    expect((await get(h, '/v1/trades?limit=0')).status).toBe(400);
  });
});

describe('`from` / `to` time bounds on history reads: epoch microseconds, inclusive, minimum 1e14; smaller values give 400', () => {
  it('keeps rows inside [from, to], both ends inclusive', async () => {
    const { h, t0 } = await traded();
    const prices = async (q: string) => (await get(h, `/v1/trades?market=BTC-USD&${q}`)).body.trades.map((t: { price: string }) => t.price);
    expect(await prices(`from=${t0 + 1_000_000}`)).toEqual(['96900.0']);
    expect(await prices(`to=${t0}`)).toEqual(['97000.5', '97000.0']);
    expect(await prices(`from=${t0}&to=${t0}`)).toEqual(['97000.5', '97000.0']);
  });

  it('answers 400 for second- or millisecond-scale bounds and for from after to', async () => {
    const { h, t0 } = await traded();
    expect((await get(h, `/v1/trades?from=${Math.floor(t0 / 1000)}`)).status).toBe(400);
    expect((await get(h, `/v1/trades?to=${Math.floor(t0 / 1_000_000)}`)).status).toBe(400);
    expect(await get(h, `/v1/trades?from=${t0 + 1}&to=${t0}`)).toEqual({ status: 400, body: { error: 'from must not be after to' } });
  });
});

describe('GET /v1/trade/{tradeId} (and /v1/trade?tradeId=): one trade record by its tradeId', () => {
  it('answers the same record /v1/trades lists, by path or query, with an optional market', async () => {
    const { h } = await traded();
    const row = (await get(h, '/v1/trades?market=BTC-USD')).body.trades[1];
    expect(await get(h, `/v1/trade/${row.tradeId}`)).toEqual({ status: 200, body: row });
    expect(await get(h, `/v1/trade/${row.tradeId}?market=BTC-USD`)).toEqual({ status: 200, body: row });
    expect(await get(h, `/v1/trade?tradeId=0x${row.tradeId}`)).toEqual({ status: 200, body: row });
  });

  it('answers 404 for an unknown trade or one of another market, 400 for a malformed id or market', async () => {
    const { h } = await traded();
    const row = (await get(h, '/v1/trades?market=BTC-USD')).body.trades[0];
    expect(await get(h, '/v1/trade/ffff')).toEqual({ status: 404, body: { error: 'trade not found' } });
    expect((await get(h, `/v1/trade/${row.tradeId}?market=ETH-USD`)).status).toBe(404);
    expect((await get(h, '/v1/trade/xyz')).status).toBe(400);
    expect((await get(h, '/v1/trade')).status).toBe(400);
    expect((await get(h, `/v1/trade/${row.tradeId}?market=NOPE`)).status).toBe(400);
  });
});

describe('GET /v1/candles: required `to` (seconds- or milliseconds-scale gives 400); lower bound by either `countback` or `from`, mutually exclusive; no `limit`', () => {
  it('answers 400 without `to`, with a second- or millisecond-scale `to`, or with both `from` and `countback`', async () => {
    const h = await funded();
    const base = '/v1/candles?market=BTC-USD&timeframe=1m';
    const to = h.now.us;
    expect((await get(h, `${base}&countback=10`)).status).toBe(400);
    expect((await get(h, `${base}&to=${Math.floor(to / 1000)}&countback=10`)).status).toBe(400);
    expect((await get(h, `${base}&to=${Math.floor(to / 1_000_000)}`)).status).toBe(400);
    expect(await get(h, `${base}&to=${to}&from=${to - HOUR}&countback=10`)).toEqual({ status: 400, body: { error: 'from and countback are mutually exclusive' } });
    expect((await get(h, `${base}&to=${to}&from=${Math.floor((to - HOUR) / 1000)}`)).status).toBe(400);
  });

  it('answers 400 for an unknown timeframe or market, and accepts every listed timeframe', async () => {
    const h = await funded();
    const to = h.now.us;
    expect(await get(h, `/v1/candles?market=BTC-USD&timeframe=2m&to=${to}`)).toEqual({ status: 400, body: { error: 'timeframe must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 3d, 1w' } });
    expect((await get(h, `/v1/candles?market=NOPE&timeframe=1m&to=${to}`)).status).toBe(400);
    for (const tf of ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '8h', '12h', '1d', '3d', '1w']) {
      expect(await get(h, `/v1/candles?market=BTC-USD&timeframe=${tf}&to=${to}`)).toEqual({ status: 200, body: { candles: [] } });
    }
  });
});

describe('candles are built from real trades: {candles:[candle]} newest first, window [from, to), countback ≤ 1,500', () => {
  /** Trades in three minute bars: m0 (two executions), m1, m3 (m2 is a quiet bar at m1\'s close). */
  async function minuteTrades() {
    const h = await funded();
    const m0 = barOpenTime('1m', h.now.us);
    h.now.us = m0 + 1_000_000;
    place(h, bob, 'SELL', '97000.0', '0.01');
    place(h, alice, 'BUY', '97000.0', '0.01', { tif: 2 });
    h.now.us = m0 + 20_000_000;
    place(h, alice, 'BUY', '96950.0', '0.02');
    place(h, bob, 'SELL', '96950.0', '0.02', { tif: 2 });
    h.now.us = m0 + MIN + 5_000_000;
    place(h, bob, 'SELL', '97100.0', '0.03');
    place(h, alice, 'BUY', '97100.0', '0.03', { tif: 2 });
    h.now.us = m0 + 3 * MIN + 5_000_000;
    place(h, bob, 'SELL', '97200.0', '0.04');
    place(h, alice, 'BUY', '97200.0', '0.04', { tif: 2 });
    return { h, m0 };
  }

  it('prints every field of the candle record for a closed bar; the forming bar is not final', async () => {
    const { h, m0 } = await minuteTrades();
    const { status, body } = await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}`);
    expect(status).toBe(200);
    expect(body.candles.map((c: { openTime: number }) => c.openTime)).toEqual([m0 + 3 * MIN, m0 + 2 * MIN, m0 + MIN, m0]);
    expect(body.candles[1]).toMatchObject({ open: '97100.0', high: '97100.0', low: '97100.0', close: '97100.0', tradeCount: 0, isFinal: true });
    expect(body.candles[3]).toEqual({
      marketDisplayName: 'BTC-USD',
      marketId: 1,
      timeframe: '1m',
      openTime: m0,
      open: '97000.0',
      high: '97000.0',
      low: '96950.0',
      close: '96950.0',
      volume: '0.03',
      takerBuyVolume: '0.01',
      notionalVolume: '2909.0',
      takerBuyNotionalVolume: '970.0',
      tradeCount: 2,
      isFinal: true,
    });
    expect(body.candles[0].isFinal).toBe(false);
  });

  it('countback takes the newest closed bars back from `to` (the forming bar is not closed)', async () => {
    const { h, m0 } = await minuteTrades();
    const opens = async (q: string) => (await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&${q}`)).body.candles.map((c: { openTime: number }) => (c.openTime - m0) / MIN);
    expect(await opens(`to=${h.now.us}&countback=2`)).toEqual([2, 1]);
    expect(await opens(`to=${h.now.us + 2 * MIN}&countback=2`)).toEqual([2, 1]);
    expect(await opens(`to=${m0 + 3 * MIN}&countback=1`)).toEqual([2]);
    expect(await opens(`to=${m0 + MIN}&countback=5`)).toEqual([0]);
  });

  it('`from` bounds the window [from, to): from inclusive, to exclusive', async () => {
    const { h, m0 } = await minuteTrades();
    const opens = async (q: string) => (await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&${q}`)).body.candles.map((c: { openTime: number }) => (c.openTime - m0) / MIN);
    expect(await opens(`from=${m0 + MIN}&to=${m0 + 3 * MIN}`)).toEqual([2, 1]);
    expect(await opens(`from=${m0}&to=${m0 + 3 * MIN + 1}`)).toEqual([3, 2, 1, 0]);
    expect((await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&from=${m0 + MIN}&to=${m0}`)).status).toBe(400);
  });

  it('longer timeframes aggregate the same trades; a countback above 1,500 is clamped, not refused', async () => {
    const { h } = await minuteTrades();
    const hour = (await get(h, `/v1/candles?market=BTC-USD&timeframe=1h&to=${h.now.us + HOUR}&from=${h.now.us - HOUR}`)).body.candles;
    expect(hour).toHaveLength(1);
    expect(hour[0]).toMatchObject({ open: '97000.0', high: '97200.0', low: '96950.0', close: '97200.0', volume: '0.1', tradeCount: 4, isFinal: false });
    h.now.us += HOUR;
    const closed = (await get(h, `/v1/candles?market=BTC-USD&timeframe=1h&to=${h.now.us}&countback=5000`)).body.candles;
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ volume: '0.1', tradeCount: 4, isFinal: true });
  });
});

describe('GET /v1/fundingRates: {fundingRates:[{marketId, marketDisplayName, fundingRate, time}]}, from/to in microseconds', () => {
  async function settled() {
    const h = await funded();
    const rates: FundingRateEvent[] = [];
    h.exchange.listeners.add((events: readonly EngineEvent[]) => {
      for (const e of events) if (e.type === 'fundingRate') rates.push(e);
    });
    const first = Math.floor(h.now.us / HOUR) * HOUR + HOUR;
    h.now.us = first + 1;
    h.exchange.submit({ type: 'advanceTime' });
    h.now.us = first + HOUR + 1;
    h.exchange.submit({ type: 'advanceTime' });
    return { h, first, rates };
  }

  it('lists each settled hourly rate, newest first, as a decimal string at its whole-hour time', async () => {
    const { h, first, rates } = await settled();
    const { status, body } = await get(h, '/v1/fundingRates?market=BTC-USD');
    expect(status).toBe(200);
    const btcRates = rates.filter((e) => e.marketId === 1);
    expect(btcRates).toHaveLength(2);
    expect(body.fundingRates).toEqual([
      { marketId: 1, marketDisplayName: 'BTC-USD', fundingRate: '0.0', time: first + HOUR },
      { marketId: 1, marketDisplayName: 'BTC-USD', fundingRate: '0.0000125', time: first },
    ]);
    expect(btcRates.map((e) => e.rate)).toEqual([12_500_000n, 0n]);
  });

  it('without a market lists every market that settled, newest first then by ascending marketId', async () => {
    const { h, first, rates } = await settled();
    const rows = (await get(h, '/v1/fundingRates')).body.fundingRates;
    expect(rows).toHaveLength(rates.length);
    expect(rows[0]).toMatchObject({ marketId: 1, time: first + HOUR });
    expect(rows.map((r: { time: number }) => r.time)).toEqual([...rows.map((r: { time: number }) => r.time)].sort((a, b) => b - a));
  });

  it('filters by inclusive from / to, honours limit, and answers 400 for ms-scale bounds or an unresolvable market', async () => {
    const { h, first } = await settled();
    expect((await get(h, `/v1/fundingRates?market=1&from=${first + HOUR}`)).body.fundingRates).toHaveLength(1);
    expect((await get(h, `/v1/fundingRates?market=1&to=${first}`)).body.fundingRates).toHaveLength(1);
    expect((await get(h, '/v1/fundingRates?limit=1')).body.fundingRates).toHaveLength(1);
    expect((await get(h, `/v1/fundingRates?from=${Math.floor(first / 1000)}`)).status).toBe(400);
    expect((await get(h, '/v1/fundingRates?market=NOPE')).status).toBe(400);
  });
});

describe('GET /v1/feetiers: fee tiers with makerFeePpm / takerFeePpm; fee-tier reads carry rollingVolume, lifetimeVolume, lifetimeFeesPaid', () => {
  it('lists the engine schedule by level with USD volume thresholds', async () => {
    const h = await funded();
    const { status, body } = await get(h, '/v1/feetiers');
    expect(status).toBe(200);
    const tiers = h.exchange.engine.risk.feeTiers;
    expect(body.feeTiers).toHaveLength(tiers.length);
    expect(body.feeTiers[0]).toEqual({ level: 1, name: tiers[0]!.name, minRollingVolume: '0.0', makerFeePpm: tiers[0]!.makerFeePpm, takerFeePpm: tiers[0]!.takerFeePpm });
    expect(body.feeTiers[1].minRollingVolume).toBe('5000000.0');
    expect(body.account).toBeUndefined();
  });

  it('adds the account section for ?address= with its volumes and fees paid', async () => {
    const h = await funded();
    place(h, bob, 'SELL', '97000.0', '0.01');
    place(h, alice, 'BUY', '97000.0', '0.01', { tif: 2 });
    const { body } = await get(h, `/v1/feetiers?address=${alice.address}`);
    const takerFee = h.exchange.history.fills(accountKeyOf(alice.address, 0))[0]!.fee;
    expect(body.account).toEqual({
      address: alice.address,
      accountIndex: 0,
      level: 1,
      name: h.exchange.engine.risk.feeTiers[0]!.name,
      rollingVolume: '970.0',
      lifetimeVolume: '970.0',
      lifetimeFeesPaid: usd(takerFee),
      makerFeePpm: h.exchange.engine.risk.feeTiers[0]!.makerFeePpm,
      takerFeePpm: h.exchange.engine.risk.feeTiers[0]!.takerFeePpm,
    });
    expect((await get(h, `/v1/feetiers?address=${wallet(0x33).address}&accountIndex=2`)).body.account).toMatchObject({ accountIndex: 2, level: 1, rollingVolume: '0.0' });
    expect((await get(h, '/v1/feetiers?address=0x12')).status).toBe(400);
  });
});

describe('GET /v1/compliance: geo section always present; `address` screening section only when ?address= is supplied', () => {
  it('answers an unrestricted geo section, and COMPLIANT for an address', async () => {
    const h = await funded();
    expect(await get(h, '/v1/compliance')).toEqual({ status: 200, body: { geo: { country: '', region: '', restrictions: { perpetuals: false, spot: false }, bypassed: false } } });
    expect((await get(h, `/v1/compliance?address=${alice.address}`)).body).toEqual({
      geo: { country: '', region: '', restrictions: { perpetuals: false, spot: false }, bypassed: false },
      address: { address: alice.address, status: 'COMPLIANT' },
    });
    expect((await get(h, '/v1/compliance?address=nope')).status).toBe(400);
  });
});

describe('GET /v1/api-meta/markets, /v1/api-meta/overview, /v1/api-meta/spot/overview: market metadata reads; the overview reads are keyed by base asset', () => {
  it('api-meta/markets lists metadata by ascending marketId and takes a market filter', async () => {
    const h = await funded();
    const { body } = await get(h, '/v1/api-meta/markets');
    expect(body.markets.map((m: { marketId: number }) => m.marketId)).toEqual([1, 2, 3, 4, 9, 10, 11, 12]);
    expect(body.markets[0]).toEqual({
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      baseAsset: 'BTC',
      quoteAsset: 'USD',
      fullAssetName: 'Bitcoin',
      category: 'CRYPTO',
      status: 'ONLINE',
      type: 'PERPETUAL',
      addedTimestamp: 1_735_689_600,
      regularTradingHours: null,
    });
    expect((await get(h, '/v1/api-meta/markets?market=AMD-USD')).body.markets[0]).toMatchObject({ category: 'EQUITIES', regularTradingHours: { startSecondsOfDay: 14_400, endSecondsOfDay: 72_000, timezone: 'America/New_York', isOvernight: false } });
    expect((await get(h, '/v1/api-meta/markets?market=NOPE')).status).toBe(400);
  });

  it('api-meta/overview is keyed by base asset with categories and 24h figures from real trades', async () => {
    const h = await funded();
    place(h, bob, 'SELL', '97000.0', '0.01');
    place(h, alice, 'BUY', '97000.0', '0.01', { tif: 2 });
    h.now.us += 2 * MIN;
    place(h, bob, 'SELL', '97970.0', '0.02');
    place(h, alice, 'BUY', '97970.0', '0.02', { tif: 2 });
    const { status, body } = await get(h, '/v1/api-meta/overview');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['BTC', 'ETH', 'SOL', 'DOGE', 'AMD', 'SPX', 'F', 'XAU']);
    expect(body.BTC).toMatchObject({
      baseAsset: 'BTC',
      fullAssetName: 'Bitcoin',
      category: 'CRYPTO',
      marketId: 1,
      marketDisplayName: 'BTC-USD',
      status: 'ONLINE',
      oraclePrice: '97000.0',
      lastTradePrice: '97970.0',
      priceChange24h: '0.0100',
      high24h: '97970.0',
      low24h: '97000.0',
      volume24h: '0.03',
      volume24hNotional: '2929.4',
      trades24h: 2,
      openInterest: '0.03',
    });
    expect(body.ETH).toMatchObject({ volume24h: '0.0', volume24hNotional: '0.0', trades24h: 0 });
    expect(body.ETH.high24h).toBeUndefined();
    expect(body.ETH.lastTradePrice).toBeUndefined();
    expect(body.F).toMatchObject({ status: 'OFFLINE', category: 'EQUITIES', oraclePrice: '0.00', markPrice: '0' });
  });

  it('drops trades older than 24 hours from the overview figures but keeps the last trade price', async () => {
    const h = await funded();
    place(h, bob, 'SELL', '97000.0', '0.01');
    place(h, alice, 'BUY', '97000.0', '0.01', { tif: 2 });
    h.now.us += DAY_US + MIN;
    const btc = (await get(h, '/v1/api-meta/overview')).body.BTC;
    expect(btc).toMatchObject({ lastTradePrice: '97000.0', volume24h: '0.0', trades24h: 0 });
    expect(btc.high24h).toBeUndefined();
  });

  it('api-meta/spot/overview is an empty map: perpsim lists no spot markets', async () => {
    const h = await funded();
    expect(await get(h, '/v1/api-meta/spot/overview')).toEqual({ status: 200, body: {} });
  });
});

describe('Per-IP weights by operation name: 2 for bbo, mids, feeTiers; 20 for prices, trades, candles; l2OrderBook 2 + floor(nLevels / 20)', () => {
  it('charges each read its table weight', async () => {
    const h = await funded();
    const spent = async (url: string) => {
      h.state.ipBuckets.clear();
      await get(h, url);
      const bucket = [...h.state.ipBuckets.values()][0];
      return 1500 - ipBucketLevel(bucket, h.state.nowMs(), h.state.config.rateLimit.ipBucket);
    };
    expect(await spent('/v1/bbo/BTC-USD')).toBe(2);
    expect(await spent('/v1/mids')).toBe(2);
    expect(await spent('/v1/feetiers')).toBe(2);
    expect(await spent('/v1/compliance')).toBe(2);
    expect(await spent('/v1/prices')).toBe(20);
    expect(await spent('/v1/trades')).toBe(20);
    expect(await spent(`/v1/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}`)).toBe(20);
    expect(await spent('/v1/l2OrderBook/BTC-USD?nLevels=100')).toBe(7);
    expect(await spent('/v1/api-meta/overview')).toBe(20);
  });
});
