import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyMigrations, migrationsDir } from '../src/db/migrate.ts';
import { dialect, useTestDatabase } from './support/db.ts';

describe(`migrations (${dialect})`, () => {
  const db = useTestDatabase();

  it('apply to an empty database and re-running is a no-op', async () => {
    // createTestDatabase applied them once already.
    expect(await applyMigrations(db.migratieAdapterFactory)).toEqual([]);
    const rows = await db.prisma.$queryRaw<{ migration_name: string }[]>`SELECT migration_name FROM _prisma_migrations`;
    expect(rows.length).toBeGreaterThan(0);
  });

  it('refuses a negative balance at the database level', async () => {
    const acc = await db.prisma.account.create({ data: { naam: 't', credits: 1 } });
    await expect(db.prisma.account.update({ where: { id: acc.id }, data: { credits: -1 } })).rejects.toThrow();
  });

  it('a migration that fails is not recorded as applied and leaves nothing behind', async () => {
    const map = mkdtempSync(path.join(tmpdir(), 'migraties-'));
    try {
      cpSync(migrationsDir, map, { recursive: true });
      mkdirSync(path.join(map, '99990101000000_kapot'));
      writeFileSync(path.join(map, '99990101000000_kapot', 'migration.sql'), 'CREATE TABLE kapot_proef (a int);\nSELECT 1 / 0;\n');
      await expect(applyMigrations(db.migratieAdapterFactory, map)).rejects.toThrow(/division by zero/);
      const tabel = await db.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_tables WHERE tablename = 'kapot_proef'`;
      expect(Number(tabel[0].n)).toBe(0);
      const rij = await db.prisma.$queryRaw<{ klaar: Date | null }[]>`SELECT finished_at AS klaar FROM _prisma_migrations WHERE migration_name = '99990101000000_kapot'`;
      expect(rij.every((r) => r.klaar === null)).toBe(true);
    } finally {
      await db.prisma.$executeRaw`DELETE FROM _prisma_migrations WHERE migration_name = '99990101000000_kapot'`;
      rmSync(map, { recursive: true, force: true });
    }
  });
});
