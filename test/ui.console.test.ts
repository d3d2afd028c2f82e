/**
 * The web console (GET /ui) driven in Debian's Chromium against perpsim running in-process:
 * live data through the SDK, the request log, the control panel and its token guard, and no
 * console errors. Screenshots of each view go to test-output/ui/ for a reviewer to look at.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, Client } from '../client/index.ts';
import { buildUi } from '../scripts/build-ui.mjs';
import { startServer, type Server } from '../sim/server.ts';
import { defaultUiDirs } from '../sim/ui/serve.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../test-output/ui/', import.meta.url));
const TOKEN = 'console-test-token';

let uiDir: string;
let browser: Browser;

beforeAll(async () => {
  uiDir = (await buildUi({ outdir: mkdtempSync(join(tmpdir(), 'perpsim-ui-')), force: true })).outdir;
  mkdirSync(SHOTS, { recursive: true });
  // A machine without Chromium fails here rather than passing silently (.ci/run installs it).
  expect(existsSync(CHROMIUM), `${CHROMIUM} is required for the console tests`).toBe(true);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** A page that records console errors, uncaught exceptions and requests leaving the server. */
async function open(server: Server, hash: string, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; errors: string[]; foreign: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => void errors.push(e.message));
  page.on('request', (r) => void (r.url().startsWith(server.url) || r.url().startsWith(server.url.replace('http', 'ws')) || r.url().startsWith('data:') || foreign.push(r.url())));
  await page.goto(`${server.url}/ui${hash}`);
  return { page, errors, foreign };
}

