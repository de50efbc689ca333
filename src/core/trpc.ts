/**
 * tRPC core: the one initTRPC, its error formatter, and the base procedures in which auth, rights
 * and rate limits are written once for every gateway. Order of checks (decisions section 3):
 * 401 -> 403 -> 429 -> 400 (input) -> idempotency -> 402 -> the lookup itself.
 */
import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AuthContext, Context } from './context.ts';
import { InsightFout, naarFout } from './errors.ts';
import { authenticate } from '../domain/keys/sleutels.ts';
import { controleerLimiet, limietHeaders, type Emmer } from '../domain/limits/snelheid.ts';
import { meldKosten, metKosten } from './kosten.ts';
import type { Voorziening } from './prijzen.ts';
import { isDatabaseOnbereikbaar, meldOnbereikbaar } from './database-storing.ts';

/** What an MCP tool needs beyond the procedure itself (contract 4.3: English tool names). */
export interface McpMeta {
  tool: string;
  titel: string;
  beschrijving: string;
  /**
   * The tool's flat arguments besides the address (postcode, huisnummer, toevoeging). Loose types on
   * purpose: the procedure validates, with the REST messages.
   */
  extraArgumenten: z.ZodRawShape;
  /** What the tool charges for (core/prijzen.ts); filled in by maakLookup. */
  voorziening?: Voorziening;
}

export interface Meta extends OpenApiMeta {
  /** This procedure is also an MCP tool (flat arguments, see gateways/mcp/tools.ts). */
  mcp?: McpMeta;
  /** Extra rate-limit bucket on top of the channel's own (REST invloeden: 30/min). */
  extraEmmer?: 'invloeden';
  /** MCP protocol messages (initialize, tools/list, ...): their own, looser bucket. */
  mcpProtocol?: boolean;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // No stack in any answer (the formatter drops it): tRPC then does not read error.stack either, which
    // made V8 format a stack trace for every 4xx (3 % of a 429's CPU).
    isDev: false,
    errorFormatter({ shape, error }) {
      const f = naarFout(error);
      // `fout` travels in the shape so every adapter (REST edge, /trpc, MCP) reads the same message.
      return { ...shape, message: f.fout, data: { ...shape.data, fout: f.fout, httpStatus: f.status, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Every procedure: a database that cannot be reached answers 503 with Retry-After (core/database-storing.ts). */
export const publicProcedure = t.procedure.use(async ({ ctx, next }) => {
  const uit = await next();
  if (!uit.ok && isDatabaseOnbereikbaar(uit.error)) throw meldOnbereikbaar(ctx.services, uit.error);
  return uit;
});

/**
 * Any valid key of either family (whoami). A principal the MCP gateway already authenticated for this
 * HTTP request is used as it is: one key lookup per tool call.
 */
export const sleutelProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = ctx.principal ?? (await authenticate(ctx.services.db, ctx.authorization, ctx.services.now()));
  if (!principal) throw new InsightFout('ongeldige_sleutel');
  // The gate of an MCP tools/call reports no cost of its own: the tool result carries it in `_meta`.
  // tRPC merges what next() is given into the context: pass only what changes (one copy, not two).
  if (ctx.mcpToolCall) return next({ ctx: { principal } });
  return metKosten(ctx, principal.accountId, (setHeader) => next({ ctx: { principal, setHeader } }));
});

function emmersVoor(ctx: Context, meta: Meta | undefined): Emmer[] {
  const c = ctx.services.config;
  if (ctx.kanaal === 'mcp') {
    // The gate of a tools/call message counts nothing: the tool itself is counted in the tools bucket.
    if (meta?.mcpProtocol) return ctx.mcpToolCall ? [] : [{ naam: 'mcp:protocol', limiet: c.RATE_LIMIT_MCP_PROTOCOL_PER_MIN }];
    return [{ naam: 'mcp', limiet: c.RATE_LIMIT_MCP_TOOLS_PER_MIN }];
  }
  const emmers: Emmer[] = [{ naam: 'rest', limiet: c.RATE_LIMIT_REST_PER_MIN }];
  if (meta?.extraEmmer === 'invloeden') emmers.push({ naam: 'rest:invloeden', limiet: c.RATE_LIMIT_INVLOEDEN_PER_MIN });
  return emmers;
}

/**
 * Rate limit per key; runs after auth and rights, before input validation. The same statement
 * re-checks that the (possibly cached) key is still valid and reads the account's balance, which it
 * returns so no request reads it twice.
 */
async function pasLimietToe(ctx: AuthContext, meta: Meta | undefined): Promise<number | undefined> {
  const emmers = emmersVoor(ctx, meta);
  if (emmers.length === 0) return undefined;
  const uitslag = await controleerLimiet(ctx.services.db, ctx.principal.keyId, emmers, ctx.services.now());
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

/** Malformed JSON is reported only now, after auth and rate limits (decisions section 3, step 4). */
const metGeldigeJson = t.middleware(({ ctx, next }) => {
  if (ctx.ongeldigeJson) throw new InsightFout('ongeldige_json', ctx.ongeldigeJson);
  return next();
});

/** whoami: any family, rate limited like every REST call. */
export const accountProcedure = sleutelProcedure
  .use(async ({ ctx, meta, next }) => next({ ctx: { saldo: await pasLimietToe(ctx, meta) } }))
  .use(metGeldigeJson);

/** Every insight lookup: family `inzicht` with right `inzicht:lezen`, then rate limits. */
export const inzichtProcedure = sleutelProcedure
  .use(async ({ ctx, meta, next }) => {
    const p = ctx.principal;
    if (p.familie !== 'inzicht') {
      throw new InsightFout('geen_toegang', `Deze sleutel hoort bij de familie '${p.familie}'; gebruik een inzichtsleutel (familie 'inzicht').`);
    }
    if (!p.rechten.includes('inzicht:lezen')) {
      throw new InsightFout('geen_toegang', "Deze sleutel mist het recht 'inzicht:lezen'.");
    }
    return next({ ctx: { saldo: await pasLimietToe(ctx, meta) } });
  })
  .use(metGeldigeJson);
