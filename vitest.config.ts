import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { longFirst } from './test/support/long-first-sequencer.ts';

/** The read suites that run a second time with history in SQLite tables (gateway/read-models/history-store.ts). */
const HISTORY_READ_SUITES = [
  'test/gateway.account-reads.test.ts',
  'test/gateway.market-reads.test.ts',
  'test/gateway.order-writes.test.ts',
  'test/gateway.ws-channels.test.ts',
  'test/gateway.reads-audit.test.ts',
  'test/gateway.candles.test.ts',
  'test/gateway.notifications.test.ts',
  'test/gateway.leaderboard-portfolio.test.ts',
];

/**
 * The files that take longest (wall time, a run on 2 cores), started first so that no worker
 * runs on alone at the end of the suite (test/support/long-first-sequencer.ts).
 */
const LONG_FILES = [
  'test/bench.smoke.backtest.test.ts',
  'test/bench.smoke.gateway.test.ts',
  'test/bench.smoke.engine.test.ts',
  'test/bench.smoke.ws.test.ts',
  'test/sweep.local.test.ts',
  'test/sweep.redis.test.ts',
  'test/package.pack.test.ts',
  'test/ui.console.test.ts',
  'test/gateway.persistence.crash.test.ts',
  'test/sim.load.test.ts',
  'test/bench.fuzz.test.ts',
  'test/sim.shutdown.test.ts',
  'test/backtest.cli.test.ts',
];

export default defineConfig({
  // `perpsim/client` imported by a test resolves to the sources, not dist/ (package.json exports).
  ssr: { resolve: { conditions: ['perpsim-source', 'module', 'node', 'development|production'] } },
  test: {
    // Property tests run many cases; keep the default timeout generous but bounded.
    testTimeout: 60_000,
    pool: 'forks',
    // One test file per core. Vitest's default in a run is cores − 1, which on a 2-core CI machine
    // is one file at a time: the suite ran serially (docs/benchmarks.md, "ci11").
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: longFirst(LONG_FILES) },
    // A test that ends with no assertion fails; fc.assert counts as one (test/support/assertion-guard.ts).
    expect: { requireAssertions: true },
    setupFiles: ['./test/support/assertion-guard.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'history-sqlite', include: HISTORY_READ_SUITES, env: { PERPSIM_TEST_HISTORY: 'sqlite' } } },
    ],
  },
});
