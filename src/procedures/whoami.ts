import { z } from 'zod';
import { accountProcedure } from '../core/trpc.ts';
import { accountMeta } from '../core/schema.ts';
import { isoMetOffset } from '../domain/begrippen.ts';
import { leesSaldo, saldoVan } from '../domain/billing/tegoed.ts';
import { maandstanden } from '../domain/keys/sleutels.ts';
import { whoamiMeta, whoamiOutput } from './whoami.types.ts';

export const whoami = accountProcedure
  .meta(whoamiMeta)
  .input(z.void())
  .output(whoamiOutput)
  .query(async ({ ctx }) => {
    const p = ctx.principal;
    const credits = ctx.saldo ?? (await leesSaldo(ctx.services.db, p.accountId));
    // The month's usage is read only for a key with a cap: whoami is the call clients poll, and the cap
    // travels with the authenticated key (setting it forgets the cached key, see zetMaandlimiet).
    const stand = p.maandlimiet == null ? undefined : (await maandstanden(ctx.services.db, [p.keyId], ctx.services.now())).get(p.keyId);
    return {
      data: {
        naam: p.naam,
        familie: p.familie,
        voorvoegsel: p.voorvoegsel,
        modus: p.modus,
        maandlimiet:
          stand?.limiet == null ? null : { credits: stand.limiet, verbruikt: stand.verbruikt, resterend: Math.max(0, stand.limiet - stand.verbruikt), maand: stand.maand },
        rechten: p.rechten,
        bereik: 'account' as const,
        verloopt_op: isoMetOffset(p.verlooptOp),
        saldo: saldoVan(credits),
      },
      meta: accountMeta(),
    };
  });
