import { describe, expect, it } from 'vitest';
import { Backtest } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { sampleReturns, significant, TradeLedger } from '../sim/backtest/metrics.ts';
import { cents } from '../sim/backtest/report.ts';
import { T0 } from './support/backtest-data.ts';

const S = 1_000_000;
const DAY = 86_400 * S;

describe('trade metrics come from the fills matched first-in first-out', () => {
  it('counts each closing fill as a trade net of both fees, weights holding time by size, and measures exposure exactly', () => {
    const ledger = new TradeLedger();
    // Buy 2 at t=0 (fee 2), sell 1 at t=10 s (realized +5, fee 1): pnl 5 - 1 - 1 = +3, held 10 s.
    ledger.fill(0, 1, 0, 2, 2, 0);
    ledger.fill(10 * S, 1, 1, 1, 1, 5);
    // Sell 3 at t=30 s: closes the last 1 (realized -4, fee share 1, opening 1: -6, held 30 s) and opens short 2.
    ledger.fill(30 * S, 1, 1, 3, 3, -4);
    // Buy 2 at t=40 s closes the short (realized 0.5, fee 2, opening share 2: -3.5, held 10 s); flat from 40 s.
    ledger.fill(40 * S, 1, 0, 2, 2, 0.5);
    const m = ledger.metrics(0, 100 * S, { intervalUs: 60 * S, values: [] }, 0.1, 100, 100);
    expect(m.trades).toBe(3);
    expect(m.winRate).toBe(significant(1 / 3));
    expect(m.profitFactor).toBe(significant(3 / 9.5));
    expect(m.avgHoldingSec).toBe(significant((1 * 10 + 1 * 30 + 2 * 10) / 4));
    expect(m.exposurePct).toBe(40);
    expect(m.sharpe).toBeNull();
    expect(m.unavailable.sharpe).toMatch(/at least 24 h/);
  });

  it('says why when there is no trade or no losing trade, and counts a position held to the end as exposure', () => {
    const none = new TradeLedger().metrics(0, DAY, { intervalUs: 60 * S, values: [] }, 0, 100, 100);
    expect([none.winRate, none.profitFactor, none.avgHoldingSec, none.exposurePct]).toEqual([null, null, null, 0]);
    expect(none.unavailable).toMatchObject({ winRate: 'no closed trade', profitFactor: 'no closed trade', avgHoldingSec: 'no closed position' });
    const held = new TradeLedger();
    held.fill(0, 1, 0, 1, 0, 0);
    held.fill(S, 1, 1, 1, 0, 2);
    held.fill(50 * S, 2, 1, 1, 0, 0);
    const m = held.metrics(0, 100 * S, { intervalUs: 60 * S, values: [] }, 0, 100, 100);
    expect(m.winRate).toBe(1);
    expect(m.profitFactor).toBeNull();
    expect(m.unavailable.profitFactor).toBe('no losing trade');
    expect(m.exposurePct).toBe(51);
  });

  it('annualizes Sharpe and Sortino from full sampling intervals once the run spans a day', () => {
    const samples = Array.from({ length: 1441 }, (_, i) => ({ time: i * 60 * S, equity: 100 + (i % 2 === 0 ? 0 : 1) + i * 0.001 }));
    const returns = sampleReturns([...samples, { time: 1441 * 60 * S - 1, equity: 1 }], 60 * S);
    expect(returns.values.length).toBe(1440);
    const m = new TradeLedger().metrics(0, DAY, returns, 0.01, 100, 101);
    const r = returns.values;
    const mean = r.reduce((a, b) => a + b, 0) / r.length;
    const std = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1));
    expect(m.sharpe).toBe(significant((mean / std) * Math.sqrt(365 * 1440)));
    expect(m.sortino).not.toBeNull();
    expect(m.calmar).toBe(significant((1.01 ** 365 - 1) / 0.01));
  });
});

describe('the summary of a short run shows no annualized ratio, with the reason', () => {
  it('a one-hour market maker on the simulator: Sharpe, Sortino and Calmar are null; the trade metrics are numbers', async () => {
    const result = await new Backtest({ data: 'sim', seed: 7 }, marketMaker()).run();
    const s = result.summary;
    expect(s.fills.total).toBeGreaterThan(0);
    expect([s.sharpe, s.sortino, s.calmar]).toEqual([null, null, null]);
    expect(s.unavailable.sharpe).toBe('run of 1 h: annualized ratios need at least 24 h');
    expect(s.returns).toEqual({ intervalMs: 60_000, count: 60 });
    expect(s.trades).toBeGreaterThan(0);
    expect(s.winRate).toBeGreaterThanOrEqual(0);
    expect(s.winRate).toBeLessThanOrEqual(1);
    expect(s.avgHoldingSec).toBeGreaterThan(0);
    expect(s.exposurePct).toBeGreaterThan(0);
    expect(s.exposurePct).toBeLessThanOrEqual(100);
    // The report shows money to the cent and says why a ratio is missing.
    const html = result.reportHtml();
    expect(html).toContain(`<th>PnL total</th><td>${cents(s.pnl.total)}</td>`);
    expect(cents(s.pnl.total)).toMatch(/^-?\d+\.\d\d$/);
    expect(html).toContain('<th>Sharpe</th><td>n/a (run of 1 h: annualized ratios need at least 24 h)</td>');
  });

  it('a two-day run has an annualized Sharpe', async () => {
    const result = await new Backtest({ data: 'sim', seed: 3, markets: ['BTC-USD'], to: T0 + 2 * DAY, sampleMs: 3_600_000, sim: { feedMs: 60_000 } }, marketMaker({ requoteMs: 60_000 })).run();
    expect(result.summary.returns.count).toBe(48);
    expect(typeof result.summary.sharpe).toBe('number');
    expect(result.summary.unavailable.sharpe).toBeUndefined();
  });
});

describe('report.html gives every traded market its own price-and-fills chart', () => {
  it('five traded markets, five price charts with their fills', async () => {
    const { renderReport } = await import('../sim/backtest/report.ts');
    const { compileMarket } = await import('../engine/index.ts');
    const { defaultMarkets } = await import('../sim/markets.ts');
    const specs = defaultMarkets().slice(0, 5).map((d) => compileMarket(d));
    const result = await new Backtest({ data: 'sim', seed: 7, to: T0 + 60 * S }, marketMaker()).run();
    const fills = specs.map((spec, i) => ({ time: T0 + i * S, marketId: spec.id, side: 'BUY' as const, price: 100 + i, size: 1, role: 'TAKER' }));
    const html = renderReport(result.summary, result.samples, fills, specs);
    for (const [i, spec] of specs.entries()) expect(html).toContain(`<h2>${spec.displayName} price and fills</h2><div class="chart" id="price-${i}">`);
  });
});
