/** What the browser tests share: the focused element, signing in, going to a page by the main menu. */
import { existsSync } from 'node:fs';
import { chromium, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** CI always runs the browser tests; a machine without Chromium skips them, with the reason in their name. */
export const geenBrowser = !existsSync(CHROMIUM) && process.env.CI !== 'true';

/** Chromium as a Dutch user in Amsterdam at `${base}/app`, every confirmation accepted. */
export async function openApp(base: string, opties: BrowserContextOptions = {}) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'nl-NL', timezoneId: 'Europe/Amsterdam', ...opties });
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${base}/app`);
  return { browser, context, page };
}

/** `pagina`: the tab the tests drive (opened in their beforeAll). */
export function bediening(pagina: () => Page, email: string, wachtwoord: string) {
  return {
    /** What has the keyboard focus: BODY when nothing does, else its id or its text. */
    focus: () =>
      pagina().evaluate('document.activeElement === document.body ? "BODY" : (document.activeElement.id || document.activeElement.textContent.trim())') as Promise<string>,
    async aanmelden(p = pagina(), als = email) {
      await p.getByLabel('E-mailadres').fill(als);
      await p.getByLabel('Wachtwoord').fill(wachtwoord);
      await p.getByRole('button', { name: 'Aanmelden' }).click();
      await p.getByRole('heading', { name: 'Overzicht', level: 1 }).waitFor();
    },
    async naar(titel: string) {
      const p = pagina();
      await p.getByRole('link', { name: titel, exact: true }).click();
      await p.getByRole('heading', { name: titel, level: 1 }).waitFor();
    },
  };
}
