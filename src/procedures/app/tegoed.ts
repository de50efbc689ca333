import { z } from 'zod';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { accountGegevens, grootboekPagina, MAX_DREMPEL_CREDITS, saldoVan, zetDrempel } from '../../domain/billing/tegoed.ts';
import { verbruikDezeMaand } from '../../domain/billing/verbruik.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';

export const paginaSchema = {
  pagina: z.int('pagina: een geheel getal').min(1, 'pagina: minstens 1').max(100_000).default(1),
  per_pagina: z.int('per_pagina: een geheel getal').min(1, 'per_pagina: minstens 1').max(500, 'per_pagina: hoogstens 500').default(50),
};

export const tegoedRouter = router({
  saldo: sessieProcedure.query(async ({ ctx }) => {
    const { db, now } = ctx.services;
    const [acc, maand] = await Promise.all([accountGegevens(db, ctx.sessie.accountId), verbruikDezeMaand(db, ctx.sessie.accountId, now())]);
    return {
      account: acc.naam,
      ...saldoVan(acc.credits),
      drempel_credits: acc.drempelCredits,
      maand_van: maand.van,
      credits_deze_maand: maand.credits,
      opvragingen_deze_maand: maand.opvragingen,
    };
  }),

  drempel: sessieProcedure
    .input(
      z.strictObject({
        credits: z
          .int('credits: een geheel aantal credits')
          .min(0, 'credits: minstens 0 (0: geen melding)')
          .max(MAX_DREMPEL_CREDITS, `credits: hoogstens ${MAX_DREMPEL_CREDITS.toLocaleString('nl-NL')}`),
      }),
    )
    .mutation(async ({ ctx, input }) => ({ drempel_credits: await zetDrempel(ctx.services.db, { accountId: ctx.sessie.accountId, credits: input.credits }) })),

  grootboek: sessieProcedure.input(z.strictObject(paginaSchema).default({ pagina: 1, per_pagina: 50 })).query(async ({ ctx, input }) => {
    const p = await grootboekPagina(ctx.services.db, ctx.sessie.accountId, input.pagina, input.per_pagina);
    return {
      totaal: p.totaal,
      pagina: input.pagina,
      per_pagina: input.per_pagina,
      regels: p.regels.map((r) => ({ id: r.id, tijdstip: isoMetOffset(r.aangemaaktOp), soort: r.soort, credits: r.credits, omschrijving: r.omschrijving, verzoek_id: r.usageId })),
    };
  }),
});
