import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialect, type TestDatabase } from './support/db.ts';
import { FUNCTIE_DEFINITIES_SQL, functieBronnen, functieMigratie } from '../src/db/migrate.ts';

/**
 * Issue 25: the SQL functions are source files (prisma/sql/<naam>.sql), one per function, holding the
 * definition the migrated database has today — so the charging and rate-limit rules are read in one file,
 * not replayed from migrations — and a new migration is generated from them.
 */
describe(`SQL functions as source files (${dialect})`, () => {
  let db: TestDatabase;
  let inDatabase: { naam: string; definitie: string }[];
  beforeAll(async () => {
    db = await createTestDatabase();
    inDatabase = await db.prisma.$queryRawUnsafe(FUNCTIE_DEFINITIES_SQL);
  });
  afterAll(async () => db?.close());

  it('every function of the migrated database has exactly one source file, and each file is its definition of today', () => {
    const bronnen = functieBronnen();
    expect(inDatabase.map((f) => f.naam)).toEqual(bronnen.map((b) => b.naam));
    for (const b of bronnen) expect(b.definitie, b.naam).toBe(inDatabase.find((f) => f.naam === b.naam)?.definitie.trim());
  });

  it('the migration generated from the sources is empty now, and holds a changed function', () => {
    expect(functieMigratie(inDatabase)).toBe('');
    const ouder = inDatabase.map((f) => (f.naam === 'afrekenen' ? { ...f, definitie: f.definitie.replace('p_credits > 0', 'p_credits >= 0') } : f));
    const script = functieMigratie(ouder);
    expect(script).toMatch(/^CREATE OR REPLACE FUNCTION public\.afrekenen\(/);
    expect(script).not.toMatch(/afrekenen_bundel/);
  });

  it('uuid_v7(): version 7, a new value per row, its time the clock truncated to the millisecond', async () => {
    const voor = Date.now();
    const [r] = await db.prisma.$queryRawUnsafe<{ n: number; verschillend: number; versie7: number; min: string; max: string }[]>(
      `SELECT count(*)::int AS n, count(DISTINCT u)::int AS verschillend,
              count(*) FILTER (WHERE u::text ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$')::int AS versie7,
              min(u::text) AS min, max(u::text) AS max
       FROM (SELECT uuid_v7() AS u FROM generate_series(1, 1000)) s`,
    );
    const na = Date.now();
    expect(r).toMatchObject({ n: 1000, verschillend: 1000, versie7: 1000 });
    for (const u of [r.min, r.max]) {
      const ms = Number.parseInt(u.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(voor - 5);
      expect(ms).toBeLessThanOrEqual(na);
    }
  });

  it('no function keys a row with a random UUID: every insert per call takes uuid_v7()', () => {
    const willekeurig = functieBronnen().filter((b) => b.naam !== 'uuid_v7' && b.definitie.includes('gen_random_uuid()'));
    expect(willekeurig.map((b) => b.naam)).toEqual([]);
  });
});
