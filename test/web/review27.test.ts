/**
 * Findings of the browser review of session 27, in Debian's Chromium through playwright-core like
 * test/web/app.test.ts: singular nouns, the keyboard focus when paging, a refused threshold save, a second
 * tab signed in again, the delivery log after a delete, the page's own bounds, addresses with a trailing
 * slash or an unknown page. PGlite only.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { maakEndpoint } from '../../src/domain/webhooks/beheer.ts';
import { bediening, CHROMIUM, geenBrowser, openApp } from './hulp.ts';

const EMAIL = 'review27@voorbeeld.nl';
const WACHTWOORD = 'review27-test-wachtwoord';

describe.skipIf(geenBrowser)(`web app review findings of session 27 in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let accountId: string;
  let voorvoegsel: string;
  const url = (naam: string) => `http://127.0.0.1:9/${naam}`;

  const { focus, aanmelden, naar } = bediening(() => page, EMAIL, WACHTWOORD);

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
    // One lookup this month; 51 in June 2025 (two pages of usage); 11 ledger lines (two pages).
    await t.db.prisma.usageRecord.createMany({ data: [gebruik(now), ...Array.from({ length: 51 }, () => gebruik(new Date('2025-06-15T10:00:00Z')))] });
    await t.db.prisma.ledgerEntry.createMany({ data: Array.from({ length: 10 }, (_, i) => ({ accountId, credits: i % 2 ? -1 : 1, soort: 'correctie', omschrijving: `correctie ${i + 1}`, aangemaaktOp: new Date(now.getTime() - (i + 1) * 60_000) })) });
    // Webhook a with 25 deliveries (two pages of 20), b with 3.
    for (const [naam, aantal] of [['a', 25], ['b', 3]] as const) {
      const { endpoint } = await maakEndpoint(t.db.prisma, { accountId, url: url(naam), events: ['inzicht.voltooid'], now, onveilig: true });
      for (let i = 0; i < aantal; i++) {
        const id = `msg_${naam}${i}`;
        await t.db.prisma.webhookEvent.create({ data: { id, accountId, type: 'webhook.test', payload: {}, aangemaaktOp: new Date(now.getTime() - i * 1000) } });
        await t.db.prisma.webhookDelivery.create({ data: { eventId: id, endpointId: endpoint.id, toestand: 'afgeleverd', pogingen: 1, laatsteStatus: 200 } });
      }
    }
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    ({ browser, context, page } = await openApp(base));
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

  it('paging to the first or last page with the keyboard moves the focus to the other button', async () => {
    /** Enter on "Ouder" of the navigation `label`; `klaar` waits for the last page's rows. */
    const ouder = async (label: string, klaar: () => Promise<unknown>) => {
      await page.getByRole('navigation', { name: label }).getByRole('button', { name: 'Ouder' }).focus();
      await page.keyboard.press('Enter');
      await klaar();
      await expect.poll(() => focus()).toBe('Nieuwer');
    };
    const paginaTekst = (label: string, tekst: string) => () => page.getByRole('navigation', { name: label }).getByText(tekst).waitFor();

    await naar('Overzicht');
    await paginaTekst('Grootboek bladeren', 'Pagina 1 van 2')();
    await ouder('Grootboek bladeren', paginaTekst('Grootboek bladeren', 'Pagina 2 van 2'));
    await page.keyboard.press('Enter');
    await paginaTekst('Grootboek bladeren', 'Pagina 1 van 2')();
    await expect.poll(() => focus()).toBe('Ouder');

    await naar('Verbruik');
    await page.getByLabel(/^Van/).fill('01-06-2025');
    await page.getByLabel(/^Tot en met/).fill('30-06-2025');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await paginaTekst('Opvragingen bladeren', 'Pagina 1 van 2')();
    await ouder('Opvragingen bladeren', paginaTekst('Opvragingen bladeren', 'Pagina 2 van 2'));

    // The delivery log knows it is on its last page only when that page has arrived.
    await naar('Webhooks');
    await page.getByRole('button', { name: `Afleveringen van ${url('a')} tonen` }).click();
    await expect.poll(() => page.locator('tr[data-toestand]').count()).toBe(20);
    await ouder('Afleveringen bladeren', () => expect.poll(() => page.locator('tr[data-toestand]').count()).toBe(5));
  });

  it('deleting the webhook whose log is shown shows the next webhook\'s log from its first page', async () => {
    await naar('Webhooks');
    await page.getByRole('button', { name: `Afleveringen van ${url('a')} tonen` }).click();
    const log = page.getByRole('navigation', { name: 'Afleveringen bladeren' });
    await expect.poll(() => page.locator('tr[data-toestand]').count()).toBe(20);
    await log.getByRole('button', { name: 'Ouder' }).click();
    await log.getByText('Pagina 2').waitFor();
    await page.getByRole('button', { name: `Webhook ${url('a')} verwijderen` }).click();
    await page.getByRole('status').getByText(`Webhook ${url('a')} is verwijderd.`).waitFor();
    await page.getByRole('heading', { name: `Afleveringen van ${url('b')}` }).waitFor();
    await expect.poll(() => page.locator('tr[data-toestand]').count()).toBe(3);
    expect(await log.locator('span').textContent()).toBe('Pagina 1');
    expect(await log.getByRole('button', { name: 'Nieuwer' }).isDisabled()).toBe(true);
  });

  it('a refused threshold save keeps what was typed', async () => {
    await naar('Overzicht');
    await expect.poll(() => page.getByLabel('Drempel in credits').inputValue()).not.toBe('');
    await page.route('**/trpc/tegoed.drempel**', (r) => r.abort('failed'));
    await page.getByLabel('Drempel in credits').fill('42');
    // The balance is read again after the action, refused or not; the field keeps 42 after it.
    const herlezen = page.waitForResponse((r) => r.url().includes('/trpc/tegoed.saldo'));
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await page.getByRole('alert').getByText(/^Geen verbinding met de server/).waitFor();
    await herlezen;
    await page.waitForTimeout(200);
    await page.unroute('**/trpc/tegoed.drempel**');
    expect(await page.getByLabel('Drempel in credits').inputValue()).toBe('42');
  });

  const drempelMeldingen = () => page.locator('section[aria-labelledby="kop-drempel"] :is(p.fout, p.status)').allTextContents();
  const drempelVan = async (id: string) => (await t.db.prisma.account.findUniqueOrThrow({ where: { id } })).drempelCredits;

  it('signed out and in again in another tab, an action in this tab still works', async () => {
    await naar('Overzicht');
    const tweede = await context.newPage();
    await tweede.goto(`${base}/app`);
    await tweede.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
    await tweede.getByRole('button', { name: 'Afmelden' }).click();
    await aanmelden(tweede);
    await tweede.close();

    await page.getByLabel('Drempel in credits').fill('7');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await expect.poll(drempelMeldingen).toEqual(['Je krijgt saldo.laag zodra het tegoed onder 7 credits zakt.']);
    expect(await drempelVan(accountId)).toBe(7);
  });

  it('signed in as someone else in another tab, an action in this tab is refused, in either account', async () => {
    const ander = (await t.account(1)).id;
    await maakGebruiker(t.db.prisma, { accountId: ander, email: 'ander27@voorbeeld.nl', wachtwoord: WACHTWOORD });
    const tweede = await context.newPage();
    await tweede.goto(`${base}/app`);
    await tweede.getByRole('button', { name: 'Afmelden' }).click();
    await aanmelden(tweede, 'ander27@voorbeeld.nl');
    const voor = await drempelVan(ander);

    await page.getByLabel('Drempel in credits').fill('8');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await expect.poll(drempelMeldingen).toEqual(['Het CSRF-token ontbreekt of klopt niet; laad de pagina opnieuw.', '']);
    expect([await drempelVan(accountId), await drempelVan(ander)]).toEqual([7, voor]);
    // The first user again, for the tests after this one.
    await tweede.getByRole('button', { name: 'Afmelden' }).click();
    await aanmelden(tweede);
    await tweede.close();
  });

  it('a year before 1900 is refused by the page in its own words', async () => {
    await naar('Verbruik');
    await page.getByLabel(/^Van/).fill('01-01-1899');
    await page.getByLabel(/^Tot en met/).fill('31-01-1899');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Van: kies een datum vanaf 01-01-1900.');
  });

  it('a cap over 1.000.000.000 is refused by the page in its own words', async () => {
    await naar('Sleutels');
    const veld = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`).getByLabel(/Maandlimiet in credits/);
    await veld.fill('2000000000');
    await page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`).getByRole('button', { name: 'Zetten' }).click();
    expect(await veld.evaluate((e) => (e as unknown as { validationMessage: string }).validationMessage)).toBe('Kies 1.000.000.000 of minder.');
    expect(await page.locator('p.fout').count()).toBe(0);
  });

  it('a page address with a trailing slash is served and shown as its page; an unknown page becomes /app', async () => {
    const res = await fetch(`${base}/app/sleutels/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(`${base}/app/assets/bestaatniet.js`)).status).toBe(404);

    await page.goto(`${base}/app/sleutels/`);
    await page.getByRole('heading', { name: 'Sleutels', level: 1 }).waitFor();
    expect(page.url()).toBe(`${base}/app/sleutels`);
    await page.goto(`${base}/app/bestaatniet?x=1`);
    await page.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
    expect(page.url()).toBe(`${base}/app?x=1`);
  });
});
