/** Free, insight key, at most 10 per account; the web app shares the answer shapes and error translation. */
import { z } from 'zod';
import { inzichtProcedure, router } from '../core/trpc.ts';
import { accountMeta, accountMetaSchema, tekst } from '../core/schema.ts';
import { isoMetOffset } from '../domain/begrippen.ts';
import { foutBeschrijvingen, InsightFout } from '../core/errors.ts';
import type { Context } from '../core/context.ts';
import {
  afleveringenPagina, afleveringOpnieuw, haalEndpoint, lijstEndpoints, maakEndpoint, roteerGeheim, stuurTest, verwijderEndpoint,
  WebhookFout, wijzigEndpoint, MAX_ENDPOINTS, MAX_TEST_ENDPOINTS, type AfleveringRij, type EndpointRij,
} from '../domain/webhooks/beheer.ts';
import { GEBEURTENIS_TYPES } from '../domain/webhooks/gebeurtenissen.ts';
import { idempotencyHeaders } from './inzicht/gedeeld.ts';
import { idempotentGemaakt } from '../core/idempotent-maken.ts';
import { leesCursor, schrijfCursor } from '../core/cursor.ts';

const tag = ['webhooks'];
export const eventsSchema = z.array(z.enum(GEBEURTENIS_TYPES as [string, ...string[]])).min(1, 'events: kies minstens één type').max(10);
const idParam = z.string().max(100).describe('Id van de webhook.');

const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    omschrijving: z.string().nullable(),
    actief: z.boolean(),
    uitgeschakeld_op: z.string().nullable().describe('ISO 8601 met offset; wanneer de webhook werd uitgeschakeld.'),
    uitschakel_reden: z.string().nullable().describe('Waarom de webhook uit staat (410 van de ontvanger, 5 dagen falen, of door het account).'),
    aangemaakt_op: z.string(),
    vorig_geheim_geldig_tot: z.string().nullable().describe('Na een rotatie tekent ook het vorige geheim tot dit moment.'),
    test: z.boolean().describe('Geregistreerd met een testsleutel: krijgt alleen de gebeurtenissen van testsleutels, en is de enige soort die een testsleutel ziet of wijzigt.'),
  })
  .meta({ id: 'Webhook' });

const metGeheim = webhookSchema.extend({ geheim: z.string().describe('Het ondertekengeheim (`whsec_...`); alleen nu zichtbaar.') }).meta({ id: 'WebhookMetGeheim' });

const afleveringSchema = z
  .object({
    id: z.string(),
    gebeurtenis_id: z.string().describe('De `webhook-id` header (`msg_...`), gelijk bij elke poging.'),
    type: z.string(),
    toestand: z.enum(['wachtend', 'bezig', 'afgeleverd', 'mislukt']),
    pogingen: z.int(),
    laatste_status: z.int().nullable(),
    laatste_fout: z.string().nullable(),
    volgende_poging: z.string().nullable(),
    aangemaakt_op: z.string(),
  })
  .meta({ id: 'WebhookAflevering' });

export function naarWebhook(e: EndpointRij) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    omschrijving: e.omschrijving,
    actief: e.actief,
    uitgeschakeld_op: e.uitgeschakeldOp ? isoMetOffset(e.uitgeschakeldOp) : null,
    uitschakel_reden: e.uitschakelReden,
    aangemaakt_op: isoMetOffset(e.aangemaaktOp),
    vorig_geheim_geldig_tot: e.vorigGeheimTot ? isoMetOffset(e.vorigGeheimTot) : null,
    test: e.test,
  };
}

export function naarAflevering(a: AfleveringRij) {
  return {
    id: a.id,
    gebeurtenis_id: a.eventId,
    type: a.type,
    toestand: a.toestand as 'wachtend' | 'bezig' | 'afgeleverd' | 'mislukt',
    pogingen: a.pogingen,
    laatste_status: a.laatsteStatus,
    laatste_fout: a.laatsteFout,
    volgende_poging: a.volgendePoging ? isoMetOffset(a.volgendePoging) : null,
    aangemaakt_op: isoMetOffset(a.aangemaaktOp),
  };
}

