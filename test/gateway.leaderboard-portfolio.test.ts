import { beforeEach, describe, expect, it } from 'vitest';
import { priceToTicks } from '../engine/index.ts';
import { DAY_US, gateway, placeOrderRequest, wallet, type GatewayHarness, type Wallet } from './support/gateway-fixture.ts';

const x = wallet(0x31);
const y = wallet(0x32);
const z = wallet(0x33);
const HOUR_US = 3_600_000_000;

interface Row {
  rank: number;
  address: string;
  volume: string;
  feesPaid: string;
  pnl: string;
}

async function board(h: GatewayHarness, query = ''): Promise<{ leaderboard: Row[]; sortBy: string; window: string }> {
  const res = await h.app.inject({ method: 'GET', url: `/v1/leaderboard${query}` });
  expect(res.statusCode).toBe(200);
  return res.json() as { leaderboard: Row[]; sortBy: string; window: string };
}

/** `taker` takes `size` BTC on `side` from a resting order of `maker` at `price`. */
async function trade(h: GatewayHarness, maker: Wallet, taker: Wallet, side: 'BUY' | 'SELL', size: string, price: string): Promise<void> {
  const rest = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, maker, { side: side === 'BUY' ? 'SELL' : 'BUY', quantity: size, price }) });
  expect(rest.statusCode).toBe(202);
  const take = await h.app.inject({ method: 'POST', ...placeOrderRequest(h, taker, { side, quantity: size, price }) });
  expect(take.statusCode).toBe(202);
}

function oracle(h: GatewayHarness, price: string): void {
  const spec = h.exchange.engine.markets.get(1)!.spec;
  h.exchange.submit({ type: 'setOraclePrice', marketId: 1, price: priceToTicks(spec, price)! });
}

let h: GatewayHarness;
beforeEach(async () => {
  h = await gateway({ rateLimit: { enabled: false } });
  for (const w of [x, y, z]) {
    h.key(w);
    h.fund(w, 1_000_000n);
  }
});

describe('leaderboard: sortBy volume|pnl|fees (default volume), window all|30d|24h (default 30d), limit at most 100; rows carry volume, feesPaid and realized pnl', () => {
  it('ranks by volume, fees and realized PnL from real fills', async () => {
    // x buys 0.1 from y at 97,000, then sells it back to y at 98,000: x realizes +100 USD.
    await trade(h, y, x, 'BUY', '0.1', '97000.0');
    await trade(h, y, x, 'SELL', '0.1', '98000.0');
    // z trades more volume with y but realizes nothing yet.
    await trade(h, y, z, 'BUY', '0.5', '98000.0');
    const byVolume = await board(h);
    expect(byVolume).toMatchObject({ sortBy: 'volume', window: '30d' });
    expect(byVolume.leaderboard.map((r) => r.address)).toEqual([y.address, z.address, x.address]);
    expect(byVolume.leaderboard.map((r) => r.rank)).toEqual([1, 2, 3]);
    expect(byVolume.leaderboard[2]).toMatchObject({ volume: '19500.0' });
    const byPnl = await board(h, '?sortBy=pnl');
    expect(byPnl.leaderboard[0]!.address).toBe(x.address);
    const xRow = byPnl.leaderboard[0]!;
    // +100 USD of price less both taker fees (450 ppm of 9,700 and of 9,800).
    expect(Number(xRow.pnl)).toBeCloseTo(100 - 0.00045 * 9700 - 0.00045 * 9800, 6);
    expect(Number(xRow.feesPaid)).toBeCloseTo(0.00045 * 19500, 6);
    const byFees = await board(h, '?sortBy=fees');
    expect(byFees.leaderboard[0]!.address).toBe(z.address);
  });

  it('windows: 24h holds the last day, 30d the last 30 days, all everything', async () => {
    await trade(h, y, x, 'BUY', '0.1', '97000.0');
    h.now.us += 2 * DAY_US;
    await trade(h, y, z, 'BUY', '0.1', '97000.0');
    expect((await board(h, '?window=24h')).leaderboard.map((r) => r.address).sort()).toEqual([y.address, z.address].sort());
    expect((await board(h, '?window=30d')).leaderboard.length).toBe(3);
    h.now.us += 40 * DAY_US;
    oracle(h, '97000');
    expect((await board(h, '?window=30d')).leaderboard).toEqual([]);
    expect((await board(h, '?window=all')).leaderboard.length).toBe(3);
    expect((await board(h, '?window=all&sortBy=volume')).leaderboard[0]).toMatchObject({ address: y.address, volume: '19400.0' });
  });

  it('answers 400 for an unknown sortBy or window and a limit below 1; clamps a limit above 100', async () => {
    await trade(h, y, x, 'BUY', '0.1', '97000.0');
    for (const q of ['?sortBy=volumes', '?window=7d', '?limit=0']) {
      const res = await h.app.inject({ method: 'GET', url: `/v1/leaderboard${q}` });
      expect(res.statusCode, q).toBe(400);
      expect(typeof (res.json() as { error: string }).error).toBe('string');
    }
    expect((await board(h, '?limit=1')).leaderboard.length).toBe(1);
    expect((await board(h, '?limit=500')).leaderboard.length).toBe(2);
  });
});

