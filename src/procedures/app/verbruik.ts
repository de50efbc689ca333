/** Usage of the logged-in account: per day and lookup for a period (the chart), and the filtered list. */
import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.ts';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { grenzen, periodeSchema } from './periode.ts';
import { paginaSchema } from './tegoed.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';

const voorziening = z.string().regex(/^[a-z]{1,40}$/, 'voorziening: alleen kleine letters');

/** The usage view's filters, for its list and its chart alike. */
const filters = {
  voorziening: voorziening.optional(),
  uitkomst: z.enum(['alle', 'geslaagd', 'mislukt']).default('alle'),
  sleutel_id: z.uuid('sleutel_id: geen geldige sleutel-id').optional(),
};

export const verbruikRouter = router({
  /** Per day and lookup, with the same filters as the list (the chart shows what the list holds). */
  perDag: sessieProcedure.input(periodeSchema.and(z.strictObject(filters))).query(async ({ ctx, input }) => {
    const { db } = ctx.services;
    const g = await grenzen(db, input.van, input.tot);
    const v = input.voorziening ?? null;
    const k = input.sleutel_id ?? null;
    const rows = await db.$queryRaw<{ dag: string; voorziening: string; aantal: number; credits: number; cent: number }[]>`
      SELECT to_char(aangemaakt_op AT TIME ZONE 'Europe/Amsterdam', 'YYYY-MM-DD') AS dag, voorziening,
             count(*)::int AS aantal, coalesce(sum(credits), 0)::int AS credits, coalesce(sum(gefactureerd_cent), 0)::int AS cent
      FROM verbruik
      WHERE account_id = ${ctx.sessie.accountId}::uuid AND aangemaakt_op >= ${g.begin} AND aangemaakt_op < ${g.eind}
        AND (${v}::text IS NULL OR voorziening = ${v}::text) AND (${k}::uuid IS NULL OR key_id = ${k}::uuid)
        AND (${input.uitkomst}::text = 'alle' OR (${input.uitkomst}::text = 'geslaagd') = (status < 400))
      GROUP BY 1, 2 ORDER BY 1, 2`;
    const perVoorziening = new Map<string, { voorziening: string; aantal: number; credits: number; gefactureerd_cent: number }>();
    for (const r of rows) {
      const v = perVoorziening.get(r.voorziening) ?? { voorziening: r.voorziening, aantal: 0, credits: 0, gefactureerd_cent: 0 };
      v.aantal += r.aantal;
      v.credits += r.credits;
      v.gefactureerd_cent += r.cent;
      perVoorziening.set(r.voorziening, v);
    }
    return {
      van: input.van,
      tot: input.tot,
      per_dag: rows.map((r) => ({ dag: r.dag, voorziening: r.voorziening, aantal: r.aantal, credits: r.credits, gefactureerd_cent: r.cent })),
      per_voorziening: [...perVoorziening.values()].sort((a, b) => b.credits - a.credits),
    };
  }),

  /** Newest first; filters by period, lookup, success or failure, and key. */
  lijst: sessieProcedure
    .input(
      periodeSchema.and(z.strictObject({ ...filters, ...paginaSchema })),
    )
    .query(async ({ ctx, input }) => {
      const { db } = ctx.services;
      const g = await grenzen(db, input.van, input.tot);
      const where: Prisma.UsageRecordWhereInput = {
        accountId: ctx.sessie.accountId,
        aangemaaktOp: { gte: g.begin, lt: g.eind },
        ...(input.voorziening ? { voorziening: input.voorziening } : {}),
        ...(input.sleutel_id ? { keyId: input.sleutel_id } : {}),
        ...(input.uitkomst === 'geslaagd' ? { status: { lt: 400 } } : input.uitkomst === 'mislukt' ? { status: { gte: 400 } } : {}),
      };
      const [totaal, rows] = await Promise.all([
        db.usageRecord.count({ where }),
        db.usageRecord.findMany({ where, orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }], skip: (input.pagina - 1) * input.per_pagina, take: input.per_pagina }),
      ]);
      const sleutels = await db.apiKey.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.keyId))] }, accountId: ctx.sessie.accountId }, select: { id: true, voorvoegsel: true, naam: true } });
      const perId = new Map(sleutels.map((s) => [s.id, s]));
      return {
        totaal,
        pagina: input.pagina,
        per_pagina: input.per_pagina,
        regels: rows.map((r) => ({
          verzoek_id: r.id,
          tijdstip: isoMetOffset(r.aangemaaktOp),
          kanaal: r.kanaal,
          voorziening: r.voorziening,
          status: r.status,
          credits: r.credits,
          gefactureerd_cent: r.gefactureerdCent,
          adres: r.adres,
          sleutel_voorvoegsel: perId.get(r.keyId)?.voorvoegsel ?? null,
          sleutel_naam: perId.get(r.keyId)?.naam ?? null,
        })),
      };
    }),
});
