/**
 * The web app end to end in a real browser: Debian's chromium (CHROMIUM_PATH, default /usr/bin/chromium)
 * driven by playwright-core, against the real server on loopback with the bundle built at install
 * (web/dist). Screenshots of every page at 1280 and 375 px go to test-results/web/ (gitignored); axe-core
 * checks every page for serious or critical accessibility violations. Runs once (PGlite project). The
 * webhook step sends to a receiver on loopback http (the server runs with WEBHOOK_ALLOW_INSECURE=true and
 * its delivery worker) and verifies the signature with the reference `standardwebhooks` package.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { startBezorger, type Bezorger } from '../../src/domain/webhooks/bezorger.ts';
import { startOntvanger, type Ontvangen, type Ontvanger } from '../support/ontvanger.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARTEFACTEN = path.resolve('test-results/web');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EMAIL = 'e2e@voorbeeld.nl';
const WACHTWOORD = 'browser-test-wachtwoord';

// CI (CI=true, .ci/run installs chromium) always runs this; a developer machine without Chromium skips it
// with the reason, so `npm test` on a fresh clone stays green (README: apt-get install chromium).
const geenBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';

describe.skipIf(geenBrowser)(`web app /app in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let adres: { postcode: string; huisnummer: number };
  let ontvanger: Ontvanger;
  let bezorger: Bezorger;
  const vreemdeVerzoeken: string[] = [];
  const cspMeldingen: string[] = [];

  beforeAll(async () => {
    expect(existsSync(path.join(WEB_DIST, 'index.html')), 'web/dist ontbreekt: npm run build:web').toBe(true);
    expect(existsSync(CHROMIUM), `geen Chromium op ${CHROMIUM}`).toBe(true);
    mkdirSync(ARTEFACTEN, { recursive: true });
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true' });
    // The browser works in real time (its "today"); so does the server here.
    Object.defineProperty(t.clock, 'now', { get: () => new Date() });
    ontvanger = await startOntvanger();
    bezorger = await startBezorger(t.services, t.db, { pollMs: 50, verloopControleMs: 0 });
    const acc = await t.account(1000);
    await maakGebruiker(t.db.prisma, { accountId: acc.id, email: EMAIL, wachtwoord: WACHTWOORD });
    adres = await maakVolledigAdres(t.db.prisma);
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'nl-NL', timezoneId: 'Europe/Amsterdam', acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) vreemdeVerzoeken.push(u);
    });
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspMeldingen.push(m.text());
    });
    page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await browser?.close();
    await bezorger?.sluit();
    await ontvanger?.sluit();
    await t?.close();
  });

  async function screenshots(naam: string) {
    await page.screenshot({ path: path.join(ARTEFACTEN, `${naam}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.waitForTimeout(150);
    // Evaluated in the page (as text: this file is type-checked without the DOM library).
    const { breedte, te_breed } = (await page.evaluate(`({
      breedte: document.documentElement.scrollWidth,
      // For the failure message: the elements that stick out on the right.
      te_breed: [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('.tabel-rol'))
        .slice(0, 5)
        .map((e) => e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)),
    })`)) as { breedte: number; te_breed: string[] };
    expect(breedte, `${naam}: de pagina is op 375 px niet breder dan het scherm (${te_breed.join('; ')})`).toBeLessThanOrEqual(375);
    await page.screenshot({ path: path.join(ARTEFACTEN, `${naam}-375.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function axe(naam: string) {
    // Evaluated through the DevTools protocol, so the page's strict CSP need not be loosened for the test.
    const uitslag = await page.evaluate(`${AXE}; axe.run(document, { resultTypes: ['violations'] })`);
    const ernstig = (uitslag as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(ernstig, `${naam}: toegankelijkheid`).toEqual([]);
  }

  const rest = (pad: string, key: string, body?: unknown) =>
    fetch(`${base}${pad}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** The signature checked by the reference implementation; the verified payload. */
  const verifieer = (geheim: string, o: Ontvangen) =>
    new Webhook(geheim).verify(o.body, { 'webhook-id': String(o.headers['webhook-id']), 'webhook-timestamp': String(o.headers['webhook-timestamp']), 'webhook-signature': String(o.headers['webhook-signature']) });

  let sleutel = '';

  it('/app asks for login; the HTML carries a strict CSP and long-cached hashed assets', async () => {
    const res = await page.goto(`${base}/app`);
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(res!.headers()['cache-control']).toBe('no-cache');
    await expect.poll(() => page.getByRole('heading', { name: 'Aanmelden bij Insight' }).isVisible()).toBe(true);
    const script = await page.locator('script[type=module]').getAttribute('src');
    expect(script).toMatch(/^\/app\/assets\/index-[\w-]{8}\.js$/);
    const asset = await fetch(`${base}${script}`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await screenshots('aanmelden');
    await axe('aanmelden');
  });

  it('logs in with the keyboard alone and shows the overview, its heading focused for screen readers', async () => {
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('email');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(WACHTWOORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement.textContent')).toBe('Overzicht');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Afmelden');
    await expect.poll(() => page.locator('#saldo-credits').textContent()).toBe('1.000 credits');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'insight_sessie')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await page.getByRole('link', { name: 'Documentatie' }).getAttribute('href')).toBe('/docs');
  });

  it('creates a key and reads it from the page; it works over REST (whoami and a lookup)', async () => {
    await page.getByRole('link', { name: 'Sleutels' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    await page.getByLabel('Naam').fill('e2e-sleutel');
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    const veld = page.locator('#nieuwe-sleutel');
    await veld.waitFor();
    sleutel = await veld.inputValue();
    expect(sleutel).toMatch(/^pct_[0-9A-Za-z]{38}$/);
    await expect.poll(() => page.locator('tr[data-status=geldig]').count()).toBe(1);
    await screenshots('sleutels');
    await axe('sleutels');

    expect((await rest('/api/v1/whoami', sleutel)).status).toBe(200);
    const woz = await rest('/api/v1/inzicht/woz', sleutel, adresBody(adres));
    expect(woz.status).toBe(200);
  });

  it('the call and its cost show in the usage view, its chart and the overview; CSV export has it', async () => {
    await page.getByRole('link', { name: 'Verbruik' }).click();
    await page.getByRole('heading', { name: 'Verbruik', level: 1 }).waitFor();
    const rij = page.locator('tr[data-voorziening=woz]');
    await rij.first().waitFor();
    expect(await rij.count()).toBe(1);
    const cellen = await rij.first().locator('td').allTextContents();
    expect(cellen[1]).toBe('woz');
    expect(cellen[4]).toBe('200');
    expect(cellen[5]).toBe('1');
    expect(cellen[6]).toMatch(/€\s?0,05/);
    const canvas = page.locator('figure.grafiek canvas');
    await expect.poll(() => canvas.getAttribute('data-totaal')).toBe('1');
    expect(await canvas.getAttribute('aria-label')).toContain('woz 1');
    await screenshots('verbruik');
    await axe('verbruik');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exporteren als CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.startsWith('\ufeff')).toBe(true);
    const regels = csv.slice(1).trim().split('\r\n');
    expect(regels[0]).toBe('verzoek_id;tijdstip;kanaal;voorziening;status;credits;gefactureerd_cent;adres;sleutel_voorvoegsel;sleutel_naam');
    expect(regels).toHaveLength(2);
    expect(regels[1]).toMatch(/;rest;woz;200;1;5;/);
    expect(regels[1].split(';')[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/);

    await page.getByRole('link', { name: 'Overzicht' }).click();
    await expect.poll(() => page.locator('#credits-maand').textContent()).toBe('1 credit');
    await expect.poll(() => page.locator('figure.grafiek canvas').getAttribute('data-totaal')).toBe('1');
    expect(await page.locator('#saldo-credits').textContent()).toBe('999 credits');
    await screenshots('overzicht');
    await axe('overzicht');
  });

  it('rotate: a new key is shown and the old key gets 401 at once; revoke: the new key gets 401', async () => {
    await page.getByRole('link', { name: 'Sleutels' }).click();
    await page.getByRole('button', { name: /^Sleutel e2e-sleutel .* vervangen$/ }).click();
    await expect.poll(() => page.locator('#nieuwe-sleutel').inputValue()).not.toBe(sleutel);
    const nieuw = await page.locator('#nieuwe-sleutel').inputValue();
    expect(nieuw).toMatch(/^pct_/);
    expect((await rest('/api/v1/whoami', sleutel)).status).toBe(401);
    expect((await rest('/api/v1/whoami', nieuw)).status).toBe(200);
    await expect.poll(() => page.locator('tr[data-status=ingetrokken]').count()).toBe(1);

    await page.getByRole('button', { name: /^Sleutel e2e-sleutel .* intrekken$/ }).click();
    await page.getByText("Sleutel 'e2e-sleutel' is ingetrokken.").waitFor();
    expect((await rest('/api/v1/whoami', nieuw)).status).toBe(401);
    // The status line is set before the list is read again: wait for the list, not just the message.
    await expect.poll(() => page.locator('tr[data-status=geldig]').count()).toBe(0);
  });

  it('registers a webhook to a local receiver, copies its secret, sends a test: the delivery shows in the log, signed; replay sends it again', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    const url = `${ontvanger.base}/e2e/ok`;
    await page.getByLabel('URL van de ontvanger').fill(url);
    await page.getByLabel('Omschrijving (niet verplicht)').fill('browsertest');
    expect(await page.getByRole('checkbox', { name: /inzicht\.voltooid/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Webhook toevoegen' }).click();
    const veld = page.locator('#webhook-geheim');
    await veld.waitFor();
    const geheim = await veld.inputValue();
    expect(geheim).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('webhook-geheim-kop');
    await page.getByRole('button', { name: 'Kopiëren' }).click();
    await page.getByRole('button', { name: 'Gekopieerd' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(geheim);
    await expect.poll(() => page.locator(`tr[data-url="${url}"]`).count()).toBe(1);

    await page.getByRole('button', { name: `Test sturen naar ${url} (browsertest)` }).click();
    await page.getByRole('status').getByText(/Testgebeurtenis klaargezet/).waitFor();
    const rij = page.locator('tr[data-type="webhook.test"]');
    await expect.poll(() => rij.getAttribute('data-toestand'), { timeout: 15_000 }).toBe('afgeleverd');
    expect(await rij.count()).toBe(1);
    const cellen = await rij.locator('td').allTextContents();
    expect(cellen.slice(1, 5)).toEqual(['webhook.test', 'Afgeleverd', '1', '204']);

    const [aankomst] = await ontvanger.wacht('/e2e/ok', 1);
    const h = aankomst.headers;
    expect(verifieer(geheim, aankomst)).toMatchObject({ type: 'webhook.test', data: { url } });
    expect(await rij.getAttribute('data-gebeurtenis')).toBe(h['webhook-id']);
    await screenshots('webhooks');
    await axe('webhooks');

    await page.getByRole('button', { name: /^Gebeurtenis webhook\.test van .* opnieuw sturen$/ }).click();
    await page.getByRole('status').getByText(`Aflevering ${h['webhook-id']} wordt opnieuw verstuurd.`).waitFor();
    const tweede = await ontvanger.wacht('/e2e/ok', 2);
    expect(tweede[1].headers['webhook-id']).toBe(h['webhook-id']);
    expect(verifieer(geheim, tweede[1])).toMatchObject({ type: 'webhook.test', data: { url } });
    await expect.poll(() => rij.getAttribute('data-toestand'), { timeout: 15_000 }).toBe('afgeleverd');
    expect(await rij.count()).toBe(1);
  });

  it('the session cookie is no credential for POST /api/v1/inzicht/woz: 401', async () => {
    const status = await page.evaluate(async (body) => {
      const r = await fetch('/api/v1/inzicht/woz', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return r.status;
    }, adresBody(adres));
    expect(status).toBe(401);
  });

  it('logging out ends the session: /app asks for login again', async () => {
    await page.getByRole('button', { name: 'Afmelden' }).click();
    await page.getByRole('heading', { name: 'Aanmelden bij Insight' }).waitFor();
    await page.goto(`${base}/app/sleutels`);
    await page.getByRole('heading', { name: 'Aanmelden bij Insight' }).waitFor();
    expect(await page.locator('#nieuwe-sleutel').count()).toBe(0);
  });

  it('10 wrong passwords within a minute get 429 with a Dutch message', async () => {
    const statussen: number[] = [];
    for (let i = 0; i < 10; i++) {
      await page.getByLabel('E-mailadres').fill(EMAIL);
      await page.getByLabel('Wachtwoord').fill(`verkeerd-${i}`);
      const [res] = await Promise.all([page.waitForResponse((r) => r.url().includes('/trpc/sessie.aanmelden')), page.getByRole('button', { name: 'Aanmelden' }).click()]);
      statussen.push(res.status());
      await page.getByRole('button', { name: 'Aanmelden' }).and(page.locator(':enabled')).waitFor();
    }
    expect(statussen.slice(0, 9)).toEqual(Array(9).fill(401));
    expect(statussen[9]).toBe(429);
    await page.getByRole('alert').getByText(/Te veel mislukte aanmeldpogingen/).waitFor();
  });

  it('loaded nothing from another origin and broke no CSP rule', () => {
    expect(vreemdeVerzoeken).toEqual([]);
    expect(cspMeldingen).toEqual([]);
  });
});
