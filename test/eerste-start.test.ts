import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startServer, type ServerProces } from './support/server.ts';

/** A first `insight serve` on an empty PostgreSQL database, DEMO_SEED unset: no demo account, no data. */
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

  it('creates no demo account and loads no demo data unless DEMO_SEED=true', async () => {
    server = await startServer(db.url, { DEMO_SEED: '' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await db.prisma.account.count()).toBe(0);
    expect(await db.prisma.adres.count()).toBe(0);
    expect(server.uitvoer()).toMatch(/DEMO_SEED staat uit/);
  });
});
