import { z } from 'zod';
import { InsightFout } from '../core/errors.ts';
import { sleutelProcedure } from '../core/trpc.ts';

/** The separate management product: 401 first, then an insight key is refused (403); the families never cross. */
export const beheerToegang = sleutelProcedure.input(z.void()).query(({ ctx }) => {
  if (ctx.principal.familie !== 'beheer') {
    throw new InsightFout('geen_toegang', 'Een inzichtsleutel heeft geen toegang tot de beheer-API (/api/v1/projecten); die gebruikt eigen beheersleutels.');
  }
  return { familie: ctx.principal.familie };
});
