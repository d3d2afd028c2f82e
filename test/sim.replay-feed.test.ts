import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMarket } from '../engine/index.ts';
import { ConfigError, loadConfig } from '../sim/config.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { createReplay, loadPriceFile, parsePriceFile, replayPrice, type PriceRow } from '../sim/replay-feed.ts';
import { startCli } from './support/cli-process.ts';
import { simHarness } from './support/sim-harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-prices-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const btc = compileMarket(defaultMarkets()[0]!);
const sim = simHarness();

/** The problems a price file is refused with (fails when it is accepted). */
function problems(text: string, format?: 'csv' | 'jsonl'): string[] {
  try {
    parsePriceFile(text, 'test', format);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('price file accepted');
}

function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'sim/main.ts', ...args], { timeout: 20_000 }, (err, _stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr });
    });
  });
}

describe('a recorded price file: CSV or JSONL of time, price (documented format)', () => {
  it('reads CSV with a header naming the columns, in any order, other columns ignored', () => {
    expect(parsePriceFile('# BTC one-second closes\nvolume,Price,timestamp\n3,97000.5,1700000000000\n\n1,97001,1700000001000\n')).toEqual([
      { timeMs: 1_700_000_000_000, price: '97000.5' },
      { timeMs: 1_700_000_001_000, price: '97001' },
    ]);
  });

  it('reads CSV without a header as time,price, and ISO 8601 times', () => {
    expect(parsePriceFile('0,100\n250.5,101\n')).toEqual([{ timeMs: 0, price: '100' }, { timeMs: 250.5, price: '101' }]);
    expect(parsePriceFile('2025-01-06T14:30:00Z,100\n2025-01-06T14:30:01.5Z,99.5')).toEqual([
      { timeMs: Date.UTC(2025, 0, 6, 14, 30), price: '100' },
      { timeMs: Date.UTC(2025, 0, 6, 14, 30, 1, 500), price: '99.5' },
    ]);
  });

  it('reads JSONL with numeric or string values', () => {
    expect(parsePriceFile('{"time": 1000, "price": "3400.25"}\n{"time": "2000", "price": 3401}\n')).toEqual([
      { timeMs: 1000, price: '3400.25' },
      { timeMs: 2000, price: '3401' },
    ]);
  });

  it('picks the format by extension, else by content', () => {
    expect(loadPriceFile(file('a.jsonl', '{"time":1,"price":2}'))).toEqual([{ timeMs: 1, price: '2' }]);
    expect(loadPriceFile(file('a.txt', '{"time":1,"price":2}'))).toEqual([{ timeMs: 1, price: '2' }]);
    expect(problems('{"time":1,"price":2}', 'csv')[0]).toMatch(/^line 1:/);
  });

  it('names every bad line: bad times and prices, time going back, a header without the columns, no rows', () => {
    expect(problems('time,price\nyesterday,100\n2,-1\n3,abc\n5,100\n4,100\n')).toEqual([
      'line 2: time "yesterday" is neither epoch milliseconds nor an ISO 8601 date-time',
      'line 3: price "-1" is not a positive decimal',
      'line 4: price "abc" is not a positive decimal',
      'line 6: time goes back (rows must be in time order)',
    ]);
    expect(problems('when,what\n1,2')).toEqual(['line 1: a header row must name a time (or timestamp) and a price column']);
    expect(problems('{"time":1,"price":0}\nnot json')).toEqual(['line 1: price 0 is not a positive decimal', 'line 2: not a JSON object with time and price']);
    expect(problems('# nothing\n')).toEqual(['no price rows']);
    expect(() => loadPriceFile(join(dir, 'missing.csv'))).toThrow(/missing\.csv is invalid:\n {2}cannot be read/);
  });
});

