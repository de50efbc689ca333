import { z } from 'zod';
import { InsightFout } from '../core/errors.ts';
import { sleutelProcedure } from '../core/trpc.ts';

/**
 * Gate for /api/v1/projecten*: the separate management product. Auth comes first (401), then an
 * insight key is refused (403): the two key families never cross. Not exposed over REST itself.
 */
export const beheerToegang = sleutelProcedure.input(z.void()).query(({ ctx }) => {
  if (ctx.principal.familie !== 'beheer') {
    throw new InsightFout('geen_toegang', 'Een inzichtsleutel heeft geen toegang tot de beheer-API (/api/v1/projecten); die gebruikt eigen beheersleutels.');
  }
  return { familie: ctx.principal.familie };
});
