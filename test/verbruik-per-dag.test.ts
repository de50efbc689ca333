import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verbruikDezeMaand, verbruikGefilterd, verbruikPerDag, type VerbruikFilter } from '../src/domain/billing/verbruik.ts';
import { zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { lookup } from './support/http.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

/**
 * The day totals the web app reads (verbruik_per_dag, kept by a trigger on verbruik) instead of counting
 * the usage rows, which a large account makes millions of a month: they must always equal that count.
 */
describe(`usage per day (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000' });
  });
  afterAll(async () => t?.close());

  const telling = (tabel: 'verbruik' | 'verbruik_per_dag') =>
    t.db.prisma.$queryRawUnsafe<unknown[]>(
      tabel === 'verbruik'
        ? `SELECT account_id::text, to_char((aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, 'YYYY-MM-DD') AS dag, voorziening, key_id::text,
                  status < 400 AS geslaagd, count(*)::int AS aantal, sum(credits)::int AS credits, sum(gefactureerd_cent)::int AS cent
           FROM verbruik GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`
        : `SELECT account_id::text, to_char(dag, 'YYYY-MM-DD') AS dag, voorziening, key_id::text, geslaagd, aantal, credits, gefactureerd_cent AS cent
           FROM verbruik_per_dag ORDER BY 1, 2, 3, 4, 5`,
    );

  it('equal a count of the usage rows per Amsterdam day, service, key and outcome, on every path that records usage', async () => {
    const { accountId, key } = await t.klant(60);
    const tweede = await t.key(accountId);
    const a = await maakVolledigAdres(t.db.prisma);
    const onbekend = { adres: { postcode: '9999ZZ', huisnummer: '1' } };
    // 23:58 in Amsterdam, then past midnight: the same calls land on two days.
    t.clock.now = new Date('2026-11-22T22:58:00Z');
    const statussen: number[] = [];
    for (let dag = 0; dag < 2; dag++) {
      statussen.push((await lookup(t, 'woz', key, adresBody(a))).statusCode);
      statussen.push((await lookup(t, 'adres', tweede, adresBody(a))).statusCode);
      statussen.push((await lookup(t, 'woz', key, onbekend)).statusCode);
      // Concurrent calls go in one batched charge.
      statussen.push(...(await Promise.all([1, 2, 3].map(() => lookup(t, 'woz', tweede, adresBody(a))))).map((r) => r.statusCode));
      t.clock.advance(4 * 60_000);
    }
    // The key's monthly cap refuses (recorded outside the charge), then the balance does.
    const tweedeId = (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId }, orderBy: { aangemaaktOp: 'desc' } })).id;
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: tweedeId, credits: 1 });
    statussen.push((await lookup(t, 'woz', tweede, adresBody(a))).statusCode);
    for (let i = 0; i < 100 && statussen[statussen.length - 1] !== 402; i++) statussen.push((await lookup(t, 'woz', key, adresBody(a))).statusCode);
    expect(new Set(statussen)).toEqual(new Set([200, 404, 402]));

    const rijen = await telling('verbruik_per_dag');
    expect(rijen).toEqual(await telling('verbruik'));
    expect(new Set(rijen.map((r) => (r as { dag: string }).dag))).toEqual(new Set(['2026-11-22', '2026-11-23']));

    // What the web app shows, from the totals: as counted from the usage rows above.
    const filter = { van: '2026-11-01', tot: '2026-11-30', uitkomst: 'alle' as const };
    const lijst = await verbruikGefilterd(t.db.prisma, accountId, filter, { pagina: 1 }, 500);
    expect(lijst.totaal).toBe(lijst.regels.length);
    expect((await verbruikGefilterd(t.db.prisma, accountId, { ...filter, uitkomst: 'mislukt' }, { pagina: 1 }, 500)).totaal).toBe(lijst.regels.filter((r) => r.status >= 400).length);
    expect((await verbruikGefilterd(t.db.prisma, accountId, { ...filter, sleutelId: tweedeId, voorziening: 'woz' }, { pagina: 1 }, 500)).totaal).toBe(7);
    const perDag = await verbruikPerDag(t.db.prisma, accountId, { ...filter, van: '2026-11-23', tot: '2026-11-23' });
    expect(perDag.every((d) => d.dag === '2026-11-23')).toBe(true);
    const maand = await verbruikDezeMaand(t.db.prisma, accountId, t.clock.now);
    expect(maand).toEqual({ van: '2026-11-01', credits: 60 - (await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits, opvragingen: lijst.totaal });
  });

  it("the migration's totals of the usage recorded before it equal the count", async () => {
    const migraties = path.join(import.meta.dirname, '../prisma/migrations');
    const map = readdirSync(migraties).find((m) => m.endsWith('_verbruik_per_dag'))!;
    const sql = readFileSync(path.join(migraties, map, 'migration.sql'), 'utf8');
    const aanvulling = sql.slice(sql.indexOf('INSERT INTO "verbruik_per_dag"'));
    await t.db.prisma.$executeRawUnsafe('DELETE FROM verbruik_per_dag');
    await t.db.prisma.$executeRawUnsafe(aanvulling);
    expect(await telling('verbruik_per_dag')).toEqual(await telling('verbruik'));
  });

  it('a deep page of the usage list starts from its day (by the day totals) and holds the rows an offset over the whole period gives', async () => {
    const { accountId } = await t.klant(0);
    const keyId = (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    // 3,000 rows over four Amsterdam days (23:00 UTC is past midnight there), two services, one in five failed; ties in time too.
    await t.db.prisma.$executeRawUnsafe(
      `INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, aangemaakt_op)
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, 'rest', CASE WHEN i % 3 = 0 THEN 'adres' ELSE 'woz' END, CASE WHEN i % 5 = 0 THEN 404 ELSE 200 END,
              1, 5, timestamptz '2026-10-05 20:00:00+00' + (i / 2) * interval '130 seconds'
       FROM generate_series(0, 2999) i`,
      accountId,
      keyId,
    );
    const filter: VerbruikFilter = { van: '2026-10-01', tot: '2026-10-31', uitkomst: 'alle' };
    const alles = async (f: VerbruikFilter) =>
      (
        await t.db.prisma.usageRecord.findMany({
          where: { accountId, ...(f.voorziening ? { voorziening: f.voorziening } : {}), ...(f.uitkomst === 'mislukt' ? { status: { gte: 400 } } : {}) },
          orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }],
          select: { id: true },
        })
      ).map((r) => r.id);
    for (const f of [filter, { ...filter, voorziening: 'woz' }, { ...filter, uitkomst: 'mislukt' }] satisfies VerbruikFilter[]) {
      const ids = await alles(f);
      for (const [pagina, per] of [[21, 50], [29, 50], [3, 499], [5, 300], [7, 300], [11, 100]] as const) {
        const p = await verbruikGefilterd(t.db.prisma, accountId, f, { pagina }, per);
        expect(p.totaal).toBe(ids.length);
        expect(p.regels.map((r) => r.id), `${JSON.stringify(f)} page ${pagina} of ${per}`).toEqual(ids.slice((pagina - 1) * per, pagina * per));
      }
      // Past the end: no rows (not the first page again).
      expect((await verbruikGefilterd(t.db.prisma, accountId, f, { pagina: 40 }, 100)).regels).toEqual([]);
    }
  });
});
