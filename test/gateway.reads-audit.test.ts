import { describe, expect, it } from 'vitest';
import { CANDLE_TIMEFRAMES } from '../engine/index.ts';
import { barOpenTime, TIMEFRAME_US } from '../gateway/read-models/candles.ts';
import { ipBucketLevel } from '../gateway/rate-limit/index.ts';
import { DAY_US, gateway, placeOrderRequest, wallet, type GatewayHarness } from './support/gateway-fixture.ts';

const alice = wallet(0x41);
const bob = wallet(0x42);

async function traded(): Promise<GatewayHarness> {
  const h = await gateway();
  for (const w of [alice, bob]) {
    h.key(w);
    h.fund(w, 100_000n);
  }
  await h.app.inject({ method: 'POST', ...placeOrderRequest(h, bob, { side: 'SELL', quantity: '0.01', price: '97000.0' }) });
  await h.app.inject({ method: 'POST', ...placeOrderRequest(h, alice, { side: 'BUY', quantity: '0.01', price: '97000.0' }) });
  return h;
}

describe('Limits: portfolio, userPreferences, leaderboard, commissionrates, the notification routes and all affiliate endpoints weigh 20', () => {
  it('charges each of these reads 20 from the per-IP bucket', async () => {
    const h = await traded();
    const spent = async (url: string) => {
      h.state.ipBuckets.clear();
      await h.app.inject({ method: 'GET', url });
      const bucket = [...h.state.ipBuckets.values()][0];
      return 1500 - ipBucketLevel(bucket, h.state.nowMs(), h.state.config.rateLimit.ipBucket);
    };
    for (const url of [
      `/v1/portfolio?address=${alice.address}`,
      `/v1/api-meta/userPreferences?address=${alice.address}`,
      '/v1/leaderboard',
      '/v1/commissionrates',
      `/v1/api-meta/notifications?address=${alice.address}`,
      `/v1/affiliate/myReferrer?address=${alice.address}`,
      `/v1/affiliate/claims?address=${alice.address}`,
      `/v1/affiliate/claimStatus?address=${alice.address}&id=1`,
      '/v1/affiliate/codeAvailable?code=X',
      `/v1/affiliate/info?address=${alice.address}`,
    ]) {
      expect(await spent(url), url).toBe(20);
    }
  });
});

describe('candles: every timeframe of the interface (1m … 1w) is served from the same real trades', () => {
  it('answers each timeframe with one bar holding the trade (the first bar of the market); an unknown timeframe is 400', async () => {
    const h = await traded();
    const tradedAt = h.now.us;
    h.now.us += 8 * DAY_US;
    for (const tf of CANDLE_TIMEFRAMES) {
      const end = barOpenTime(tf, tradedAt) + TIMEFRAME_US[tf];
      const res = await h.app.inject({ method: 'GET', url: `/v1/candles?market=BTC-USD&timeframe=${tf}&to=${end}&countback=10` });
      expect(res.statusCode, tf).toBe(200);
      const bars = (res.json() as { candles: { volume: string; tradeCount: number; timeframe: string; isFinal: boolean }[] }).candles;
      expect(bars, tf).toHaveLength(1);
      expect(bars[0], tf).toMatchObject({ volume: '0.01', tradeCount: 1, timeframe: tf, isFinal: true });
    }
    expect((await h.app.inject({ method: 'GET', url: `/v1/candles?market=BTC-USD&timeframe=2m&to=${h.now.us}` })).statusCode).toBe(400);
  });
});

describe('GET / lists every route, the new ones included, with the colon of notifications:markSeen', () => {
  it('names the affiliate, notification, preference, leaderboard and portfolio routes', async () => {
    const h = await gateway();
    const body = (await h.app.inject({ method: 'GET', url: '/' })).json() as { endpoints: { path: string; method: string }[] };
    const paths = body.endpoints.map((e) => `${e.method} ${e.path}`);
    for (const p of [
      'POST /v1/affiliate/createCode',
      'POST /v1/affiliate/modifyCode',
      'GET /v1/affiliate/inviteCodes',
      'GET /v1/commissionrates',
      'POST /v1/api-meta/notifications/tokens',
      'POST /v1/api-meta/notifications:markSeen',
      'GET /v1/api-meta/notifications',
      'GET /v1/api-meta/userPreferences',
      'GET /v1/leaderboard',
      'GET /v1/portfolio',
    ]) {
      expect(paths).toContain(p);
    }
  });
});
