import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { T0 } from './support/backtest-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-bt-cli-'));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'sim/main.ts', ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

describe('perpsim backtest <strategy> --data <file|sim> writes summary.json and report.html, with plain progress lines off a TTY', () => {
  it('replays a recorded file through the example market maker, twice to the same bytes', async () => {
    const data = join(dir, 'data.jsonl');
    generateRecording(data, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 20_000, seed: 3, start: T0 });
    const outs = [join(dir, 'a'), join(dir, 'b')];
    for (const out of outs) {
      const run = await cli(['backtest', 'examples/market-maker.ts', '--data', data, '--markets', 'BTC-USD', '--seed', '2', '--queue', 'probabilistic', '--order-latency', '1-4', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^progress events=20000 simTime=2025-01-01T\S+ eventsPerSec=\d+ eta=\S+ done$/m);
      expect(run.stdout).toContain(join(out, 'summary.json'));
    }
    const [a, b] = outs.map((out) => readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(a).toBe(b);
    expect(readFileSync(join(outs[0]!, 'report.html'), 'utf8')).toBe(readFileSync(join(outs[1]!, 'report.html'), 'utf8'));
    const summary = JSON.parse(a!) as { events: number; data: string; queueModel: string };
    expect(summary).toMatchObject({ events: 20_000, data: 'data.jsonl', queueModel: 'probabilistic' });
  });

  it('runs the trend follower on the simulator between --from and --to', async () => {
    const out = join(dir, 'sim');
    const run = await cli(['backtest', 'examples/trend-follower.ts', '--data', 'sim', '--markets', 'BTC-USD', '--from', '2025-03-01T00:00:00Z', '--to', '2025-03-01T00:10:00Z', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { from: number; to: number };
    expect([summary.from, summary.to]).toEqual([Date.parse('2025-03-01T00:00:00Z') * 1000, Date.parse('2025-03-01T00:10:00Z') * 1000]);
  });

  it('refuses a bad option with exit code 2', async () => {
    const run = await cli(['backtest', 'examples/market-maker.ts', '--data', 'sim', '--from', 'yesterday-ish']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--from');
  });
});

describe('perpsim convert <jsonl> <bin> writes the binary format, and backtest --data takes it for the same result', () => {
  it('converts a recording (markets from its header) and replays it to the JSONL run’s summary', async () => {
    const data = join(dir, 'convert.jsonl');
    const bin = join(dir, 'convert.bin');
    generateRecording(data, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 5_000, seed: 8, start: T0 });
    const converted = await cli(['convert', data, bin]);
    expect(converted.code, converted.stderr).toBe(0);
    expect(converted.stdout).toMatch(/^5000 events of BTC-USD written to .*convert\.bin/);
    const summaries: Record<string, unknown>[] = [];
    for (const [file, out] of [[data, join(dir, 'cj')], [bin, join(dir, 'cb')]] as const) {
      const run = await cli(['backtest', 'examples/market-maker.ts', '--data', file, '--markets', 'BTC-USD', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      summaries.push(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, unknown>);
    }
    expect(summaries[1]).toEqual({ ...summaries[0], data: 'convert.bin' });
    expect(summaries[1]!.events).toBe(5_000);
  });
});
