import { beforeAll, describe, expect, it } from 'vitest';
import { herstelUitgesteldeIndexen, stelIndexenUit } from '../../src/domain/register/import/indexen.ts';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { dialect, type TestDatabase, useTestDatabase } from '../support/db.ts';
import { CSV_FULL } from '../support/hulp.ts';

/** The secondary indexes of a table as PostgreSQL defines them. */
async function indexen(db: TestDatabase, tabel: string): Promise<string[]> {
  const rijen = await db.prisma.$queryRawUnsafe<{ d: string }[]>(
    `SELECT indexdef AS d FROM pg_indexes WHERE tablename = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexname`,
    tabel,
  );
  return rijen.map((r) => r.d);
}

describe(`deferred indexes while an empty table is loaded (${dialect})`, () => {
  const db = useTestDatabase();
  let voor: string[];
  beforeAll(async () => {
    voor = await indexen(db, 'adres');
  });

  it('the migrated adres table has its two secondary indexes', () => {
    expect(voor).toHaveLength(2);
  });

  it.runIf(dialect === 'pglite')('PGlite keeps its indexes (nothing deferred)', async () => {
    expect(await stelIndexenUit(db, ['adres'], null)).toBeNull();
    const s = await voerImportUit(db, 'bag-csv', CSV_FULL, { stil: true });
    expect(s.uitgesteldeIndexen).toBeUndefined();
    expect(await indexen(db, 'adres')).toEqual(voor);
  });

  it.runIf(dialect === 'postgres')('a first import defers and rebuilds them: same definitions, nothing left recorded, planner statistics fresh', async () => {
    const s = await voerImportUit(db, 'bag-csv', CSV_FULL, { stil: true });
    expect((s.uitgesteldeIndexen as { naam: string }[]).map((i) => i.naam).sort()).toEqual(['adres_pand_id_idx', 'adres_postcode_huisnummer_idx']);
    expect(await indexen(db, 'adres')).toEqual(voor);
    expect(await db.prisma.uitgesteldeIndex.count()).toBe(0);
    const [{ n }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'adres'`);
    expect(n).toBe(s.tabellen.adres!.ingevoegd);
    // A second import finds the table filled: nothing is deferred.
    const s2 = await voerImportUit(db, 'bag-csv', CSV_FULL, { stil: true });
    expect(s2.uitgesteldeIndexen).toBeUndefined();
    expect(s2.ingevoegd + s2.bijgewerkt).toBe(0);
  });

  it.runIf(dialect === 'postgres')('indexes a crashed import left deferred are built at the next start, but not while an import holds the lock', async () => {
    // What an import that died after deferring leaves behind.
    await db.prisma.$executeRawUnsafe('TRUNCATE adres CASCADE');
    const uitstel = await stelIndexenUit(db, ['adres'], null);
    expect(uitstel?.uitgesteld.map((u) => u.naam).sort()).toEqual(['adres_pand_id_idx', 'adres_postcode_huisnummer_idx']);
    expect(await indexen(db, 'adres')).toEqual([]);
    // The import still runs (holds the lock): a start leaves its indexes alone.
    expect(await herstelUitgesteldeIndexen(db)).toEqual([]);
    expect(await db.prisma.uitgesteldeIndex.count()).toBe(2);
    // Its process dies: the session ends, the lock goes, the rows stay.
    const ander = await db.openRawConnection!();
    await ander.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    await ander.end();
    await new Promise((r) => setTimeout(r, 200));
    expect((await herstelUitgesteldeIndexen(db)).sort()).toEqual(['adres_pand_id_idx', 'adres_postcode_huisnummer_idx']);
    expect(await indexen(db, 'adres')).toEqual(voor);
    expect(await db.prisma.uitgesteldeIndex.count()).toBe(0);
    // The dead import's own rebuild finds nothing left to do.
    expect(await uitstel!.herbouw()).toEqual([]);
    expect(await indexen(db, 'adres')).toEqual(voor);
  });
});
