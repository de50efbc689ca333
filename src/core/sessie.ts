/**
 * The session-authenticated base procedures of the web app, beside the key-authenticated ones in
 * core/trpc.ts and on the same tRPC instance (one router, one context, one error table, the same
 * outage middleware: an unreachable database answers 503 on /trpc too). Only the /trpc gateway fills in
 * `ctx.web`; REST and MCP never do, so these procedures refuse to run there, and the web-app procedures
 * carry no `meta.openapi` or `meta.mcp`, so they are neither REST operations nor MCP tools.
 *
 * Rules, checked in this order: an Authorization header is refused (API keys are for /api/v1 and /mcp)
 * -> 401 without a live session -> 403 for a state-changing call (mutation) whose Origin is foreign or
 * whose CSRF header does not match the session.
 */
import type { WebContext } from './context.ts';
import { InsightFout } from './errors.ts';
import { publicProcedure } from './trpc.ts';
import { csrfKlopt, zoekSessie } from '../domain/gebruikers/gebruikers.ts';

/** Mutations must come from our own origin (a browser always sends Origin on a cross-site POST). */
function controleerHerkomst(web: WebContext['web']) {
  if (!web.origin) return;
  let zelfde = false;
  try {
    const o = new URL(web.origin);
    // The Host header seen with the origin's scheme, so a default port (":80") compares equal.
    zelfde = !!web.host && new URL(`${o.protocol}//${web.host}`).host === o.host;
  } catch {
    zelfde = false;
  }
  if (!zelfde) throw new InsightFout('geen_toegang', 'Dit verzoek komt van een andere website en is geweigerd.');
}

/** Login: no session yet, but never with an API key, never from another origin, and only over /trpc. */
export const openWebProcedure = publicProcedure.use(({ ctx, type, next }) => {
  if (ctx.authorization) {
    throw new InsightFout('ongeldige_sleutel', 'API-sleutels werken niet op /trpc; meld je aan in de web-app (/app).');
  }
  const web = ctx.web;
  if (!web) throw new InsightFout('ongeldige_sleutel', 'Deze procedure is alleen voor de web-app (/trpc).');
  if (type === 'mutation') controleerHerkomst(web);
  // tRPC merges what next() is given into the context: pass only what changes (as core/trpc.ts does).
  return next({ ctx: { web } });
});

/** Everything else: a live session; a mutation also needs the session's CSRF token. */
export const sessieProcedure = openWebProcedure.use(async ({ ctx, type, next }) => {
  const token = ctx.web.sessieToken;
  const sessie = await zoekSessie(ctx.services.db, token, ctx.services.now());
  if (!sessie || !token) throw new InsightFout('ongeldige_sleutel', 'Je bent niet (meer) aangemeld; meld je opnieuw aan.');
  if (type === 'mutation' && !csrfKlopt(token, ctx.web.csrfToken)) {
    throw new InsightFout('geen_toegang', 'Het CSRF-token ontbreekt of klopt niet; laad de pagina opnieuw.');
  }
  return next({ ctx: { sessie, sessieToken: token } });
});
