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
import { meldKosten, metKosten } from './kosten.ts';
import type { Principal } from '../domain/keys/sleutels.ts';
import type { Voorziening } from './prijzen.ts';
import { isDatabaseOnbereikbaar, meldOnbereikbaar } from './database-storing.ts';

/** What an MCP tool needs beyond the procedure itself (contract 4.3: English tool names). */
export interface McpMeta {
  tool: string;
  titel: string;
  beschrijving: string;
}

export interface Meta extends OpenApiMeta {
  /** This procedure is also an MCP tool (flat arguments derived from its input, gateways/mcp/tools.ts). */
  mcp?: McpMeta;
  /** A charged procedure (core/afrekening.ts): what it charges for. */
  voorziening?: Voorziening;
  /** Extra rate-limit bucket on top of the channel's own (REST invloeden: 30/min). */
  extraEmmer?: 'invloeden';
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // No stack in any answer (the formatter drops it): tRPC then does not read error.stack either, which
    // would make V8 format a stack trace for every 4xx.
    isDev: false,
    errorFormatter({ shape, error }) {
      const f = naarFout(error);
      // `fout` travels in the shape so every adapter (REST edge, /trpc, MCP) reads the same message.
      return { ...shape, message: f.fout, data: { ...shape.data, fout: f.fout, httpStatus: f.status, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;

/** An unreachable database becomes the 503 of core/database-storing.ts; anything else stays as it is. */
export function alsStoring(services: Context['services'], err: unknown): unknown {
  return isDatabaseOnbereikbaar(err) ? meldOnbereikbaar(services, err) : err;
}

/** Every procedure: a database that cannot be reached answers 503 with Retry-After. */
export const publicProcedure = t.procedure.use(async ({ ctx, next }) => {
  const uit = await next();
  if (!uit.ok && isDatabaseOnbereikbaar(uit.error)) throw meldOnbereikbaar(ctx.services, uit.error);
  return uit;
});

/** 401: the request's key, looked up unless a gateway already did for this HTTP request. */
export async function authenticeer(ctx: Context): Promise<Principal> {
  const principal = ctx.principal ?? (await authenticate(ctx.services.db, ctx.authorization, ctx.services.now()));
  if (!principal) throw new InsightFout('ongeldige_sleutel');
  return principal;
}

/** 403: an insight call needs a key of family `inzicht` with right `inzicht:lezen`. */
export function vereisInzicht(p: Principal): Principal {
  if (p.familie !== 'inzicht') {
    throw new InsightFout('geen_toegang', `Deze sleutel hoort bij de familie '${p.familie}'; gebruik een inzichtsleutel (familie 'inzicht').`);
  }
  if (!p.rechten.includes('inzicht:lezen')) {
    throw new InsightFout('geen_toegang', "Deze sleutel mist het recht 'inzicht:lezen'.");
  }
  return p;
}

/** Any valid key of either family (whoami, the management gate). */
export const sleutelProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = await authenticeer(ctx);
  // tRPC merges what next() is given into the context: pass only what changes.
  return metKosten(ctx, principal.accountId, () => next({ ctx: { principal } }));
});

/** The buckets a call counts against: its surface's own, plus the procedure's extra one. */
function emmersVoor(ctx: Context, meta: Meta | undefined): Emmer[] {
  const c = ctx.services.config;
  if (ctx.kanaal === 'mcp') return [{ naam: 'mcp', limiet: c.RATE_LIMIT_MCP_TOOLS_PER_MIN }];
  const emmers: Emmer[] = [{ naam: 'rest', limiet: c.RATE_LIMIT_REST_PER_MIN }];
  if (meta?.extraEmmer === 'invloeden') emmers.push({ naam: 'rest:invloeden', limiet: c.RATE_LIMIT_INVLOEDEN_PER_MIN });
  return emmers;
}

/**
 * 429: the rate limit per key; runs after auth and rights, before input validation. The same statement
 * re-checks that the (possibly cached) key is still valid and reads the account's balance, which it
 * returns so no request reads it twice.
 */
export async function pasLimietToe(ctx: Context, principal: Principal, emmers: Emmer[]): Promise<number | undefined> {
  const uitslag = await controleerLimiet(ctx.services.db, principal.keyId, emmers, ctx.services.now());
  if (!uitslag.sleutelGeldig) throw new InsightFout('ongeldige_sleutel');
  // The balance as read now, reported as the answer's cost 0 until the charging path reports what it charged.
  if (uitslag.saldo !== undefined) meldKosten(ctx, 0, uitslag.saldo);
  const headers = limietHeaders(uitslag.standen);
  for (const [k, v] of Object.entries(headers)) ctx.setHeader(k, v);
  if (!uitslag.toegestaan) {
    throw new InsightFout('te_veel_verzoeken', `Te veel verzoeken met deze sleutel; probeer het over ${uitslag.retryAfter} seconden opnieuw.`, {
      headers: { ...headers, 'Retry-After': String(uitslag.retryAfter) },
    });
  }
  return uitslag.saldo;
}

/**
 * The gate of an MCP HTTP request: its key looked up once for the whole request (401) and checked for
 * insight use (403); the principal goes into the request's one context. A protocol message counts in
 * its own bucket here; a tools/call is counted by the tool's procedure (inzichtProcedure).
 */
export async function mcpToegang(ctx: Context, toolCall: boolean): Promise<void> {
  const principal = await authenticeer(ctx);
  if (toolCall) vereisInzicht(principal);
  else {
    await metKosten(ctx, principal.accountId, async () => {
      vereisInzicht(principal);
      await pasLimietToe(ctx, principal, [{ naam: 'mcp:protocol', limiet: ctx.services.config.RATE_LIMIT_MCP_PROTOCOL_PER_MIN }]);
    });
  }
  ctx.principal = principal;
}

/** Malformed JSON is reported only now, after auth and rate limits (decisions section 3, step 4). */
const metGeldigeJson = t.middleware(({ ctx, next }) => {
  if (ctx.ongeldigeJson) throw new InsightFout('ongeldige_json', ctx.ongeldigeJson);
  return next();
});

/** whoami: any family, rate limited like every REST call. */
export const accountProcedure = sleutelProcedure
  .use(async ({ ctx, meta, next }) => next({ ctx: { saldo: await pasLimietToe(ctx, ctx.principal, emmersVoor(ctx, meta)) } }))
  .use(metGeldigeJson);

/**
 * Every insight call: family `inzicht` with right `inzicht:lezen`, then rate limits. A principal in the
 * context comes from the MCP gate (gateways/mcp/index.ts), which ran these same checks for the request.
 */
export const inzichtProcedure = publicProcedure
  .use(async ({ ctx, meta, next }) => {
    const gecontroleerd = ctx.principal;
    const principal = gecontroleerd ?? (await authenticeer(ctx));
    return metKosten(ctx, principal.accountId, async () => {
      if (!gecontroleerd) vereisInzicht(principal);
      return next({ ctx: { principal, saldo: await pasLimietToe(ctx, principal, emmersVoor(ctx, meta)) } });
    });
  })
  .use(metGeldigeJson);
