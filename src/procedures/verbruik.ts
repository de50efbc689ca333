import { z } from 'zod';
import { inzichtProcedure } from '../core/trpc.ts';
import { accountMetaSchema, accountMeta } from '../core/schema.ts';
import { isoMetOffset } from '../domain/begrippen.ts';
import { foutBeschrijvingen } from '../core/errors.ts';
import { verbruikPagina, type VerbruikRegel } from '../domain/billing/verbruik.ts';
import { leesCursor, schrijfCursor } from '../core/cursor.ts';

const regel = z
  .object({
    verzoek_id: z.string(),
    tijdstip: z.string().describe('ISO 8601 met offset'),
    kanaal: z.enum(['rest', 'mcp', 'intern']),
    voorziening: z.string(),
    status: z.int(),
    credits: z.int(),
    gefactureerd_cent: z.int(),
    adres: z.string().nullable(),
    sleutel_voorvoegsel: z.string().nullable(),
  })
  .meta({ id: 'VerbruikRegel' });

/** REST and the web app alike. */
export function alsRegel(r: VerbruikRegel) {
  return {
    verzoek_id: r.id,
    tijdstip: isoMetOffset(r.aangemaaktOp),
    kanaal: r.kanaal as 'rest' | 'mcp' | 'intern',
    voorziening: r.voorziening,
    status: r.status,
    credits: r.credits,
    gefactureerd_cent: r.gefactureerdCent,
    adres: r.adres,
    sleutel_voorvoegsel: r.sleutelVoorvoegsel,
  };
}

export const verbruik = inzichtProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/verbruik',
      protect: true,
      tags: ['account'],
      summary: 'Verbruik van het account, nieuwste eerst',
      description: 'Alle opvragingen van alle sleutels van het account, met status en kosten; met een testsleutel alleen die van de testsleutels. Gratis. Blader met `na` = `meta.volgende`.',
      errorResponses: { 400: 'Ongeldige limiet of cursor.', ...foutBeschrijvingen([403]) },
    },
  })
  .input(
    z.strictObject({
      // Strings, not numbers: query parameters arrive as text and must validate the same on every gateway.
      limiet: z.string().regex(/^([1-9]|[1-9]\d|100)$/, 'limiet: een geheel getal van 1 tot en met 100').describe('Regels per pagina: een geheel getal van 1 tot en met 100 (standaard 50).').optional(),
      na: z.string().max(200).describe('Cursor uit `meta.volgende` van de vorige pagina.').optional(),
    }),
  )
  .output(
    z.object({
      data: z.array(regel),
      meta: accountMetaSchema.extend({ volgende: z.string().nullable().describe('Cursor voor de volgende pagina; null aan het eind.') }),
    }).meta({ id: 'Verbruik' }),
  )
  .query(async ({ ctx, input }) => {
    const limiet = input.limiet ? Number(input.limiet) : 50;
    const p = await verbruikPagina(ctx.services.db, ctx.principal.accountId, limiet, input.na ? leesCursor(input.na) : null, ctx.principal.modus === 'test');
    return {
      data: p.regels.map(alsRegel),
      meta: {
        ...accountMeta(),
        volgende: schrijfCursor(p.volgende),
      },
    };
  });
