/**
 * A mass close of WebSocket connections (gateway/ws/server.ts `massClose`): once the open
 * connections fall to a quarter of a large enough peak, the caller is told, once per fall, so
 * that it can give the sockets' memory back (sim/reclaim.ts); and the reclaimer runs one
 * memory-reducing GC per request window.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { attachWebSocket } from '../gateway/ws/server.ts';
import { createReclaimer } from '../sim/reclaim.ts';
import { gateway } from './support/gateway-fixture.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function open(url: string, n: number): Promise<WebSocket[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      closers.push(() => ws.terminate());
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      return ws;
    }),
  );
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a mass close of WebSocket connections', () => {
  it('is reported once when the open connections fall to a quarter of a peak of at least `peak`, not before, and again only after a new peak', async () => {
    const h = await gateway({ rateLimit: { enabled: false } });
    let reports = 0;
    const ws = attachWebSocket(h.app, h.state, { periodicTickMs: 1_000_000, massClose: { peak: 8, onClose: () => void reports++ } });
    closers.push(() => h.app.close());
    closers.push(() => ws.close());
    const url = (await h.app.listen({ port: 0, host: '127.0.0.1' })).replace(/^http/, 'ws') + '/v1/ws';

    // A peak below the threshold: closing everything reports nothing.
    const few = await open(url, 6);
    for (const s of few) s.close();
    await until(() => ws.sendQueues().length === 0);
    expect(ws.sendQueues()).toHaveLength(0);
    expect(reports).toBe(0);

    // A peak of 12: still 4 open (a third) is not a quarter; the 10th close (2 left) is.
    const many = await open(url, 12);
    for (const s of many.slice(0, 8)) s.close();
    await until(() => ws.sendQueues().length === 4);
    expect(reports).toBe(0);
    many[8]!.close();
    many[9]!.close();
    await until(() => reports > 0 && ws.sendQueues().length === 2);
    expect(reports).toBe(1);
    // The peak restarted at 2: the last two closing is no new mass close.
    many[10]!.close();
    many[11]!.close();
    await until(() => ws.sendQueues().length === 0);
    expect(ws.sendQueues()).toHaveLength(0);
    expect(reports).toBe(1);
  });

  it('the reclaimer runs one memory-reducing GC per window however often it is asked, and none after close()', async () => {
    const ran: number[] = [];
    const reclaimer = createReclaimer({ delayMs: 10, minGapMs: 60_000, onRun: (ms) => ran.push(ms) });
    reclaimer.request();
    reclaimer.request();
    await until(() => ran.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reclaimer.runs()).toBe(1);
    expect(ran[0]).toBeGreaterThanOrEqual(0);
    reclaimer.request(); // inside minGapMs: dropped
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reclaimer.runs()).toBe(1);

    const other = createReclaimer({ delayMs: 20 });
    other.request();
    other.close();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(other.runs()).toBe(0);
  });
});
