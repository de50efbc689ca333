/**
 * Issue 26 in the browser (Debian's Chromium through playwright-core, like test/web/klant.test.ts): set a
 * key's monthly cap on the keys page, see it there and in whoami, reach it, see the 402 in the usage
 * list; make a test key on the page and call a demo address with it. PGlite only.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { leesSaldo } from '../../src/domain/billing/tegoed.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const EMAIL = 'agenten@voorbeeld.nl';
const WACHTWOORD = 'agenten-test-wachtwoord';
const geenBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';

describe.skipIf(geenBrowser)(`keys page: monthly cap and test keys in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let accountId: string;
  let key: string;
  let voorvoegsel: string;

  const post = (sleutel: string, body: unknown) =>
    fetch(`${base}/api/v1/inzicht/woz`, { method: 'POST', headers: { authorization: `Bearer ${sleutel}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    expect(existsSync(path.join(WEB_DIST, 'index.html')), 'web/dist ontbreekt: npm run build:web').toBe(true);
    t = await createTestApp();
    Object.defineProperty(t.clock, 'now', { get: () => new Date() });
    accountId = (await t.account(1000)).id;
    await maakGebruiker(t.db.prisma, { accountId, email: EMAIL, wachtwoord: WACHTWOORD });
    const k = await maakSleutel(t.db.prisma, { accountId, naam: 'agent', now: new Date() });
    key = k.key;
    voorvoegsel = k.voorvoegsel;
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'nl-NL', timezoneId: 'Europe/Amsterdam' });
    page = await context.newPage();
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

  it('sets a cap on the keys page, shows it there and in whoami; reaching it is a 402 that the usage list shows', async () => {
    await page.getByRole('link', { name: 'Sleutels' }).click();
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    const rij = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`);
    await rij.getByLabel(/Maandlimiet in credits voor sleutel agent/).fill('2');
    await rij.getByRole('button', { name: 'Zetten' }).click();
    await expect.poll(() => rij.locator('td.maandlimiet span').textContent()).toMatch(/^2 van 2 credits over in [a-z]+ \d{4}$/);
    const whoami = (await (await fetch(`${base}/api/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { maandlimiet: unknown } };
    expect(whoami.data.maandlimiet).toMatchObject({ credits: 2, verbruikt: 0, resterend: 2 });

    const a = await maakVolledigAdres(t.db.prisma);
    expect((await post(key, adresBody(a))).status).toBe(200);
    expect((await post(key, adresBody(a))).status).toBe(200);
    const derde = await post(key, adresBody(a));
    expect(derde.status).toBe(402);
    expect(((await derde.json()) as { fout: string }).fout).toMatch(/maandlimiet van deze sleutel is bereikt/);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(998);

    await page.reload();
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    await expect.poll(() => rij.locator('td.maandlimiet span').textContent()).toMatch(/^0 van 2 credits over/);

    await page.getByRole('link', { name: 'Verbruik' }).click();
    await page.getByRole('heading', { name: 'Verbruik', level: 1 }).waitFor();
    const regels = page.locator('tr[data-voorziening=woz]');
    await expect.poll(() => regels.count()).toBe(3);
    expect(await regels.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('402')]));
  });

  it('makes a test key on the page; it answers a demo address for free, marked test, and refuses a real one', async () => {
    await page.getByRole('link', { name: 'Sleutels' }).click();
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    await page.getByLabel('Naam').fill('ci');
    await page.getByLabel(/Testsleutel/).check();
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    const veld = page.locator('#nieuwe-sleutel');
    await veld.waitFor();
    const test = await veld.inputValue();
    expect(test).toMatch(/^pct_test_/);
    await page.getByRole('button', { name: 'Ik heb hem bewaard' }).click();
    await expect.poll(() => page.locator(`tr[data-voorvoegsel="${test.slice(0, 12)}"] .label-test`).count()).toBe(1);

    const voor = await leesSaldo(t.db.prisma, accountId);
    const demo = await maakVolledigAdres(t.db.prisma, { postcode: '7800SD', huisnummer: 3 });
    const res = await post(test, adresBody(demo));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { meta: unknown }).meta).toMatchObject({ test: true, gefactureerd_cent: 0 });
    const echt = await post(test, adresBody(await maakVolledigAdres(t.db.prisma)));
    expect(echt.status).toBe(404);
    expect(((await echt.json()) as { fout: string }).fout).toMatch(/testsleutel kent alleen/);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(voor);

    await page.getByRole('link', { name: 'Verbruik' }).click();
    await page.getByRole('heading', { name: 'Verbruik', level: 1 }).waitFor();
    await expect.poll(() => page.locator('tr .label-test').count()).toBe(2);
  });
});
