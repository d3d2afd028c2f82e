/**
 * `perpsim load` against an in-process perpsim: the report's counts add up and carry latency
 * percentiles and refusals by reason; bad options exit 2. No figure is asserted on: the
 * throughput and latency depend on the machine.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, LOAD_CONNECTIONS, parseMix, percentiles, runLoad, type LoadOptions } from '../sim/load.ts';
import { startServer, type Server } from '../sim/server.ts';

let server: Server;
beforeAll(async () => {
  server = await startServer({ port: 0, agents: false });
});
afterAll(async () => {
  await server.close();
});

const base = (overrides: Partial<LoadOptions>): LoadOptions => ({
  url: server.url,
  rate: 150,
  durationS: 1,
  mix: { place: 50, cancel: 20, modify: 20, ioc: 10 },
  accounts: 2,
  market: 'ETH-USD',
  transport: 'rest',
  seed: 7,
  depositUsd: '1000000',
  drainS: 5,
  ...overrides,
});

describe('load generator: funds accounts through /sim, signs with real keys, reports what was sent and acknowledged', () => {
  it.each(['rest', 'ws'] as const)('over %s: every write is acknowledged, refused or failed; latencies from send to ACK and to the orders event', async (transport) => {
    const progress: number[] = [];
    const report = await runLoad(base({ transport, progress: (p) => progress.push(p.sent) }));
    expect(report.sent).toBeGreaterThan(0);
    expect(report.acknowledged + report.refused + report.failed).toBe(report.sent);
    expect(Object.values(report.sentByAction).reduce((a, b) => a + b, 0)).toBe(report.sent);
    expect(report.sentByAction.place).toBeGreaterThan(0);
    expect(report.failed).toBe(0);
    expect(report.ackLatencyMs.count).toBe(report.sent);
    expect(report.eventLatencyMs.count).toBeGreaterThan(0);
    expect(report.eventLatencyMs.count).toBeLessThanOrEqual(report.acknowledged);
    const { p50, p90, p99, p999 } = report.ackLatencyMs;
    expect(p50 <= p90 && p90 <= p99 && p99 <= p999).toBe(true);
    expect(Object.values(report.refusals).reduce((a, b) => a + b, 0)).toBe(report.refused + report.failed);
    expect(progress.at(-1)).toBe(report.sent);
    expect(formatReport(report)).toContain('p99.9');
  });

  it('an account at its resting-order limit cancels one of its orders instead of placing another, so a place-only flow stays within the venue\'s open-order cap', async () => {
    const report = await runLoad(base({ mix: { place: 1, cancel: 0, modify: 0, ioc: 0 }, rate: 100, maxOpen: 5 }));
    expect(report.sentByAction.cancel).toBeGreaterThan(0);
    expect(report.sentByAction.place + report.sentByAction.cancel).toBe(report.sent);
    expect(report.acknowledged).toBe(report.sent);
  });

  it('refusals are counted by reason: IOC orders with nothing to take are IOC_CANCELED', async () => {
    const report = await runLoad(base({ mix: { place: 0, cancel: 0, modify: 0, ioc: 1 }, rate: 50, market: 'SOL-USD' }));
    expect(report.refusals.IOC_CANCELED).toBe(report.sent);
  });
});

describe('load generator: a slow server gets a backlog of requests, not of connections', () => {
  it(`keeps at most ${LOAD_CONNECTIONS} connections open to the server however many requests are in flight`, async () => {
    // Every request waits 250 ms before the server sees it: at 600 writes/s about 150 are in flight.
    const http = server.app.server;
    const handlers = http.listeners('request') as ((...args: unknown[]) => void)[];
    http.removeAllListeners('request');
    const delayed = (...args: unknown[]): void => void setTimeout(() => handlers.forEach((h) => h(...args)), 250);
    http.on('request', delayed);
    let open = 0;
    let maxOpen = 0;
    const onConnection = (socket: import('node:net').Socket): void => {
      maxOpen = Math.max(maxOpen, ++open);
      socket.once('close', () => open--);
    };
    http.on('connection', onConnection);
    try {
      const report = await runLoad(base({ rate: 600, durationS: 1, mix: { place: 100, cancel: 0, modify: 0, ioc: 0 } }));
      expect(report.acknowledged).toBe(report.sent);
      expect(maxOpen).toBeGreaterThan(1);
      expect(maxOpen).toBeLessThanOrEqual(LOAD_CONNECTIONS + 2); // + the feed's WebSocket and the admin's
    } finally {
      http.off('connection', onConnection);
      http.removeAllListeners('request');
      for (const h of handlers) http.on('request', h);
    }
  });
});

describe('load generator: options', () => {
  it('--mix takes action=weight pairs; unknown actions, bad weights and an all-zero mix are refused', () => {
    expect(parseMix('place=3,ioc=1')).toEqual({ place: 3, cancel: 0, modify: 0, ioc: 1 });
    expect(() => parseMix('place=1,dance=2')).toThrow(/unknown action/);
    expect(() => parseMix('place=-1')).toThrow(/non-negative/);
    expect(() => parseMix('place=0')).toThrow(/at least one/);
  });

  it('percentiles are nearest-rank', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentiles(samples)).toEqual({ count: 1000, p50: 500, p90: 900, p99: 990, p999: 999 });
  });

  it('perpsim load with a bad option exits 2 and names it', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'sim/main.ts', 'load', '--mix', 'dance=1'], { timeout: 20_000 }, (err, _stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr });
      });
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown action');
  });
});
