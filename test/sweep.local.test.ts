import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Backtest } from '../index.ts';
import marketMakerFactory from '../examples/market-maker.ts';
import { expand, SweepUsageError } from '../sim/sweep/grid.ts';
import { T0 } from './support/backtest-data.ts';
import { withOfflinePage } from './support/offline-page.ts';
import { perpsim, SHORT_SIM } from './support/sweep-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-sweep-'));

interface SweepDoc {
  parameters: string[];
  runs: { run: number; key: string; params: Record<string, number>; seed: number; status: string; metrics: Record<string, unknown> }[];
}

describe('perpsim sweep on local worker threads', { timeout: 240_000 }, () => {
  it('runs every grid point, writes sweep.json, sweep.csv and each run\'s summary.json, and reuses finished runs when repeated', async () => {
    const out = join(dir, 'grid');
    const grid = join(dir, 'grid.json');
    writeFileSync(grid, JSON.stringify({ spreadBps: [2, 6], size: { min: 0.01, max: 0.02, step: 0.01 } }));
    const first = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--grid', grid, '--workers', '2', '--out', out]);
    expect(first.stderr).toMatch(/sweep runs=4\/4 runsPerSec=[\d.]+ eta=\d+s best=pnl -?\d+\.\d\d \(spreadBps=\d size=0\.0\d\) done/);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('4 runs, 0 failed');
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepDoc;
    expect(doc.parameters).toEqual(['spreadBps', 'size']);
    expect(doc.runs.map((r) => r.params)).toEqual([
      { spreadBps: 2, size: 0.01 },
      { spreadBps: 2, size: 0.02 },
      { spreadBps: 6, size: 0.01 },
      { spreadBps: 6, size: 0.02 },
    ]);
    expect(new Set(doc.runs.map((r) => r.key)).size).toBe(4);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^run,key,spreadBps,size,seed,status,pnl,realized,unrealized,fees,funding,interest,finalEquity,maxDrawdown,maxDrawdownPct,sharpe,sortino,calmar,winRate,profitFactor,avgHoldingSec,exposurePct,turnover,tradedNotional,trades,fills,rejections,error$/);
    expect(csv).toHaveLength(5);

    // Each run is the backtest of its point: the same summary bytes as an in-process run.
    const third = doc.runs[2]!;
    const direct = await new Backtest({ data: 'sim', markets: ['BTC-USD'], to: T0 + 5 * 60_000_000, sampleMs: 10_000, queueModel: 'conservative', seed: 1, params: { market: 'BTC-USD', spreadBps: 6, size: 0.01, maxPosition: 0.1, requoteMs: 5000, moveBps: 1 } }, marketMakerFactory).run();
    expect(readFileSync(join(out, 'runs', third.key, 'summary.json'), 'utf8')).toBe(direct.summaryJson());
    expect(third.metrics.pnl).toBe(direct.summary.pnl.total);
    // Different parameters reached the strategy: each parameter changes a run's outcome somewhere
    // in the grid (at 6 bps the takers' flow, not the quote size, bounds the fills, so those two rows agree).
    const metrics = doc.runs.map((r) => JSON.stringify(r.metrics));
    expect(metrics[0]).not.toBe(metrics[2]); // spreadBps 2 → 6 at size 0.01
    expect(metrics[0]).not.toBe(metrics[1]); // size 0.01 → 0.02 at spreadBps 2

    const before = ['sweep.json', 'sweep.csv', 'sweep.html'].map((f) => readFileSync(join(out, f), 'utf8'));
    const again = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--grid', grid, '--workers', '2', '--out', out]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('4 runs (4 reused), 0 failed');
    expect(['sweep.json', 'sweep.csv', 'sweep.html'].map((f) => readFileSync(join(out, f), 'utf8'))).toEqual(before);
  });

  it('--isolation processes (one child process per worker) writes the same sweep.json, sweep.csv and sweep.html as worker threads', async () => {
    const grid = join(dir, 'grid.json');
    const out = join(dir, 'grid-processes');
    const run = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--grid', grid, '--workers', '2', '--isolation', 'processes', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('4 runs, 0 failed');
    for (const f of ['sweep.json', 'sweep.csv', 'sweep.html']) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(dir, 'grid', f), 'utf8'));
    const bad = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--grid', grid, '--isolation', 'forks', '--out', out]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--isolation.*forks.*threads, processes/s);
  });

  it('sweep.html is self-contained: a sortable table, a heatmap over two parameters and the best runs\' equity curves render offline in Chromium', async () => {
    const out = join(dir, 'grid');
    const html = join(out, 'sweep.html');
    const text = readFileSync(html, 'utf8');
    expect(text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img/);
    expect(text).toContain('TradingView Lightweight Charts');
    await withOfflinePage(html, { width: 1400, height: 1200 }, async (page) => {
      expect(await page.$$eval('#equity canvas', (c) => c.length)).toBeGreaterThan(0);
      expect(await page.$$eval('#legend span', (s) => s.length)).toBe(4);
      // Heatmap: size (x: 2 values) × spreadBps (y: 2 values) after choosing the axes, plus headers.
      await page.selectOption('#hm-x', 'size');
      await page.selectOption('#hm-y', 'spreadBps');
      const cells = await page.$$eval('#heatmap tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
      expect(cells).toHaveLength(3);
      expect(cells[0]).toEqual(['spreadBps \\ size', '0.01', '0.02']);
      for (const row of cells.slice(1)) for (const v of row.slice(1)) expect(v).toMatch(/^-?\d+\.\d\d$/);
      // Sorting: by run ascending after two clicks on its header.
      const runs = (): Promise<string[]> => page.$$eval('#runs tr', (rows) => rows.slice(1).map((r) => r.querySelector('td')!.textContent!));
      await page.click('#runs th[data-column="run"]');
      expect(await runs()).toEqual(['3', '2', '1', '0']);
      await page.click('#runs th[data-column="run"]');
      expect(await runs()).toEqual(['0', '1', '2', '3']);
      await page.click('#runs th[data-column="fees"]');
      const fees = await page.$$eval('#runs tr', (rows) => rows.slice(1).map((r) => Number(r.children[9]!.textContent)));
      expect(fees).toEqual([...fees].sort((a, b) => b - a));
      const png = join(out, 'sweep.png');
      await page.screenshot({ path: png, fullPage: true });
      expect(statSync(png).size).toBeGreaterThan(30_000);
    });
  });

  it('refuses bad input with exit code 2 before any run: unknown parameter, empty grid, too many runs, no factory, unreachable Redis', async () => {
    const out = join(dir, 'refused');
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ spreadBps: { min: 1, max: 1001, step: 1 }, size: { min: 0.001, max: 0.1, step: 0.001 } }));
    const cases: [string[], RegExp][] = [
      [['--param', 'spredBps=1,2'], /unknown parameter spredBps; the strategy declares: market, spreadBps, size, maxPosition, requoteMs, moveBps/],
      [['--grid', empty], /the grid is empty/],
      [['--grid', big], /the sweep has 100100 runs, over 100000: pass --yes to run it/],
      [['--param', 'spreadBps=1,2', '--queue', 'redis://127.0.0.1:1/0'], /cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/0/],
    ];
    const runs = await Promise.all(cases.map(([args]) => perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--out', out, ...args])));
    for (const [i, [, message]] of cases.entries()) {
      expect(runs[i]!.code, runs[i]!.stderr).toBe(2);
      expect(runs[i]!.stderr).toMatch(message);
    }
    const noFactory = await perpsim(['sweep', 'examples/trend-follower.ts', ...SHORT_SIM, '--out', out, '--param', 'x=1']);
    expect(noFactory.code).toBe(2);
    expect(noFactory.stderr).toMatch(/must default-export a factory \(config\) => strategy for a sweep/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('a seeded random search', { timeout: 240_000 }, () => {
  it('draws the same points for the same seed, within the ranges and lists, and needs --samples for a range without a step', () => {
    const space = { spreadBps: { min: 1, max: 9 }, size: [0.01, 0.02, 0.05], requoteMs: { min: 1000, max: 5000, integer: true } };
    const a = expand(space, ['spreadBps', 'size', 'requoteMs'], { samples: 20, seed: 5, yes: false });
    expect(a).toEqual(expand(space, ['spreadBps', 'size', 'requoteMs'], { samples: 20, seed: 5, yes: false }));
    expect(a).not.toEqual(expand(space, ['spreadBps', 'size', 'requoteMs'], { samples: 20, seed: 6, yes: false }));
    for (const p of a) {
      expect(p.spreadBps).toBeGreaterThanOrEqual(1);
      expect(p.spreadBps).toBeLessThanOrEqual(9);
      expect([0.01, 0.02, 0.05]).toContain(p.size);
      expect(Number.isInteger(p.requoteMs)).toBe(true);
    }
    expect(new Set(a.map((p) => p.size)).size).toBe(3);
    expect(() => expand(space, ['spreadBps', 'size', 'requoteMs'], { seed: 5, yes: false })).toThrow(SweepUsageError);
    expect(() => expand(space, ['spreadBps', 'size', 'requoteMs'], { seed: 5, yes: false })).toThrow(/a range without a step needs --samples/);
  });

  it('perpsim sweep --samples runs that many points and varies the seed when "seed" is swept', async () => {
    const out = join(dir, 'random');
    const run = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, '--param', 'spreadBps=2..8', '--param', 'seed=1,2', '--samples', '3', '--seed', '11', '--workers', '1', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepDoc;
    expect(doc.runs).toHaveLength(3);
    expect(doc.parameters).toEqual(['spreadBps']);
    for (const r of doc.runs) expect([1, 2]).toContain(r.seed);
    expect(readdirSync(join(out, 'runs')).length).toBe(new Set(doc.runs.map((r) => r.key)).size);
  });
});
