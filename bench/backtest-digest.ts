/**
 * A digest of backtest results, to show that a change to the backtest step leaves every result
 * byte for byte: run it before and after, compare the last line.
 *
 * Runs: bench:sweep's 16-run grid of the example market maker over the 1,000,000-event bench
 * recording (bench/recording.ts), the same strategy with a 3 ms feed latency and the
 * probabilistic queue model (delayed book views: the agenda's route), and 2 simulator runs
 * (the market maker at seed 7, the trend follower at seed 1). Each run's digest covers its
 * summary.json text, its fills and its equity samples (JSON). Prints one line per run and
 * {"bench":"backtest-digest","digest":…}.
 *
 * `node --import tsx bench/backtest-digest.ts` (BENCH_EVENTS to change the recording).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Backtest } from '../sim/backtest/backtest.ts';
import type { BacktestConfig } from '../sim/backtest/types.ts';
import { pathToFileURL } from 'node:url';
import type { StrategyModule } from '../sim/backtest/types.ts';
import { planSweep } from '../sim/sweep/sweep.ts';
import { envInt } from './env.ts';
import { binaryFile, recordingFile } from './recording.ts';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const data = binaryFile(recordingFile(EVENTS));
const mm = resolve('examples/market-maker.ts');
const trend = resolve('examples/trend-follower.ts');
const plan = await planSweep({ strategy: mm, data, space: { spreadBps: [2, 3, 4, 6], requoteMs: [1000, 2000, 5000, 10000] }, seed: 1, yes: false, base: { markets: ['BTC-USD'] }, rankBy: 'pnl' });

const runs: { name: string; file: string; config: BacktestConfig }[] = plan.tasks.map((t) => ({
  name: `grid ${JSON.stringify(t.params)}`,
  file: t.strategyFile,
  config: { ...t.base, seed: t.seed, params: t.params, data: { file: t.data, parse: 'scan' } },
}));
runs.push({ name: 'feed latency 3 ms, probabilistic queue', file: mm, config: { markets: ['BTC-USD'], seed: 3, data: { file: data }, latency: { feed: 3, order: 2 }, queueModel: 'probabilistic', params: { spreadBps: 2, requoteMs: 1000 } } });
runs.push({ name: 'sim market maker seed 7', file: mm, config: { data: 'sim', seed: 7 } });
runs.push({ name: 'sim trend follower seed 1', file: trend, config: { data: 'sim', seed: 1 } });

const all = createHash('sha256');
for (const run of runs) {
  // A module's default export: a factory (one fresh strategy per run), or a strategy object (imported once per run here).
  const module = ((await import(`${pathToFileURL(run.file).href}?run=${runs.indexOf(run)}`)) as { default: StrategyModule }).default;
  const result = await new Backtest(run.config, module).run();
  const h = createHash('sha256').update(result.summaryJson()).update(JSON.stringify(result.fills)).update(JSON.stringify(result.samples)).digest('hex');
  all.update(h);
  console.log(`${h.slice(0, 16)} ${result.summary.fills.total} fills  ${run.name}`);
}
console.log(JSON.stringify({ bench: 'backtest-digest', events: EVENTS, runs: runs.length, digest: all.digest('hex') }));
