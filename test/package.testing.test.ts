/**
 * perpsim/testing: startExchange runs a whole exchange in-process on a free port; several at once
 * share nothing; close() leaves nothing that keeps the process alive; bad options reject naming
 * the option.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, ApiKey, type Client } from '../client/index.ts';
import { ExchangeOptionsError, startExchange, type RunningExchange } from '../testing/index.ts';

const running: RunningExchange[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((ex) => ex.close()));
});

async function start(options: Parameters<typeof startExchange>[0]): Promise<RunningExchange> {
  const ex = await startExchange(options);
  running.push(ex);
  return ex;
}

/** A funded trader on `ex`: a fresh key registered through /sim. */
async function trader(ex: RunningExchange, address: string): Promise<Client> {
  const key = await ApiKey.generate();
  await ex.sim.registerApiKey(address, key.publicKey);
  await ex.sim.deposit(address, '10000');
  return ex.client({ address, key });
}

const ALICE = '0x1111111111111111111111111111111111111111';

async function rejection(promise: Promise<unknown>): Promise<ExchangeOptionsError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExchangeOptionsError);
  return err as ExchangeOptionsError;
}

describe('startExchange', () => {
  it('serves REST and WebSocket on a free port: a bound client places an order and gets its orders update', async () => {
    const ex = await start({ clock: 'virtual', agents: false });
    expect(ex.url).toBe(`http://127.0.0.1:${ex.port}`);
    expect(ex.wsUrl).toBe(`ws://127.0.0.1:${ex.port}/v1/ws`);
    expect(ex.port).toBeGreaterThan(0);
    expect(await (await fetch(`${ex.url}/health`)).json()).toMatchObject({ status: 'ok' });
    const alice = await trader(ex, ALICE);
    let resolveUpdate: (contents: unknown) => void = () => undefined;
    const update = new Promise<unknown>((resolve) => (resolveUpdate = resolve));
    await alice.ws.subscribe({ channel: 'orders', id: ALICE }, (frame) => {
      if (frame.type === 'channel_data') resolveUpdate(frame.contents);
    });
    const ack = await alice.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' });
    expect(await update).toMatchObject({ orderId: ack.orderId, status: 'OPEN' });
  });

  it('two exchanges in one process share nothing: keys, balances, books and clocks are each their own', async () => {
    const [a, b] = await Promise.all([start({ clock: 'virtual', agents: false }), start({ clock: 'virtual', agents: false, seed: 9 })]);
    expect(a.port).not.toBe(b.port);
    const alice = await trader(a, ALICE);
    await alice.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' });
    // The same key and address on b: unknown there.
    const onB = b.client({ address: ALICE, key: alice.key! });
    await expect(onB.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' })).rejects.toBeInstanceOf(ApiError);
    const book = async (ex: RunningExchange) => ((await (await fetch(`${ex.url}/v1/l2OrderBook/ETH-USD`)).json()) as { bids: unknown[] }).bids.length;
    expect([await book(a), await book(b)]).toEqual([1, 0]);
    const before = await b.sim.clock();
    await a.sim.advanceClock(3_600_000);
    expect((await b.sim.clock()).timeUs).toBeLessThan(before.timeUs + 3_600_000_000);
  });

  it('a control token guards /sim; sim and the bound clients send it', async () => {
    const ex = await start({ clock: 'virtual', agents: false, auth: false, rateLimits: false, controlToken: 'secret' });
    expect((await fetch(`${ex.url}/sim/clock`)).status).toBe(401);
    expect((await ex.sim.clock()).mode).toBe('virtual');
    expect((await ex.client().sim.clock()).mode).toBe('virtual');
  });

  it('sim saves, restores and resets the state of its own exchange', async () => {
    const ex = await start({ clock: 'virtual', agents: false });
    const alice = await trader(ex, ALICE);
    const balance = async () => (await alice.account()).freeCollateral;
    const funded = await balance();
    expect(await ex.sim.snapshot('funded')).toEqual({ name: 'funded', status: 'saved' });
    await ex.sim.deposit(ALICE, '5000');
    expect(await balance()).not.toBe(funded);
    expect(await ex.sim.restore('funded')).toEqual({ name: 'funded', status: 'restored' });
    expect(await balance()).toBe(funded);
    await expect(ex.sim.restore('never-saved')).rejects.toMatchObject({ status: 404 });
    expect(await ex.sim.reset()).toEqual({ status: 'reset' });
    // The key is gone with everything else.
    await expect(alice.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3300.00', quantity: '0.5' })).rejects.toBeInstanceOf(ApiError);
  });

  it('a bad option rejects naming it, before anything starts', async () => {
    expect((await rejection(startExchange({ sed: 1 } as never))).message).toContain('sed: unknown key');
    expect((await rejection(startExchange({ clock: 'fast' } as never))).message).toMatch(/clock: must be one of "realtime", "accelerated", "virtual"/);
    expect((await rejection(startExchange({ port: 70_000 }))).message).toContain('port:');
    expect((await rejection(startExchange({ agents: 'no' } as never))).message).toContain('agents: must be boolean');
    expect((await rejection(startExchange({ lockstep: 1000 }))).message).toContain("lockstep: needs clock 'virtual'");
    expect((await rejection(startExchange({ config: { markets: 'BTC' } }))).message).toContain('config: markets');
    expect((await rejection(startExchange({ config: '/nonexistent/perpsim.json' }))).message).toContain('cannot be read');
    expect((await rejection(startExchange({ pricesFiles: { 'NOPE-USD': 'x.csv' } }))).message).toContain('pricesFiles: price file for unknown market NOPE-USD');
  });

  it('close() leaves no timer, socket or thread: a process that started and closed two exchanges exits by itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-testing-'));
    const script = join(dir, 'two.mts');
    const testing = new URL('../testing/index.ts', import.meta.url).href;
    const client = new URL('../client/index.ts', import.meta.url).href;
    writeFileSync(
      script,
      `import { startExchange } from ${JSON.stringify(testing)};
import { ApiKey } from ${JSON.stringify(client)};
// Realtime clock with agents and a verification thread on one, virtual on the other.
const exchanges = await Promise.all([startExchange({ verifyThreads: 1 }), startExchange({ clock: 'virtual', agents: false })]);
for (const ex of exchanges) {
  const address = '0x2222222222222222222222222222222222222222';
  const key = await ApiKey.generate();
  await ex.sim.registerApiKey(address, key.publicKey);
  await ex.sim.deposit(address, '10000');
  const bot = ex.client({ address, key });
  let update;
  const seen = new Promise((resolve) => (update = resolve));
  await bot.ws.subscribe({ channel: 'orders', id: address }, (f) => f.type === 'channel_data' && update(f));
  await bot.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '1000.00', quantity: '0.1' });
  await seen;
  await bot.book('BTC-USD');
}
console.log('traded');
await Promise.all(exchanges.map((ex) => ex.close()));
console.log('closed');
`,
    );
    // Starting (tsx transforms the sources) may be slow on a loaded machine; exiting after
    // "closed" may not: the check is the time from that line to the exit.
    const started = Date.now();
    let closedAt: number | undefined;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string; signal: string | null }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', script], { timeout: 150_000 }, (err, stdout, stderr) => {
        clearTimeout(lingering);
        resolve({ code: child.exitCode, signal: child.signalCode ?? (err as { signal?: string } | null)?.signal ?? null, stdout, stderr });
      });
      let lingering: ReturnType<typeof setTimeout> | undefined;
      child.stdout!.on('data', (chunk: Buffer) => {
        if (closedAt !== undefined || !chunk.toString().includes('closed')) return;
        closedAt = Date.now();
        lingering = setTimeout(() => child.kill('SIGKILL'), 10_000);
      });
    });
    const exited = Date.now();
    console.log(`child process: traded on and closed two exchanges in ${(closedAt ?? exited) - started} ms, then exited in ${closedAt === undefined ? '-' : exited - closedAt} ms`);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('traded\nclosed\n');
    expect(run, 'the process did not exit within 10 s of closing its exchanges').toMatchObject({ code: 0, signal: null });
  }, 180_000);
});
