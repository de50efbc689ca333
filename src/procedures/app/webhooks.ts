/** Another account's webhook is treated exactly like one that does not exist (404). */
import { z } from 'zod';
import { tekst } from '../../core/schema.ts';
import { InsightFout } from '../../core/errors.ts';
import { router } from '../../core/trpc.ts';
import { sessieProcedure } from '../../core/sessie.ts';
import {
  afleveringenPagina, afleveringOpnieuw, lijstEndpoints, maakEndpoint, MAX_ENDPOINTS, roteerGeheim, stuurTest, verwijderEndpoint, wijzigEndpoint,
} from '../../domain/webhooks/beheer.ts';
import { GEBEURTENIS_TYPES } from '../../domain/webhooks/gebeurtenissen.ts';
import { doel, eventsSchema, naarAflevering, naarWebhook, nietGevonden, vertaal } from '../webhooks.ts';
import { leesCursor, schrijfCursor } from '../../core/cursor.ts';

const webhookId = z.uuid('id: geen geldige webhook-id');
const metId = z.strictObject({ id: webhookId });
const url = tekst('url').trim().min(1, 'url: vul een https-URL in').max(2048, 'url: hoogstens 2048 tekens');
const omschrijving = tekst('omschrijving').trim().max(200, 'omschrijving: hoogstens 200 tekens').nullable().optional();

export const webhooksRouter = router({
  /** Never a secret. */
  lijst: sessieProcedure.query(async ({ ctx }) => ({
    webhooks: (await lijstEndpoints(ctx.services.db, ctx.sessie.accountId)).map(naarWebhook),
    max: MAX_ENDPOINTS,
    event_typen: GEBEURTENIS_TYPES,
  })),

  maak: sessieProcedure
    .input(z.strictObject({ url, events: eventsSchema, omschrijving }))
    .mutation(async ({ ctx, input }) => {
      const r = await maakEndpoint(ctx.services.db, { accountId: ctx.sessie.accountId, ...input, now: ctx.services.now(), ...doel(ctx) }).catch(vertaal);
      return { ...naarWebhook(r.endpoint), geheim: r.geheim };
    }),

  /** On again: waiting deliveries go after all. */
  wijzig: sessieProcedure
    .input(z.strictObject({ id: webhookId, url: url.optional(), events: eventsSchema.optional(), omschrijving, actief: z.boolean('actief: waar of onwaar').optional() }))
    .mutation(async ({ ctx, input }) => {
      const e = await wijzigEndpoint(ctx.services.db, { accountId: ctx.sessie.accountId, ...input, now: ctx.services.now(), ...doel(ctx) }).catch(vertaal);
      if (!e) throw nietGevonden();
      return naarWebhook(e);
    }),

  verwijder: sessieProcedure.input(metId).mutation(async ({ ctx, input }) => {
    if (!(await verwijderEndpoint(ctx.services.db, ctx.sessie.accountId, input.id))) throw nietGevonden();
    return { id: input.id, verwijderd: true as const };
  }),

  test: sessieProcedure.input(metId).mutation(async ({ ctx, input }) => {
    const r = await stuurTest(ctx.services.db, ctx.sessie.accountId, input.id, ctx.services.now());
    if (!r) throw nietGevonden();
    return { gebeurtenis_id: r.berichtId, aflevering_id: r.afleveringId };
  }),

  roteer: sessieProcedure.input(metId).mutation(async ({ ctx, input }) => {
    const r = await roteerGeheim(ctx.services.db, ctx.sessie.accountId, input.id, ctx.services.now());
    if (!r) throw nietGevonden();
    return { ...naarWebhook(r.endpoint), geheim: r.geheim };
  }),

  afleveringen: sessieProcedure
    .input(
      z.strictObject({
        id: webhookId,
        limiet: z.int('limiet: een geheel getal').min(1, 'limiet: minstens 1').max(100, 'limiet: hoogstens 100').default(20),
        na: z.string().max(200).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const p = await afleveringenPagina(ctx.services.db, { accountId: ctx.sessie.accountId, id: input.id, limiet: input.limiet, na: input.na ? leesCursor(input.na) : null });
      if (!p) throw nietGevonden();
      return { regels: p.regels.map(naarAflevering), volgende: schrijfCursor(p.volgende) };
    }),

  opnieuw: sessieProcedure
    .input(z.strictObject({ id: webhookId, aflevering: z.uuid('aflevering: geen geldige aflevering-id') }))
    .mutation(async ({ ctx, input }) => {
      const a = await afleveringOpnieuw(ctx.services.db, { accountId: ctx.sessie.accountId, id: input.id, aflevering: input.aflevering, now: ctx.services.now() });
      if (!a) throw new InsightFout('niet_gevonden', 'Deze aflevering bestaat niet.');
      return naarAflevering(a);
    }),
});