describe('replay at the clock\'s pace, per market; deterministic', () => {
  const rows: PriceRow[] = [
    { timeMs: 1_700_000_000_000, price: '100000' },
    { timeMs: 1_700_000_001_000, price: '100000.04' },
    { timeMs: 1_700_000_002_500, price: '600000.15' },
  ];
  const START = 5_000_000_000;

  it('plays each row at start + its offset from the first row, on the tick of its band, then holds', () => {
    const feed = createReplay(btc, rows, START);
    expect(replayPrice(feed, START)).toBe(1_000_000);
    expect(replayPrice(feed, START + 999_999)).toBe(1_000_000);
    expect(replayPrice(feed, START + 1_000_000)).toBe(1_000_000); // 100000.04 rounds to the 0.1 tick
    // 600000.15 → 6000002 ticks of 0.1, then down onto the 0.2 band above 500,000.
    expect(replayPrice(feed, START + 2_500_000)).toBe(6_000_002);
    expect(replayPrice(feed, START + 3_600_000_000)).toBe(6_000_002);
  });

  it('gives the same price at a simulated time however often it was sampled before', () => {
    const coarse = createReplay(btc, rows, START);
    const fine = createReplay(btc, rows, START);
    const times = [START + 2_600_000, START + 5_000_000];
    for (let t = START; t <= START + 2_600_000; t += 100_000) replayPrice(fine, t);
    expect(times.map((t) => replayPrice(coarse, t))).toEqual(times.map((t) => replayPrice(fine, t)));
  });

  it('opens the market at the file\'s first price', async () => {
    const server = await sim.start({ replay: { 'btc-usd': [{ timeMs: 0, price: '50000' }, { timeMs: 1000, price: '50100' }] } });
    expect(server.exchange.engine.markets.get(1)!.oraclePrice).toBe(500_000);
  });

  it('drives the market\'s oracle in a running server through the file\'s prices in order, while markets without a file keep the walk', async () => {
    const server = await sim.start({ clock: 'accelerated', speed: 20, agents: true, feedMs: 100, tickMs: 10, replay: { 'btc-usd': [{ timeMs: 0, price: '50000' }, { timeMs: 4000, price: '50100' }, { timeMs: 8000, price: '50200' }] } });
    const btcState = server.exchange.engine.markets.get(1)!;
    const eth = server.exchange.engine.markets.get(2)!;
    const ethStart = eth.oraclePrice;
    const seen: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`never reached the last row; saw ${seen.join(', ')}`)), 20_000);
      const poll = setInterval(() => {
        if (seen.at(-1) !== btcState.oraclePrice) seen.push(btcState.oraclePrice);
        if (btcState.oraclePrice === 502_000 && eth.oraclePrice !== ethStart) {
          clearInterval(poll);
          clearTimeout(deadline);
          resolve();
        }
      }, 5);
    });
    // Only the file's prices, never going back through it (sampling may miss a row).
    const rowOf = seen.map((p) => [500_000, 501_000, 502_000].indexOf(p));
    expect(rowOf.every((r, i) => r >= 0 && (i === 0 || r > rowOf[i - 1]!))).toBe(true);
  });

  it('refuses a file for an unknown or OFFLINE market', async () => {
    await expect(sim.start({ replay: { 'NOPE-USD': [{ timeMs: 0, price: '1' }] } })).rejects.toThrow('price file for unknown market NOPE-USD');
    await expect(sim.start({ replay: { 'F-USD': [{ timeMs: 0, price: '1' }] } })).rejects.toThrow('price file for F-USD, which is not ONLINE');
  });
});

describe('the price file in the CLI (--prices-file MARKET=FILE) and the config (feeds.replay)', () => {
  it('resolves a config file\'s replay paths against its folder', () => {
    const config = loadConfig(file('replay.json', JSON.stringify({ feeds: { replay: { 'BTC-USD': 'btc.csv' }, markets: { 'ETH-USD': { volatility: 0.3 } } } })));
    expect(config.replayFiles).toEqual({ 'BTC-USD': join(dir, 'btc.csv') });
    expect(config.walkByMarket).toEqual({ 'ETH-USD': { volatility: 0.3 } });
  });

  it('exits 2 with a message for a bad option, an unknown market or a bad file', async () => {
    const good = file('good.csv', 'time,price\n0,51000\n');
    const noEq = await cli(['--prices-file', good]);
    expect(noEq.code).toBe(2);
    expect(noEq.stderr).toContain('expected MARKET=FILE');
    const unknown = await cli(['--prices-file', `NOPE-USD=${good}`]);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('price file for unknown market NOPE-USD') as string });
    const bad = await cli(['--prices-file', `BTC-USD=${file('bad.csv', '0,100\n1,zero\n')}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.csv is invalid:\n  line 2: price "zero" is not a positive decimal');
  });

  it('starts with the file\'s first price as the market\'s oracle', async () => {
    const prices = file('btc.jsonl', '{"time":0,"price":"51234.5"}\n{"time":60000,"price":"51300"}\n');
    const perpsim = await startCli({ command: [process.execPath, '--import', 'tsx', 'sim/main.ts', '--port', '0', '--memory', '--log-level', 'info', '--prices-file', `BTC-USD=${prices}`] });
    try {
      const body = (await (await fetch(`${perpsim.url}/v1/prices`)).json()) as Record<string, { oraclePrice: string }>;
      expect(body['1']!.oraclePrice).toBe('51234.5');
    } finally {
      await perpsim.stop();
    }
  });
});
