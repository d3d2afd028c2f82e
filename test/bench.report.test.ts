/**
 * Issue 9, bench suite: "writes docs/benchmarks.md: a table per benchmark with the figure, the
 * baseline, the ratio, and machine facts (CPU model, cores, Node version)".
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { lastFigures, renderSection, updateDocument, type Machine } from '../bench/report.ts';

const MACHINE: Machine = { cpu: 'Test CPU @ 1 GHz', cores: 2, memoryGiB: 24, node: 'v20.20.2', os: 'Linux 6', loadAverage: 0.25, date: '2026-11-22' };

describe('a table per benchmark with the figure, the baseline, the ratio, and machine facts', () => {
  it('gives each figure its same-run baseline, the ratio and the verdict on the target', () => {
    const section = renderSection('gateway', { bench: 'gateway', signedOrdersPerSec: 4000, verifyBaselinePerSec: 16000, bboReadsPerSec: 30000, helloWorldPerSec: 20000, p99Ms: 11.5 }, MACHINE);
    expect(section).toContain('| signed POST /v1/placeOrder | 4,000 orders/s | sodium-native verify, 1 core: 16,000 verifies/s | 0.25 × | ≥ 1 ×: **not met** |');
    expect(section).toContain('| GET /v1/bbo/BTC-USD | 30,000 req/s | fastify hello-world POST: 20,000 req/s | 1.50 × | ≥ 0.7 ×: met |');
    expect(section).toContain('2 cores (Test CPU @ 1 GHz)');
    expect(section).toContain('Node v20.20.2');
    expect(section).toContain('{"bench":"gateway","signedOrdersPerSec":4000');
  });

  it('checks absolute targets as well as ratios, and lists figures no descriptor names', () => {
    const section = renderSection('risk', { bench: 'risk', oracleTickMsMedian: 0.03, positions: 100000, fullEngineOpsPerSec: 250000, scanAllMsMedian: 5.5 }, MACHINE);
    expect(section).toMatch(/one oracle update.*\| 0\.03 ms \| scan every position: 5\.5 ms \| .* \| ≤ 5 ms: met \|/);
    expect(section).toMatch(/full engine.*250,000 ops\/s .*≥ 1,000,000 ops\/s: \*\*not met\*\*/);
    expect(section).toContain('| `positions` | 100,000 |');
    const unknown = renderSection('newbench', { bench: 'newbench', speed: 12 }, MACHINE);
    expect(unknown).toContain('| `speed` | 12 |');
  });
});

describe('re-running a benchmark replaces its block and leaves the prose around it', () => {
  it('replaces only the named block', () => {
    const doc = '# Benchmarks\n\nprose before\n\n<!-- bench:ws -->\nold ws\n<!-- /bench:ws -->\n\nprose after\n\n<!-- bench:gateway -->\nold gateway\n<!-- /bench:gateway -->\n';
    const next = updateDocument(doc, 'ws', 'new ws');
    expect(next).toBe(doc.replace('old ws', 'new ws'));
  });

  it('appends a benchmark seen for the first time under its heading', () => {
    const next = updateDocument('# Benchmarks\n', 'journal', 'table');
    expect(next).toBe('# Benchmarks\n\n## journal (issue 7: durability)\n\n<!-- bench:journal -->\ntable\n<!-- /bench:journal -->\n');
  });
});

describe('every benchmark ends by printing one JSON line of its figures', () => {
  it('takes the last {"bench": …} line of the output', () => {
    expect(lastFigures('warming up\n{"bench":"x","a":1}\nmore\n{"bench":"x","a":2}\n')).toEqual({ bench: 'x', a: 2 });
    expect(lastFigures('no figures here\n{"not":"a bench"}\n')).toBeUndefined();
  });
});

describe('`npm run bench -- <name>` runs one', () => {
  it('runs the named benchmark and passes its output through; an unknown name exits 2', () => {
    const env = { ...process.env, BENCH_OPS: '20000', BENCH_WRITE: '0' };
    const ok = spawnSync(process.execPath, ['--import', 'tsx', 'bench/index.ts', 'levels'], { env, encoding: 'utf8', timeout: 120_000 });
    expect(ok.status, ok.stderr).toBe(0);
    expect(lastFigures(ok.stdout)?.bench).toBe('levels');
    expect(ok.stdout).not.toContain('figures written');
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'bench/index.ts', 'nosuchbench'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unknown benchmark(s): nosuchbench');
  });
});
