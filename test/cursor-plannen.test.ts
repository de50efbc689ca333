import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { verbruikGefilterd, verbruikPagina } from '../src/domain/billing/verbruik.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { afleveringenPagina, maakEndpoint } from '../src/domain/webhooks/beheer.ts';
import { dialect, useTestDatabase } from './support/db.ts';

interface Knoop {
  'Rows Removed by Filter'?: number;
  Plans?: Knoop[];
}
const weggefilterd = (k: Knoop): number => (k['Rows Removed by Filter'] ?? 0) + (k.Plans ?? []).reduce((n, p) => n + weggefilterd(p), 0);

/**
 * A page after a cursor (REST `na`, the web app's export and delivery log) must cost the same deep in a large
 * account as at its start: the index scan starts at the cursor, it does not read and drop, or sort, every newer row.
 */
describe.runIf(dialect === 'postgres')('pages after a cursor start at the cursor (postgres)', () => {
  const gelezen: { sql: string; params?: string }[] = [];
  const db = useTestDatabase({ onQuery: (sql, params) => gelezen.push({ sql, params }) });

  it('REST and the web app: a page 20,000 rows deep drops no newer rows', async () => {
    const acc = await maakAccount(db.prisma, { naam: 'groot', credits: 0 });
    const sleutel = await maakSleutel(db.prisma, { accountId: acc.id, naam: 's', now: new Date('2026-11-20T12:00:00Z') });
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, aangemaakt_op)
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, 'rest', 'woz', 200, 1, 5, timestamptz '2026-11-20 12:00+00' - g * interval '1 second'
       FROM generate_series(1, 25000) g`,
      acc.id,
      sleutel.id,
    );
    await db.prisma.$executeRawUnsafe('ANALYZE verbruik');
    const diep = (await db.prisma.usageRecord.findMany({ where: { accountId: acc.id }, orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }], skip: 20_000, take: 1 }))[0];
    const na = { t: diep.aangemaaktOp, id: diep.id };
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      for (const lees of [
        () => verbruikPagina(db.prisma, acc.id, 100, na),
        () => verbruikGefilterd(db.prisma, acc.id, { van: '2026-11-19', tot: '2026-11-20', uitkomst: 'alle' }, { na }, 100),
      ]) {
        gelezen.length = 0;
        const p = await lees();
        expect(p.regels).toHaveLength(100);
        expect(p.regels[0].aangemaaktOp.getTime()).toBeLessThan(na.t.getTime());
        const pagina = gelezen.find((q) => /FROM "public"\."verbruik"/.test(q.sql) && /ORDER BY/.test(q.sql))!;
        const plan = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${pagina.sql}`, JSON.parse(pagina.params!))).rows[0]['QUERY PLAN'][0].Plan as Knoop;
        expect(weggefilterd(plan), pagina.sql).toBeLessThan(1_000);
      }
    } finally {
      await c.end();
    }
  });

  it('the webhook delivery log: a page 20,000 deliveries deep sorts nothing and drops no newer row', async () => {
    const acc = await maakAccount(db.prisma, { naam: 'webhooks', credits: 0 });
    const nu = new Date('2026-11-20T12:00:00Z');
    const doel = { onveilig: true, resolver: async () => [{ address: '93.184.216.34', family: 4 as const }] };
    const [een, twee] = [await maakEndpoint(db.prisma, { accountId: acc.id, url: 'https://a.example/h', events: ['saldo.laag'], now: nu, ...doel }), await maakEndpoint(db.prisma, { accountId: acc.id, url: 'https://b.example/h', events: ['saldo.laag'], now: nu, ...doel })];
    await db.prisma.$executeRawUnsafe(
      `WITH g AS (INSERT INTO webhook_gebeurtenis (id, account_id, type, payload, aangemaakt_op)
         SELECT 'msg_' || g, $1::uuid, 'saldo.laag', '{}'::jsonb, timestamptz '2026-11-20 12:00+00' + g * interval '1 second' FROM generate_series(1, 25000) g RETURNING id)
       INSERT INTO webhook_aflevering (id, event_id, endpoint_id, toestand, volgende_poging)
       SELECT uuid_v7(), g.id, e.id, 'afgeleverd', now() FROM g CROSS JOIN (VALUES ($2::uuid), ($3::uuid)) e(id)`,
      acc.id,
      een.endpoint.id,
      twee.endpoint.id,
    );
    await db.prisma.$executeRawUnsafe('ANALYZE webhook_aflevering');
    const diep = (
      await db.prisma.$queryRawUnsafe<{ id: string; t: Date }[]>(
        'SELECT l.id::text, g.aangemaakt_op AS t FROM webhook_aflevering l JOIN webhook_gebeurtenis g ON g.id = l.event_id WHERE l.endpoint_id = $1::uuid ORDER BY l.id DESC OFFSET 20000 LIMIT 1',
        een.endpoint.id,
      )
    )[0];
    gelezen.length = 0;
    const p = await afleveringenPagina(db.prisma, { accountId: acc.id, id: een.endpoint.id, limiet: 50, na: { t: diep.t, id: diep.id } });
    expect(p!.regels).toHaveLength(50);
    expect(p!.regels[0].id < diep.id).toBe(true);
    const pagina = gelezen.find((q) => /FROM webhook_aflevering l/.test(q.sql))!;
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const plan = (await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${pagina.sql}`, JSON.parse(pagina.params!))).rows[0]['QUERY PLAN'][0].Plan as Knoop;
      expect(JSON.stringify(plan)).not.toContain('"Sort"');
      expect(weggefilterd(plan)).toBeLessThan(1_000);
    } finally {
      await c.end();
    }
  });
});
