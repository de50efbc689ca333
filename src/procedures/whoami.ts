import { z } from 'zod';
import { accountProcedure } from '../core/trpc.ts';
import { accountMeta } from '../core/schema.ts';
import { isoMetOffset } from '../core/tijd.ts';
import { meldKosten } from '../core/kosten.ts';
import { getBalance, saldoVan } from '../domain/billing/tegoed.ts';
import { whoamiMeta, whoamiOutput } from './whoami.types.ts';

/** GET /api/v1/whoami: the calling key and its account's balance. Free. */
export const whoami = accountProcedure
  .meta(whoamiMeta)
  .input(z.void())
  .output(whoamiOutput)
  .query(async ({ ctx }) => {
    const p = ctx.principal!;
    const credits = await getBalance(ctx.services.db, p.accountId);
    meldKosten(ctx, 0, credits);
    return {
      data: {
        naam: p.naam,
        familie: p.familie,
        voorvoegsel: p.voorvoegsel,
        rechten: p.rechten,
        bereik: 'account' as const,
        verloopt_op: isoMetOffset(p.verlooptOp),
        saldo: saldoVan(credits),
      },
      meta: accountMeta(),
    };
  });
