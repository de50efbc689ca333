import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakAdres, maakVolledigAdres, uniekePostcode } from './support/register.ts';
import { waardeerOp } from '../src/domain/billing/tegoed.ts';
import { sleutelHash } from '../src/domain/keys/format.ts';
import { CENT_PER_CREDIT, expectFout, lookup, LOOKUPS, PRIJS, saldo, sporen } from './support/http.ts';
import { startServers, verzoek, type ServerProces } from './support/server.ts';
import { bezetEventLoop } from './support/belasting.ts';

/** Every account: balance = sum of its ledger rows, and never below zero (decisions section 3). */
async function controleerGrootboek(t: TestApp) {
  const rows = await t.db.prisma.$queryRaw<{ id: string; credits: number; som: number }[]>`
    SELECT a.id, a.credits, COALESCE(SUM(g.credits), 0)::int AS som
    FROM account a LEFT JOIN grootboek g ON g.account_id = a.id
    GROUP BY a.id, a.credits`;
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(r.som, `account ${r.id}: saldo ${r.credits} != som grootboek ${r.som}`).toBe(r.credits);
    expect(r.credits, `account ${r.id}`).toBeGreaterThanOrEqual(0);
  }
}

describe(`charging (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000' });
  });
  afterEach(async () => controleerGrootboek(t));
  afterAll(async () => t?.close());

  it.each(LOOKUPS)('%s charges exactly its price: balance, ledger debit and usage row', async (v) => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const res = await lookup(t, v, key, adresBody(a));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().meta.gefactureerd_cent).toBe(PRIJS[v] * CENT_PER_CREDIT);
    expect(await saldo(t, accountId)).toBe(100 - PRIJS[v]);

    const ledger = await t.db.prisma.ledgerEntry.findMany({ where: { accountId, soort: 'afschrijving' } });
    expect(ledger).toHaveLength(1);
    expect(ledger[0].credits).toBe(-PRIJS[v]);
    const usage = await t.db.prisma.usageRecord.findMany({ where: { accountId } });
    expect(usage).toHaveLength(1);
    const keyRow = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { hash: sleutelHash(key) } });
    expect(usage[0]).toMatchObject({
      keyId: keyRow.id,
      kanaal: 'rest',
      voorziening: v,
      status: 200,
      credits: PRIJS[v],
      gefactureerdCent: PRIJS[v] * CENT_PER_CREDIT,
      cached: false,
    });
    expect(ledger[0].usageId).toBe(usage[0].id);
  });

  it('two keys of one account share one balance', async () => {
    const { key, accountId } = await t.klant(20);
    const tweede = await t.key(accountId);
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await lookup(t, 'invloeden', key, adresBody(a))).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(4);
    // The second key sees the same 4 credits: not enough for another 16.
    const res = await lookup(t, 'invloeden', tweede, adresBody(a));
    expect(expectFout(res, 402)).toMatch(/4 credits/);
    expect((await lookup(t, 'woz', tweede, adresBody(a))).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(3);
  });

  it.each(LOOKUPS)('%s with 0 credits -> 402 before any work: balance, ledger and usage unchanged', async (v) => {
    const { key, accountId } = await t.klant(0);
    const a = await maakVolledigAdres(t.db.prisma);
    const voor = await sporen(t, accountId);
    const fout = expectFout(await lookup(t, v, key, adresBody(a)), 402);
    expect(fout).toMatch(/^Onvoldoende tegoed/);
    expect(fout).toContain(`${PRIJS[v]} credit`);
    expect(fout).toMatch(/saldo is 0 credits/);
    // Before any work: an unknown address is not looked up either (402 comes before 404).
    expectFout(await lookup(t, v, key, { adres: { postcode: uniekePostcode(), huisnummer: '7' } }), 402);
    expect(await sporen(t, accountId)).toEqual(voor);
  });

  it('invloeden with 15 credits (price 16) -> 402 stating price and balance; a 1-credit lookup still works', async () => {
    const { key, accountId } = await t.klant(15);
    const a = await maakVolledigAdres(t.db.prisma);
    const fout = expectFout(await lookup(t, 'invloeden', key, adresBody(a)), 402);
    expect(fout).toMatch(/16 credits/);
    expect(fout).toMatch(/15 credits/);
    expect(fout).toContain('0,80');
    expect(fout).toContain('0,75');
    expect(await sporen(t, accountId)).toEqual({ credits: 15, ledger: 1, usage: 0 });
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(14);
  });

  it('after a top-up the same call succeeds', async () => {
    const { key, accountId } = await t.klant(0);
    const a = await maakVolledigAdres(t.db.prisma);
    expectFout(await lookup(t, 'woz', key, adresBody(a)), 402);
    await waardeerOp(t.db.prisma, { accountId, credits: 3 });
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(2);
  });

  it('an address with no data for the lookup costs nothing and writes no debit', async () => {
    // Enough for the dearest lookup: the balance check comes before the lookup knows it holds nothing.
    const { key, accountId } = await t.klant(16);
    const a = await maakAdres(t.db.prisma);
    for (const v of ['woz', 'energielabel', 'woningtype', 'invloeden']) {
      const res = await lookup(t, v, key, adresBody(a));
      expect(res.statusCode).toBe(200);
      expect(res.json().meta.gefactureerd_cent).toBe(0);
    }
    expect(await saldo(t, accountId)).toBe(16);
    expect(await t.db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } })).toBe(0);
    const usage = await t.db.prisma.usageRecord.findMany({ where: { accountId } });
    expect(usage.every((u) => u.credits === 0 && u.gefactureerdCent === 0 && u.status === 200)).toBe(true);
  });

  it('200 concurrent calls from two keys of one account with 100 credits: exactly 100 succeed, never below zero', async () => {
    const { key, accountId } = await t.klant(100);
    const tweede = await t.key(accountId);
    const adressen = await Promise.all(Array.from({ length: 10 }, () => maakVolledigAdres(t.db.prisma)));
    const antwoorden = await Promise.all(
      Array.from({ length: 200 }, (_, i) => lookup(t, 'woz', i % 2 ? tweede : key, adresBody(adressen[i % adressen.length]))),
    );
    const statussen = antwoorden.map((r) => r.statusCode);
    const diag = JSON.stringify([...new Set(antwoorden.filter((r) => r.statusCode !== 200 && r.statusCode !== 402).map((r) => `${r.statusCode} ${r.body}`))]);
    expect(statussen.filter((s) => s === 200), diag).toHaveLength(100);
    expect(statussen.filter((s) => s === 402), diag).toHaveLength(100);
    for (const r of antwoorden.filter((x) => x.statusCode === 402)) expectFout(r, 402);
    expect(await saldo(t, accountId)).toBe(0);
    expect(await t.db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } })).toBe(100);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(100);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId, status: 200, credits: 1 } })).toBe(100);
  });

  it('a burst on a busy process (event loop 80 % occupied): every call is 200 or 402, none fails with 5xx', async () => {
    const { key, accountId } = await t.klant(100);
    const tweede = await t.key(accountId);
    const adressen = await Promise.all(Array.from({ length: 10 }, () => maakVolledigAdres(t.db.prisma)));
    const last = bezetEventLoop(40, 10);
    let antwoorden;
    try {
      antwoorden = await Promise.all(Array.from({ length: 200 }, (_, i) => lookup(t, 'woz', i % 2 ? tweede : key, adresBody(adressen[i % adressen.length]))));
    } finally {
      await last.stop();
    }
    const tel: Record<number, number> = {};
    for (const r of antwoorden) tel[r.statusCode] = (tel[r.statusCode] ?? 0) + 1;
    const diag = `${JSON.stringify(tel)} ${JSON.stringify([...new Set(antwoorden.filter((r) => r.statusCode >= 500).map((r) => r.body))])}`;
    expect(tel, diag).toEqual({ 200: 100, 402: 100 });
    expect(await saldo(t, accountId)).toBe(0);
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('two real server processes on one PostgreSQL', () => {
    let servers: ServerProces[] = [];
    let fouten: string[] = [];
    beforeAll(async () => {
      ({ servers, fouten } = await startServers(t.db.url, 2, { RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000' }));
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it('both processes start on the one database', () => {
      expect(fouten).toEqual([]);
      expect(servers).toHaveLength(2);
    });

    it('200 concurrent calls split over both processes, 100 credits: exactly 100 x 200, 100 x 402, balance 0', async () => {
      expect(servers, `twee processen nodig; gestart: ${servers.length}`).toHaveLength(2);
      const { key, accountId } = await t.klant(100);
      const tweede = await t.key(accountId);
      const adressen = await Promise.all(Array.from({ length: 10 }, () => maakVolledigAdres(t.db.prisma)));
      // Warm both processes up (connections, JIT) so the 200 calls really overlap.
      const warm = await t.klant(0);
      for (const s of servers) expect((await verzoek(s.url, 'GET', '/api/v1/whoami', { key: warm.key })).status).toBe(200);
      const antwoorden = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          verzoek(servers[i % 2].url, 'POST', '/api/v1/inzicht/woz', { key: i % 4 < 2 ? key : tweede, body: adresBody(adressen[i % adressen.length]) }),
        ),
      );
      const statussen = antwoorden.map((r) => r.status);
      const diag = `${JSON.stringify([...new Set(antwoorden.filter((r) => r.status !== 200 && r.status !== 402).map((r) => `${r.status} ${JSON.stringify(r.body)}`))])}\n${servers.map((s) => s.uitvoer()).join('\n').slice(-4000)}`;
      expect(statussen.filter((s) => s === 200), diag).toHaveLength(100);
      expect(statussen.filter((s) => s === 402), diag).toHaveLength(100);
      expect(await saldo(t, accountId)).toBe(0);
      expect(await t.db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } })).toBe(100);
      expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(100);
    });
  });
});
