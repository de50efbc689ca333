import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/env.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { afleveringenPagina } from '../src/domain/webhooks/beheer.ts';
import { ruimWebhooksOp, WEBHOOK_OPRUIM_SQL } from '../src/domain/webhooks/opruimen.ts';
import { dialect, useTestDatabase } from './support/db.ts';

const DAG = 86_400_000;

/** Webhook events and their deliveries are removed WEBHOOK_RETENTION_DAYS after the event (docs/webhooks.md). */
describe(`webhook retention (${dialect})`, () => {
  const db = useTestDatabase();
  const nu = new Date('2026-11-27T12:00:00Z');

  async function endpoint(accountId: string, actief = true): Promise<string> {
    const [r] = await db.prisma.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO webhook (id, account_id, url, events, geheim, actief) VALUES (gen_random_uuid(), $1::uuid, 'https://example.org/h', ARRAY['inzicht.voltooid'], 'whsec_x', $2)
       RETURNING id::text AS id`,
      accountId,
      actief,
    );
    return r.id;
  }

  /** An event `dagen` days before now, with one delivery per [endpoint, state]. */
  async function gebeurtenis(accountId: string, id: string, dagen: number, afleveringen: [string, string][]): Promise<void> {
    const t = new Date(nu.getTime() - dagen * DAG);
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op) VALUES ($1, $2::uuid, 'inzicht.voltooid', '{}'::jsonb, $3::timestamptz)`,
      id,
      accountId,
      t,
    );
    for (const [endpointId, toestand] of afleveringen) {
      await db.prisma.$executeRawUnsafe(
        `INSERT INTO webhook_aflevering (id, event_id, endpoint_id, toestand, volgende_poging) VALUES (gen_random_uuid(), $1, $2::uuid, $3, $4::timestamptz)`,
        id,
        endpointId,
        toestand,
        t,
      );
    }
  }

  const over = async (accountId: string) =>
    (await db.prisma.webhookEvent.findMany({ where: { accountId }, select: { id: true, deliveries: { select: { toestand: true } } }, orderBy: { id: 'asc' } })).map(
      (e) => `${e.id}:${e.deliveries.map((d) => d.toestand).sort().join('+')}`,
    );

  it('removes events older than the retention with their deliveries in every state but one being sent, keeps newer ones', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-a', credits: 1 });
    const { id: b } = await maakAccount(db.prisma, { naam: 'bewaren-b', credits: 1 });
    const aan = await endpoint(a);
    const uit = await endpoint(a, false);
    await gebeurtenis(a, 'msg_afgeleverd', 31, [[aan, 'afgeleverd']]);
    await gebeurtenis(a, 'msg_mislukt', 45, [[aan, 'mislukt']]);
    // A switched-off endpoint's backlog would otherwise stay for as long as it is off.
    await gebeurtenis(a, 'msg_wachtend', 31, [[uit, 'wachtend']]);
    await gebeurtenis(a, 'msg_bezig', 31, [[aan, 'bezig']]);
    await gebeurtenis(a, 'msg_deels_bezig', 31, [[aan, 'afgeleverd'], [uit, 'bezig']]);
    // Its endpoint was deleted (and with it the deliveries): the event alone.
    await gebeurtenis(a, 'msg_zonder', 40, []);
    await gebeurtenis(a, 'msg_recent', 29, [[aan, 'afgeleverd'], [uit, 'wachtend']]);
    await gebeurtenis(b, 'msg_b_oud', 60, [[await endpoint(b), 'afgeleverd']]);

    expect(await ruimWebhooksOp(db.prisma, nu, 30)).toBe(5);
    expect(await over(a)).toEqual(['msg_bezig:bezig', 'msg_deels_bezig:afgeleverd+bezig', 'msg_recent:afgeleverd+wachtend']);
    expect(await over(b)).toEqual([]);
    expect(await db.prisma.webhookDelivery.count({ where: { endpoint: { accountId: { in: [a, b] } } } })).toBe(5);
    // What the customer's delivery list shows is what is left.
    const lijst = await afleveringenPagina(db.prisma, { accountId: a, id: aan, limiet: 50, na: null });
    expect(lijst?.regels.map((r) => r.eventId).sort()).toEqual(['msg_bezig', 'msg_deels_bezig', 'msg_recent']);
    // Once nothing is older than the retention, a round removes nothing.
    expect(await ruimWebhooksOp(db.prisma, nu, 30)).toBe(0);
    // A shorter retention takes the newer one too.
    expect(await ruimWebhooksOp(db.prisma, nu, 7)).toBe(1);
    expect(await over(a)).toEqual(['msg_bezig:bezig', 'msg_deels_bezig:afgeleverd+bezig']);
  });

  it('goes in batches until an account has nothing older left', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-partij', credits: 1 });
    const aan = await endpoint(a);
    for (let i = 0; i < 7; i++) await gebeurtenis(a, `msg_p${i}`, 31 + i, [[aan, i % 2 ? 'mislukt' : 'afgeleverd']]);
    await gebeurtenis(a, 'msg_p_bezig', 50, [[aan, 'bezig']]);
    expect(await ruimWebhooksOp(db.prisma, nu, 30, 2)).toBe(7);
    expect(await over(a)).toEqual(['msg_p_bezig:bezig']);
  });

  it('WEBHOOK_RETENTION_DAYS defaults to 30 and refuses less than a day', () => {
    expect(loadConfig({}).WEBHOOK_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '90' }).WEBHOOK_RETENTION_DAYS).toBe(90);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });

  it.runIf(dialect === 'postgres')('reads index ranges: the accounts by the events index, the deliveries by their event', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-plan', credits: 1 });
    const aan = await endpoint(a);
    // 20,000 events over 33 days, a delivery each: the oldest 9 % are past the retention, as in a running service.
    await db.prisma.$executeRawUnsafe(
      `WITH g AS (
         INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op)
         SELECT 'msg_plan' || i, $1::uuid, 'inzicht.voltooid', '{}'::jsonb, $3::timestamptz - i * interval '143 seconds' FROM generate_series(1, 20000) i
         RETURNING id, aangemaakt_op)
       INSERT INTO webhook_aflevering (id, event_id, endpoint_id, toestand, volgende_poging) SELECT gen_random_uuid(), g.id, $2::uuid, 'afgeleverd', g.aangemaakt_op FROM g`,
      a,
      aan,
      nu,
    );
    await db.prisma.$executeRawUnsafe('ANALYZE webhook_gebeurtenis');
    await db.prisma.$executeRawUnsafe('ANALYZE webhook_aflevering');
    const grens = new Date(nu.getTime() - 30 * DAG);
    const plan = async (tekst: string, ...w: unknown[]) =>
      (await db.prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${tekst}`, ...w)).map((r) => r['QUERY PLAN']).join('\n');
    const accounts = await plan(WEBHOOK_OPRUIM_SQL.accounts, grens);
    expect(accounts).toMatch(/webhook_gebeurtenis_account_id_aangemaakt_op_idx/);
    expect(accounts).not.toMatch(/Seq Scan on webhook_gebeurtenis/);
    const weg = await plan(WEBHOOK_OPRUIM_SQL.gebeurtenissen, a, grens, 5000);
    expect(weg).toMatch(/webhook_gebeurtenis_account_id_aangemaakt_op_idx/);
    expect(weg).toMatch(/webhook_gebeurtenis_pkey/);
    expect(weg).not.toMatch(/Seq Scan/);
    // The cascade to the deliveries is the foreign key's own query, run by a trigger outside EXPLAIN: its plan.
    const cascade = await plan('DELETE FROM ONLY webhook_aflevering WHERE event_id = $1', 'msg_plan1');
    expect(cascade).toMatch(/webhook_aflevering_event_id_idx/);
    const n = await ruimWebhooksOp(db.prisma, nu, 30);
    expect(n).toBe(20000 - Math.floor((30 * DAG) / 143_000));
    expect(await db.prisma.webhookDelivery.count({ where: { endpointId: aan } })).toBe(20000 - n);
  });
});
