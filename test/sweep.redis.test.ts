import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRecording } from '../sim/backtest/generate.ts';
import { defaultMarkets } from '../sim/markets.ts';
import { T0 } from './support/backtest-data.ts';
import { startRedis, type RedisProcess } from './support/redis-server.ts';
import { perpsim, SHORT_SIM } from './support/sweep-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'perpsim-sweep-redis-'));
let redis: RedisProcess;
const workers: ChildProcess[] = [];

interface WorkerProcess {
  child: ChildProcess;
  log: string[];
  /** Resolves with the key of the first run this worker starts. */
  firstStart: Promise<string>;
}

function startWorker(queueName: string, lockMs = 1500): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'worker', '--queue', redis.url, '--queue-name', queueName, '--workers', '1', '--lock-ms', String(lockMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  workers.push(child);
  const log: string[] = [];
  let buffer = '';
  let onStart: (key: string) => void = () => {};
  const firstStart = new Promise<string>((resolve) => (onStart = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) {
      log.push(line);
      const started = /^run started (\w+)$/.exec(line);
      if (started !== null) onStart(started[1]!);
    }
  });
  return { child, log, firstStart };
}

async function stopWorker(w: WorkerProcess): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  const exited = new Promise((r) => w.child.once('exit', r));
  w.child.kill('SIGTERM');
  await exited;
}

function outputs(out: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of ['sweep.json', 'sweep.csv', 'sweep.html']) files[f] = readFileSync(join(out, f), 'utf8');
  for (const key of readdirSync(join(out, 'runs'))) for (const f of ['summary.json', 'equity.json']) files[`runs/${key}/${f}`] = readFileSync(join(out, 'runs', key, f), 'utf8');
  return files;
}

beforeAll(async () => {
  redis = await startRedis();
}, 300_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a sweep through a BullMQ queue on Redis with two perpsim worker processes', () => {
  // 3 spreads × 2 sizes × 2 seeds; runs of 10 simulated minutes, so a kill lands mid-run.
  const GRID = ['--param', 'spreadBps=2,4,6', '--param', 'size=0.01,0.02', '--param', 'seed=1,2', '--to', '2025-01-01T00:10:00Z'];

  it('finishes every run once though a worker is killed -9 mid-run, and writes the local-threads sweep\'s bytes; a repeated sweep reuses the runs', async () => {
    const a = startWorker('q-main');
    const b = startWorker('q-main');
    const queued = join(dir, 'queued');
    const sweep = perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, ...GRID, '--queue', redis.url, '--queue-name', 'q-main', '--out', queued], 300_000);
    // Kill A as soon as it has started a run: that run must be finished by B.
    const killedKey = await a.firstStart;
    a.child.kill('SIGKILL');
    const run = await sweep;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('12 runs, 0 failed');
    await stopWorker(b);
    expect(a.log.filter((l) => l.startsWith('run finished'))).toEqual([]);
    const finished = b.log.filter((l) => l.startsWith('run finished')).map((l) => l.split(' ')[2]);
    expect(finished).toHaveLength(12);
    expect(new Set(finished).size).toBe(12);
    expect(finished).toContain(killedKey);
    // The killed run was taken back from the dead worker (BullMQ's stalled-job check).
    const queue = new Queue('q-main', { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null } });
    try {
      expect(await queue.getJobCounts('completed', 'failed', 'active', 'wait')).toEqual({ completed: 12, failed: 0, active: 0, wait: 0 });
      const killed = await queue.getJob(killedKey);
      expect(killed?.stalledCounter).toBe(1);
      expect(killed?.attemptsStarted).toBe(2);
    } finally {
      await queue.close();
    }

    const local = join(dir, 'local');
    const threads = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, ...GRID, '--workers', '2', '--out', local], 300_000);
    expect(threads.code, threads.stderr).toBe(0);
    const queuedFiles = outputs(queued);
    expect(Object.keys(queuedFiles)).toHaveLength(3 + 12 * 2);
    expect(queuedFiles).toEqual(outputs(local));

    // No worker runs now: a repeated sweep into a new directory is served from the queue's finished runs.
    const again = join(dir, 'again');
    const repeat = await perpsim(['sweep', 'examples/market-maker.ts', ...SHORT_SIM, ...GRID, '--queue', redis.url, '--queue-name', 'q-main', '--out', again], 120_000);
    expect(repeat.code, repeat.stderr).toBe(0);
    expect(repeat.stdout).toContain('12 runs (12 reused), 0 failed');
    expect(outputs(again)).toEqual(queuedFiles);
  }, 600_000);

  it('a worker that cannot read the data file fails those runs with the reason in the results, and the sweep ends', async () => {
    const data = join(dir, 'data.jsonl');
    generateRecording(data, { market: defaultMarkets()[0]!, startTicks: 970_000, events: 3_000, seed: 4, start: T0 });
    const copy = join(dir, 'data-gone.jsonl');
    copyFileSync(data, copy);
    const out = join(dir, 'unreadable');
    const sweep = perpsim(['sweep', 'examples/market-maker.ts', '--data', copy, '--markets', 'BTC-USD', '--param', 'spreadBps=2,4', '--queue', redis.url, '--queue-name', 'q-data', '--out', out], 120_000);
    // Once both runs are queued (the submitter hashed the file), the file disappears; then a worker starts.
    const queue = new Queue('q-data', { connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null } });
    try {
      for (let i = 0; ((await queue.getJobCounts('wait')).wait ?? 0) < 2; i++) {
        if (i > 600) throw new Error('the runs were never queued');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await queue.close();
    }
    rmSync(copy);
    const w = startWorker('q-data');
    const run = await sweep;
    await stopWorker(w);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('2 runs, 2 failed');
    expect(run.stderr).toMatch(/2 of 2 runs failed; first: run 0: cannot read the data file .*data-gone\.jsonl on this worker \(ENOENT\); a sweep names its data by path/);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { runs: { status: string; error: string }[] };
    expect(doc.runs.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(readFileSync(join(out, 'sweep.csv'), 'utf8')).toContain('cannot read the data file');
    expect(existsSync(join(out, 'runs'))).toBe(false);
  }, 300_000);
});
