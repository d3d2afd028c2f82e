/**
 * The short form of `npm run fuzz` (bench/fuzz.ts runs 100,000 requests and 20,000 frames): a
 * real server process, every route of its OpenAPI document and the WebSocket, hostile input,
 * and not one 5xx, hang, crash or reply outside the error shape.
 */
import { describe, expect, it } from 'vitest';
import { runFuzz } from '../bench/fuzz.ts';

describe('npm run fuzz (short): every route of the OpenAPI document and the WebSocket under hostile input', () => {
  it('answers every request and frame below 500 in the error shape, without a hang, and stays up', async () => {
    const lines: string[] = [];
    const report = await runFuzz({ requests: 20_000, frames: 10_000, seed: 0x5eed, concurrency: 16, maxSeconds: 150, timeoutMs: 10_000, log: (line) => lines.push(line) });
    expect(report.firstBreaches).toEqual([]);
    expect(report.breaches).toBe(0);
    expect(report.hangs).toBe(0);
    expect(report.truncated).toBe(false);
    expect(report.routes).toBeGreaterThan(80);
    expect(report.requests).toBeGreaterThanOrEqual(20_000);
    expect(report.frames).toBe(10_000);
    // Refusals dominate, but the shaped requests get through to handlers too.
    expect(report.statuses['200'] ?? 0).toBeGreaterThan(100);
    expect(report.statuses['400'] ?? 0).toBeGreaterThan(100);
    expect(report.rssEndMB).toBeGreaterThan(0);
  }, 240_000);
});
