/**
 * One lookup procedure: the resolver finds the address (404 unknown / ambiguous) and asks the domain what it
 * finds; what that costs is the charged procedure's (core/afrekening.ts).
 */
import { z } from 'zod';
import type { AuthContext } from '../../core/context.ts';
import { afrekenen, antwoordVan, type Uitkomst } from '../../core/afrekening.ts';
import { kostTekst, type Voorziening } from '../../core/prijzen.ts';
import { inzichtProcedure, type McpMeta } from '../../core/trpc.ts';
import type { Db } from '../../db/client.ts';
import { adresKandidaten, kiesAdres, toonToevoeging, weergave, type AdresRij } from '../../domain/register/adressen.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { adresUitvoerSchema, envelope, foutResponses, idempotencyHeaders, lookupInvoer, type AdresInvoer } from './gedeeld.ts';

export interface LookupDef<S extends z.ZodRawShape, D extends z.ZodObject, R extends AdresRij> {
  voorziening: Voorziening;
  pad: `/inzicht/${string}`;
  samenvatting: string;
  /** `{prijs}` is replaced by the price from core/prijzen.ts. */
  beschrijving: string;
  extraInvoer: S;
  data: D;
  schemaId: string;
  extraEmmer?: 'invloeden';
  extraFouten?: Record<number, string>;
  mcp?: McpMeta;
  /** Checks that need the clock: before anything else, 400. */
  valideer?: (ctx: AuthContext, input: z.output<z.ZodObject<S>>) => void;
  kandidaten?: (db: Db, postcode: string, huisnummer: number, toevoeging: string | null | undefined) => Promise<R[]>;
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
      // tRPC cannot see through the generic.
      const extra = input as z.output<z.ZodObject<S>> & { adres: AdresInvoer };
      return antwoordVan(def.voorziening, await zoek(ctx, extra.adres, extra));
    });

  async function zoek(ctx: AuthContext, gevraagd: AdresInvoer, extra: z.output<z.ZodObject<S>>): Promise<Uitkomst<z.output<typeof dataMetAdres>>> {
    const r = kiesAdres(await kandidaten(ctx.services.db, gevraagd.postcode, gevraagd.huisnummer, gevraagd.toevoeging), gevraagd.toevoeging);
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
