import { describe, expect, it } from 'vitest';
import { applyMigrations } from '../src/db/migrate.ts';
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
});
