import { describe, it } from 'vitest';
import { BENCH_TEST_TIMEOUT_MS, smokeBench, type BenchCase } from './support/bench-run.ts';

// Benchmarks are not timed tests: this only proves each script still runs end to end on a short
// pass and ends with its one JSON line of figures (test/support/bench-run.ts).
describe('every WebSocket benchmark ends by printing one JSON line of its figures', () => {
  it.each<BenchCase>([
    ['ws', 'bench/ws.bench.ts', ['signedOrdersPerSec', 'verifyBaselinePerSec', 'fanoutFramesPerSec', 'eventLoopLagP99Ms'], { BENCH_WS_ORDERS: '300', BENCH_WS_SUBSCRIBERS: '20', BENCH_WS_DRIVE_MS: '300', BENCH_WS_WATCHERS: '5' }],
    ['fanout', 'bench/fanout.bench.ts', ['healthP99Ms', 'ackP99Ms', 'rssPeakMb', 'rssAfterToStart', 'serverCpuMsPer1kFrames'], { BENCH_FANOUT_CONNECTIONS: '100', BENCH_FANOUT_PAUSED: '25', BENCH_FANOUT_DRIVE_MS: '2000', BENCH_FANOUT_SETTLE_MS: '1000' }],
  ])('%s', (...row) => smokeBench(row), BENCH_TEST_TIMEOUT_MS);
});
