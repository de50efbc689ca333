import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/env.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { afleveringenPagina } from '../src/domain/webhooks/beheer.ts';
import { WEBHOOK_OPRUIM_SQL, WebhookOpruimer } from '../src/domain/webhooks/opruimen.ts';
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

  /** An event `dagen` days before `op`, with one delivery per [endpoint, state, lease in minutes from `op`]. */
  async function gebeurtenis(accountId: string, id: string, dagen: number, afleveringen: [string, string, number?][], op = nu): Promise<void> {
    const t = new Date(op.getTime() - dagen * DAG);
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op) VALUES ($1, $2::uuid, 'inzicht.voltooid', '{}'::jsonb, $3::timestamptz)`,
      id,
      accountId,
      t,
    );
    for (const [endpointId, toestand, lease] of afleveringen) {
      await db.prisma.$executeRawUnsafe(
        `INSERT INTO webhook_aflevering (id, event_id, endpoint_id, toestand, volgende_poging, geclaimd_tot) VALUES (gen_random_uuid(), $1, $2::uuid, $3, $4::timestamptz, $5::timestamptz)`,
        id,
        endpointId,
        toestand,
        t,
        lease === undefined ? null : new Date(op.getTime() + lease * 60_000),
      );
    }
  }

  const over = async (accountId: string) =>
    (await db.prisma.webhookEvent.findMany({ where: { accountId }, select: { id: true, deliveries: { select: { toestand: true } } }, orderBy: { id: 'asc' } })).map(
      (e) => `${e.id}:${e.deliveries.map((d) => d.toestand).sort().join('+')}`,
    );

  it('removes events older than the retention with their deliveries, except what the worker may still send', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-a', credits: 1 });
    const { id: b } = await maakAccount(db.prisma, { naam: 'bewaren-b', credits: 1 });
    const aan = await endpoint(a);
    const uit = await endpoint(a, false);
    await gebeurtenis(a, 'msg_afgeleverd', 31, [[aan, 'afgeleverd']]);
    await gebeurtenis(a, 'msg_mislukt', 45, [[aan, 'mislukt']]);
    // A switched-off endpoint's backlog would otherwise stay for as long as it is off.
    await gebeurtenis(a, 'msg_wachtend_uit', 31, [[uit, 'wachtend']]);
    // A switched-on endpoint's waiting delivery (a worker behind) is still sent; its event stays until it has an outcome.
    await gebeurtenis(a, 'msg_wachtend_aan', 31, [[aan, 'wachtend']]);
    await gebeurtenis(a, 'msg_bezig', 31, [[aan, 'bezig', 1]]);
    await gebeurtenis(a, 'msg_deels_bezig', 31, [[aan, 'afgeleverd'], [uit, 'bezig', 1]]);
    // Its worker died and the endpoint was switched off: nobody takes it over, so it goes.
    await gebeurtenis(a, 'msg_bezig_verlopen', 31, [[uit, 'bezig', -1]]);
    // Its worker died, the endpoint is on: the next worker takes it over, so it stays.
    await gebeurtenis(a, 'msg_bezig_overnemen', 31, [[aan, 'bezig', -1]]);
    // Its endpoint was deleted (and with it the deliveries): the event alone.
    await gebeurtenis(a, 'msg_zonder', 40, []);
    await gebeurtenis(a, 'msg_recent', 29, [[aan, 'afgeleverd'], [uit, 'wachtend']]);
    await gebeurtenis(b, 'msg_b_oud', 60, [[await endpoint(b), 'afgeleverd']]);

    const opruimer = new WebhookOpruimer(db.prisma, 30);
    expect(await opruimer.ronde(nu)).toBe(6);
    expect(await over(a)).toEqual([
      'msg_bezig:bezig',
      'msg_bezig_overnemen:bezig',
      'msg_deels_bezig:afgeleverd+bezig',
      'msg_recent:afgeleverd+wachtend',
      'msg_wachtend_aan:wachtend',
    ]);
    expect(await over(b)).toEqual([]);
    // What the customer's delivery list shows is what is left.
    const lijst = await afleveringenPagina(db.prisma, { accountId: a, id: aan, limiet: 50, na: null });
    expect(lijst?.regels.map((r) => r.eventId).sort()).toEqual(['msg_bezig', 'msg_bezig_overnemen', 'msg_deels_bezig', 'msg_recent', 'msg_wachtend_aan']);
    // Once nothing is older than the retention but what is held, a round removes nothing.
    expect(await opruimer.ronde(nu)).toBe(0);
    // A shorter retention takes the newer one too (its waiting delivery is for the switched-off endpoint).
    expect(await new WebhookOpruimer(db.prisma, 7).ronde(nu)).toBe(1);
    // Sent, the delivery's event goes at the next round.
    await db.prisma.webhookDelivery.updateMany({ where: { eventId: 'msg_wachtend_aan' }, data: { toestand: 'afgeleverd' } });
    expect(await opruimer.ronde(nu)).toBe(1);
    expect(await over(a)).toEqual(['msg_bezig:bezig', 'msg_bezig_overnemen:bezig', 'msg_deels_bezig:afgeleverd+bezig']);
  });

  it('goes in batches until an account has nothing older left', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-partij', credits: 1 });
    const aan = await endpoint(a);
    for (let i = 0; i < 7; i++) await gebeurtenis(a, `msg_p${i}`, 31 + i, [[aan, i % 2 ? 'mislukt' : 'afgeleverd']]);
    await gebeurtenis(a, 'msg_p_bezig', 50, [[aan, 'bezig', 1]]);
    expect(await new WebhookOpruimer(db.prisma, 30, { partij: 2 }).ronde(nu)).toBe(7);
    expect(await over(a)).toEqual(['msg_p_bezig:bezig']);
  });

  it('takes the accounts in turn: a round that runs out of statements goes on where it stopped', async () => {
    // Another time than the tests above, so their events are not older than this retention.
    const op = new Date('2026-06-01T12:00:00Z');
    const ids = (await Promise.all([0, 1, 2].map((i) => maakAccount(db.prisma, { naam: `bewaren-beurt-${i}`, credits: 1 })))).map((r) => r.id).sort();
    // The first two (by id) hold only deliveries being sent: a statement each that removes nothing.
    for (const [i, id] of ids.entries()) await gebeurtenis(id, `msg_beurt${i}`, 40, [[await endpoint(id), i < 2 ? 'bezig' : 'afgeleverd', i < 2 ? 60 : undefined]], op);
    const opruimer = new WebhookOpruimer(db.prisma, 30, { partij: 1, maxPartijen: 2 });
    expect(await opruimer.ronde(op)).toBe(0);
    // Started from the first account again, it would never reach the third.
    expect(await opruimer.ronde(op)).toBe(1);
    expect(await db.prisma.webhookEvent.count({ where: { accountId: ids[2] } })).toBe(0);
  });

  it('WEBHOOK_RETENTION_DAYS defaults to 30 and refuses less than a day', () => {
    expect(loadConfig({}).WEBHOOK_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '90' }).WEBHOOK_RETENTION_DAYS).toBe(90);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });

  it.runIf(dialect === 'postgres')('never waits on a delivery another transaction holds (an endpoint being deleted): it is left for a later round', async () => {
    const { id: a } = await maakAccount(db.prisma, { naam: 'bewaren-slot', credits: 1 });
    const aan = await endpoint(a);
    await gebeurtenis(a, 'msg_slot_1', 40, [[aan, 'afgeleverd']]);
    await gebeurtenis(a, 'msg_slot_2', 40, [[aan, 'afgeleverd']]);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query('BEGIN');
      await c.query("SELECT 1 FROM webhook_aflevering WHERE event_id = 'msg_slot_1' FOR UPDATE");
      const ronde = new WebhookOpruimer(db.prisma, 30).ronde(nu);
      const klaar = await Promise.race([ronde.then(() => 'klaar'), new Promise((r) => setTimeout(() => r('wacht'), 5_000))]);
      expect(klaar).toBe('klaar');
      expect(await over(a)).toEqual(['msg_slot_1:afgeleverd']);
      await c.query('COMMIT');
      await new WebhookOpruimer(db.prisma, 30).ronde(nu);
      expect(await over(a)).toEqual([]);
    } finally {
      await c.end();
    }
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
    const accounts = await plan(WEBHOOK_OPRUIM_SQL.accounts, grens, '00000000-0000-0000-0000-000000000000');
    expect(accounts).toMatch(/webhook_gebeurtenis_account_id_aangemaakt_op_idx/);
    expect(accounts).not.toMatch(/Seq Scan on webhook_gebeurtenis/);
    const kandidaten = await plan(WEBHOOK_OPRUIM_SQL.kandidaten, a, grens, nu, 5000);
    expect(kandidaten).toMatch(/webhook_gebeurtenis_account_id_aangemaakt_op_idx/);
    // A batch is a small part of the table in a running service (5,000 of millions): here 100 of 20,000.
    const ids = Array.from({ length: 100 }, (_, i) => `msg_plan${20000 - i}`);
    const afleveringen = await plan(WEBHOOK_OPRUIM_SQL.afleveringen, ids, nu);
    expect(afleveringen).toMatch(/webhook_aflevering_event_id_idx/);
    const gebeurtenissen = await plan(WEBHOOK_OPRUIM_SQL.gebeurtenissen, ids);
    expect(gebeurtenissen).toMatch(/webhook_gebeurtenis_pkey/);
    expect(gebeurtenissen).toMatch(/webhook_aflevering_event_id_idx/);
    // (The endpoints, at most ten an account, may be read whole.)
    for (const p of [kandidaten, afleveringen, gebeurtenissen]) expect(p).not.toMatch(/Seq Scan on webhook_(aflevering|gebeurtenis)/);
    // The cascade to the deliveries is the foreign key's own query, run by a trigger outside EXPLAIN: its plan.
    const cascade = await plan('DELETE FROM ONLY webhook_aflevering WHERE event_id = $1', 'msg_plan1');
    expect(cascade).toMatch(/webhook_aflevering_event_id_idx/);
    await new WebhookOpruimer(db.prisma, 30).ronde(nu);
    const over = await db.prisma.webhookEvent.count({ where: { accountId: a } });
    expect(over).toBe(Math.floor((30 * DAG) / 143_000));
    expect(await db.prisma.webhookDelivery.count({ where: { endpointId: aan } })).toBe(over);
  });
});
