import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Backtest, type BacktestConfig, type BacktestResult } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { trendFollower } from '../examples/trend-follower.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { T0 } from './support/backtest-data.ts';

const file = join(mkdtempSync(join(tmpdir(), 'perpsim-det-')), 'recording.jsonl');
generateRecording(file, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 30_000, seed: 11, start: T0 });

async function twice(config: BacktestConfig, make: () => ReturnType<typeof marketMaker>): Promise<[BacktestResult, BacktestResult]> {
  return [await new Backtest(config, make()).run(), await new Backtest(config, make()).run()];
}

function bytes(r: BacktestResult): string[] {
  return [JSON.stringify(r.fills), r.summaryJson(), r.reportHtml()];
}

const replayConfig: BacktestConfig = {
  data: { file },
  markets: ['BTC-USD'],
  seed: 5,
  queueModel: 'probabilistic',
  latency: { order: { kind: 'lognormal', medianMs: 3, sigma: 0.5 }, cancel: { kind: 'uniform', minMs: 1, maxMs: 4 }, feed: { kind: 'recorded' } },
};

describe('deterministic: same config + data + seed gives byte-identical fills and report', () => {
  it('replayed data, the market maker, probabilistic queue and sampled latencies', async () => {
    const config = replayConfig;
    const [a, b] = await twice(config, () => marketMaker({ requoteMs: 500 }));
    expect(a.summary.fills.total).toBeGreaterThan(0);
    expect(bytes(a)).toEqual(bytes(b));
    const [c] = await twice({ ...config, seed: 6 }, () => marketMaker({ requoteMs: 500 }));
    expect(JSON.stringify(c.fills)).not.toBe(JSON.stringify(a.fills));
  });

  it('the fast reader, the worker route and the JSON.parse reader give byte-identical fills, summary and report on the same data', async () => {
    const config = replayConfig;
    const fast = await new Backtest({ ...config, data: { file, parse: 'fast' } }, marketMaker({ requoteMs: 500 })).run();
    const json = await new Backtest({ ...config, data: { file, parse: 'json' } }, marketMaker({ requoteMs: 500 })).run();
    const worker = await new Backtest({ ...config, data: { file, parse: 'worker' } }, marketMaker({ requoteMs: 500 })).run();
    expect(fast.summary.fills.total).toBeGreaterThan(0);
    expect(bytes(fast)).toEqual(bytes(json));
    expect(bytes(worker)).toEqual(bytes(fast));
    const idleFast = await new Backtest({ ...config, data: { file, parse: 'fast' } }, {}).run();
    const idleJson = await new Backtest({ ...config, data: { file, parse: 'json' } }, {}).run();
    expect(idleFast.summary.events).toBe(30_000);
    expect(bytes(idleFast)).toEqual(bytes(idleJson));
  });

  it('the seeded simulator and the trend follower', async () => {
    const config: BacktestConfig = { data: 'sim', markets: ['BTC-USD'], seed: 9, to: T0 + 20 * 60_000_000, latency: { order: 5, feed: 2 } };
    const [a, b] = await twice(config, () => trendFollower({ intervalMs: 5_000, thresholdBps: 0.5 }));
    expect(a.summary.fills.total).toBeGreaterThan(0);
    expect(bytes(a)).toEqual(bytes(b));
  });
});
