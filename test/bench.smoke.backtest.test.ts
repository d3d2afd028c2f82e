import { describe, expect, it } from 'vitest';
import { BENCH_TEST_TIMEOUT_MS, expectFigures, runBench, smokeBench, type BenchCase } from './support/bench-run.ts';

// Benchmarks are not timed tests: this only proves each script still runs end to end on a small
// recording or a short run and ends with its one JSON line of figures (test/support/bench-run.ts).
describe('every backtest, sweep and soak benchmark ends by printing one JSON line of its figures', () => {
  it.each<BenchCase>([
    ['backtest', 'bench/backtest.bench.ts', ['eventsPerSec', 'marketMakerEventsPerSec', 'jsonlEventsPerSec', 'jsonParseEventsPerSec'], { BENCH_EVENTS: '20000' }],
    ['differential', 'bench/differential.ts', ['commands', 'eventsCompared', 'divergences', 'liveEngineOpsPerSec', 'referenceEngineOpsPerSec'], { DIFF_COMMANDS: '5000' }],
    ['sweep', 'bench/sweep.bench.ts', ['runsPerSecOneWorker', 'runsPerSecTwoWorkers', 'runsPerSecRedis', 'overheadMsPerRun', 'twoWorkerBound'], { BENCH_EVENTS: '5000' }],
  ])('%s', (...row) => smokeBench(row), BENCH_TEST_TIMEOUT_MS);

  it('soak', async () => {
    const run = await runBench('bench/soak.ts', { nodeArgs: [], args: ['--minutes', '0.2', '--rate', '50', '--accounts', '2', '--modes', 'memory', '--warmup', '0.02', '--window', '3'] });
    const figures = expectFigures(run, 'soak', ['memoryRssSlopeMbPerMin']);
    expect(figures.dbRssSlopeMbPerMin).toBeNull();
  }, BENCH_TEST_TIMEOUT_MS);
});
