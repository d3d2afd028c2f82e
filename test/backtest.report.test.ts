import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Backtest, writeOutputs } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { T0 } from './support/backtest-data.ts';
import { withOfflinePage } from './support/offline-page.ts';

describe('report.html is a self-contained page whose charts render offline in headless Chromium', () => {
  it('renders the equity, price with fills, drawdown and position charts, and screenshots them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-report-'));
    const result = await new Backtest({ data: 'sim', markets: ['BTC-USD'], seed: 4, to: T0 + 15 * 60_000_000, sampleMs: 10_000 }, marketMaker({ requoteMs: 2_000 })).run();
    expect(result.summary.fills.total).toBeGreaterThan(0);
    const { report, summary } = writeOutputs(result, dir);
    const html = readFileSync(report, 'utf8');
    // Nothing is fetched: no external script, stylesheet or image.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img/);
    expect(html).toContain('TradingView Lightweight Charts');
    expect(JSON.parse(readFileSync(summary, 'utf8'))).toEqual(result.summary);

    await withOfflinePage(report, { width: 1200, height: 1400 }, async (page) => {
      // One chart per container: equity, price, drawdown, position.
      const charts = await page.$$eval('.chart', (divs) => divs.map((d) => d.querySelectorAll('canvas').length));
      expect(charts.length).toBe(4);
      for (const canvases of charts) expect(canvases).toBeGreaterThan(0);
      const png = join(dir, 'report.png');
      await page.screenshot({ path: png, fullPage: true });
      expect(statSync(png).size).toBeGreaterThan(30_000);
    });
  });
});