export const nietGevonden = () => new InsightFout('niet_gevonden', 'Deze webhook bestaat niet.');

export function vertaal(e: unknown): never {
  if (e instanceof WebhookFout) throw new InsightFout(e.soort === 'te_veel' ? 'conflict' : e.soort === 'gesloten' ? 'ongeldige_sleutel' : 'ongeldige_invoer', e.message);
  throw e;
}

export const doel = (ctx: Context) => ({ onveilig: ctx.services.config.WEBHOOK_ALLOW_INSECURE, resolver: ctx.services.webhookResolver });
const enkel = z.object({ data: webhookSchema, meta: accountMetaSchema });
const enkelMetGeheim = z.object({ data: metGeheim, meta: accountMetaSchema });
const antwoordMetGeheim = (r: { endpoint: EndpointRij; geheim: string }) => ({ data: { ...naarWebhook(r.endpoint), geheim: r.geheim }, meta: accountMeta() });
const fouten = (extra: number[] = []) => ({ ...foutBeschrijvingen([403, ...extra]) });

/** A test key (CI, kept less carefully) sees and changes only test webhooks; the live ones are 404 to it. */
const webhookProcedure = inzichtProcedure.use(async ({ ctx, getRawInput, next }) => {
  if (ctx.principal.modus !== 'test') return next();
  const id = ((await getRawInput()) as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string' && !(await haalEndpoint(ctx.services.db, ctx.principal.accountId, id))?.test) throw nietGevonden();
  return next();
});

const webhookIdempotencyHeaders = z.object({
  'Idempotency-Key': idempotencyHeaders.shape['Idempotency-Key'].describe('1 tot 255 zichtbare ASCII-tekens. Dezelfde sleutel en body binnen 24 uur geven het eerste antwoord terug (met hetzelfde geheim, header `Idempotent-Replayed: true`) in plaats van een tweede webhook; een andere body met dezelfde sleutel: 409.'),
});

const roteerIdempotencyHeaders = z.object({
  'Idempotency-Key': idempotencyHeaders.shape['Idempotency-Key'].describe('1 tot 255 zichtbare ASCII-tekens. Dezelfde sleutel voor dezelfde webhook binnen 24 uur geeft het eerste antwoord terug (hetzelfde nieuwe geheim, header `Idempotent-Replayed: true`) in plaats van nog eens te roteren.'),
});

const maak = webhookProcedure
  .meta({
    openapi: {
      method: 'POST', path: '/webhooks', protect: true, tags: tag, summary: 'Webhook registreren', requestHeaders: webhookIdempotencyHeaders,
      description: `Registreert een https-URL voor gebeurtenissen van het account (REST en MCP). Gratis; hoogstens ${MAX_ENDPOINTS} per account. Het geheim \`whsec_...\` staat alleen in dit antwoord. Met een testsleutel een test-webhook (hoogstens ${MAX_TEST_ENDPOINTS}): die krijgt alleen de gebeurtenissen van testsleutels.`,
      errorResponses: { 400: 'Ongeldige URL (alleen https, geen privé- of lokale adressen, geen inloggegevens), onbekend eventtype of ongeldige Idempotency-Key.', ...fouten(), 409: `Al ${MAX_ENDPOINTS} webhooks, of de Idempotency-Key is al gebruikt voor een ander verzoek of het eerste verzoek loopt nog.` },
    },
  })
  .input(z.strictObject({ url: tekst('url').max(2048).describe('https-URL van de ontvanger.'), events: eventsSchema, omschrijving: tekst('omschrijving').max(200).nullable().optional() }))
  .output(enkelMetGeheim)
  .mutation(({ ctx, input }) =>
    idempotentGemaakt(ctx, 'webhooks', input, async (vastleggen) => {
      const r = await maakEndpoint(ctx.services.db, { accountId: ctx.principal.accountId, ...input, now: ctx.services.now(), test: ctx.principal.modus === 'test', ...doel(ctx) }, vastleggen && ((tx, r) => vastleggen(tx, antwoordMetGeheim(r)))).catch(vertaal);
      return antwoordMetGeheim(r);
    }),
  );

const lijst = webhookProcedure
  .meta({ openapi: { method: 'GET', path: '/webhooks', protect: true, tags: tag, summary: 'Webhooks van het account', description: 'Alle webhooks van het account, met hun status en eventuele uitschakelreden; nooit het geheim.', errorResponses: fouten() } })
  .input(z.strictObject({}))
  .output(z.object({ data: z.array(webhookSchema), meta: accountMetaSchema }))
  .query(async ({ ctx }) => ({ data: (await lijstEndpoints(ctx.services.db, ctx.principal.accountId, ctx.principal.modus === 'test')).map(naarWebhook), meta: accountMeta() }));

const haal = webhookProcedure
  .meta({ openapi: { method: 'GET', path: '/webhooks/{id}', protect: true, tags: tag, summary: 'Eén webhook', description: 'Eén webhook van het account (404 voor een id van een ander account); nooit het geheim.', errorResponses: fouten([404]) } })
  .input(z.strictObject({ id: idParam }))
  .output(enkel)
  .query(async ({ ctx, input }) => {
    const e = await haalEndpoint(ctx.services.db, ctx.principal.accountId, input.id);
    if (!e) throw nietGevonden();
    return { data: naarWebhook(e), meta: accountMeta() };
  });

const wijzig = webhookProcedure
  .meta({
    openapi: {
      method: 'PATCH', path: '/webhooks/{id}', protect: true, tags: tag, summary: 'Webhook wijzigen',
      description: 'Wijzig url, events, omschrijving of zet de webhook aan/uit. Weer aanzetten wist de uitschakelreden; wachtende afleveringen gaan dan alsnog.',
      errorResponses: { 400: 'Ongeldige URL of eventtype.', ...fouten([404]) },
    },
  })
  // actief as text, like every other input: no coercible field (test/validatie.test.ts).
  .input(z.strictObject({ id: idParam, url: tekst('url').max(2048).optional(), events: eventsSchema.optional(), omschrijving: tekst('omschrijving').max(200).nullable().optional(), actief: z.enum(['true', 'false']).optional().describe("'true' zet de webhook aan, 'false' uit.") }))
  .output(enkel)
  .mutation(async ({ ctx, input }) => {
    const actief = input.actief === undefined ? undefined : input.actief === 'true';
    const e = await wijzigEndpoint(ctx.services.db, { accountId: ctx.principal.accountId, ...input, actief, now: ctx.services.now(), ...doel(ctx) }).catch(vertaal);
    if (!e) throw nietGevonden();
    return { data: naarWebhook(e), meta: accountMeta() };
  });

const verwijder = webhookProcedure
  .meta({ openapi: { method: 'DELETE', path: '/webhooks/{id}', protect: true, tags: tag, summary: 'Webhook verwijderen', description: 'Verwijdert de webhook en zijn wachtende afleveringen.', errorResponses: fouten([404]) } })
  .input(z.strictObject({ id: idParam }))
  .output(z.object({ data: z.object({ id: z.string(), verwijderd: z.literal(true) }), meta: accountMetaSchema }))
  .mutation(async ({ ctx, input }) => {
    if (!(await verwijderEndpoint(ctx.services.db, ctx.principal.accountId, input.id))) throw nietGevonden();
    return { data: { id: input.id, verwijderd: true as const }, meta: accountMeta() };
  });

const test = webhookProcedure
  .meta({
    openapi: {
      method: 'POST', path: '/webhooks/{id}/test', protect: true, tags: tag, summary: 'Testgebeurtenis sturen',
      description: 'Zet een gebeurtenis `webhook.test` klaar voor deze webhook alleen; volg hem in de afleveringen.', errorResponses: fouten([404]),
    },
  })
  .input(z.strictObject({ id: idParam }))
  .output(z.object({ data: z.object({ gebeurtenis_id: z.string(), aflevering_id: z.string() }), meta: accountMetaSchema }))
  .mutation(async ({ ctx, input }) => {
    const r = await stuurTest(ctx.services.db, ctx.principal.accountId, input.id, ctx.services.now());
    if (!r) throw nietGevonden();
    return { data: { gebeurtenis_id: r.berichtId, aflevering_id: r.afleveringId }, meta: accountMeta() };
  });

const roteer = webhookProcedure
  .meta({
    openapi: {
      method: 'POST', path: '/webhooks/{id}/geheim-roteren', protect: true, tags: tag, summary: 'Geheim roteren', requestHeaders: roteerIdempotencyHeaders,
      description: 'Nieuw geheim, alleen in dit antwoord zichtbaar. 24 uur lang tekent ook het vorige geheim (twee `v1,`-handtekeningen in `webhook-signature`).',
      errorResponses: { ...fouten([404]), 409: 'De Idempotency-Key is al gebruikt voor een ander verzoek, of het eerste verzoek loopt nog.' },
    },
  })
  .input(z.strictObject({ id: idParam }))
  .output(enkelMetGeheim)
  .mutation(({ ctx, input }) =>
    idempotentGemaakt(ctx, 'webhooks:roteren', input, async (vastleggen) => {
      const r = await roteerGeheim(ctx.services.db, ctx.principal.accountId, input.id, ctx.services.now(), vastleggen && ((tx, r) => vastleggen(tx, antwoordMetGeheim(r))));
      if (!r) throw nietGevonden();
      return antwoordMetGeheim(r);
    }),
  );

const afleveringen = webhookProcedure
  .meta({
    openapi: {
      method: 'GET', path: '/webhooks/{id}/afleveringen', protect: true, tags: tag, summary: 'Afleveringen van een webhook, nieuwste eerst', description: 'Per aflevering: gebeurtenis-id, type, pogingen, laatste status en fout, volgende poging. Blader met `na` = `meta.volgende`. Een gebeurtenis en haar afleveringen worden bewaard tot de bewaartermijn na de gebeurtenis (standaard 30 dagen), daarna verwijderd.',
      errorResponses: { 400: 'Ongeldige limiet of cursor.', ...fouten([404]) },
    },
  })
  .input(
    z.strictObject({
      id: idParam,
      limiet: z.string().regex(/^([1-9]|[1-9]\d|100)$/, 'limiet: een geheel getal van 1 tot en met 100').describe('Regels per pagina: een geheel getal van 1 tot en met 100 (standaard 50).').optional(),
      na: z.string().max(200).describe('Cursor uit `meta.volgende` van de vorige pagina.').optional(),
    }),
  )
  .output(z.object({ data: z.array(afleveringSchema), meta: accountMetaSchema.extend({ volgende: z.string().nullable() }) }))
  .query(async ({ ctx, input }) => {
    const p = await afleveringenPagina(ctx.services.db, {
      accountId: ctx.principal.accountId, id: input.id, limiet: input.limiet ? Number(input.limiet) : 50, na: input.na ? leesCursor(input.na) : null,
    });
    if (!p) throw nietGevonden();
    return {
      data: p.regels.map(naarAflevering),
      meta: { ...accountMeta(), volgende: schrijfCursor(p.volgende) },
    };
  });

const opnieuw = webhookProcedure
  .meta({
    openapi: {
      method: 'POST', path: '/webhooks/{id}/afleveringen/{aflevering}/opnieuw', protect: true, tags: tag, summary: 'Aflevering opnieuw sturen',
      description: 'Stuurt de gebeurtenis nu opnieuw, met dezelfde `webhook-id`, en begint een nieuwe reeks pogingen.', errorResponses: fouten([404]),
    },
  })
  .input(z.strictObject({ id: idParam, aflevering: z.string().max(100) }))
  .output(z.object({ data: afleveringSchema, meta: accountMetaSchema }))
  .mutation(async ({ ctx, input }) => {
    const a = await afleveringOpnieuw(ctx.services.db, { accountId: ctx.principal.accountId, id: input.id, aflevering: input.aflevering, now: ctx.services.now() });
    if (!a) throw new InsightFout('niet_gevonden', 'Deze aflevering bestaat niet.');
    return { data: naarAflevering(a), meta: accountMeta() };
  });

export const webhooks = router({ maak, lijst, haal, wijzig, verwijder, test, roteer, afleveringen, opnieuw });
