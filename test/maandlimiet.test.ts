import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { startServers, verzoek, type ServerProces } from './support/server.ts';
import { getBalance, grootboekSom } from '../src/domain/billing/tegoed.ts';
import { zetMaandlimiet } from '../src/domain/keys/sleutels.ts';

/**
 * Issue 26 (first part): an optional monthly cap per key, enforced in the one charging statement — a
 * charge that would take the key past its cap is refused with 402 and its own Dutch message, the
 * balance untouched; other keys of the account go on.
 */
describe(`monthly cap per key (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000' });
  });
  afterAll(async () => t?.close());

  const sleutelId = async (accountId: string) => (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId }, orderBy: { aangemaaktOp: 'desc' } })).id;

  it('refuses the charge past the cap with 402 and the cap message, uncharged; another key of the account still works', async () => {
    const { accountId, key } = await t.klant(1000);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: await sleutelId(accountId), credits: 2 });
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'adres', key, adresBody(a))).statusCode).toBe(200);
    const derde = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'na-limiet' });
    expect(derde.statusCode, derde.body).toBe(402);
    expect(derde.json().fout).toMatch(/maandlimiet van deze sleutel is bereikt/);
    expect(derde.headers['insight-gefactureerd-cent']).toBe('0');
    expect(await getBalance(t.db.prisma, accountId)).toBe(998);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(998);
    const ander = await t.key(accountId);
    expect((await lookup(t, 'woz', ander, adresBody(a))).statusCode).toBe(200);
    // Raising the cap lets the first key go on.
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId }, orderBy: { aangemaaktOp: 'asc' } })).id, credits: 3 });
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
  });

  it('a cap counts per calendar month in Europe/Amsterdam', async () => {
    const { accountId, key } = await t.klant(1000);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: await sleutelId(accountId), credits: 1 });
    const a = await maakVolledigAdres(t.db.prisma);
    t.clock.now = new Date('2026-11-30T22:30:00Z'); // 23:30 on 30 November in Amsterdam
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'adres', key, adresBody(a))).statusCode).toBe(402);
    t.clock.now = new Date('2026-11-30T23:00:00Z'); // midnight: 1 December in Amsterdam
    expect((await lookup(t, 'adres', key, adresBody(a))).statusCode).toBe(200);
  });

  it('200 concurrent calls on a key with a cap of 10 credits and a large balance: exactly 10 charged', async () => {
    const { accountId, key } = await t.klant(100_000);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: await sleutelId(accountId), credits: 10 });
    const adressen = await Promise.all(Array.from({ length: 10 }, () => maakVolledigAdres(t.db.prisma)));
    const antwoorden = await Promise.all(Array.from({ length: 200 }, (_, i) => lookup(t, 'woz', key, adresBody(adressen[i % 10]))));
    const statussen = antwoorden.map((r) => r.statusCode);
    expect(statussen.filter((s) => s === 200)).toHaveLength(10);
    expect(statussen.filter((s) => s === 402)).toHaveLength(190);
    for (const r of antwoorden.filter((x) => x.statusCode === 402)) expect(r.json().fout).toMatch(/maandlimiet/);
    expect(await getBalance(t.db.prisma, accountId)).toBe(100_000 - 10);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(100_000 - 10);
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('two real server processes on one PostgreSQL', () => {
    let servers: ServerProces[] = [];
    beforeAll(async () => {
      ({ servers } = await startServers(t.db.url, 2, { RATE_LIMIT_REST_PER_MIN: '1000' }));
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it('200 concurrent calls split over both processes, cap 10 credits: exactly 10 x 200 and 190 x 402, ledger = balance', async () => {
      expect(servers).toHaveLength(2);
      const { accountId, key } = await t.klant(100_000);
      await zetMaandlimiet(t.db.prisma, { accountId, keyId: await sleutelId(accountId), credits: 10 });
      const adressen = await Promise.all(Array.from({ length: 10 }, () => maakVolledigAdres(t.db.prisma)));
      const warm = await t.klant(0);
      for (const s of servers) expect((await verzoek(s.url, 'GET', '/api/v1/whoami', { key: warm.key })).status).toBe(200);
      const antwoorden = await Promise.all(
        Array.from({ length: 200 }, (_, i) => verzoek(servers[i % 2].url, 'POST', '/api/v1/inzicht/woz', { key, body: adresBody(adressen[i % 10]) })),
      );
      const statussen = antwoorden.map((r) => r.status);
      expect(statussen.filter((s) => s === 200)).toHaveLength(10);
      expect(statussen.filter((s) => s === 402)).toHaveLength(190);
      for (const r of antwoorden.filter((x) => x.status === 402)) expect(r.body.fout).toMatch(/maandlimiet/);
      expect(await getBalance(t.db.prisma, accountId)).toBe(100_000 - 10);
      expect(await grootboekSom(t.db.prisma, accountId)).toBe(100_000 - 10);
      const ander = await t.key(accountId);
      expect((await verzoek(servers[0].url, 'POST', '/api/v1/inzicht/woz', { key: ander, body: adresBody(adressen[0]) })).status).toBe(200);
    });
  });
});
