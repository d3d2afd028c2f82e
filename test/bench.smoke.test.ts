import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Benchmarks are not timed tests: this only proves each script still runs end to end on a small
// stream and ends with its one JSON line of figures.
describe('every benchmark ends by printing one JSON line of its figures', () => {
  it.each([
    ['engine', 'bench/engine.bench.ts', ['opsPerSec', 'bareBookOpsPerSec', 'nodejsOrderBookOpsPerSec', 'heapMBPer1MOrders']],
    ['engine-floor', 'bench/engine-floor.ts', ['benchWorldOpsPerCpuSec', 'hotAccountsOpsPerCpuSec', 'allHotOpsPerCpuSec', 'bareBookOpsPerCpuSec'], { BENCH_PASSES: '1' }],
    ['engine-stages', 'bench/engine-stages.ts', ['mixNsPerOp', 'bareBookNsPerOp', 'restNs', 'cancelNs'], { BENCH_PAIRS: '2000', BENCH_ROUNDS: '1' }],
    ['engine-working-set', 'bench/engine-working-set.ts', ['ops', 'passes'], { PASSES: '1' }],
    ['engine-taker', 'bench/engine-taker.ts', ['takers', 'rounds'], { BENCH_TAKERS: '500', BENCH_ROUNDS: '1' }],
    ['levels', 'bench/levels.bench.ts', ['rbTreeOpsPerSec', 'arrayOpsPerSec']],
    ['risk', 'bench/risk.bench.ts', ['oracleTickMsMedian', 'positions', 'fullEngineOpsPerSec']],
    ['ed25519', 'bench/ed25519.bench.ts', ['nodeCryptoVerifiesPerSec', 'nobleVerifiesPerSec', 'sodiumVerifiesPerSec'], { BENCH_OPS: '500' }],
    ['gateway', 'bench/gateway.bench.ts', ['signedOrdersPerSec', 'verifyBaselinePerSec', 'bboReadsPerSec', 'helloWorldPerSec', 'helloWorldGetPerSec', 'p99Ms']],
    ['journal', 'bench/journal.bench.ts', ['journaledOrdersPerSec', 'memoryOrdersPerSec', 'restartSecondsFor1MOrders', 'fullReplaySecondsFor1MOrders'], { BENCH_RESTART_ORDERS: '5000' }],
    ['ws', 'bench/ws.bench.ts', ['signedOrdersPerSec', 'verifyBaselinePerSec', 'fanoutFramesPerSec', 'eventLoopLagP99Ms']],
    ['fanout', 'bench/fanout.bench.ts', ['healthP99Ms', 'ackP99Ms', 'rssPeakMb', 'rssAfterToStart', 'serverCpuMsPer1kFrames'], { BENCH_FANOUT_CONNECTIONS: '100', BENCH_FANOUT_PAUSED: '25', BENCH_FANOUT_DRIVE_MS: '2000', BENCH_FANOUT_SETTLE_MS: '1000' }],
    ['backtest', 'bench/backtest.bench.ts', ['eventsPerSec', 'marketMakerEventsPerSec', 'jsonlEventsPerSec', 'jsonParseEventsPerSec'], { BENCH_EVENTS: '20000' }],
    ['differential', 'bench/differential.ts', ['commands', 'eventsCompared', 'divergences', 'liveEngineOpsPerSec', 'referenceEngineOpsPerSec'], { DIFF_COMMANDS: '5000' }],
    ['sweep', 'bench/sweep.bench.ts', ['runsPerSecOneWorker', 'runsPerSecTwoWorkers', 'runsPerSecRedis', 'overheadMsPerRun', 'twoWorkerBound'], { BENCH_EVENTS: '5000' }],
  ] as [string, string, string[], Record<string, string>?][])('%s', (name, file, keys, env = {}) => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', file], {
      env: { ...process.env, BENCH_OPS: '20000', BENCH_MEM_ORDERS: '20000', BENCH_POSITIONS: '2000', BENCH_TICKS: '20', BENCH_QUICK: '1', ...env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const last = run.stdout.trim().split('\n').at(-1)!;
    const figures = JSON.parse(last) as Record<string, unknown>;
    expect(figures.bench).toBe(name);
    for (const key of keys) expect(typeof figures[key]).toBe('number');
  });

  it('soak', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/soak.ts', '--minutes', '0.4', '--rate', '50', '--accounts', '2', '--modes', 'memory', '--warmup', '0.05', '--window', '5'], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    const figures = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(figures.bench).toBe('soak');
    expect(typeof figures.memoryRssSlopeMbPerMin).toBe('number');
    expect(figures.dbRssSlopeMbPerMin).toBeNull();
  });
});
