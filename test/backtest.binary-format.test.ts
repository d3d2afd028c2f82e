import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileMarket } from '../engine/index.ts';
import { Backtest, type BacktestConfig, type BacktestResult } from '../index.ts';
import { marketMaker } from '../examples/market-maker.ts';
import { BinaryFormatError, BinaryReader } from '../sim/backtest/binary-format.ts';
import { convertToBinary, type ReplayEvent } from '../sim/backtest/data-format.ts';
import { openMarketData } from '../sim/backtest/open-market-data.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { T0 } from './support/backtest-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-bin-'));
const btc = compileMarket(defaultMarkets()[0]!);
const eth = compileMarket(defaultMarkets()[1]!);
// The same basename in two folders, so summary.json's `data` (the file name) is the same too.
mkdirSync(join(dir, 'jsonl'));
mkdirSync(join(dir, 'bin'));
const jsonl = join(dir, 'jsonl', 'recording');
const bin = join(dir, 'bin', 'recording');
// Starts 10 s before a whole hour, so the file has a funding line.
generateRecording(jsonl, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 30_000, seed: 13, start: T0 + 3_590_000_000 });
const written = convertToBinary(jsonl, bin, [btc, eth]);

function events(path: string, specs = new Map([[btc.displayName, btc]]), from = -Infinity, to = Infinity): string[] {
  const source = openMarketData(path, specs, from, to);
  const out: string[] = [];
  for (let e: ReplayEvent | undefined = source.next(); e !== undefined; e = source.next()) {
    out.push(JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
  }
  return out;
}

function bytes(r: BacktestResult): string[] {
  return [JSON.stringify(r.fills), r.summaryJson(), r.reportHtml()];
}

describe('perpsim convert writes the binary format, whose replay is the JSONL replay: same events, byte-identical fills and report', () => {
  it('the binary file answers the same events as its JSONL, including funding, and honours the window', () => {
    expect(written).toBe(30_000);
    const fromJsonl = events(jsonl);
    expect(fromJsonl.some((e) => e.includes('"funding"'))).toBe(true);
    expect(events(bin)).toEqual(fromJsonl);
    const window = [T0 + 3_595_000_000, T0 + 3_600_500_000] as const;
    const windowed = events(bin, undefined, ...window);
    expect(windowed.length).toBeGreaterThan(100);
    expect(windowed).toEqual(events(jsonl, undefined, ...window));
  });

  it('a backtest on the binary file gives byte-identical fills, summary and report to one on the JSONL', async () => {
    const config: BacktestConfig = { data: { file: jsonl }, markets: ['BTC-USD'], seed: 4, queueModel: 'probabilistic', latency: { order: { kind: 'uniform', minMs: 1, maxMs: 5 }, feed: { kind: 'recorded' } } };
    const a = await new Backtest(config, marketMaker({ requoteMs: 500 })).run();
    const b = await new Backtest({ ...config, data: { file: bin } }, marketMaker({ requoteMs: 500 })).run();
    expect(a.summary.fills.total).toBeGreaterThan(0);
    expect(bytes(b)).toEqual(bytes(a));
    const idle = await new Backtest({ ...config, data: { file: bin } }, {}).run();
    expect(idle.summary.events).toBe(30_000);
    expect(bytes(idle)).toEqual(bytes(await new Backtest(config, {}).run()));
  });

  it('markets not configured are skipped; a market configured with other units than the file was converted with is refused', () => {
    expect(events(bin, new Map([[eth.displayName, eth]]))).toEqual([]);
    const coarse = compileMarket({ ...defaultMarkets()[0]!, tickSize: '1', tickTiers: [] });
    expect(() => new BinaryReader(bin, new Map([[coarse.displayName, coarse]]))).toThrow(BinaryFormatError);
  });

  it('a truncated file or a file without the magic is refused', () => {
    const whole = readFileSync(bin);
    const cut = join(dir, 'cut.bin');
    writeFileSync(cut, whole.subarray(0, whole.length - 16));
    expect(() => events(cut)).toThrow(BinaryFormatError);
    const plain = join(dir, 'plain.bin');
    writeFileSync(plain, 'PSMDBIN0 not really');
    expect(() => new BinaryReader(plain, new Map())).toThrow(BinaryFormatError);
  });
});
