import { z } from 'zod';
import { verbruikGefilterd, verbruikPerDag, type VerbruikFilter } from '../../domain/billing/verbruik.ts';
import { alsRegel } from '../verbruik.ts';
import { leesCursor, schrijfCursor } from '../../core/cursor.ts';
import { periodeSchema } from './periode.ts';
import { paginaSchema } from './tegoed.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';

const voorziening = z.string().regex(/^[a-z]{1,40}$/, 'voorziening: alleen kleine letters');

const filters = {
  voorziening: voorziening.optional(),
  uitkomst: z.enum(['alle', 'geslaagd', 'mislukt']).default('alle'),
  sleutel_id: z.uuid('sleutel_id: geen geldige sleutel-id').optional(),
};

function filter(input: { van: string; tot: string; voorziening?: string; sleutel_id?: string; uitkomst: VerbruikFilter['uitkomst'] }): VerbruikFilter {
  return { van: input.van, tot: input.tot, voorziening: input.voorziening, sleutelId: input.sleutel_id, uitkomst: input.uitkomst };
}

export const verbruikRouter = router({
  /** The same filters as the list: the chart shows what the list holds. */
  perDag: sessieProcedure.input(periodeSchema.and(z.strictObject(filters))).query(async ({ ctx, input }) => {
    const rows = await verbruikPerDag(ctx.services.db, ctx.sessie.accountId, filter(input));
    const perVoorziening = new Map<string, { voorziening: string; aantal: number; credits: number; gefactureerd_cent: number }>();
    for (const r of rows) {
      const v = perVoorziening.get(r.voorziening) ?? { voorziening: r.voorziening, aantal: 0, credits: 0, gefactureerd_cent: 0 };
      v.aantal += r.aantal;
      v.credits += r.credits;
      v.gefactureerd_cent += r.gefactureerdCent;
      perVoorziening.set(r.voorziening, v);
    }
    return {
      van: input.van,
      tot: input.tot,
      per_dag: rows.map((r) => ({ dag: r.dag, voorziening: r.voorziening, aantal: r.aantal, credits: r.credits, gefactureerd_cent: r.gefactureerdCent })),
      per_voorziening: [...perVoorziening.values()].sort((a, b) => b.credits - a.credits),
    };
  }),

  /** With `na` (the `volgende` of the previous page) the rows after it, whatever `pagina` says: the export. */
  lijst: sessieProcedure
    .input(periodeSchema.and(z.strictObject({ ...filters, ...paginaSchema, na: z.string().max(200).optional() })))
    .query(async ({ ctx, input }) => {
      const plek = input.na !== undefined ? { na: leesCursor(input.na, 'volgende') } : { pagina: input.pagina };
      const p = await verbruikGefilterd(ctx.services.db, ctx.sessie.accountId, filter(input), plek, input.per_pagina);
      return {
        totaal: p.totaal,
        pagina: input.pagina,
        per_pagina: input.per_pagina,
        regels: p.regels.map((r) => ({ ...alsRegel(r), sleutel_naam: r.sleutelNaam })),
        volgende: schrijfCursor(p.volgende),
      };
    }),
});
