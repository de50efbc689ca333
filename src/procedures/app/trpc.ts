/**
 * The internal tRPC router of the web app, served at /trpc only (never as REST or MCP). It has its own
 * context: a session from the HttpOnly cookie instead of a bearer key. Rules, checked in this order:
 * an Authorization header is refused (API keys are for /api/v1 and /mcp) -> 401 without a live session
 * -> 403 for a state-changing call (mutation) whose Origin is foreign or whose CSRF header does not
 * match the session. Errors carry the same Dutch message as every other gateway (core/errors.ts).
 */
import { initTRPC } from '@trpc/server';
import type { Services } from '../../core/context.ts';
import { InsightFout, naarFout } from '../../core/errors.ts';
import { csrfKlopt, zoekSessie, type Sessie } from '../../domain/gebruikers/gebruikers.ts';

export const CSRF_HEADER = 'x-csrf-token';

export interface WebContext {
  services: Services;
  /** The session cookie's value, if any. */
  sessieToken?: string;
  /** Raw Authorization header: only used to refuse API keys here. */
  authorization?: string;
  csrfToken?: string;
  /** Origin header of the request and the host it was sent to, for the same-origin check. */
  origin?: string;
  host?: string;
  ip: string;
  zetSessieCookie: (token: string, verlooptOp: Date) => void;
  wisSessieCookie: () => void;
  setHeader: (name: string, value: string) => void;
  sessie?: Sessie;
}

const t = initTRPC.context<WebContext>().create({
  errorFormatter({ shape, error }) {
    const f = naarFout(error);
    return { ...shape, message: f.fout, data: { code: shape.data.code, httpStatus: f.status, fout: f.fout } };
  },
});

export const webRouter = t.router;
export const createWebCallerFactory = t.createCallerFactory;

/** Mutations must come from our own origin (a browser always sends Origin on a cross-site POST). */
function controleerHerkomst(ctx: WebContext) {
  if (!ctx.origin) return;
  let zelfde = false;
  try {
    const o = new URL(ctx.origin);
    // The Host header seen with the origin's scheme, so a default port (":80") compares equal.
    zelfde = !!ctx.host && new URL(`${o.protocol}//${ctx.host}`).host === o.host;
  } catch {
    zelfde = false;
  }
  if (!zelfde) throw new InsightFout('geen_toegang', 'Dit verzoek komt van een andere website en is geweigerd.');
}

const geenSleutels = t.middleware(({ ctx, type, next }) => {
  if (ctx.authorization) {
    throw new InsightFout('ongeldige_sleutel', 'API-sleutels werken niet op /trpc; meld je aan in de web-app (/app).');
  }
  if (type === 'mutation') controleerHerkomst(ctx);
  return next();
});

/** Login: no session yet, but never with an API key and never from another origin. */
export const openWebProcedure = t.procedure.use(geenSleutels);

/** Everything else: a live session; a mutation also needs the session's CSRF token. */
export const sessieProcedure = openWebProcedure.use(async ({ ctx, type, next }) => {
  const sessie = await zoekSessie(ctx.services.db, ctx.sessieToken, ctx.services.now());
  if (!sessie) throw new InsightFout('ongeldige_sleutel', 'Je bent niet (meer) aangemeld; meld je opnieuw aan.');
  if (type === 'mutation' && !csrfKlopt(ctx.sessieToken!, ctx.csrfToken)) {
    throw new InsightFout('geen_toegang', 'Het CSRF-token ontbreekt of klopt niet; laad de pagina opnieuw.');
  }
  return next({ ctx: { ...ctx, sessie } });
});
