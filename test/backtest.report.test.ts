import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { Backtest, writeOutputs } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { T0 } from './support/backtest-data.ts';

const CHROMIUM = '/usr/bin/chromium';

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

    // A machine without Chromium fails here rather than passing silently (npm test's set-up installs it).
    expect(existsSync(CHROMIUM), `${CHROMIUM} is required for the report test`).toBe(true);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
      const requests: string[] = [];
      page.on('request', (r) => void (r.url().startsWith('file:') || requests.push(r.url())));
      const errors: string[] = [];
      page.on('pageerror', (e) => void errors.push(e.message));
      await page.goto(pathToFileURL(report).href);
      await page.waitForSelector('body[data-rendered="true"]', { timeout: 30_000 });
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      // One chart per container: equity, price, drawdown, position.
      const charts = await page.$$eval('.chart', (divs) => divs.map((d) => d.querySelectorAll('canvas').length));
      expect(charts.length).toBe(4);
      for (const canvases of charts) expect(canvases).toBeGreaterThan(0);
      const png = join(dir, 'report.png');
      await page.screenshot({ path: png, fullPage: true });
      expect(statSync(png).size).toBeGreaterThan(30_000);
    } finally {
      await browser.close();
    }
  });
});
