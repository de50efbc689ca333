import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { batchParameter } from '../src/db/bundel.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { IDEMPOTENTIE_VENSTER_MS, OPRUIM_SQL, VERLATEN_ZOEKEN_MS } from '../src/domain/idempotentie/idempotentie.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { adresKandidaten } from '../src/domain/register/adressen.ts';
import { invloedKandidaten, registerKandidaten } from '../src/domain/register/opvragen.ts';
import { waarderingsKandidaten } from '../src/domain/valuation/adres-waarde.ts';
import { dialect, useTestDatabase } from './support/db.ts';
import { maakVolledigAdres } from './support/register.ts';

/**
 * The batched register reads of a lookup go out as named statements (db/client.ts sqlRijen). PostgreSQL
 * plans such a statement once and keeps that plan only when the plan for the values at hand does not
 * look cheaper; with arrays as the batch it did (a batch of one looked ten times cheaper), so it planned
 * every execution again, for the valuation's address read twice as long as running it. A join to the
 * JSON batch, planned before a table had statistics, read all of woz_waarde per batch instead.
 */
describe.runIf(dialect === 'postgres')('batched register reads keep one plan, an index lookup per item (postgres)', () => {
  const statements: string[] = [];
  const db = useTestDatabase({ onQuery: (sql) => statements.push(sql) });

  it('each batched read of a lookup uses an index without statistics, and reaches a generic plan after five custom ones', async () => {
    const adres = await maakVolledigAdres(db.prisma);
    // Enough of a register that an index is worth using; the statistics as a server would have them.
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO adres (id, postcode, huisnummer, straat, woonplaats, object_type, bron, bijgewerkt_op)
       SELECT 'plan-' || g, lpad((1000 + g / 20)::text, 4, '0') || 'ZZ', g % 20 + 1, 'Straat', 'Plaats', 'verblijfsobject', 'testdata', now()
       FROM generate_series(1, 20000) g`,
    );
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO woz_waarde (adres_id, peildatum, waarde, bron) SELECT 'plan-' || g, '2025-01-01', 300000, 'testdata' FROM generate_series(1, 20000) g`,
    );
    for (const tabel of ['adres', 'woz_waarde', 'energielabel', 'woningtype', 'adres_invloed']) await db.prisma.$executeRawUnsafe(`ALTER TABLE ${tabel} SET (autovacuum_enabled = false)`);
    statements.length = 0;
    await adresKandidaten(db.prisma, adres.postcode, adres.huisnummer, null);
    await waarderingsKandidaten(db.prisma, adres.postcode, adres.huisnummer, null);
    await registerKandidaten(db.prisma, adres.postcode, adres.huisnummer, null);
    await invloedKandidaten(db.prisma, adres.postcode, adres.huisnummer, null);
    const lezingen = [...new Set(statements)];
    expect(lezingen).toHaveLength(4);

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const parameter = (tekst: string) =>
        tekst.includes('jsonb_to_recordset') ? batchParameter([{ postcode: adres.postcode, huisnummer: adres.huisnummer }]) : batchParameter([adres.id]);
      // Before the tables have statistics (after a load, until autovacuum gets to them) the one plan must
      // still look each address up by an index: a sequential scan there would read the whole register per batch.
      await c.query('SET plan_cache_mode = force_generic_plan');
      for (const [i, tekst] of lezingen.entries()) {
        await c.query(`PREPARE zonder_statistiek_${i}(jsonb) AS ${tekst}`);
        const plan = (await c.query(`EXPLAIN EXECUTE zonder_statistiek_${i}('${parameter(tekst)}')`)).rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, tekst).not.toMatch(/Seq Scan on (adres|woz_waarde|energielabel|woningtype|adres_invloed)\b/);
      }
      await c.query('RESET plan_cache_mode');
      await c.query('ANALYZE');
      for (const [i, tekst] of lezingen.entries()) {
        for (let n = 0; n < 8; n++) await c.query({ name: `lezing_${i}`, text: tekst, values: [parameter(tekst)] });
      }
      const { rows } = await c.query<{ name: string; generic_plans: string; custom_plans: string }>(
        `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'lezing_%' ORDER BY name`,
      );
      expect(rows.map((r) => ({ lezing: lezingen[Number(r.name.slice(7))].slice(0, 60), generiek: Number(r.generic_plans) > 0 }))).toEqual(
        lezingen.map((t) => ({ lezing: t.slice(0, 60), generiek: true })),
      );
    } finally {
      await c.end();
    }
  });
});

/**
 * The idempotency clean-up runs every five minutes in every server process; one day of records at national
 * volume is millions of rows. Its statements must reach the rows by the verloopt_op index, never scan the table.
 */
describe.runIf(dialect === 'postgres')('the idempotency clean-up reads an index range, not the table (postgres)', () => {
  const db = useTestDatabase();

  it('both of its statements use the verloopt_op index on a day of records', async () => {
    const nu = new Date('2026-11-27T12:00:00Z');
    const { id: accountId } = await maakAccount(db.prisma, { naam: 'opruimplan', credits: 1 });
    await maakSleutel(db.prisma, { accountId, naam: 'k', now: nu });
    const keyId = (await db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    // 50,000 records made over the past day, one in ten still "bezig" with a deadline a minute after it was made.
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, bezig_tot, aangemaakt_op, verloopt_op)
       SELECT gen_random_uuid(), $1::uuid, 'mcp', g::text, 'h', CASE WHEN g % 10 = 0 THEN 'bezig' ELSE 'klaar' END,
              CASE WHEN g % 10 = 0 THEN t + interval '1 minute' END, t, t + make_interval(secs => $3::double precision / 1000)
       FROM generate_series(1, 50000) g, LATERAL (SELECT $2::timestamptz - g * interval '1.7 seconds' AS t) m`,
      keyId,
      nu,
      IDEMPOTENTIE_VENSTER_MS,
    );
    await db.prisma.$executeRawUnsafe('ANALYZE idempotentie');
    const venster = new Date(nu.getTime() + IDEMPOTENTIE_VENSTER_MS - VERLATEN_ZOEKEN_MS);
    for (const [naam, tekst] of Object.entries(OPRUIM_SQL)) {
      const rijen = await db.prisma.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${tekst}`, nu, ...(naam === 'verlaten' ? [venster] : []));
      const plan = rijen.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan, naam).toMatch(/idempotentie_verloopt_op_idx/);
      expect(plan, naam).not.toMatch(/Seq Scan on idempotentie/);
    }
  });
});