interface Portfolio {
  address: string;
  accountIndex: number;
  generatedAt: number;
  lifetimeVolume: string;
  data: [string, { accountEquityHistory: [number, string][]; pnlHistory: [number, string][] }][];
}

async function portfolio(h: GatewayHarness, w: Wallet, accountIndex = 0): Promise<Portfolio> {
  const res = await h.app.inject({ method: 'GET', url: `/v1/portfolio?address=${w.address}&accountIndex=${accountIndex}` });
  expect(res.statusCode).toBe(200);
  return res.json() as Portfolio;
}

describe('portfolio: four ranges × total/perp series of equity history and pnl history rebased per timeframe; lifetimeVolume', () => {
  it('an account without activity has the eight series, empty, and lifetimeVolume "0"', async () => {
    const p = await portfolio(h, x, 5);
    expect(p).toMatchObject({ address: x.address, accountIndex: 5, lifetimeVolume: '0', generatedAt: h.now.us });
    expect(p.data.map(([name]) => name)).toEqual(['24h', '7d', '30d', 'allTime', 'perp24h', 'perp7d', 'perp30d', 'perpAllTime']);
    expect(p.data.every(([, s]) => s.accountEquityHistory.length === 0 && s.pnlHistory.length === 0)).toBe(true);
  });

  it('samples equity as the mark moves; pnl starts at 0 in each range; perp pnl follows the position; lifetimeVolume is the filled notional', async () => {
    await trade(h, y, x, 'BUY', '1', '97000.0');
    const start = (await portfolio(h, x)).data[0]![1];
    expect(start.pnlHistory[0]![1]).toBe('0.0');
    // Every 15 minutes for 3 hours, the oracle (and, with an empty book, the mark) rises 10 USD.
    for (let i = 1; i <= 12; i++) {
      h.now.us += 15 * 60_000_000;
      oracle(h, String(97000 + 10 * i));
    }
    const p = await portfolio(h, x);
    expect(p.lifetimeVolume).toBe('97000.0');
    const day = Object.fromEntries(p.data);
    const equity = day['24h']!.accountEquityHistory;
    expect(equity.length).toBeGreaterThanOrEqual(12);
    expect(equity.every(([t], i) => i === 0 || t > equity[i - 1]![0])).toBe(true);
    expect(equity[equity.length - 1]![0]).toBe(h.now.us);
    // The first sample is the deposit's (1,000,000 USD); the last is the account record's equity now.
    const first = Number(equity[0]![1]);
    const last = Number(equity[equity.length - 1]![1]);
    expect(first).toBe(1_000_000);
    const account = (await h.app.inject({ method: 'GET', url: `/v1/account?address=${x.address}` })).json() as { equity: string };
    expect(equity[equity.length - 1]![1]).toBe(account.equity);
    // 120 USD of mark gain less the 43.65 USD taker fee and the hourly funding paid.
    expect(last - first).toBeGreaterThan(60);
    expect(last - first).toBeLessThan(120 - 43.65);
    const pnl = day['24h']!.pnlHistory;
    expect(pnl[0]![1]).toBe('0.0');
    expect(Number(pnl[pnl.length - 1]![1])).toBeCloseTo(last - first, 6);
    const perpPnl = day['perp24h']!.pnlHistory;
    expect(perpPnl[0]![1]).toBe('0.0');
    expect(Number(perpPnl[perpPnl.length - 1]![1])).toBeCloseTo(last - first, 6);
    // The 7d series samples hourly: fewer points than the 24h one.
    expect(day['7d']!.accountEquityHistory.length).toBeLessThan(equity.length);
  });

  it('a range holds only its span: after two days the 24h series starts within the last day and is rebased there', async () => {
    await trade(h, y, x, 'BUY', '1', '97000.0');
    for (let i = 1; i <= 48; i++) {
      h.now.us += HOUR_US;
      oracle(h, String(97000 + 5 * i));
    }
    const p = Object.fromEntries((await portfolio(h, x)).data);
    const day = p['24h']!;
    expect(day.accountEquityHistory[0]![0]).toBeGreaterThanOrEqual(h.now.us - DAY_US);
    expect(day.pnlHistory[0]![1]).toBe('0.0');
    const all = p['allTime']!;
    expect(all.accountEquityHistory[0]![0]).toBeLessThan(h.now.us - DAY_US);
    expect(all.pnlHistory[0]![1]).toBe('0.0');
  });
});
