/**
 * Builds one insight lookup procedure: POST /api/v1/inzicht/<pad>, body `{adres, ...extra}`, answer
 * `{data: {adres, ...}, meta}`. Address resolution (404 unknown / ambiguous, never charged) and the
 * shared charging path live here and in core/lookup.ts; a lookup only says what it finds.
 */
import { z } from 'zod';
import type { Context } from '../../core/context.ts';
import { voerLookupUit, type Bron } from '../../core/lookup.ts';
import type { Voorziening } from '../../core/prijzen.ts';
import { inzichtProcedure } from '../../core/trpc.ts';
import { toonToevoeging, weergave, zoekAdres, type AdresRij } from '../../domain/register/adressen.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { adresUitvoerSchema, envelope, foutResponses, idempotencyHeaders, lookupInvoer, rateLimitHeaders, type AdresInvoer } from './gedeeld.ts';

export type Vondst<D> =
  | { status: 200; data: D; bron: Bron | null; gefactureerd: boolean; extraMeta?: Record<string, unknown> }
  | { status: 422; fout: string; extraMeta?: Record<string, unknown>; gefactureerd?: boolean };

export interface LookupDef<S extends z.ZodRawShape, D extends z.ZodType> {
  voorziening: Voorziening;
  pad: `/inzicht/${string}`;
  samenvatting: string;
  beschrijving: string;
  extraInvoer: S;
  /** Schema of `data` without the shared `adres` block. */
  data: D;
  schemaId: string;
  extraEmmer?: 'invloeden';
  extraFouten?: Record<number, string>;
  /** Input checks that need the context (the clock): run before anything else of the lookup, answer 400. */
  valideer?: (ctx: Context, input: z.output<z.ZodObject<S>>) => void;
  vind: (ctx: Context, adres: Adres, input: z.output<z.ZodObject<S>>) => Promise<Vondst<z.output<D>>>;
}

export function adresBlok(a: AdresRij) {
  return { weergave: weergave(a), postcode: a.postcode, huisnummer: a.huisnummer, toevoeging: toonToevoeging(a) };
}

function adresTekst(a: AdresInvoer): string {
  return `${a.postcode} ${a.huisnummer}${a.toevoeging ? ` ${a.toevoeging}` : ''}`;
}

export function maakLookup<S extends z.ZodRawShape, D extends z.ZodObject>(def: LookupDef<S, D>) {
  const invoer = lookupInvoer(def.extraInvoer);
  // `adres` first: every lookup's data starts with the same address block.
  const dataMetAdres = z.object({ adres: adresUitvoerSchema }).extend(def.data.shape);
  return inzichtProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: def.pad,
        protect: true,
        tags: ['inzicht'],
        summary: def.samenvatting,
        description: def.beschrijving,
        requestHeaders: idempotencyHeaders,
        responseHeaders: rateLimitHeaders,
        errorResponses: foutResponses(def.extraFouten),
        successDescription: 'Het oordeel over het adres, met meta (kosten, bron, cached).',
      },
      extraEmmer: def.extraEmmer,
    })
    .input(invoer)
    .output(envelope(def.schemaId, def.voorziening, dataMetAdres))
    .mutation(async ({ ctx, input }) => {
      const i = input as { adres: AdresInvoer } & Record<string, unknown>;
      def.valideer?.(ctx, input as z.output<z.ZodObject<S>>);
      return voerLookupUit(ctx, def.voorziening, input, () => adresTekst(i.adres), async () => {
        const r = await zoekAdres(ctx.services.db, i.adres.postcode, i.adres.huisnummer, i.adres.toevoeging);
        if (r.soort === 'onbekend') {
          return { status: 404 as const, fout: `Adres niet gevonden: ${adresTekst(i.adres)}.` };
        }
        if (r.soort === 'dubbelzinnig') {
          return {
            status: 404 as const,
            fout: `Op ${i.adres.postcode} ${i.adres.huisnummer} staan meerdere adressen; geef een toevoeging. Geldige huisnummers: ${r.opties.join(', ')} (een huisnummertoevoeging zonder huisletter schrijf je met een streepje ervoor, zoals -A).`,
          };
        }
        const v = await def.vind(ctx, r.adres, input as z.output<z.ZodObject<S>>);
        if (v.status === 422) return v;
        return { ...v, data: { adres: adresBlok(r.adres), ...(v.data as object) } };
      }) as never;
    });
}
