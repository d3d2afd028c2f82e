/**
 * Opens a generated self-contained page (report.html, sweep.html) in Debian's headless Chromium
 * with playwright-core, waits for its `data-rendered="true"`, and records page errors and any
 * non-file request (there must be none: the pages are offline).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';

export async function withOfflinePage(file: string, viewport: { width: number; height: number }, check: (page: Page) => Promise<void>): Promise<void> {
  // A machine without Chromium fails here rather than passing silently (npm test's set-up installs it).
  expect(existsSync(CHROMIUM), `${CHROMIUM} is required for the page tests`).toBe(true);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport });
    const requests: string[] = [];
    page.on('request', (r) => void (r.url().startsWith('file:') || requests.push(r.url())));
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-rendered="true"]', { timeout: 30_000 });
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await check(page);
  } finally {
    await browser.close();
  }
}
