/**
 * The venue's routes that public clients call beyond the interface's table (docs/decisions.md
 * "Fidelity to the live venue"): spot reads (empty for perpsim's perps-only accounts, but
 * validated as every read), metadata candles in unix seconds, and the affiliate leaderboard and
 * revokeCode.
 */
import { describe, expect, it } from 'vitest';
import { priceToTicks, sizeToQuantums } from '../engine/index.ts';
import { gateway, scheme2Headers, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const alice = wallet(0xa1);
const bob = wallet(0xb2);
const carol = wallet(0xc3);

async function get(h: GatewayHarness, url: string): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() };
}

async function post(h: GatewayHarness, w: Wallet, action: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await h.app.inject({ method: 'POST', url: `/v1/affiliate/${action}`, payload: body, headers: scheme2Headers(h, w, action, body as never) });
  return { status: res.statusCode, body: res.json() };
}

describe('spot reads: perpsim is perpetuals only, so they are real, validated and empty', () => {
  it('GET /v1/spotAssets lists no assets', async () => {
    const h = await gateway();
    expect(await get(h, '/v1/spotAssets')).toEqual({ status: 200, body: { spotAssets: [] } });
  });

  it('GET /v1/spotPositions answers a map like the account record\'s spotPositions; the address is required and validated', async () => {
    const h = await gateway();
    expect(await get(h, `/v1/spotPositions?address=${alice.address}&accountIndex=2`)).toEqual({ status: 200, body: { spotPositions: {}, total: 0 } });
    expect((await get(h, '/v1/spotPositions')).status).toBe(400);
    expect((await get(h, '/v1/spotPositions?address=0x12')).status).toBe(400);
    expect((await get(h, `/v1/spotPositions?address=${alice.address}&accountIndex=10`)).status).toBe(400);
  });

  it('GET /v1/spotFills answers the fills reply\'s shape; bounds are validated as on every history read', async () => {
    const h = await gateway();
    const now = h.now.us;
    expect(await get(h, `/v1/spotFills?address=${alice.address}&limit=20&from=${now - 60_000_000}&to=${now}`)).toEqual({ status: 200, body: { fills: [], total: 0 } });
    expect((await get(h, `/v1/spotFills?address=${alice.address}&from=${now}&to=${now - 1}`)).status).toBe(400);
    expect((await get(h, `/v1/spotFills?address=${alice.address}&from=1700000000`)).status).toBe(400);
    expect((await get(h, '/v1/spotFills')).status).toBe(400);
  });
});

describe('GET /v1/api-meta/candles: bounds in unix seconds, from or countback required', () => {
  it('answers the candles of the window with every period, as GET /v1/candles does in µs', async () => {
    const h = await gateway();
    h.fund(alice, 100_000n);
    h.fund(bob, 100_000n);
    const spec = h.exchange.engine.markets.get(1)!.spec;
    for (const [w, side] of [[alice, 0], [bob, 1]] as const) {
      h.exchange.submit({ type: 'placeOrder', address: w.address, accountIndex: 0, marketId: 1, side, orderType: 0, tif: 0, price: priceToTicks(spec, '97000.0')!, size: sizeToQuantums(spec, '0.01')!, reduceOnly: false, goodTilTime: h.now.us + 40 * 86_400_000_000 });
    }
    h.now.us += 5 * 60_000_000;
    const toS = Math.floor(h.now.us / 1_000_000);
    const meta = await get(h, `/v1/api-meta/candles?market=BTC-USD&timeframe=1m&to=${toS}&countback=3`);
    expect(meta.status).toBe(200);
    expect(meta.body.candles).toHaveLength(3);
    const micro = await get(h, `/v1/candles?market=BTC-USD&timeframe=1m&to=${toS * 1_000_000}&countback=3`);
    expect(meta.body).toEqual(micro.body);
    expect((await get(h, `/v1/api-meta/candles?market=BTC-USD&timeframe=1m&to=${toS}&from=${toS - 600}`)).body.candles.length).toBeGreaterThan(3);
  });

  it('refuses a window without from or countback, microsecond-scale bounds, and unknown markets or timeframes', async () => {
    const h = await gateway();
    const toS = Math.floor(h.now.us / 1_000_000);
    expect(await get(h, `/v1/api-meta/candles?market=BTC-USD&timeframe=1m&to=${toS}`)).toEqual({ status: 400, body: { error: 'one of from or countback is required' } });
    expect((await get(h, `/v1/api-meta/candles?market=BTC-USD&timeframe=1m&to=${h.now.us}&countback=3`)).status).toBe(400);
    expect((await get(h, `/v1/api-meta/candles?market=NOPE-USD&timeframe=1m&to=${toS}&countback=3`)).status).toBe(400);
    expect((await get(h, `/v1/api-meta/candles?market=BTC-USD&timeframe=2m&to=${toS}&countback=3`)).status).toBe(400);
  });
});

describe('affiliate leaderboard and revokeCode', () => {
  async function program(): Promise<GatewayHarness> {
    const h = await gateway();
    for (const w of [alice, bob, carol]) {
      h.key(w);
      h.fund(w, 100_000n);
    }
    expect((await post(h, alice, 'createCode', { address: alice.address, code: 'ALICE', kickbackBps: 0 })).status).toBe(202);
    expect((await post(h, bob, 'createCode', { address: bob.address, code: 'BOB', kickbackBps: 0 })).status).toBe(202);
    expect((await post(h, carol, 'registerAffiliate', { address: carol.address, code: 'BOB' })).status).toBe(202);
    return h;
  }

  it('GET /v1/affiliate/leaderboard ranks code holders (then referees, then address) and honours limit', async () => {
    const h = await program();
    const { status, body } = await get(h, '/v1/affiliate/leaderboard');
    expect(status).toBe(200);
    expect(body.leaderboard).toEqual([
      { rank: 1, address: bob.address, code: 'BOB', refereeCount: 1, totalEarned: '0.0' },
      { rank: 2, address: alice.address, code: 'ALICE', refereeCount: 0, totalEarned: '0.0' },
    ]);
    expect((await get(h, '/v1/affiliate/leaderboard?limit=1')).body.leaderboard).toHaveLength(1);
    expect((await get(h, '/v1/affiliate/leaderboard?limit=0')).status).toBe(400);
  });

  it('POST /v1/affiliate/revokeCode retires the code for good; referees stay bound; a second revoke is 404', async () => {
    const h = await program();
    expect(await post(h, bob, 'revokeCode', { address: bob.address })).toEqual({ status: 202, body: { status: 'submitted' } });
    expect((await get(h, '/v1/affiliate/codeAvailable?code=BOB')).body).toMatchObject({ available: false });
    expect((await post(h, bob, 'revokeCode', { address: bob.address })).status).toBe(404);
    expect((await post(h, alice, 'modifyCode', { address: alice.address, code: 'BOB' })).status).toBe(409);
    expect((await get(h, '/v1/affiliate/leaderboard')).body.leaderboard[0]).toMatchObject({ address: bob.address, code: null, refereeCount: 1 });
    expect((await post(h, bob, 'createCode', { address: bob.address, code: 'BOB2', kickbackBps: 0 })).status).toBe(202);
    expect((await post(h, alice, 'revokeCode', { address: bob.address })).status).toBeGreaterThanOrEqual(400);
  });
});
