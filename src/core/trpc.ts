/**
 * tRPC core: the one initTRPC, its error formatter, and the base procedures in which auth, rights
 * and rate limits are written once for every gateway. Order of checks (decisions section 3):
 * 401 -> 403 -> 429 -> 400 (input) -> idempotency -> 402 -> the lookup itself.
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context.ts';
import { InsightFout, naarFout } from './errors.ts';
import { authenticate } from '../domain/keys/sleutels.ts';
import { controleerLimiet, limietHeaders, type Emmer } from '../domain/limits/snelheid.ts';
import { metKosten } from './kosten.ts';

export interface Meta extends OpenApiMeta {
  /** Extra rate-limit bucket on top of the channel's own (REST invloeden: 30/min). */
  extraEmmer?: 'invloeden';
  /** MCP protocol messages (initialize, tools/list, ...): their own, looser bucket. */
  mcpProtocol?: boolean;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const f = naarFout(error);
      // `fout` travels in the shape so every adapter (REST edge, /trpc, MCP) reads the same message.
      return { ...shape, message: f.fout, data: { ...shape.data, fout: f.fout, httpStatus: f.status, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

const WWW_AUTH = { 'WWW-Authenticate': 'Bearer' };

/** Any valid key of either family (whoami). */
export const sleutelProcedure = t.procedure.use(async ({ ctx, next }) => {
  const principal = await authenticate(ctx.services.db, ctx.authorization, ctx.services.now());
  if (!principal) throw new InsightFout('ongeldige_sleutel', undefined, { headers: WWW_AUTH });
  return metKosten(ctx, principal.accountId, (setHeader) => next({ ctx: { ...ctx, principal, setHeader } }));
});

function emmersVoor(ctx: Context, meta: Meta | undefined): Emmer[] {
  const c = ctx.services.config;
  if (ctx.kanaal === 'mcp') {
    return meta?.mcpProtocol
      ? [{ naam: 'mcp:protocol', limiet: c.RATE_LIMIT_MCP_PROTOCOL_PER_MIN }]
      : [{ naam: 'mcp', limiet: c.RATE_LIMIT_MCP_TOOLS_PER_MIN }];
  }
  const emmers: Emmer[] = [{ naam: 'rest', limiet: c.RATE_LIMIT_REST_PER_MIN }];
  if (meta?.extraEmmer === 'invloeden') emmers.push({ naam: 'rest:invloeden', limiet: c.RATE_LIMIT_INVLOEDEN_PER_MIN });
  return emmers;
}

/** Rate limit per key; runs after auth and rights, before input validation. */
const metLimiet = t.middleware(async ({ ctx, meta, next }) => {
  const principal = ctx.principal!;
  const uitslag = await controleerLimiet(ctx.services.db, principal.keyId, emmersVoor(ctx, meta), ctx.services.now());
  const headers = limietHeaders(uitslag.standen);
  for (const [k, v] of Object.entries(headers)) ctx.setHeader(k, v);
  if (!uitslag.toegestaan) {
    throw new InsightFout('te_veel_verzoeken', `Te veel verzoeken met deze sleutel; probeer het over ${uitslag.retryAfter} seconden opnieuw.`, {
      headers: { ...headers, 'Retry-After': String(uitslag.retryAfter) },
    });
  }
  return next();
});

/** Malformed JSON is reported only now, after auth and rate limits (decisions section 3, step 4). */
const metGeldigeJson = t.middleware(({ ctx, next }) => {
  if (ctx.ongeldigeJson) throw new InsightFout('ongeldige_json');
  return next();
});

/** whoami: any family, rate limited like every REST call. */
export const accountProcedure = sleutelProcedure.use(metLimiet).use(metGeldigeJson);

/** Every insight lookup: family `inzicht` with right `inzicht:lezen`, then rate limits. */
export const inzichtProcedure = sleutelProcedure
  .use(({ ctx, next }) => {
    const p = ctx.principal!;
    if (p.familie !== 'inzicht') {
      throw new InsightFout('geen_toegang', `Deze sleutel hoort bij de familie '${p.familie}'; gebruik een inzichtsleutel (familie 'inzicht').`);
    }
    if (!p.rechten.includes('inzicht:lezen')) {
      throw new InsightFout('geen_toegang', "Deze sleutel mist het recht 'inzicht:lezen'.");
    }
    return next();
  })
  .use(metLimiet)
  .use(metGeldigeJson);
