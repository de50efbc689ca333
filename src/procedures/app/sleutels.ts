import { z } from 'zod';
import { tekst } from '../../core/schema.ts';
import { InsightFout } from '../../core/errors.ts';
import { isoMetOffset } from '../../domain/begrippen.ts';
import { modusVan } from '../../domain/keys/format.ts';
import { maakSleutel, lijstSleutels, maandstanden, MAX_GELDIGE_INZICHT_SLEUTELS, MAX_GELDIGE_TEST_SLEUTELS, MAX_LOOPTIJD_DAGEN, MAX_MAANDLIMIET, trekSleutelIn, roteerSleutel, SleutelFout, zetMaandlimiet, type NieuweSleutel } from '../../domain/keys/sleutels.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';

const DAG_MS = 86_400_000;

function vertaal(err: unknown): never {
  if (err instanceof SleutelFout) {
    if (err.soort === 'te_veel_sleutels') throw new InsightFout('conflict', `${err.message} Trek eerst een sleutel in.`);
    if (err.soort === 'ongeldige_vervaldatum' || err.soort === 'ongeldig') throw new InsightFout('ongeldige_invoer', err.message);
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
    const rows = await lijstSleutels(ctx.services.db, ctx.sessie.accountId);
    const standen = await maandstanden(ctx.services.db, rows.filter((r) => r.maandlimietCredits !== null).map((r) => r.id), now);
    return rows.map((r) => ({
      id: r.id,
      naam: r.naam,
      voorvoegsel: r.voorvoegsel,
      familie: r.familie,
      rechten: r.rechten,
      modus: modusVan(r.voorvoegsel),
      maandlimiet: (() => {
        const st = standen.get(r.id);
        return st?.limiet == null ? null : { credits: st.limiet, verbruikt: st.verbruikt, resterend: Math.max(0, st.limiet - st.verbruikt), maand: st.maand };
      })(),
      aangemaakt_op: isoMetOffset(r.aangemaaktOp),
      laatst_gebruikt_op: r.laatstGebruiktOp ? isoMetOffset(r.laatstGebruiktOp) : null,
      verloopt_op: isoMetOffset(r.verlooptOp),
      ingetrokken_op: r.ingetrokkenOp ? isoMetOffset(r.ingetrokkenOp) : null,
      status: r.ingetrokkenOp ? ('ingetrokken' as const) : r.verlooptOp.getTime() <= now.getTime() ? ('verlopen' as const) : ('geldig' as const),
    }));
  }),

  /** The plaintext key is in this answer only. */
  maak: sessieProcedure
    .input(
      z.strictObject({
        naam: tekst('naam').trim().min(1, 'naam: vul een naam in').max(100, 'naam: hoogstens 100 tekens'),
        looptijd_dagen: z.int('looptijd_dagen: een geheel aantal dagen').min(1, 'looptijd_dagen: minstens 1').max(MAX_LOOPTIJD_DAGEN, `looptijd_dagen: hoogstens ${MAX_LOOPTIJD_DAGEN}`).default(365),
        test: z.boolean('test: waar of onwaar').default(false),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const now = ctx.services.now();
      const k = await maakSleutel(ctx.services.db, {
        accountId: ctx.sessie.accountId,
        naam: input.naam,
        // Only the operator CLI makes a "beheer" key: this service offers no product for it.
        familie: 'inzicht',
        modus: input.test ? 'test' : 'live',
        verlooptOp: new Date(now.getTime() + input.looptijd_dagen * DAG_MS),
        now,
      }).catch(vertaal);
      return getoond(k);
    }),

  roteer: sessieProcedure.input(sleutelId).mutation(async ({ ctx, input }) => {
    const k = await roteerSleutel(ctx.services.db, { accountId: ctx.sessie.accountId, keyId: input.id, now: ctx.services.now() }).catch(vertaal);
    return getoond(k);
  }),

  maandlimiet: sessieProcedure
    .input(
      z.strictObject({
        id: z.uuid('id: geen geldige sleutel-id'),
        credits: z.int('credits: een geheel aantal credits').min(0, 'credits: 0 of meer').max(MAX_MAANDLIMIET, `credits: hoogstens ${MAX_MAANDLIMIET}`).nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await zetMaandlimiet(ctx.services.db, { accountId: ctx.sessie.accountId, keyId: input.id, credits: input.credits }).catch(vertaal);
      return { id: input.id, maandlimiet_credits: input.credits };
    }),

  maxima: sessieProcedure.query(() => ({ live: MAX_GELDIGE_INZICHT_SLEUTELS, test: MAX_GELDIGE_TEST_SLEUTELS })),

  trekIn: sessieProcedure.input(sleutelId).mutation(async ({ ctx, input }) => {
    await trekSleutelIn(ctx.services.db, { accountId: ctx.sessie.accountId, keyId: input.id, now: ctx.services.now() }).catch(vertaal);
    return { id: input.id, ingetrokken: true };
  }),
});
