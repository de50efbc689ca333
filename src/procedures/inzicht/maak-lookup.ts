/**
 * Builds one insight lookup procedure: POST /api/v1/inzicht/<pad>, body `{adres, ...extra}`, answer
 * `{data: {adres, ...}, meta}`. The resolver finds the address (404 unknown / ambiguous) and asks the
 * lookup what it finds, through domain functions (a procedure reads no table itself); what that costs
 * is the charged procedure's (core/afrekening.ts). With `mcp`, the procedure is also an MCP tool.
 */
import { z } from 'zod';
import type { AuthContext } from '../../core/context.ts';
import { afrekenen, antwoordVan, type Uitkomst } from '../../core/afrekening.ts';
import { kostTekst, type Voorziening } from '../../core/prijzen.ts';
import { inzichtProcedure, type McpMeta } from '../../core/trpc.ts';
import type { Db } from '../../db/client.ts';
import { adresKandidaten, kiesAdres, toonToevoeging, weergave, type AdresRij } from '../../domain/register/adressen.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { adresUitvoerSchema, envelope, foutResponses, idempotencyHeaders, lookupInvoer, rateLimitHeaders, type AdresInvoer } from './gedeeld.ts';

export interface LookupDef<S extends z.ZodRawShape, D extends z.ZodObject, R extends AdresRij> {
  voorziening: Voorziening;
  pad: `/inzicht/${string}`;
  samenvatting: string;
  /** The description; `{prijs}` is replaced by the price from core/prijzen.ts (`18 credits (€ 0,90)`). */
  beschrijving: string;
  extraInvoer: S;
  /** Schema of `data` without the shared `adres` block. */
  data: D;
  schemaId: string;
  extraEmmer?: 'invloeden';
  extraFouten?: Record<number, string>;
  /** The MCP tool of this lookup (contract 4.3); `{prijs}` in its description as above. */
  mcp?: McpMeta;
  /** Input checks that need the context (the clock): run before anything else of the lookup, answer 400. */
  valideer?: (ctx: AuthContext, input: z.output<z.ZodObject<S>>) => void;
  /** The address rows at a postcode and number, with what `vind` needs; default the whole BAG row. */
  kandidaten?: (db: Db, postcode: string, huisnummer: number) => Promise<R[]>;
  vind: (ctx: AuthContext, adres: R, input: z.output<z.ZodObject<S>>) => Promise<Uitkomst<z.output<D>>>;
}

export function adresBlok(a: AdresRij) {
  return { weergave: weergave(a), postcode: a.postcode, huisnummer: a.huisnummer, toevoeging: toonToevoeging(a) };
}

function adresTekst(a: AdresInvoer): string {
  return `${a.postcode} ${a.huisnummer}${a.toevoeging ? ` ${a.toevoeging}` : ''}`;
}

export function maakLookup<S extends z.ZodRawShape, D extends z.ZodObject, R extends AdresRij = Adres>(def: LookupDef<S, D, R>) {
  const invoer = lookupInvoer(def.extraInvoer);
  // `adres` first: every lookup's data starts with the same address block.
  const dataMetAdres = z.object({ adres: adresUitvoerSchema }).extend(def.data.shape);
  const kandidaten = def.kandidaten ?? (adresKandidaten as unknown as NonNullable<typeof def.kandidaten>);
  const prijs = kostTekst(def.voorziening);
  return inzichtProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: def.pad,
        protect: true,
        tags: ['inzicht'],
        summary: def.samenvatting,
        description: def.beschrijving.replace('{prijs}', prijs),
        requestHeaders: idempotencyHeaders,
        responseHeaders: rateLimitHeaders,
        errorResponses: foutResponses(def.extraFouten),
        successDescription: 'Het oordeel over het adres, met meta (kosten, bron, cached).',
      },
      voorziening: def.voorziening,
      extraEmmer: def.extraEmmer,
      mcp: def.mcp && { ...def.mcp, beschrijving: def.mcp.beschrijving.replace('{prijs}', prijs) },
    })
    .input(invoer)
    .use(({ ctx, input, next }) => {
      def.valideer?.(ctx, input as z.output<z.ZodObject<S>>);
      return next();
    })
    .use(afrekenen)
    .output(envelope(def.schemaId, def.voorziening, dataMetAdres))
    .mutation(async ({ ctx, input }) => {
      // The input schema is `{adres, ...extraInvoer}` (lookupInvoer); tRPC cannot see through the generic.
      const extra = input as z.output<z.ZodObject<S>> & { adres: AdresInvoer };
      return antwoordVan(def.voorziening, await zoek(ctx, extra.adres, extra));
    });

  async function zoek(ctx: AuthContext, gevraagd: AdresInvoer, extra: z.output<z.ZodObject<S>>): Promise<Uitkomst<z.output<typeof dataMetAdres>>> {
    const r = kiesAdres(await kandidaten(ctx.services.db, gevraagd.postcode, gevraagd.huisnummer), gevraagd.toevoeging);
    if (r.soort === 'onbekend') {
      return { status: 404, fout: `Adres niet gevonden: ${adresTekst(gevraagd)}.` };
    }
    if (r.soort === 'dubbelzinnig') {
      return {
        status: 404,
        fout: `Op ${gevraagd.postcode} ${gevraagd.huisnummer} staan meerdere adressen; geef een toevoeging. Geldige huisnummers: ${r.opties.join(', ')} (een huisnummertoevoeging zonder huisletter schrijf je met een streepje ervoor, zoals -A).`,
      };
    }
    const v = await def.vind(ctx, r.adres, extra);
    if (v.status !== 200) return v;
    return { ...v, data: { adres: adresBlok(r.adres), ...v.data } };
  }
}
