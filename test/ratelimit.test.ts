import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { expectFout, lookup, saldo, type Antwoord } from './support/http.ts';
import { startServers, verzoek, type ServerProces } from './support/server.ts';

/** Rate limits per key (decisions section 6), with the default numbers: REST 60/min, invloeden 30/min. */
describe(`rate limits (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const whoami = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } }) as unknown as Promise<Antwoord>;
  const debits = (accountId: string) => t.db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } });

  function expect429(res: Antwoord, retryAfter?: number): number {
    expect(expectFout(res, 429)).toMatch(/verzoeken/i);
    const ra = String(res.headers['retry-after']);
    expect(ra).toMatch(/^[1-9]\d*$/);
    if (retryAfter !== undefined) expect(Number(ra)).toBe(retryAfter);
    return Number(ra);
  }

  it('the 61st REST call in a minute gets 429 with Retry-After; the 429 is not charged; the window slides', async () => {
    const { key, accountId } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    const eerste = await lookup(t, 'woz', key, adresBody(a));
    expect(eerste.statusCode).toBe(200);
    expect(eerste.headers['ratelimit-policy']).toBe('"rest";q=60;w=60');
    expect(eerste.headers.ratelimit).toBe('"rest";r=59;t=60');

    t.clock.advance(30_000);
    for (let i = 2; i <= 60; i++) {
      const r = await lookup(t, 'woz', key, adresBody(a));
      expect(r.statusCode, `call ${i}: ${r.body}`).toBe(200);
      expect(r.headers['ratelimit-policy']).toBe('"rest";q=60;w=60');
      // The oldest counted call (30 s ago) leaves the window in 30 s.
      expect(r.headers.ratelimit).toBe(`"rest";r=${60 - i};t=30`);
    }
    expect(await saldo(t, accountId)).toBe(940);

    const te = await lookup(t, 'woz', key, adresBody(a));
    expect429(te, 30);
    expect(te.headers.ratelimit).toBe('"rest";r=0;t=30');
    expect(await saldo(t, accountId)).toBe(940);
    expect(await debits(accountId)).toBe(60);
    // Refused calls spend no quota: more of them change nothing.
    for (let i = 0; i < 3; i++) expect429(await lookup(t, 'woz', key, adresBody(a)), 30);

    // 30 s later the first call has left the window: room for exactly one.
    t.clock.advance(30_000);
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect429(await lookup(t, 'woz', key, adresBody(a)));

    t.clock.advance(61_000);
    const weer = await lookup(t, 'woz', key, adresBody(a));
    expect(weer.statusCode).toBe(200);
    expect(weer.headers.ratelimit).toBe('"rest";r=59;t=60');
    expect(await saldo(t, accountId)).toBe(938);
  });

  it('a call with an Idempotency-Key counts like any other (its limit is checked with its claim): refused, it claims nothing, and invalid input with a key meets the 429 first', async () => {
    const { key, accountId } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    for (let i = 1; i <= 30; i++) expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    for (let i = 31; i <= 59; i++) expect((await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': `k-${i}` })).statusCode).toBe(200);
    // The 60th: refused input with a key still spends its place in the window, as without a key.
    const ongeldig = await lookup(t, 'woz', key, { adres: { postcode: 'x', huisnummer: '1' } }, { 'idempotency-key': 'k-60' });
    expectFout(ongeldig, 400);
    expect429(await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'k-61' }), 60);
    expect429(await lookup(t, 'woz', key, { adres: { postcode: 'x', huisnummer: '1' } }, { 'idempotency-key': 'k-62' }), 60);
    expect(await t.db.prisma.idempotencyRecord.count({ where: { sleutel: { in: ['k-60', 'k-61', 'k-62'] } } })).toBe(0);
    expect(await debits(accountId)).toBe(59);
    t.clock.advance(61_000);
    const later = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'k-61' });
    expect(later.statusCode, later.body).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await debits(accountId)).toBe(60);
  });

  it('the 31st invloeden call gets 429 while the general limit is not reached; other lookups still work', async () => {
    const { key, accountId } = await t.klant(1000);
    const a = await maakVolledigAdres(t.db.prisma);
    for (let i = 1; i <= 30; i++) {
      const r = await lookup(t, 'invloeden', key, adresBody(a));
      expect(r.statusCode, `call ${i}: ${r.body}`).toBe(200);
      expect(r.headers['ratelimit-policy']).toBe('"rest";q=60;w=60, "rest:invloeden";q=30;w=60');
      expect(r.headers.ratelimit).toBe(`"rest";r=${60 - i};t=60, "rest:invloeden";r=${30 - i};t=60`);
    }
    const te = await lookup(t, 'invloeden', key, adresBody(a));
    expect429(te, 60);
    expect(te.headers.ratelimit).toBe('"rest";r=30;t=60, "rest:invloeden";r=0;t=60');
    expect(await saldo(t, accountId)).toBe(1000 - 30 * 16);

    // The refused invloeden call spent nothing of the general quota either.
    const woz = await lookup(t, 'woz', key, adresBody(a));
    expect(woz.statusCode).toBe(200);
    expect(woz.headers.ratelimit).toBe('"rest";r=29;t=60');

    t.clock.advance(61_000);
    expect((await lookup(t, 'invloeden', key, adresBody(a))).statusCode).toBe(200);
  });

  it('limits are per key: a second key of the same account is unaffected', async () => {
    const { key, accountId } = await t.klant(100);
    const tweede = await t.key(accountId);
    for (let i = 0; i < 60; i++) expect((await whoami(key)).statusCode).toBe(200);
    expect429(await whoami(key));
    const r = await whoami(tweede);
    expect(r.statusCode).toBe(200);
    expect(r.headers.ratelimit).toBe('"rest";r=59;t=60');
  });

  it('whoami counts: 60 whoami calls exhaust the REST limit for lookups too', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    for (let i = 1; i <= 60; i++) {
      const r = await whoami(key);
      expect(r.statusCode).toBe(200);
      expect(r.headers['ratelimit-policy']).toBe('"rest";q=60;w=60');
      expect(r.headers.ratelimit).toBe(`"rest";r=${60 - i};t=60`);
    }
    expect429(await lookup(t, 'woz', key, adresBody(a)), 60);
    expect429(await whoami(key), 60);
    expect(await saldo(t, accountId)).toBe(100);
    expect(await debits(accountId)).toBe(0);
  });

  it('the limit comes after auth: refused keys and wrong-family calls spend no quota', async () => {
    const { key, accountId } = await t.klant(100);
    const beheer = await t.key(accountId, { familie: 'beheer' });
    const a = await maakVolledigAdres(t.db.prisma);
    for (let i = 0; i < 5; i++) expectFout(await lookup(t, 'woz', beheer, adresBody(a)), 403);
    // The management key's own quota is untouched by its refused insight calls.
    expect((await whoami(beheer)).headers.ratelimit).toBe('"rest";r=59;t=60');
    expect((await lookup(t, 'woz', key, adresBody(a))).headers.ratelimit).toBe('"rest";r=59;t=60');
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('two real server processes on one PostgreSQL', () => {
    let servers: ServerProces[] = [];
    let fouten: string[] = [];
    beforeAll(async () => {
      // The default limits (REST 60/min); the real clock, so the calls below must be quick.
      ({ servers, fouten } = await startServers(t.db.url, 2));
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it('both processes start on the one database', () => {
      expect(fouten).toEqual([]);
      expect(servers).toHaveLength(2);
    });

    it('60 calls split over both processes succeed, the next gets 429 on either', async () => {
      expect(servers, `twee processen nodig; gestart: ${servers.length}`).toHaveLength(2);
      const { key } = await t.klant(100);
      const antwoorden = await Promise.all(Array.from({ length: 60 }, (_, i) => verzoek(servers[i % 2].url, 'GET', '/api/v1/whoami', { key })));
      const diag = JSON.stringify(antwoorden.filter((r) => r.status !== 200).slice(0, 3).map((r) => [r.status, r.body]));
      expect(antwoorden.filter((r) => r.status === 200), diag).toHaveLength(60);
      for (const s of servers) {
        const r = await verzoek(s.url, 'GET', '/api/v1/whoami', { key });
        expect(r.status).toBe(429);
        expect(Object.keys(r.body)).toEqual(['fout']);
        expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      }
    });
  });
});
