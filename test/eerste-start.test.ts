import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startServer, type ServerProces } from './support/server.ts';
import { DEMO_BRON } from '../src/domain/register/demo/index.ts';

/**
 * A first `insight serve` on an empty PostgreSQL database, DEMO_SEED and DEMO_PLAATS unset: no demo
 * account (no credits given away), but the demo town that test keys answer for is in the register.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('first start on an empty PostgreSQL database', () => {
  let db: TestDatabase;
  let server: ServerProces | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await server?.stop();
    await db?.close();
  });

  it('creates no demo account unless DEMO_SEED=true, and loads only the demo town', async () => {
    server = await startServer(db.url, { DEMO_SEED: '', DEMO_PLAATS: '' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await db.prisma.account.count()).toBe(0);
    expect(await db.prisma.adres.count()).toBeGreaterThanOrEqual(20_000);
    expect(await db.prisma.adres.count({ where: { NOT: { bron: DEMO_BRON } } })).toBe(0);
    expect(server.uitvoer()).toMatch(/DEMO_SEED staat uit/);
  });
});
