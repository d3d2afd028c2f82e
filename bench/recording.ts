/**
 * The benches' recorded market data: a seeded recording (sim/backtest/generate.ts) of `events`
 * events in the temp directory, generated once per count and shared by every bench that asks
 * for the same count, and its binary conversion (`perpsim convert`) next to it. Neither is
 * committed.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileMarket } from '../engine/index.ts';
import { convertToBinary } from '../sim/backtest/data-format.ts';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';

const START = 1_735_689_600_000_000;

export function recordingFile(events: number): string {
  const path = join(tmpdir(), `perpsim-bench-backtest-${events}-seed7.jsonl`);
  if (!existsSync(path)) {
    const t0 = performance.now();
    const partial = `${path}.partial`;
    generateRecording(partial, { market: defaultMarkets()[0]!, startTicks: 970_000, events, seed: 7, start: START });
    renameSync(partial, path);
    console.log(`generated ${path} (${(statSync(path).size / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return path;
}

/** The recording converted by `perpsim convert` (binary-format.ts), next to it. */
export function binaryFile(jsonl: string): string {
  const path = jsonl.replace(/\.jsonl$/, '.bin');
  if (!existsSync(path)) {
    const t0 = performance.now();
    const partial = `${path}.partial`;
    convertToBinary(jsonl, partial, [compileMarket(defaultMarkets()[0]!)]);
    renameSync(partial, path);
    console.log(`converted to ${path} (${(statSync(path).size / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return path;
}
