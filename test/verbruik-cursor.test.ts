import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { verbruikGefilterd, verbruikPagina } from '../src/domain/billing/verbruik.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { dialect, useTestDatabase } from './support/db.ts';

interface Knoop {
  'Rows Removed by Filter'?: number;
  Plans?: Knoop[];
}
const weggefilterd = (k: Knoop): number => (k['Rows Removed by Filter'] ?? 0) + (k.Plans ?? []).reduce((n, p) => n + weggefilterd(p), 0);

/**
 * A page after a cursor (REST `na`, the web app's export) must cost the same deep in a large account as at
 * its start: the index scan starts at the cursor, it does not read and drop every newer row.
 */
describe.runIf(dialect === 'postgres')('usage pages after a cursor start at the cursor (postgres)', () => {
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
});
