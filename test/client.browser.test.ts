/**
 * The SDK in a browser: perpsim/client bundled for the browser by esbuild (the package's
 * export, resolved to its sources through the `perpsim-source` condition), loaded into a page of
 * Debian's Chromium (playwright-core) whose origin is a live perpsim; there it generates a key
 * (WebCrypto), registers it through /sim, places and cancels a signed order, and receives both
 * changes on the `orders` channel over the browser's own WebSocket.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startExchange } from '../testing/index.ts';

const CHROMIUM = '/usr/bin/chromium';
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** Runs in the page: everything through the SDK, nothing from Node. */
const SCENARIO = `import { ApiKey, Client } from 'perpsim/client';
window.scenario = async (baseUrl) => {
  const address = '0x5555555555555555555555555555555555555555';
  const key = await ApiKey.generate();
  const client = new Client({ baseUrl, address, key });
  await client.sim.registerApiKey(address, key.publicKey);
  await client.sim.deposit(address, '10000');
  const updates = [];
  let notify = () => {};
  await client.ws.subscribe({ channel: 'orders', id: address }, (frame) => {
    if (frame.type !== 'channel_data') return;
    updates.push({ orderId: frame.contents.orderId, status: frame.contents.status });
    notify();
  });
  const seen = (orderId, status) => new Promise((resolve) => {
    notify = () => updates.some((u) => u.orderId === orderId && u.status === status) && resolve();
    notify();
  });
  const ack = await client.placeOrder({ market: 'ETH-USD', side: 'BUY', price: '3000.00', quantity: '0.1' });
  await seen(ack.orderId, 'OPEN');
  await client.cancelOrder({ market: 'ETH-USD', orderId: ack.orderId });
  await seen(ack.orderId, 'CANCELED');
  await client.close();
  return { ack: ack.status, orderId: ack.orderId, updates, node: typeof process !== 'undefined' };
};`;

describe('perpsim/client in a browser', () => {
  it('generates a key, registers it through /sim, places and cancels an order, and gets the orders updates over the WebSocket', async () => {
    const bundle = await build({
      stdin: { contents: SCENARIO, resolveDir: REPO, loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      conditions: ['perpsim-source'],
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.text;
    // Nothing of Node's reached the bundle.
    expect(script).not.toMatch(/from\s*["']node:|require\(["'](?:node:)?(?:fs|net|crypto|worker_threads)["']\)/);

    expect(existsSync(CHROMIUM), `${CHROMIUM} is required for the browser test (npm test's set-up installs it)`).toBe(true);
    const ex = await startExchange({ agents: false });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => void errors.push(e.message));
      // The page is on perpsim's own origin (the venue's API sends no CORS headers): /health, with
      // the bundle added as a module script (page.route would intercept the WebSocket handshake).
      await page.goto(`${ex.url}/health`);
      await page.addScriptTag({ content: script, type: 'module' });
      await page.waitForFunction(() => typeof (globalThis as unknown as { scenario?: unknown }).scenario === 'function', undefined, { timeout: 30_000 });
      const result = await page.evaluate((url) => (globalThis as unknown as { scenario: (u: string) => Promise<unknown> }).scenario(url), ex.url);
      expect(errors).toEqual([]);
      const { ack, orderId, updates, node } = result as { ack: string; orderId: string; updates: { orderId: string; status: string }[]; node: boolean };
      expect(node).toBe(false);
      expect(ack).toBe('ACK');
      expect(updates.filter((u) => u.orderId === orderId).map((u) => u.status)).toEqual(['OPEN', 'CANCELED']);
      // The exchange saw it: the order is canceled there.
      expect((await ex.client().order(orderId, { address: '0x5555555555555555555555555555555555555555' })).status).toBe('CANCELED');
    } finally {
      await browser.close();
      await ex.close();
    }
  });
});
