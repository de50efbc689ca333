/** Key management for the logged-in account, on the same domain functions as the operator CLI. */
import { z } from 'zod';
import { InsightFout } from '../../core/errors.ts';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { createKey, listKeys, MAX_LOOPTIJD_DAGEN, revokeKey, rotateKey, SleutelFout, type NieuweSleutel } from '../../domain/keys/sleutels.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';

const DAG_MS = 86_400_000;

function vertaal(err: unknown): never {
  if (err instanceof SleutelFout) {
    if (err.soort === 'te_veel_sleutels') throw new InsightFout('conflict', `${err.message} Trek eerst een sleutel in.`);
    if (err.soort === 'ongeldige_vervaldatum') throw new InsightFout('ongeldige_invoer', err.message);
    throw new InsightFout('niet_gevonden', err.message);
  }
  throw err;
}

const sleutelId = z.strictObject({ id: z.uuid('id: geen geldige sleutel-id') });

function getoond(k: NieuweSleutel) {
  return { id: k.id, sleutel: k.key, voorvoegsel: k.voorvoegsel, verloopt_op: isoMetOffset(k.verlooptOp) };
}

export const sleutelsRouter = router({
  lijst: sessieProcedure.query(async ({ ctx }) => {
    const now = ctx.services.now();
    const rows = await listKeys(ctx.services.db, ctx.sessie.accountId);
    return rows.map((r) => ({
      id: r.id,
      naam: r.naam,
      voorvoegsel: r.voorvoegsel,
      familie: r.familie,
      rechten: r.rechten,
      aangemaakt_op: isoMetOffset(r.aangemaaktOp),
      laatst_gebruikt_op: r.laatstGebruiktOp ? isoMetOffset(r.laatstGebruiktOp) : null,
      verloopt_op: isoMetOffset(r.verlooptOp),
      ingetrokken_op: r.ingetrokkenOp ? isoMetOffset(r.ingetrokkenOp) : null,
      status: r.ingetrokkenOp ? ('ingetrokken' as const) : r.verlooptOp.getTime() <= now.getTime() ? ('verlopen' as const) : ('geldig' as const),
    }));
  }),

  /** The plaintext key is in this answer only; the database keeps its hash. */
  maak: sessieProcedure
    .input(
      z.strictObject({
        naam: z.string().trim().min(1, 'naam: vul een naam in').max(100, 'naam: hoogstens 100 tekens'),
        looptijd_dagen: z.int('looptijd_dagen: een geheel aantal dagen').min(1, 'looptijd_dagen: minstens 1').max(MAX_LOOPTIJD_DAGEN, `looptijd_dagen: hoogstens ${MAX_LOOPTIJD_DAGEN}`).default(365),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const now = ctx.services.now();
      const k = await createKey(ctx.services.db, {
        accountId: ctx.sessie.accountId,
        naam: input.naam,
        // The web app makes insight keys only: this service offers no product for a "beheer" key, which
        // only the operator CLI makes.
        familie: 'inzicht',
        verlooptOp: new Date(now.getTime() + input.looptijd_dagen * DAG_MS),
        now,
      }).catch(vertaal);
      return getoond(k);
    }),

  /** The old key stops at once; the new one (same name, family, rights, expiry) is shown once. */
  roteer: sessieProcedure.input(sleutelId).mutation(async ({ ctx, input }) => {
    const k = await rotateKey(ctx.services.db, { accountId: ctx.sessie.accountId, keyId: input.id, now: ctx.services.now() }).catch(vertaal);
    return getoond(k);
  }),

  trekIn: sessieProcedure.input(sleutelId).mutation(async ({ ctx, input }) => {
    await revokeKey(ctx.services.db, { accountId: ctx.sessie.accountId, keyId: input.id, now: ctx.services.now() }).catch(vertaal);
    return { id: input.id, ingetrokken: true };
  }),
});