describe('GET /ui', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({ port: 0, agents: false, uiDir });
  });
  afterAll(() => server.close());

  it('serves the page, its script and style from the build, and nothing outside it', async () => {
    const page = await fetch(`${server.url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('/ui/app.js');
    const script = await fetch(`${server.url}/ui/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(10_000);
    expect((await fetch(`${server.url}/ui/style.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    for (const path of ['/ui/nothing.js', '/ui/..%2Fpackage.json', '/ui/..%2F..%2Fpackage.json', '/ui/.env']) expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
    expect(await (await fetch(`${server.url}/ui/config.json`)).json()).toEqual({ controlToken: false, loopback: true });
    // Not the venue's API: not in the OpenAPI document, not in the request log.
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).filter((p) => p.startsWith('/ui'))).toEqual([]);
    const journal = (await (await fetch(`${server.url}/sim/journal`)).json()) as { requests: { path: string }[] };
    expect(journal.requests.filter((r) => r.path.startsWith('/ui'))).toEqual([]);
  });

  it('looks for the build beside the running bundle, then in the checkout\'s build/ui and the package\'s dist/ui', () => {
    expect(defaultUiDirs()).toEqual([
      fileURLToPath(new URL('../sim/ui/ui', import.meta.url)),
      fileURLToPath(new URL('../build/ui', import.meta.url)),
      fileURLToPath(new URL('../dist/ui', import.meta.url)),
    ]);
  });

  it('answers 503 naming the build command when the console is not built', async () => {
    const bare = await startServer({ port: 0, agents: false, uiDir: mkdtempSync(join(tmpdir(), 'perpsim-ui-empty-')) });
    try {
      const reply = await fetch(`${bare.url}/ui`);
      expect(reply.status).toBe(503);
      expect(await reply.text()).toContain('scripts/build-ui.mjs');
    } finally {
      await bare.close();
    }
  });
});

describe('the control panel from loopback without a token', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({ port: 0, agents: false, clock: 'virtual', uiDir });
  });
  afterAll(() => server.close());

  it('runs every /sim action from its form and shows each reply', async () => {
    const { page, errors } = await open(server, '#/control');
    const form = (name: string) => page.getByRole('form', { name });
    const reply = (name: string) => form(name).locator('output');
    const address = '0x' + 'd1'.repeat(20);
    await expect.poll(() => page.locator('#clock-state').textContent()).toContain('virtual');

    await form('Deposit').getByLabel('Address').fill(address);
    await form('Deposit').getByLabel('Amount (USD)').fill('2500');
    await form('Deposit').getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => reply('Deposit').textContent()).toContain('"netQuoteBalance":"2500.0"');

    await form('Register an API key').getByLabel('Address').fill(address);
    await form('Register an API key').getByRole('button', { name: 'Generate a key pair' }).click();
    await expect.poll(() => form('Register an API key').getByLabel('Public key').inputValue()).toMatch(/^[0-9a-f]{64}$/);
    await form('Register an API key').getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => reply('Register an API key').textContent()).toContain('"allSubaccounts":true');

    await form('Funding rate').getByLabel('Rate per hour (fraction)').fill('0.0002');
    await form('Funding rate').getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => reply('Funding rate').textContent()).toContain('"rate1h":"0.0002"');

    await form('Halt or resume').getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => reply('Halt or resume').textContent()).toContain('"halted":false');

    // The server's refusal is shown with its status and message (no position to liquidate).
    await form('Force a liquidation').getByLabel('Address').fill(address);
    await form('Force a liquidation').getByRole('button', { name: 'Liquidate' }).click();
    await expect.poll(() => reply('Force a liquidation').textContent()).toMatch(/^refused \(400\): \S/);

    await form('Clock').getByLabel('Advance (ms, virtual clock)').fill('3600000');
    const before = await page.locator('#clock-state').textContent();
    await form('Clock').getByRole('button', { name: 'Advance' }).click();
    await expect.poll(() => reply('Clock').textContent()).toContain('"mode":"virtual"');
    await expect.poll(() => page.locator('#clock-state').textContent()).not.toBe(before);

    await form('Faults').getByLabel('Faults (JSON, replaces those in force)').fill('{"routes": {"placeOrder": {"latencyMs": 5}}}');
    await form('Faults').getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => reply('Faults').getAttribute('class')).toBe('reply ok');
    await form('Faults').getByLabel('Faults (JSON, replaces those in force)').fill('');
    await form('Faults').getByRole('button', { name: 'Show current' }).click();
    await expect.poll(() => form('Faults').getByLabel('Faults (JSON, replaces those in force)').inputValue()).toContain('latencyMs');
    await form('Faults').getByRole('button', { name: 'Clear all' }).click();
    await expect.poll(async () => (await (await fetch(`${server.url}/sim/faults`)).json()) as unknown).toEqual({ faults: null });

    await form('State').getByLabel('Name').fill('funded');
    await form('State').getByRole('button', { name: 'Snapshot' }).click();
    await expect.poll(() => reply('State').getAttribute('class')).toBe('reply ok');
    await form('State').getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => reply('State').textContent()).toContain('tick "Yes, reset everything" first');
    await form('State').getByLabel('Yes, reset everything').check();
    await form('State').getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => reply('State').getAttribute('class')).toBe('reply ok');
    expect((await fetch(`${server.url}/v1/account?address=${address}`)).status).toBe(404);
    await form('State').getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => reply('State').getAttribute('class')).toBe('reply ok');
    expect((await fetch(`${server.url}/v1/account?address=${address}`)).status).toBe(200);

    // Moved outside AMD-USD's trading hours (at most four 6 h steps reach its 8 h night; the
    // flag follows the next oracle price), the markets view says so.
    const post = (path: string, body: string) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const amdOutside = async (): Promise<boolean> => {
      await post('/sim/oracle', '{"market":"AMD-USD","price":"125"}');
      return ((await (await fetch(`${server.url}/v1/markets?market=AMD-USD`)).json()) as { markets: { isOutsideRth: boolean }[] }).markets[0]!.isOutsideRth;
    };
    for (let i = 0; i < 4 && !(await amdOutside()); i++) await post('/sim/clock', '{"advanceMs":21600000}');
    expect(await amdOutside()).toBe(true);
    await page.goto(`${server.url}/ui#/markets`);
    await expect.poll(() => page.locator('tr[data-market="AMD-USD"] [data-col="status"]').textContent()).toBe('ONLINE · OUTSIDE HOURS');
    await expect.poll(() => page.locator('tr[data-market="BTC-USD"] [data-col="status"]').textContent()).toBe('ONLINE');
    await page.goto(`${server.url}/ui#/control`);

    await form('Clock').getByLabel('Mode').selectOption('realtime');
    await form('Clock').getByRole('button', { name: 'Set mode' }).click();
    await expect.poll(() => reply('Clock').textContent()).toContain('"mode":"realtime"');
    // Chromium notes every 4xx reply in the console: the refused liquidation's, and nothing else.
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await page.close();
  });
});

describe('the console on a running market', () => {
  let server: Server;
  let trader: Client;
  const address = '0x' + 'c0'.repeat(20);
  beforeAll(async () => {
    server = await startServer({ port: 0, uiDir, verifyThreads: 0 });
    const key = await ApiKey.generate();
    trader = new Client({ baseUrl: server.url, address, key });
    await trader.sim.registerApiKey(address, key.publicKey);
    await trader.syncTime();
    // Enrolled for notifications, so the deposit and fills land in its inbox.
    await trader.registerPushToken('ExponentPushToken[console-test]', 'web');
    await trader.sim.deposit(address, '100');
  });
  afterAll(async () => {
    await trader.close();
    await server.close();
  });

  it('shows both sides of the BTC-USD ladder within 2 s of opening, with the charts, tape and parameters', async () => {
    const started = Date.now();
    const { page, errors, foreign } = await open(server, '#/market/BTC-USD');
    await page.locator('.ladder .level.ask').first().waitFor({ timeout: Math.max(1, started + 2000 - Date.now()) });
    await page.locator('.ladder .level.bid').first().waitFor({ timeout: Math.max(1, started + 2000 - Date.now()) });
    console.log(`BTC-USD ladder: both sides ${Date.now() - started} ms after opening /ui#/market/BTC-USD`);
    const ask = await page.locator('.ladder .level.ask').last().locator('span').allTextContents();
    const bid = await page.locator('.ladder .level.bid').first().locator('span').allTextContents();
    // Price with BTC-USD's tick decimals (0.1), sizes with its step decimals (1e-8).
    expect(ask[0]).toMatch(/^\d{1,3}(,\d{3})*\.\d$/);
    expect(bid[1]).toMatch(/^\d+\.\d{8}$/);
    expect(Number(ask[0]!.replaceAll(',', ''))).toBeGreaterThan(Number(bid[0]!.replaceAll(',', '')));
    // Cumulative size grows away from the spread.
    const cums = (await page.locator('.ladder .level.bid span:nth-child(3)').allTextContents()).map(Number);
    expect(cums).toEqual([...cums].sort((a, b) => a - b));
    await expect.poll(() => page.locator('.candles canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.prices').textContent()).toMatch(/Mark \d/);
    await expect.poll(() => page.locator('dl.params').textContent()).toContain('0.016667');
    await page.selectOption('#timeframe', '5m');
    await expect.poll(() => page.locator('.tape tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'market-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, 'market-narrow.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('lists every market with prices, funding countdown and status', async () => {
    const { page, errors } = await open(server, '#/markets');
    const btc = page.locator('tr[data-market="BTC-USD"]');
    await expect.poll(() => btc.locator('[data-col="mark"]').textContent()).toMatch(/^\d{1,3}(,\d{3})*\.\d$/);
    await expect.poll(() => btc.locator('[data-col="next"]').textContent()).toMatch(/^\d\d:\d\d:\d\d$/);
    await expect.poll(() => btc.locator('[data-col="funding"]').textContent()).toMatch(/%$/);
    await expect.poll(() => btc.locator('[data-col="change"]').textContent()).toMatch(/%$/);
    expect(await btc.locator('[data-col="status"]').textContent()).toBe('ONLINE');
    expect(await page.locator('tbody tr').count()).toBe((await trader.markets()).markets.length);
    await page.screenshot({ path: join(SHOTS, 'markets-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows an order placed through the REST API in the account view and the request log, without a reload', async () => {
    const account = await open(server, `#/account/${address}`);
    const log = await open(server, '#/log');
    await account.page.locator('[data-subaccount="0"] dd[data-field="Equity"]').filter({ hasText: '100.00' }).waitFor({ timeout: 10_000 });
    await log.page.locator('table.log tbody').waitFor({ state: 'attached' });

    await trader.syncTime();
    const bid = (await trader.bbo('BTC-USD')).bestBid!;
    const price = (Math.floor(Number(bid.price) * 0.98 * 10) / 10).toFixed(1);
    const ack = await trader.placeOrder({ market: 'BTC-USD', side: 'BUY', price, quantity: '0.01' });

    const orderRow = account.page.locator(`tr[data-order="${ack.orderId}"]`);
    await orderRow.waitFor({ timeout: 5000 });
    expect(await orderRow.textContent()).toContain(Number(price).toLocaleString('en-US', { minimumFractionDigits: 1 }));
    const logRow = log.page.locator('tr[data-path="/v1/placeOrder"]').filter({ has: log.page.locator(`a[title="${address}"]`) });
    await logRow.waitFor({ timeout: 5000 });
    expect(await logRow.locator('td').nth(4).textContent()).toBe('202');
    await logRow.getByRole('button').click();
    await expect.poll(() => log.page.locator('tr.detail pre').first().textContent()).toContain(price);

    // A fill opens a position: shown with its mark, PnL and an estimated liquidation price
    // (100 USD behind 0.02 BTC: about 1,840 USD of loss away, i.e. below the entry).
    const ask = (await trader.bbo('BTC-USD')).bestAsk!;
    const taken = await trader.placeOrder({ market: 'BTC-USD', side: 'BUY', price: (Math.ceil(Number(ask.price) * 1.003 * 10) / 10).toFixed(1), quantity: '0.02', timeInForce: 'IOC' });
    expect(Number(taken.filledSize)).toBeGreaterThan(0.015);
    const position = account.page.locator('[data-subaccount="0"] tr[data-market="BTC-USD"]');
    await position.waitFor({ timeout: 5000 });
    const cells = await position.locator('td').allTextContents();
    expect(cells.slice(1, 3)).toEqual(['LONG', Number(taken.filledSize).toFixed(8)]);
    const entry = Number(cells[3]!.replaceAll(',', ''));
    const liq = Number(cells[6]!.replaceAll(',', ''));
    expect(liq).toBeGreaterThan(entry * 0.93);
    expect(liq).toBeLessThan(entry * 0.97);
    await expect.poll(() => account.page.locator('[data-subaccount="0"] table[aria-label="Recent fills"] tbody tr').count()).toBeGreaterThan(0);
    await expect.poll(() => account.page.locator('[data-subaccount="0"] dd[data-field="Margin state"]').textContent()).toBe('healthy');
    await expect.poll(() => account.page.locator('table[aria-label="Notifications"] tbody').textContent(), { timeout: 5000 }).toMatch(/DEPOSIT|FILL/);
    // Equity follows the fill (its fee at least) well before the channel's 5 s re-snapshot.
    await expect.poll(() => account.page.locator('[data-subaccount="0"] dd[data-field="Equity"]').textContent(), { timeout: 2000 }).not.toBe('100.00');

    // The console's own reads of the account are not in the log: only the bot's requests are.
    const journal = (await (await fetch(`${server.url}/sim/journal?address=${address}`)).json()) as { requests: { path: string }[] };
    expect(journal.requests.map((r) => r.path)).toEqual(['/v1/placeOrder', '/v1/placeOrder', '/v1/api-meta/notifications/tokens']);

    // Filters: by status class here, by address on the server.
    expect((await fetch(`${server.url}/v1/order/ffff?address=${address}`)).status).toBe(404);
    await log.page.selectOption('#log-status', '4xx');
    await log.page.locator('tr[data-status="404"]').first().waitFor({ timeout: 5000 });
    expect(new Set(await log.page.locator('table.log tbody tr[data-status]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))))).toEqual(new Set(['404']));
    await log.page.selectOption('#log-status', 'all');
    await log.page.fill('#log-address', address);
    await log.page.press('#log-address', 'Enter');
    await expect.poll(() => log.page.locator('table.log tbody tr[data-status]').count()).toBe(4);
    expect(new Set(await log.page.locator('table.log tbody tr[data-status] a').evaluateAll((links) => links.map((a) => a.getAttribute('title'))))).toEqual(new Set([address]));
    await log.page.fill('#log-address', '0x' + '99'.repeat(20));
    await log.page.press('#log-address', 'Enter');
    await expect.poll(() => log.page.locator('table.log tbody tr[data-status]').count()).toBe(0);
    expect(log.page.url()).toMatch(/\/ui#\/log$/);

    await account.page.screenshot({ path: join(SHOTS, 'account-1280.png'), fullPage: true });
    await log.page.screenshot({ path: join(SHOTS, 'log-1280.png') });
    await account.page.setViewportSize({ width: 390, height: 844 });
    await account.page.waitForTimeout(200);
    await account.page.screenshot({ path: join(SHOTS, 'account-narrow.png'), fullPage: true });
    // Without an address, the picker offers the addresses seen in the request log.
    await account.page.goto(`${server.url}/ui#/account`);
    await account.page.locator(`#seen-addresses option[value="${address}"]`).waitFor({ state: 'attached', timeout: 5000 });
    expect(account.errors).toEqual([]);
    expect(log.errors).toEqual([]);
    await account.page.close();
    await log.page.close();
  });
});

describe('the control panel under --control-token', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer({ port: 0, agents: false, controlToken: TOKEN, uiDir });
  });
  afterAll(() => server.close());

  it('refuses to act until the token is given, then sets the oracle price and the mark follows', async () => {
    const { page, errors } = await open(server, '#/control');
    const oracleForm = page.getByRole('form', { name: 'Oracle price' });
    const mark = page.locator('#oracle-live [data-field="mark"]');
    await expect.poll(() => mark.textContent()).toMatch(/^\d/);
    const before = await mark.textContent();
    await oracleForm.getByLabel('Price').fill('90000');
    await oracleForm.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => oracleForm.locator('output').textContent()).toContain('refused (401)');
    await page.waitForTimeout(500);
    expect(await mark.textContent()).toBe(before);
    expect(await (await fetch(`${server.url}/v1/markets?market=BTC-USD`)).json()).toMatchObject({ markets: [{ oraclePrice: expect.not.stringMatching(/^90000/) }] });

    await page.locator('#control-token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await oracleForm.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => oracleForm.locator('output').textContent()).toContain('"oraclePrice":"90000"');
    // The reply's mark is a price, not the engine's ticks.
    expect(await oracleForm.locator('output').textContent()).toMatch(/"markPrice":"90000\.0"/);
    await expect.poll(() => mark.textContent(), { timeout: 5000 }).toBe('90,000.0');

    // Halting from the panel shows on the markets view (the token stays for the tab).
    const haltForm = page.getByRole('form', { name: 'Halt or resume' });
    await haltForm.getByRole('button', { name: 'Halt' }).click();
    await expect.poll(() => haltForm.locator('output').textContent()).toContain('"halted":true');
    await page.screenshot({ path: join(SHOTS, 'control-1280.png'), fullPage: true });
    await page.goto(`${server.url}/ui#/markets`);
    const btc = page.locator('tr[data-market="BTC-USD"]');
    await expect.poll(() => btc.locator('[data-col="status"]').textContent()).toBe('ONLINE · HALTED');
    await expect.poll(() => btc.locator('[data-col="mark"]').textContent()).toBe('90,000.0');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reaches every control with the keyboard, each with a label', async () => {
    const { page, errors } = await open(server, '#/control');
    await page.getByRole('form', { name: 'State' }).waitFor();
    const unlabelled = await page.$$eval('main input, main select, main textarea, main button', (els) =>
      els.filter((el) => (el as unknown as { tabIndex: number }).tabIndex < 0 || (el.tagName !== 'BUTTON' && el.closest('label') === null && el.getAttribute('aria-label') === null)).map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unlabelled).toEqual([]);
    const forms = await page.$$eval('main form', (fs) => fs.map((f) => f.getAttribute('aria-label')));
    expect(forms).toEqual(['Control token', 'Oracle price', 'Halt or resume', 'Funding rate', 'Deposit', 'Register an API key', 'Force a liquidation', 'Clock', 'Faults', 'State']);
    // Tab walks from the token field through every form to the last button.
    await page.locator('#control-token').focus();
    const reached: string[] = [];
    for (let i = 0; i < 80 && !reached.includes('Reset'); i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.locator('*:focus').evaluate((el) => el.textContent?.trim() || el.id));
    }
    expect(reached).toEqual(expect.arrayContaining(['oracle-price', 'Halt', 'funding-rate', 'deposit-amount', 'Generate a key pair', 'Liquidate', 'Advance', 'faults-json', 'Snapshot', 'Reset']));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(SHOTS, 'control-narrow.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
