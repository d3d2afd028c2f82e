import { describe, it } from 'vitest';
import { BENCH_TEST_TIMEOUT_MS, smokeBench, type BenchCase } from './support/bench-run.ts';

// Benchmarks are not timed tests: this only proves each script still runs end to end on a small
// stream and ends with its one JSON line of figures (test/support/bench-run.ts).
describe('every engine benchmark ends by printing one JSON line of its figures', () => {
  it.each<BenchCase>([
    ['engine', 'bench/engine.bench.ts', ['opsPerSec', 'bareBookOpsPerSec', 'nodejsOrderBookOpsPerSec', 'heapMBPer1MOrders']],
    ['engine-floor', 'bench/engine-floor.ts', ['benchWorldOpsPerCpuSec', 'hotAccountsOpsPerCpuSec', 'allHotOpsPerCpuSec', 'bareBookOpsPerCpuSec'], { BENCH_PASSES: '1' }],
    ['engine-stages', 'bench/engine-stages.ts', ['mixNsPerOp', 'bareBookNsPerOp', 'restNs', 'cancelNs'], { BENCH_PAIRS: '2000', BENCH_ROUNDS: '1' }],
    ['engine-working-set', 'bench/engine-working-set.ts', ['ops', 'passes'], { PASSES: '1' }],
    ['engine-taker', 'bench/engine-taker.ts', ['takers', 'rounds'], { BENCH_TAKERS: '500', BENCH_ROUNDS: '1' }],
    ['levels', 'bench/levels.bench.ts', ['rbTreeOpsPerSec', 'arrayOpsPerSec']],
    ['risk', 'bench/risk.bench.ts', ['oracleTickMsMedian', 'positions', 'fullEngineOpsPerSec']],
  ])('%s', (...row) => smokeBench(row), BENCH_TEST_TIMEOUT_MS);
});
