import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boekCorrectie } from '../src/domain/billing/correctie.ts';
import { grootboekPagina, maakAccount, waardeerOp } from '../src/domain/billing/tegoed.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { lookup } from './support/http.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

/**
 * The balance page's count of ledger rows comes from grootboek_per_dag (kept by a trigger on grootboek), not
 * from counting an account's ledger, which grows by a row per charged call: they must always be equal.
 */
describe(`ledger rows per day (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000' });
  });
  afterAll(async () => t?.close());

  const telling = (tabel: 'grootboek' | 'grootboek_per_dag') =>
    t.db.prisma.$queryRawUnsafe<unknown[]>(
      tabel === 'grootboek'
        ? `SELECT account_id::text, to_char((aangemaakt_op AT TIME ZONE 'Europe/Amsterdam')::date, 'YYYY-MM-DD') AS dag, count(*)::int AS aantal
           FROM grootboek GROUP BY 1, 2 ORDER BY 1, 2`
        : `SELECT account_id::text, to_char(dag, 'YYYY-MM-DD') AS dag, aantal FROM grootboek_per_dag ORDER BY 1, 2`,
    );

  it('equal a count of the ledger rows per Amsterdam day, whatever wrote them', async () => {
    const { accountId, key } = await t.klant(40);
    const a = await maakVolledigAdres(t.db.prisma);
    // 23:58 in Amsterdam, then past midnight: charges (alone and batched), a 404 (no ledger row) on two days.
    t.clock.now = new Date('2026-11-22T22:58:00Z');
    for (let dag = 0; dag < 2; dag++) {
      expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
      expect((await lookup(t, 'woz', key, { adres: { postcode: '9999ZZ', huisnummer: '1' } })).statusCode).toBe(404);
      expect((await Promise.all([1, 2, 3].map(() => lookup(t, 'adres', key, adresBody(a))))).map((r) => r.statusCode)).toEqual([200, 200, 200]);
      t.clock.advance(4 * 60_000);
    }
    await waardeerOp(t.db.prisma, { accountId, credits: 25 });
    await boekCorrectie(t.db.prisma, { accountId, credits: -3, reden: 'test' });
    await maakAccount(t.db.prisma, { naam: 'beginsaldo', credits: 7 });
    expect(await telling('grootboek_per_dag')).toEqual(await telling('grootboek'));
    const p = await grootboekPagina(t.db.prisma, accountId, 1, 50);
    expect(p.totaal).toBe(await t.db.prisma.ledgerEntry.count({ where: { accountId } }));
    expect(p.regels.length).toBe(p.totaal);
  });

  it("the migration's totals of the ledger written before it equal the count", async () => {
    const migraties = path.join(import.meta.dirname, '../prisma/migrations');
    const map = readdirSync(migraties).find((m) => m.endsWith('_grootboek_per_dag'))!;
    const sql = readFileSync(path.join(migraties, map, 'migration.sql'), 'utf8');
    await t.db.prisma.$executeRawUnsafe('DELETE FROM grootboek_per_dag');
    await t.db.prisma.$executeRawUnsafe(sql.slice(sql.indexOf('INSERT INTO "grootboek_per_dag"')));
    expect(await telling('grootboek_per_dag')).toEqual(await telling('grootboek'));
  });

  it('a deep page of the ledger starts from its day and holds the rows an offset over all of them gives', async () => {
    const { id: accountId } = await maakAccount(t.db.prisma, { naam: 'diep', credits: 0 });
    // 3,000 rows over four Amsterdam days (23:00 UTC is past midnight there), ties in time too.
    await t.db.prisma.$executeRawUnsafe(
      `INSERT INTO grootboek (id, account_id, credits, soort, omschrijving, aangemaakt_op)
       SELECT gen_random_uuid(), $1::uuid, CASE WHEN i % 7 = 0 THEN 10 ELSE -1 END, CASE WHEN i % 7 = 0 THEN 'opwaardering' ELSE 'correctie' END, 'x',
              timestamptz '2026-10-05 20:00:00+00' + (i / 2) * interval '130 seconds'
       FROM generate_series(0, 2999) i`,
      accountId,
    );
    const ids = (await t.db.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }], select: { id: true } })).map((r) => r.id);
    for (const [pagina, per] of [[21, 50], [59, 50], [3, 499], [5, 300], [7, 300], [11, 100], [30, 100]] as const) {
      const p = await grootboekPagina(t.db.prisma, accountId, pagina, per);
      expect(p.totaal).toBe(3000);
      expect(p.regels.map((r) => r.id), `page ${pagina} of ${per}`).toEqual(ids.slice((pagina - 1) * per, pagina * per));
    }
    expect((await grootboekPagina(t.db.prisma, accountId, 31, 100)).regels).toEqual([]);
  });
});
