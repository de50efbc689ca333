/** Auth, rights and rate limits written once for every gateway. Order (decisions section 3): 401 → 403 → 429 → 400 → idempotency → 402. */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AuthContext, Context } from './context.ts';
import { InsightFout, naarFout } from './errors.ts';
import { authenticate } from '../domain/keys/sleutels.ts';
import { controleerLimiet, limietHeaders, type Emmer, type LimietUitslag } from '../domain/limits/snelheid.ts';
import { claimUit, claimVerzoek, type Claim, type ClaimOpties } from '../domain/idempotentie/idempotentie.ts';
import { meldKosten, metKosten } from './kosten.ts';
import type { Principal } from '../domain/keys/sleutels.ts';
import type { Voorziening } from './prijzen.ts';
import { isDatabaseOnbereikbaar, meldOnbereikbaar } from './database-storing.ts';

/** Contract 4.3: English tool names. */
export interface McpMeta {
  tool: string;
  titel: string;
  beschrijving: string;
}

export interface Meta extends OpenApiMeta {
  mcp?: McpMeta;
  voorziening?: Voorziening;
  /** On top of the channel's own bucket (REST invloeden: 30/min). */
  extraEmmer?: 'invloeden';
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // No stack in any answer: tRPC then does not read error.stack, which would make V8 format one per 4xx.
    isDev: false,
    errorFormatter({ shape, error }) {
      const f = naarFout(error);
      // `fout` travels in the shape so every adapter reads the same message.
      return { ...shape, message: f.fout, data: { ...shape.data, fout: f.fout, httpStatus: f.status, stack: undefined } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;

export function alsStoring(services: Context['services'], err: unknown): unknown {
  return isDatabaseOnbereikbaar(err) ? meldOnbereikbaar(services, err) : err;
}

export const publicProcedure = t.procedure.use(async ({ ctx, next }) => {
  const uit = await next();
  if (!uit.ok && isDatabaseOnbereikbaar(uit.error)) throw meldOnbereikbaar(ctx.services, uit.error);
  return uit;
});

/** 401, unless a gateway already authenticated this HTTP request. */
export async function authenticeer(ctx: Context): Promise<Principal> {
  const principal = ctx.principal ?? (await authenticate(ctx.services.db, ctx.authorization, ctx.services.now()));
  if (!principal) throw new InsightFout('ongeldige_sleutel');
  return principal;
}

export function vereisInzicht(p: Principal): Principal {
  if (p.familie !== 'inzicht') {
    throw new InsightFout('geen_toegang', `Deze sleutel hoort bij de familie '${p.familie}'; gebruik een inzichtsleutel (familie 'inzicht').`);
  }
  if (!p.rechten.includes('inzicht:lezen')) {
    throw new InsightFout('geen_toegang', "Deze sleutel mist het recht 'inzicht:lezen'.");
  }
  return p;
}

export const sleutelProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const principal = await authenticeer(ctx);
  return metKosten(ctx, principal.accountId, () => next({ ctx: { principal } }));
});

function emmersVoor(ctx: Context, meta: Meta | undefined): Emmer[] {
  const c = ctx.services.config;
  if (ctx.kanaal === 'mcp') return [{ naam: 'mcp', limiet: c.RATE_LIMIT_MCP_TOOLS_PER_MIN }];
  const emmers: Emmer[] = [{ naam: 'rest', limiet: c.RATE_LIMIT_REST_PER_MIN }];
  if (meta?.extraEmmer === 'invloeden') emmers.push({ naam: 'rest:invloeden', limiet: c.RATE_LIMIT_INVLOEDEN_PER_MIN });
  return emmers;
}

/** 429 per key, before input validation. The same statement re-checks the (cached) key and returns the balance. */
export async function pasLimietToe(ctx: Context, principal: Principal, emmers: Emmer[]): Promise<number | undefined> {
  return pasUitslagToe(ctx, await controleerLimiet(ctx.services.db, principal.keyId, emmers, ctx.services.now()));
}

function pasUitslagToe(ctx: Context, uitslag: LimietUitslag): number | undefined {
  if (!uitslag.sleutelGeldig) throw new InsightFout('ongeldige_sleutel');
  // Cost 0 until the charging path reports what it charged.
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

/** REST with an Idempotency-Key: the limit is checked with the claim (limietMetClaim), one round trip less; failing before that, then (429 first). */
function claimtMetLimiet(ctx: Context, meta: Meta | undefined): boolean {
  return meta?.voorziening !== undefined && ctx.kanaal === 'rest' && ctx.idempotencyKey !== undefined;
}

/** The rate limit and the idempotency claim in one statement: 401 and 429 as pasLimietToe, else the claim. */
export async function limietMetClaim(ctx: AuthContext, opts: ClaimOpties): Promise<Claim> {
  const limiet = ctx.limiet;
  if (!limiet || limiet.gedaan) throw new Error('limietMetClaim: deze aanvraag heeft geen uitgestelde limiet');
  limiet.gedaan = true;
  const uitslag = await controleerLimiet(ctx.services.db, ctx.principal.keyId, limiet.emmers, opts.now, claimVerzoek(opts));
  pasUitslagToe(ctx, uitslag);
  if (!uitslag.claim) throw new Error('snelheid_claim_bundel: geen claim voor een toegelaten verzoek');
  return claimUit(uitslag.claim, opts);
}

/** MCP: key checked once per HTTP request (401, 403). A protocol message counts in its own bucket; a tools/call in its procedure's. */
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

/** Decisions section 3, step 4: after auth and rate limits. */
const metGeldigeInvoer = t.middleware(({ ctx, next }) => {
  if (ctx.ongeldigeInvoer) throw new InsightFout(ctx.ongeldigeInvoer.soort, ctx.ongeldigeInvoer.fout);
  return next();
});

export const accountProcedure = sleutelProcedure
  .use(async ({ ctx, meta, next }) => next({ ctx: { saldo: await pasLimietToe(ctx, ctx.principal, emmersVoor(ctx, meta)) } }))
  .use(metGeldigeInvoer);

/** A principal already in the context comes from the MCP gate, which ran these same checks. */
export const inzichtProcedure = publicProcedure
  .use(async ({ ctx, meta, next }) => {
    const gecontroleerd = ctx.principal;
    const principal = gecontroleerd ?? (await authenticeer(ctx));
    return metKosten(ctx, principal.accountId, async () => {
      if (!gecontroleerd) vereisInzicht(principal);
      const emmers = emmersVoor(ctx, meta);
      if (!claimtMetLimiet(ctx, meta)) return next({ ctx: { principal, saldo: await pasLimietToe(ctx, principal, emmers) } });
      const limiet = { emmers, gedaan: false };
      const r = await next({ ctx: { principal, limiet } });
      if (!r.ok && !limiet.gedaan) await pasLimietToe(ctx, principal, emmers);
      return r;
    });
  })
  .use(metGeldigeInvoer);
