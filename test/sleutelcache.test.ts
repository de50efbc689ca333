import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel, trekSleutelIn, roteerSleutel } from '../src/domain/keys/sleutels.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startServers, verzoek, type ServerProces } from './support/server.ts';

/**
 * Each server process keeps authenticated keys in memory for a few seconds (domain/keys). A revocation
 * or rotation made elsewhere — the operator CLI, another process — must still be refused at once.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('key cache across server processes (PostgreSQL)', () => {
  let db: TestDatabase;
  let servers: ServerProces[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    ({ servers } = await startServers(db.url, 2));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.close();
  });

  /** ms until `pad` with `key` answers 401 on every process, polling every 50 ms for at most 5 s. */
  async function totGeweigerd(key: string): Promise<number> {
    const t0 = performance.now();
    while (performance.now() - t0 < 5000) {
      const st = await Promise.all(servers.map((s) => verzoek(s.url, 'GET', '/api/v1/whoami', { key })));
      if (st.every((r) => r.status === 401)) {
        for (const r of st) expect(r.headers.get('www-authenticate')).toBe('Bearer');
        return performance.now() - t0;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return Infinity;
  }

  it('a revoked key is refused by every process within 1 s, although each had it cached', async () => {
    expect(servers).toHaveLength(2);
    const acc = await maakAccount(db.prisma, { naam: 'Intrekken', credits: 10 });
    const k = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'weg' });
    for (const s of servers) expect((await verzoek(s.url, 'GET', '/api/v1/whoami', { key: k.key })).status).toBe(200);
    // Revoked by this process (as the CLI does), not by either server.
    await trekSleutelIn(db.prisma, { accountId: acc.id, keyId: k.id });
    expect(await totGeweigerd(k.key)).toBeLessThan(1000);
  });

  it('after a rotation the old key is refused within 1 s and the new one works on every process', async () => {
    const acc = await maakAccount(db.prisma, { naam: 'Roteren', credits: 10 });
    const oud = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'oud' });
    for (const s of servers) expect((await verzoek(s.url, 'GET', '/api/v1/whoami', { key: oud.key })).status).toBe(200);
    const nieuw = await roteerSleutel(db.prisma, { accountId: acc.id, keyId: oud.id });
    expect(await totGeweigerd(oud.key)).toBeLessThan(1000);
    for (const s of servers) expect((await verzoek(s.url, 'GET', '/api/v1/whoami', { key: nieuw.key })).status).toBe(200);
  });

  it('a refused (revoked) key spends no quota of its own and nobody else\'s', async () => {
    const acc = await maakAccount(db.prisma, { naam: 'Quotum', credits: 10 });
    const k = await maakSleutel(db.prisma, { accountId: acc.id, naam: 'q' });
    expect((await verzoek(servers[0].url, 'GET', '/api/v1/whoami', { key: k.key })).headers.get('ratelimit')).toBe('"rest";r=59;t=60');
    await trekSleutelIn(db.prisma, { accountId: acc.id, keyId: k.id });
    for (let i = 0; i < 3; i++) expect((await verzoek(servers[0].url, 'GET', '/api/v1/whoami', { key: k.key })).status).toBe(401);
    const stand = await db.prisma.snelheidStand.findUnique({ where: { keyId_emmer: { keyId: k.id, emmer: 'rest' } } });
    expect(stand!.tellingen.reduce((a, b) => a + b, 0)).toBe(1);
  });
});
