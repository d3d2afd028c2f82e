import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunPool, runBundle, type RunPool } from '../sim/sweep/pool.ts';
import { runOne } from '../sim/sweep/run.ts';
import { planSweep } from '../sim/sweep/sweep.ts';
import { T0 } from './support/backtest-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-sweep-pool-'));
const strategy = resolve('examples/market-maker.ts');
const pools: RunPool[] = [];
afterAll(async () => {
  for (const p of pools) await p.close();
});

describe('the local sweep pool', { timeout: 180_000 }, () => {
  it('starts its threads with the backtester and the strategy loaded, before the first task, and their runs equal runs in this thread byte for byte', async () => {
    let startedAt = -1;
    let pool: RunPool | undefined;
    const plan = await planSweep(
      { strategy, data: 'sim', space: { spreadBps: [2, 6], size: [0.01, 0.02] }, seed: 3, yes: false, base: { markets: ['BTC-USD'], to: T0 + 2 * 60_000_000, sampleMs: 10_000 }, rankBy: 'pnl' },
      {
        expanded: (file, runs) => {
          // Called before the plan is finished, with what a pool needs to start.
          startedAt = runs;
          pools.push((pool = createRunPool(2, { preload: [file] })));
        },
      },
    );
    expect(startedAt).toBe(4);
    const starts = await pool!.ready();
    expect(starts).toHaveLength(2);
    for (const s of starts) {
      expect(s.preloaded).toEqual([strategy]);
      expect(s.failed).toEqual([]);
      expect(s.cpuMs).toBeGreaterThan(0);
      expect(s.wallMs).toBeGreaterThan(0);
    }
    expect(pool!.stats()).toEqual({ runs: 0, busyMs: 0, busyCpuMs: 0, threadCpuMs: 0 });

    const threaded = await Promise.all(plan.tasks.map((t) => pool!.run(t)));
    const stats = pool!.stats();
    expect(stats.runs).toBe(4);
    expect(stats.busyCpuMs).toBeGreaterThan(0);
    // A thread's total CPU includes its start and its runs.
    expect(stats.threadCpuMs).toBeGreaterThan(stats.busyCpuMs);
    for (const [i, task] of plan.tasks.entries()) {
      const here = await runOne(task);
      expect(here.summaryJson).toBeDefined();
      expect(JSON.stringify(threaded[i])).toBe(JSON.stringify(here));
    }
  });

  it('with processes for isolation, each worker is a child process that starts loaded and runs equal runs in this thread byte for byte', async () => {
    const plan = await planSweep({ strategy, data: 'sim', space: { spreadBps: [2, 6], size: [0.01, 0.02] }, seed: 4, yes: false, base: { markets: ['BTC-USD'], to: T0 + 60_000_000, sampleMs: 10_000 }, rankBy: 'pnl' });
    const pool = createRunPool(2, { preload: [strategy], isolation: 'processes' });
    pools.push(pool);
    const starts = await pool.ready();
    expect(starts.map((s) => s.preloaded)).toEqual([[strategy], [strategy]]);
    const results = await Promise.all(plan.tasks.map((t) => pool.run(t)));
    expect(pool.stats().runs).toBe(4);
    expect(pool.stats().busyCpuMs).toBeGreaterThan(0);
    for (const [i, task] of plan.tasks.entries()) {
      const here = await runOne(task);
      expect(here.summaryJson).toBeDefined();
      expect(JSON.stringify(results[i])).toBe(JSON.stringify(here));
    }
  });

  it('with processes for isolation, a worker that dies mid-run fails that run with a clear error and is replaced: later runs still finish', async () => {
    // A strategy whose factory kills its own process when asked to: the worker dies during the run.
    const dying = join(dir, 'dying.mts');
    writeFileSync(dying, `const mm = (await import(${JSON.stringify(strategy)})).default;\nexport default (config: { params?: { die?: number } }) => { if (config.params?.die) process.kill(process.pid, 'SIGKILL'); return mm(config); };\n`);
    const pool = createRunPool(1, { preload: [dying], isolation: 'processes' });
    pools.push(pool);
    await pool.ready();
    const base = { markets: ['BTC-USD'], to: T0 + 60_000_000, sampleMs: 10_000 };
    const died = await pool.run({ key: 'dies', strategyFile: dying, data: 'sim', base, params: { die: 1 }, seed: 1 });
    expect(died).toEqual({ key: 'dies', error: 'worker process failed: exited with SIGKILL' });
    const after = await pool.run({ key: 'after', strategyFile: dying, data: 'sim', base, params: {}, seed: 1 });
    expect(after.error).toBeUndefined();
    expect(after.summaryJson).toBeDefined();
  });

  it('a strategy that fails to load at start leaves the thread serving: each of its runs reports the error', async () => {
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'throw new Error("cannot start: missing API key");\n');
    const pool = createRunPool(1, { preload: [broken] });
    pools.push(pool);
    const [start] = await pool.ready();
    expect(start!.failed).toEqual([broken]);
    const result = await pool.run({ key: 'k', strategyFile: broken, data: 'sim', base: { markets: ['BTC-USD'], to: T0 + 60_000_000 }, params: {}, seed: 1 });
    expect(result).toEqual({ key: 'k', error: 'cannot start: missing API key' });
  });

  it('threads load one JavaScript bundle with the pure-JavaScript packages inlined: only Node\'s modules and the native addons come from outside', () => {
    const url = runBundle();
    expect(url).not.toBeNull();
    const text = readFileSync(fileURLToPath(url!), 'utf8');
    const imported = new Set([...text.matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]!));
    expect([...imported].filter((s) => !s.startsWith('node:'))).toEqual([]);
    // Inlined CommonJS keeps its require() calls (esbuild's __require): Node's modules, and ws's optional addons inside a try.
    const required = [...new Set([...text.matchAll(/__require\(["']([^"']+)["']\)/g)].map((m) => m[1]!))];
    expect(required.filter((s) => !builtinModules.includes(s) && !['bufferutil', 'utf-8-validate'].includes(s))).toEqual([]);
  });
});
