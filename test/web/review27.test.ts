/**
 * Findings of the browser review of session 27, in Debian's Chromium through playwright-core like
 * test/web/app.test.ts: singular nouns. PGlite only.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { bediening, CHROMIUM, geenBrowser, openApp } from './hulp.ts';

const EMAIL = 'review27@voorbeeld.nl';
const WACHTWOORD = 'review27-test-wachtwoord';

describe.skipIf(geenBrowser)(`web app review findings of session 27 in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let accountId: string;
  let voorvoegsel: string;

  const { aanmelden, naar } = bediening(() => page, EMAIL, WACHTWOORD);

  beforeAll(async () => {
    expect(existsSync(path.join(WEB_DIST, 'index.html')), 'web/dist ontbreekt: npm run build:web').toBe(true);
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true' });
    Object.defineProperty(t.clock, 'now', { get: () => new Date() });
    accountId = (await t.account(1)).id;
    await maakGebruiker(t.db.prisma, { accountId, email: EMAIL, wachtwoord: WACHTWOORD });
    const now = new Date();
    const k = await maakSleutel(t.db.prisma, { accountId, naam: 'agent', now });
    voorvoegsel = k.voorvoegsel;
    const gebruik = (aangemaaktOp: Date) => ({ accountId, keyId: k.id, kanaal: 'rest', voorziening: 'woz', status: 200, credits: 1, gefactureerdCent: 5, adres: 'Laan 1', aangemaaktOp });
    await t.db.prisma.usageRecord.create({ data: gebruik(now) });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    ({ browser, page } = await openApp(base));
    await aanmelden();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a count of 1 takes the singular: 1 credit, 1 opvraging', async () => {
    await expect.poll(() => page.locator('#saldo-credits').textContent()).toBe('1 credit');
    expect(await page.locator('#credits-maand').textContent()).toBe('1 credit');
    expect(await page.locator('#credits-maand + p').textContent()).toMatch(/^1 opvraging sinds /);
    await expect.poll(() => page.locator('figure.grafiek figcaption').textContent()).toMatch(/^Credits per dag deze maand: 1 credit van /);
    await page.getByLabel('Drempel in credits').fill('1');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await page.getByRole('status').getByText('Je krijgt saldo.laag zodra het tegoed onder 1 credit zakt.').waitFor();
    await expect.poll(() => page.locator('#drempel-nu').textContent()).toBe('1 credit');

    await naar('Sleutels');
    const rij = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`);
    await rij.getByLabel(/Maandlimiet in credits/).fill('1');
    await rij.getByRole('button', { name: 'Zetten' }).click();
    await page.getByRole('status').getByText("Sleutel 'agent': hoogstens 1 credit per kalendermaand.").waitFor();
    await expect.poll(() => rij.locator('td.maandlimiet span').textContent()).toMatch(/^\d van 1 credit over in [a-z]+ \d{4}$/);
  });
});
