/**
 * The web app as a new customer meets it, in Debian's Chromium (CHROMIUM_PATH) through playwright-core,
 * with the browser's language English (as many customers' browsers are): the usage chart follows the
 * filters, the tables fit a 375 px phone as a card per row, the form messages are Dutch, no "beheer"
 * keys, and the saldo.laag threshold is shown and set. PGlite only, like test/web/app.test.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { maakEndpoint } from '../../src/domain/webhooks/beheer.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const EMAIL = 'klant@voorbeeld.nl';
const WACHTWOORD = 'klant-test-wachtwoord';
const geenBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';

describe.skipIf(geenBrowser)(`web app for a new customer in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let accountId: string;

  beforeAll(async () => {
    expect(existsSync(path.join(WEB_DIST, 'index.html')), 'web/dist ontbreekt: npm run build:web').toBe(true);
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true' });
    Object.defineProperty(t.clock, 'now', { get: () => new Date() });
    accountId = (await t.account(1000)).id;
    await maakGebruiker(t.db.prisma, { accountId, email: EMAIL, wachtwoord: WACHTWOORD });
    const now = new Date();
    const k = await maakSleutel(t.db.prisma, { accountId, naam: 'een-lange-sleutelnaam-productie', verlooptOp: new Date(now.getTime() + 30 * 86_400_000), now });
    const rij = (voorziening: string, status: number, credits: number) =>
      ({ accountId, keyId: k.id, kanaal: 'rest', voorziening, status, credits, gefactureerdCent: credits * 5, adres: 'Maantulpstraat 3, 7800 SD Verzonnenveen', aangemaaktOp: now });
    // As in the report: 252 credits of waarde in all, of which three failed (404, 404, 422: 18 credits).
    await t.db.prisma.usageRecord.createMany({
      data: [...Array.from({ length: 13 }, () => rij('waarde', 200, 18)), rij('waarde', 404, 0), rij('waarde', 404, 0), rij('waarde', 422, 18), rij('woz', 200, 1)],
    });
    await maakEndpoint(t.db.prisma, { accountId, url: 'http://127.0.0.1:9/een/heel/lang/pad/naar/de/ontvanger', events: ['inzicht.voltooid'], now, onveilig: true });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--lang=en-US'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'Europe/Amsterdam' });
    page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${base}/app`);
    await page.getByLabel('E-mailadres').fill(EMAIL);
    await page.getByLabel('Wachtwoord').fill(WACHTWOORD);
    await page.getByRole('button', { name: 'Aanmelden' }).click();
    await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the usage chart and its text follow the outcome filter, as the list does', async () => {
    await page.getByRole('link', { name: 'Verbruik' }).click();
    await page.getByRole('heading', { name: 'Verbruik', level: 1 }).waitFor();
    const canvas = page.locator('figure.grafiek canvas');
    await expect.poll(() => canvas.getAttribute('data-totaal')).toBe('253');
    await page.locator('#f-voorziening').selectOption('waarde');
    await page.locator('#f-uitkomst').selectOption('mislukt');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await expect.poll(() => page.locator('tr[data-voorziening=waarde]').count()).toBe(3);
    await expect.poll(() => canvas.getAttribute('data-totaal')).toBe('18');
    expect(await canvas.getAttribute('aria-label')).toContain('waarde 18');
  });

  it('at 375 px every table is a card per row: nothing scrolls sideways, every action is in sight', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      const breedteVan = () =>
        page.evaluate(`[...document.querySelectorAll('.tabel-rol')].map((r) => ({ scroll: r.scrollWidth, breed: r.clientWidth, pagina: document.documentElement.scrollWidth }))`) as Promise<{ scroll: number; breed: number; pagina: number }[]>;
      const inBeeld = async (naam: RegExp) => {
        const knop = page.getByRole('button', { name: naam }).first();
        await knop.waitFor();
        const vak = (await knop.boundingBox())!;
        expect(vak.x, `${naam}`).toBeGreaterThanOrEqual(0);
        expect(vak.x + vak.width, `${naam}`).toBeLessThanOrEqual(375);
      };
      await page.getByRole('link', { name: 'Sleutels' }).click();
      await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
      await inBeeld(/vervangen$/);
      await inBeeld(/intrekken$/);
      for (const r of await breedteVan()) expect(r.scroll).toBeLessThanOrEqual(r.breed);
      expect(await page.locator('td[data-label="Verloopt"]').count()).toBe(1);

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await inBeeld(/^Test sturen naar/);
      await inBeeld(/verwijderen$/i);
      for (const r of await breedteVan()) expect(r.scroll).toBeLessThanOrEqual(r.breed);

      await page.getByRole('link', { name: 'Overzicht' }).click();
      await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
      await page.locator('[aria-labelledby="kop-grootboek"] td[data-label="Credits"]').first().waitFor();
      for (const r of await breedteVan()) {
        expect(r.scroll).toBeLessThanOrEqual(r.breed);
        expect(r.pagina).toBeLessThanOrEqual(375);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('form messages are Dutch in an English browser; a key is an insight key, no "beheer" choice', async () => {
    await page.getByRole('link', { name: 'Sleutels' }).click();
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    expect(await page.locator('#sleutel-familie').count()).toBe(0);
    expect(await page.getByText('Beheer', { exact: true }).count()).toBe(0);
    expect(await page.evaluate('document.documentElement.lang')).toBe('nl');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByLabel('URL van de ontvanger').fill('geen url');
    // Evaluated in the page (as text: this file is type-checked without the DOM library).
    const melding = await page.evaluate(`(() => { const i = document.getElementById('webhook-url'); i.form.reportValidity(); return i.validationMessage; })()`);
    expect(melding).toMatch(/^Vul een/);
  });

  it('the usage period reads and writes dd-mm-jjjj in an English browser, with Dutch messages for a wrong date', async () => {
    await page.getByRole('link', { name: 'Verbruik' }).click();
    await page.getByRole('heading', { name: 'Verbruik', level: 1 }).waitFor();
    const van = page.locator('#f-van');
    await expect.poll(() => page.locator('tr[data-voorziening]').count()).toBeGreaterThan(0);
    const rijen = await page.locator('tr[data-voorziening]').count();
    expect(await van.getAttribute('type')).toBe('text');
    expect(await van.inputValue()).toMatch(/^\d{2}-\d{2}-\d{4}$/);
    expect(await van.getAttribute('placeholder')).toBe('dd-mm-jjjj');
    // A US-style date is not taken for a Dutch one: the field says how to write it, in Dutch.
    await van.fill('11/25/2026');
    const melding = await page.evaluate(`(() => { const i = document.getElementById('f-van'); i.form.reportValidity(); return i.validationMessage; })()`);
    expect(melding).toBe('Vul een datum in als dd-mm-jjjj, bijvoorbeeld 25-11-2026.');
    // The right shape but no such day: the page refuses it in Dutch and keeps the list as it was.
    await van.fill('31-02-2026');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await page.getByRole('alert').getByText('Van: dat is geen bestaande datum; vul hem in als dd-mm-jjjj.').waitFor();
    // A real Dutch date is applied: the list's period follows it (usage rows were made today).
    const morgen = new Date(Date.now() + 86_400_000).toLocaleDateString('nl-NL', { timeZone: 'Europe/Amsterdam', day: '2-digit', month: '2-digit', year: 'numeric' });
    await van.fill(morgen);
    await page.locator('#f-tot').fill(morgen);
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await expect.poll(() => page.locator('tr[data-voorziening]').count()).toBe(0);
    const dag = (n: number) => new Date(Date.now() + n * 86_400_000).toLocaleDateString('nl-NL', { timeZone: 'Europe/Amsterdam', day: '2-digit', month: '2-digit', year: 'numeric' });
    await van.fill(dag(-3));
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await expect.poll(() => page.locator('tr[data-voorziening]').count()).toBe(rijen);
    const overmorgen = dag(2);
    await van.fill(overmorgen);
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await page.getByRole('alert').getByText('Van ligt na Tot en met: kies een begin dat niet na het einde ligt.').waitFor();
  });

  it('the overview shows the saldo.laag threshold and sets it', async () => {
    await page.getByRole('link', { name: 'Overzicht' }).click();
    await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
    await expect.poll(() => page.locator('#drempel-nu').textContent()).toBe('100 credits');
    await page.getByLabel('Drempel in credits').fill('250');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await page.getByRole('status').getByText('Je krijgt saldo.laag zodra het tegoed onder 250 credits zakt.').waitFor();
    await expect.poll(() => page.locator('#drempel-nu').textContent()).toBe('250 credits');
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).drempelCredits).toBe(250);
  });
});
