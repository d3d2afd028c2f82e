/**
 * Per-IP rate-limit state on a running gateway: what the REST bucket map and the WebSocket
 * per-IP counters keep, and when the master switch or the allowlist lifts the WebSocket's
 * per-IP limits. An entry that equals the default (a full bucket; an IP with no connection,
 * no subscription and full token buckets) means the same as no entry, so it is dropped; one
 * that still remembers use is kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RateLimitOptions } from '../gateway/rate-limit/index.ts';
import { attachWebSocket, type WsHandle } from '../gateway/ws/server.ts';
import { gateway, type GatewayHarness } from './support/gateway-fixture.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const SECOND_US = 1_000_000;

async function read(h: GatewayHarness, ip: string): Promise<number> {
  const res = await h.app.inject({ method: 'GET', url: '/v1/markets', remoteAddress: ip });
  return res.statusCode;
}

describe('the REST per-IP bucket map keeps only buckets that are not full', () => {
  it('drops the buckets of IPs that have refilled, on a later request', async () => {
    const h = await gateway();
    closers.push(() => h.app.close());
    for (let i = 1; i <= 100; i++) expect(await read(h, `198.51.100.${i}`)).toBe(200);
    expect(h.state.ipBuckets.size).toBe(100);
    h.now.us += 61 * SECOND_US; // 20 weight refills in under a second; a drained bucket in 60 s
    expect(await read(h, '203.0.113.1')).toBe(200);
    expect([...h.state.ipBuckets.keys()]).toEqual(['203.0.113.1']);
  });

  it('keeps a bucket that is still refilling, so dropping entries lifts no limit', async () => {
    const h = await gateway();
    closers.push(() => h.app.close());
    const heavy = '198.51.100.7';
    for (let i = 0; i < 75; i++) expect(await read(h, heavy)).toBe(200); // 75 × 20 = the whole 1,500
    expect(await read(h, heavy)).toBe(429);
    h.now.us += 20 * SECOND_US; // 500 back of 1,500
    expect(await read(h, '203.0.113.1')).toBe(200);
    expect(h.state.ipBuckets.has(heavy)).toBe(true);
    for (let i = 0; i < 25; i++) expect(await read(h, heavy)).toBe(200);
    expect(await read(h, heavy)).toBe(429);
  });
});

interface Rig {
  h: GatewayHarness;
  ws: WsHandle;
  url: string;
}

async function rig(rateLimit: RateLimitOptions = {}): Promise<Rig> {
  const h = await gateway({ rateLimit });
  const ws = attachWebSocket(h.app, h.state, { periodicTickMs: 10 });
  closers.push(() => h.app.close());
  closers.push(() => ws.close());
  const url = (await h.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws') + '/v1/ws';
  return { h, ws, url };
}

/** Opens a socket from `localAddress`; resolves with it once open, or with the HTTP status that refused it. */
function connect(url: string, localAddress = '127.0.0.1'): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { localAddress, perMessageDeflate: false });
    closers.push(() => ws.terminate());
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 60));

describe('the WebSocket per-IP counters keep only IPs that differ from a new one', () => {
  it('drops an IP once its last connection is gone and its connection tokens are back; keeps it meanwhile', async () => {
    const { h, ws, url } = await rig();
    const sockets: WebSocket[] = [];
    for (let i = 2; i <= 6; i++) {
      const s = await connect(url, `127.0.0.${i}`);
      if (typeof s === 'number') throw new Error(`refused with ${s}`);
      sockets.push(s);
    }
    expect(ws.trackedIps()).toBe(5);
    for (const s of sockets.slice(1)) await closed(s);
    await tick();
    // Closed, but each IP's new-connection bucket is one token short at this clock reading.
    expect(ws.trackedIps()).toBe(5);
    h.now.us += 120 * SECOND_US;
    await tick();
    expect(ws.trackedIps()).toBe(1); // 127.0.0.2 is still connected
    await closed(sockets[0]!);
    await tick();
    expect(ws.trackedIps()).toBe(0);
  });
});

describe('the WebSocket per-IP connection limit (50) applies unless rate limits are off or the IP is allowlisted', () => {
  const open = async (url: string, n: number): Promise<(WebSocket | number)[]> => {
    const out: (WebSocket | number)[] = [];
    for (let i = 0; i < n; i++) out.push(await connect(url));
    return out;
  };

  it('refuses the 51st simultaneous connection with limits on', async () => {
    const { url } = await rig();
    const results = await open(url, 51);
    expect(results.slice(0, 50).every((r) => typeof r !== 'number')).toBe(true);
    expect(results[50]).toBe(429);
  });

  it('accepts 60 simultaneous connections from one IP with rate limits off (--no-rate-limits), tracking no IP', async () => {
    const { ws, url } = await rig({ enabled: false });
    const results = await open(url, 60);
    expect(results.filter((r) => typeof r === 'number')).toEqual([]);
    expect(ws.trackedIps()).toBe(0);
  });

  it('accepts 60 simultaneous connections from an allowlisted IP', async () => {
    const { url } = await rig({ ipAllowlist: ['127.0.0.1'] });
    const results = await open(url, 60);
    expect(results.filter((r) => typeof r === 'number')).toEqual([]);
  });
});
