/**
 * The web app's session-authenticated procedures, on the same tRPC instance as the keyed ones. Only /trpc
 * fills in `ctx.web`, so these refuse to run on REST and MCP. Order: an Authorization header is refused,
 * 401 without a live session, 403 for a mutation from a foreign Origin or without the session's CSRF token.
 */
import type { WebContext } from './context.ts';
import { InsightFout } from './errors.ts';
import { publicProcedure } from './trpc.ts';
import { csrfKlopt, zoekSessie } from '../domain/gebruikers/gebruikers.ts';
import { registreerAppWijziging } from '../domain/gebruikers/inlogpogingen.ts';

/** A browser always sends Origin on a cross-site POST. */
function controleerHerkomst(web: WebContext['web']) {
  if (!web.origin) return;
  let zelfde = false;
  try {
    const o = new URL(web.origin);
    // Compared through the Host header with the origin's scheme, so a default port (":80") compares equal.
    zelfde = !!web.host && new URL(`${o.protocol}//${web.host}`).host === o.host;
  } catch {
    zelfde = false;
  }
  if (!zelfde) throw new InsightFout('geen_toegang', 'Dit verzoek komt van een andere website en is geweigerd.');
}

/** Login: no session yet, but never with an API key or from another origin. */
export const openWebProcedure = publicProcedure.use(({ ctx, type, next }) => {
  if (ctx.authorization) {
    throw new InsightFout('ongeldige_sleutel', 'API-sleutels werken niet op /trpc; meld je aan in de web-app (/app).');
  }
  const web = ctx.web;
  if (!web) throw new InsightFout('ongeldige_sleutel', 'Deze procedure is alleen voor de web-app (/trpc).');
  if (type === 'mutation') controleerHerkomst(web);
  // tRPC merges what next() is given into the context: pass only what changes.
  return next({ ctx: { web } });
});

/** Signed in; only signing out uses it directly. */
export const aangemeldProcedure = openWebProcedure.use(async ({ ctx, type, next }) => {
  const token = ctx.web.sessieToken;
  const sessie = await zoekSessie(ctx.services.db, token, ctx.services.now());
  if (!sessie || !token) throw new InsightFout('ongeldige_sleutel', 'Je bent niet (meer) aangemeld; meld je opnieuw aan.');
  if (type === 'mutation' && !csrfKlopt(token, ctx.web.csrfToken)) {
    throw new InsightFout('geen_toegang', 'Het CSRF-token ontbreekt of klopt niet; laad de pagina opnieuw.');
  }
  return next({ ctx: { sessie, sessieToken: token } });
});

/** A change counts against the account's web-app limit (429 beyond it): no key's rate limit covers these. */
export const sessieProcedure = aangemeldProcedure.use(async ({ ctx, type, next }) => {
  if (type === 'mutation') {
    const seconden = await registreerAppWijziging(ctx.services.db, ctx.sessie.accountId, ctx.services.now());
    if (seconden > 0) {
      throw new InsightFout('te_veel_verzoeken', `Te veel wijzigingen achter elkaar; probeer het over ${seconden} seconden opnieuw.`, {
        headers: { 'Retry-After': String(seconden) },
      });
    }
  }
  return next();
});
