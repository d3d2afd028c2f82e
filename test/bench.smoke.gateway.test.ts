import { describe, it } from 'vitest';
import { BENCH_TEST_TIMEOUT_MS, smokeBench, type BenchCase } from './support/bench-run.ts';

// Benchmarks are not timed tests: this only proves each script still runs end to end on a short
// pass and ends with its one JSON line of figures (test/support/bench-run.ts).
describe('every gateway benchmark ends by printing one JSON line of its figures', () => {
  it.each<BenchCase>([
    ['ed25519', 'bench/ed25519.bench.ts', ['nodeCryptoVerifiesPerSec', 'nobleVerifiesPerSec', 'sodiumVerifiesPerSec'], { BENCH_OPS: '500' }],
    ['gateway', 'bench/gateway.bench.ts', ['signedOrdersPerSec', 'verifyBaselinePerSec', 'bboReadsPerSec', 'helloWorldPerSec', 'helloWorldGetPerSec', 'p99Ms']],
    ['journal', 'bench/journal.bench.ts', ['journaledOrdersPerSec', 'memoryOrdersPerSec', 'restartSecondsFor1MOrders', 'fullReplaySecondsFor1MOrders'], { BENCH_RESTART_ORDERS: '5000' }],
  ])('%s', (...row) => smokeBench(row), BENCH_TEST_TIMEOUT_MS);
});
