import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';

/**
 * /docs in a real browser (Debian Chromium through playwright-core, CHROMIUM_PATH or
 * /usr/bin/chromium): our title, the bearer scheme preselected, no vendor agent/MCP buttons, and
 * nothing loaded from anywhere but this server (the browser's network log). Screenshots at 1280
 * and 375 px wide are kept in test-results/ as artefacts.
 */
describe.skipIf(dialect !== 'pglite')('interactive documentation in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestApp();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each([1280, 375])('at %i px: our title, Bearer preselected, only requests to this server', async (breedte) => {
    const page = await browser.newPage({ viewport: { width: breedte, height: 900 } });
    const verzoeken: string[] = [];
    page.on('request', (r) => verzoeken.push(r.url()));
    await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    await page.getByText('Insight API', { exact: true }).first().waitFor();
    expect(await page.title()).toBe('Insight API — documentatie');
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text (hidden elements left out) is what a reader sees
    const tekst = await page.locator('body').innerText();
    expect(tekst).not.toMatch(/Ask AI|Generate MCP|Deploy/i);
    if (breedte === 1280) expect(tekst).toMatch(/Selected Auth Type:\s*Bearer/);
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: path.join('test-results', `docs-${breedte}.png`), fullPage: false });
    expect(verzoeken.length).toBeGreaterThan(2);
    expect(verzoeken.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))).toEqual([]);
    await page.close();
  });

  it('the docs script is served compressed (brotli, cached), and intact', async () => {
    const gewoon = await fetch(`${base}/docs/js/scalar.js`, { headers: { 'accept-encoding': 'identity' } });
    const origineel = Buffer.from(await gewoon.arrayBuffer());
    const res = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toMatch(/max-age=/);
    expect(res.rawPayload.length).toBeLessThan(origineel.length / 4);
    expect(brotliDecompressSync(res.rawPayload).equals(origineel)).toBe(true);
  });
});
