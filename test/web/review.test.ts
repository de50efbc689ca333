/**
 * Findings of the browser review of the web app (session 25), in Debian's Chromium through playwright-core
 * like test/web/app.test.ts: Dutch messages for a lost connection and an expired session, keyboard focus
 * after actions, the cards at 375 px, the usage period and export, webhook and key details. PGlite only.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { maakGebruiker } from '../../src/domain/gebruikers/gebruikers.ts';
import { WEB_DIST } from '../../src/gateways/app-static.ts';
import { maakSleutel } from '../../src/domain/keys/sleutels.ts';
import { maakEndpoint } from '../../src/domain/webhooks/beheer.ts';
import { bediening, CHROMIUM, geenBrowser, openApp } from './hulp.ts';

const EMAIL = 'review@voorbeeld.nl';
const WACHTWOORD = 'review-test-wachtwoord';
const ONTVANGER = 'http://127.0.0.1:9/review';

describe.skipIf(geenBrowser)(`web app review findings in Chromium${geenBrowser ? ` (overgeslagen: geen Chromium op ${CHROMIUM})` : ''}`, { timeout: 180_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let accountId: string;
  let voorvoegsel: string;

  const { focus, aanmelden, naar } = bediening(() => page, EMAIL, WACHTWOORD);

  beforeAll(async () => {
    expect(existsSync(path.join(WEB_DIST, 'index.html')), 'web/dist ontbreekt: npm run build:web').toBe(true);
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'true' });
    Object.defineProperty(t.clock, 'now', { get: () => new Date() });
    accountId = (await t.account(1000)).id;
    await maakGebruiker(t.db.prisma, { accountId, email: EMAIL, wachtwoord: WACHTWOORD });
    const now = new Date();
    const k = await maakSleutel(t.db.prisma, { accountId, naam: 'agent', now });
    voorvoegsel = k.voorvoegsel;
    await t.db.prisma.usageRecord.createMany({
      data: Array.from({ length: 3 }, () => ({ accountId, keyId: k.id, kanaal: 'rest', voorziening: 'woz', status: 200, credits: 1, gefactureerdCent: 5, adres: 'Laan 1', aangemaaktOp: now })),
    });
    for (const omschrijving of ['productie', null, null]) {
      await maakEndpoint(t.db.prisma, { accountId, url: ONTVANGER, events: ['inzicht.voltooid'], omschrijving, now, onveilig: true });
    }
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    ({ browser, page } = await openApp(base, { acceptDownloads: true }));
    await aanmelden();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a lost connection or a proxy page gives a Dutch message, never the browser\'s English', async () => {
    await naar('Sleutels');
    await page.getByLabel('Naam').fill('netwerk');
    await page.route('**/trpc/**', (r) => r.abort('failed'));
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    await expect.poll(() => page.locator('p.fout').textContent()).toBe('Geen verbinding met de server; controleer je verbinding en probeer het opnieuw.');
    await page.unroute('**/trpc/**');
    await page.route('**/trpc/**', (r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>Bad Gateway</body></html>' }));
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    await expect.poll(() => page.locator('p.fout').textContent()).toBe('De server is even niet bereikbaar (HTTP 502); probeer het over een paar minuten opnieuw.');
    await page.unroute('**/trpc/**');
  });

  it('the focus stays on the pressed button, or goes to the status line when the action removed it', async () => {
    await naar('Overzicht');
    await page.getByLabel('Drempel in credits').fill('250');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await page.getByRole('status').getByText(/onder 250 credits/).waitFor();
    await expect.poll(focus).toBe('Drempel opslaan');

    await naar('Sleutels');
    const rij = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`);
    await rij.getByLabel(/Maandlimiet in credits/).fill('1000000');
    await rij.getByRole('button', { name: 'Zetten' }).click();
    await expect.poll(() => rij.locator('td.maandlimiet span').textContent()).toMatch(/^1\.000\.000 van 1\.000\.000 credits over in [a-z]+ \d{4}$/);
    await expect.poll(focus).toBe('Zetten');
    await rij.getByRole('button', { name: /wissen$/ }).click();
    await page.getByRole('status').getByText("Sleutel 'agent': geen maandlimiet meer.").waitFor();
    await expect.poll(focus).toBe("Sleutel 'agent': geen maandlimiet meer.");

    await page.getByLabel('Naam').fill('tijdelijk');
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    await page.locator('#nieuwe-sleutel').waitFor();
    await page.getByRole('button', { name: 'Ik heb hem bewaard' }).click();
    await expect.poll(focus).toBe('kop-lijst');
  });

  it('at 375 px a card keeps every value in its value column; the cap form fits with readable buttons', async () => {
    await naar('Sleutels');
    const rij = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`);
    await rij.getByLabel(/Maandlimiet in credits/).fill('5');
    await rij.getByRole('button', { name: 'Zetten' }).click();
    await rij.getByRole('button', { name: /wissen$/ }).waitFor();
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      for (const pagina of ['Sleutels', 'Webhooks', 'Verbruik']) {
        await naar(pagina);
        await page.locator('.tabel-rol[aria-labelledby] tbody tr').first().waitFor();
        if (pagina === 'Verbruik') await page.getByText('Cijfers als tabel').click();
        // Every element in a labelled cell starts right of the label column (about 40 % of the card).
        const links = (await page.evaluate(`[...document.querySelectorAll('.tabel-rol td[data-label]')].flatMap((td) => {
          const r = td.getBoundingClientRect();
          return [...td.children].filter((c) => c.getBoundingClientRect().width > 0)
            .filter((c) => c.getBoundingClientRect().left < r.left + r.width * 0.3)
            .map((c) => td.dataset.label + ': ' + c.tagName + ' ' + c.textContent.slice(0, 30));
        })`)) as string[];
        expect(links, `${pagina}: waarden onder de labelkolom`).toEqual([]);
      }
      await naar('Sleutels');
      for (const naam of ['Zetten', 'Wissen']) {
        const doos = await page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`).getByRole('button', { name: naam === 'Wissen' ? /wissen$/ : naam }).boundingBox();
        expect(doos!.width, `${naam}: ${JSON.stringify(doos)}`).toBeGreaterThan(doos!.height);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('revoking a key clears its secret from the screen; the focus goes to the status line; a revoked key shows its cap without "over"', async () => {
    await naar('Sleutels');
    await page.getByLabel('Naam').fill('kortstondig');
    await page.getByRole('button', { name: 'Sleutel maken' }).click();
    await page.locator('#nieuwe-sleutel').waitFor();
    const nieuw = (await page.locator('#nieuwe-sleutel').inputValue()).slice(0, 12);
    await page.getByRole('button', { name: /^Sleutel kortstondig .* intrekken$/ }).click();
    await page.getByRole('status').getByText("Sleutel 'kortstondig' is ingetrokken.").waitFor();
    await expect.poll(() => page.locator(`tr[data-voorvoegsel="${nieuw}"]`).getAttribute('data-status')).toBe('ingetrokken');
    expect(await page.locator('#nieuwe-sleutel').count()).toBe(0);
    await expect.poll(focus).toBe("Sleutel 'kortstondig' is ingetrokken.");

    await page.getByRole('button', { name: /^Sleutel agent .* intrekken$/ }).click();
    const rij = page.locator(`tr[data-voorvoegsel="${voorvoegsel}"]`);
    await expect.poll(() => rij.getAttribute('data-status')).toBe('ingetrokken');
    expect(await rij.locator('td.maandlimiet span').textContent()).toBe('5 credits per maand');
  });

  it('webhooks: names tell equal URLs apart; a test to a switched-off webhook says it waits; deleting clears its secret', async () => {
    await naar('Webhooks');
    await page.getByRole('button', { name: /^Test sturen naar / }).first().waitFor();
    const namen = await page.getByRole('button', { name: /^Test sturen naar / }).evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    expect(namen).toHaveLength(3);
    expect(new Set(namen).size).toBe(3);
    expect(namen).toContain(`Test sturen naar ${ONTVANGER} (productie)`);

    await page.getByRole('button', { name: `Webhook ${ONTVANGER} (productie) uitzetten` }).click();
    await page.getByRole('status').getByText(/staat uit\.$/).waitFor();
    await page.getByRole('button', { name: `Test sturen naar ${ONTVANGER} (productie)` }).click();
    await page.getByRole('status').getByText(`Testgebeurtenis klaargezet, maar webhook ${ONTVANGER} staat uit: de test wacht tot je hem weer aanzet.`).waitFor();

    await page.getByRole('button', { name: `Nieuw geheim voor ${ONTVANGER} (productie)` }).click();
    await page.locator('#webhook-geheim').waitFor();
    await page.getByRole('button', { name: `Webhook ${ONTVANGER} (productie) verwijderen` }).click();
    await page.getByRole('status').getByText(`Webhook ${ONTVANGER} is verwijderd.`).waitFor();
    expect(await page.locator('#webhook-geheim').count()).toBe(0);
    await expect.poll(focus).toBe(`Webhook ${ONTVANGER} is verwijderd.`);
  });

  it('usage: a period over 366 days is refused in the page; a failed read clears rows, chart and export; the export has a file name', async () => {
    await naar('Verbruik');
    await page.locator('tr[data-voorziening=woz]').first().waitFor();
    const link = page.getByRole('link', { name: 'Exporteren als CSV' });
    const href = await link.getAttribute('href');
    const van = new URL(href!, base).searchParams.get('van');
    const tot = new URL(href!, base).searchParams.get('tot');
    expect(await link.getAttribute('download')).toBe(`verbruik-${van}-${tot}.csv`);
    expect(await page.locator('figure.grafiek td[data-label="Credits"]').count()).toBeGreaterThan(0);

    await page.getByLabel(/^Van/).fill('01-01-2020');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await page.getByRole('alert').getByText('De periode is langer dan 366 dagen: kies een kortere periode.').waitFor();
    expect(await link.getAttribute('href')).toBe(href);

    await page.route('**/trpc/verbruik.**', (r) => r.fulfill({ status: 503, contentType: 'text/html', body: '<html>onderhoud</html>' }));
    await page.getByLabel(/^Van/).fill('01-01-2026');
    await page.getByRole('button', { name: 'Toepassen' }).click();
    await page.getByRole('alert').getByText(/niet bereikbaar \(HTTP 503\)/).waitFor();
    await expect.poll(() => page.locator('tr[data-voorziening=woz]').count()).toBe(0);
    expect(await page.locator('figure.grafiek').count()).toBe(0);
    expect(await link.count()).toBe(0);
    await page.unroute('**/trpc/verbruik.**');
  });

  it('form messages give numbers as nl-NL and the right word', async () => {
    await naar('Overzicht');
    await page.getByLabel('Drempel in credits').fill('2000000');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    expect(await page.getByLabel('Drempel in credits').evaluate((e) => (e as unknown as { validationMessage: string }).validationMessage)).toBe('Kies 1.000.000 of minder.');
    await page.getByLabel('Drempel in credits').fill('-1');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    expect(await page.getByLabel('Drempel in credits').evaluate((e) => (e as unknown as { validationMessage: string }).validationMessage)).toBe('Kies 0 of meer.');
  });

  it('an expired session: the login page says so and that the action was not carried out; a failed login keeps the focus', async () => {
    await naar('Overzicht');
    await t.db.prisma.session.deleteMany({});
    await page.getByLabel('Drempel in credits').fill('300');
    await page.getByRole('button', { name: 'Drempel opslaan' }).click();
    await page.getByRole('heading', { name: 'Aanmelden bij Insight' }).waitFor();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Je bent niet (meer) aangemeld; meld je opnieuw aan. Wat je net deed, is daardoor niet uitgevoerd; doe het na het aanmelden opnieuw.');
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).drempelCredits).toBe(250);

    await page.getByRole('button', { name: 'Aanmelden' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Vul je e-mailadres in.');
    await page.getByLabel('E-mailadres').fill(EMAIL);
    await page.getByLabel('Wachtwoord').fill('verkeerd-wachtwoord');
    await page.getByRole('button', { name: 'Aanmelden' }).click();
    await page.getByRole('button', { name: 'Aanmelden' }).and(page.locator(':enabled')).waitFor();
    await expect.poll(focus).toBe('wachtwoord');
    await aanmelden();
  });
});
