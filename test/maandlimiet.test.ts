import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { startServers, verzoek, type ServerProces } from './support/server.ts';
import { leesSaldo, grootboekSom } from '../src/domain/billing/tegoed.ts';
import { rekenAf } from '../src/domain/billing/afrekenen.ts';
import { maakSleutel, roteerSleutel, SleutelFout, zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { Webhook } from 'standardwebhooks';
import { maakAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';
import { startOntvanger } from './support/ontvanger.ts';
import { startBezorger } from '../src/domain/webhooks/bezorger.ts';

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
    expect(derde.json().fout).toMatch(/maandlimiet van deze sleutel is bereikt: deze opvraging kost 1 credit \(€ 0,05\)/);
    expect(derde.headers['insight-gefactureerd-cent']).toBe('0');
    // The refusal is in the usage list (402, 0 credits), so the owner sees the key was stopped; the answer names its record.
    expect(await t.db.prisma.usageRecord.findMany({ where: { accountId, status: 402 }, select: { id: true, credits: true, voorziening: true } }))
      .toEqual([{ id: derde.headers['insight-verzoek-id'], credits: 0, voorziening: 'woz' }]);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(998);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(998);
    const ander = await t.key(accountId);
    expect((await lookup(t, 'woz', ander, adresBody(a))).statusCode).toBe(200);
    // Raising the cap lets the first key go on.
    await zetMaandlimiet(t.db.prisma, { accountId, keyId: (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId }, orderBy: { aangemaaktOp: 'asc' } })).id, credits: 3 });
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
  });

  it('a rotated key goes on where the old one was in the month: the cap is not a fresh one', async () => {
    const { accountId, key } = await t.klant(1000);
    const keyId = await sleutelId(accountId);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 2 });
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId, now: t.clock.now });
    expect((await lookup(t, 'woz', nieuw.key, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'woz', nieuw.key, adresBody(a))).statusCode).toBe(402);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(998);
  });

  it('a charge of the old key that settles after its rotation counts against the new key: the cap holds', async () => {
    const { accountId, key } = await t.klant(1000);
    const keyId = await sleutelId(accountId);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 2 });
    const a = await maakVolledigAdres(t.db.prisma);
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    const nieuw = await roteerSleutel(t.db.prisma, { accountId, keyId, now: t.clock.now });
    // A call of the old key authenticated before the rotation; its charge arrives after it.
    const laat = await rekenAf(t.db.prisma, { accountId, keyId, voorvoegsel: 'pct_live_oud', kanaal: 'rest', voorziening: 'woz', status: 200, credits: 1, adres: null, now: t.clock.now });
    expect(laat.soort).toBe('ok');
    expect((await lookup(t, 'woz', nieuw.key, adresBody(a))).statusCode).toBe(402);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(998);
    expect(await t.db.prisma.apiKey.findUnique({ where: { id: nieuw.id }, select: { maandVerbruikt: true } })).toEqual({ maandVerbruikt: 2 });
  });

  it('a charge that settles late at a month end counts in its own month and never turns the new month back', async () => {
    const { accountId, key } = await t.klant(1000);
    const keyId = await sleutelId(accountId);
    await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 2 });
    const a = await maakVolledigAdres(t.db.prisma);
    t.clock.now = new Date('2026-11-30T23:00:01Z'); // 00:00:01 on 1 December in Amsterdam
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    // A request that started at 23:59:59 on 30 November settles now: November's count, not December's.
    t.clock.now = new Date('2026-11-30T22:59:59Z');
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect(await t.db.prisma.apiKey.findUnique({ where: { id: keyId }, select: { maand: true, maandVerbruikt: true, vorigeMaand: true, vorigeMaandVerbruikt: true } }))
      .toEqual({ maand: '2026-12', maandVerbruikt: 1, vorigeMaand: '2026-11', vorigeMaandVerbruikt: 1 });
    t.clock.now = new Date('2026-11-30T23:00:05Z');
    const statussen = [];
    for (let i = 0; i < 2; i++) statussen.push((await lookup(t, 'woz', key, adresBody(a))).statusCode);
    expect(statussen).toEqual([200, 402]);
  });

  it('concurrent rotations of one key: one new key, the others refused as unknown; never past the 10 valid keys', async () => {
    const acc = await t.account(0);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await maakSleutel(t.db.prisma, { accountId: acc.id, naam: `k${i}`, now: t.clock.now })).id);
    const uit = await Promise.allSettled(Array.from({ length: 6 }, () => roteerSleutel(t.db.prisma, { accountId: acc.id, keyId: ids[0], now: t.clock.now })));
    expect(uit.filter((u) => u.status === 'fulfilled')).toHaveLength(1);
    for (const u of uit) if (u.status === 'rejected') expect(u.reason).toBeInstanceOf(SleutelFout);
    expect(await t.db.prisma.apiKey.count({ where: { accountId: acc.id, ingetrokkenOp: null } })).toBe(10);
    await expect(roteerSleutel(t.db.prisma, { accountId: acc.id, keyId: 'geen-uuid', now: t.clock.now })).rejects.toBeInstanceOf(SleutelFout);
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
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(100_000 - 10);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(100_000 - 10);
  });

  it('sleutel.limiet_bereikt: once per key per month, with the refusal, signed; the next month again', async () => {
    const r = await startOntvanger();
    const bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, verloopControleMs: 0 });
    try {
      t.clock.now = new Date();
      const { accountId, key } = await t.klant(1000);
      const reg = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` }, payload: { url: `${r.base}/limiet`, events: ['sleutel.limiet_bereikt'] } });
      expect(reg.statusCode, reg.body).toBe(200);
      const keyId = await sleutelId(accountId);
      await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 1 });
      const a = await maakVolledigAdres(t.db.prisma);
      expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
      for (let i = 0; i < 3; i++) expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(402);
      const [o] = await r.wacht('/limiet', 1);
      await bezorger.leeg();
      expect(r.van('/limiet')).toHaveLength(1);
      const h = { 'webhook-id': String(o.headers['webhook-id']), 'webhook-timestamp': String(o.headers['webhook-timestamp']), 'webhook-signature': String(o.headers['webhook-signature']) };
      const ev = new Webhook(reg.json().data.geheim).verify(o.body, h) as { type: string; data: Record<string, unknown> };
      const maand = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam', year: 'numeric', month: '2-digit' }).format(t.clock.now).slice(0, 7);
      expect(ev).toMatchObject({ type: 'sleutel.limiet_bereikt', data: { sleutel_voorvoegsel: key.slice(0, 12), maand, maandlimiet_credits: 1, verbruikt_credits: 1 } });
      expect(o.body).not.toContain(key);
      // A new calendar month: the cap starts over, and reaching it again reports again.
      t.clock.now = new Date(t.clock.now.getTime() + 32 * 86_400_000);
      expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
      expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(402);
      expect(await t.db.prisma.webhookEvent.count({ where: { accountId, type: 'sleutel.limiet_bereikt' } })).toBe(2);
    } finally {
      await bezorger.sluit(100);
      await r.sluit();
    }
  });

  describe.skipIf(!process.env.TEST_DATABASE_URL)('two real server processes on one PostgreSQL, charged valuations (cap 18 x 10 credits)', () => {
    let servers: ServerProces[] = [];
    let adressen: Awaited<ReturnType<typeof maakAdres>>[] = [];
    beforeAll(async () => {
      // Sales before the servers start: each builds its valuation model from them.
      await maakVerkopen(t.db.prisma, { lat: 52.3, lon: 5.3, n: 600, van: '2020-01-01', tot: '2026-10-31', prefix: 'cap' });
      adressen = await Promise.all(Array.from({ length: 10 }, () => maakAdres(t.db.prisma, { lat: 52.3, lon: 5.3, oppervlakte: 110 })));
      ({ servers } = await startServers(t.db.url, 2, { RATE_LIMIT_REST_PER_MIN: '1000' }));
    }, 180_000);
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it('200 concurrent waarde calls: exactly 10 x 200 and 190 x 402 with the cap message, balance down by 180, ledger = balance; one sleutel.limiet_bereikt; another key goes on', async () => {
      expect(servers).toHaveLength(2);
      // Wait (on another account) until both processes have built their model.
      const warm = await t.klant(100_000);
      for (const s of servers) {
        for (let i = 0; ; i++) {
          const w = await verzoek(s.url, 'POST', '/api/v1/inzicht/waarde', { key: warm.key, body: adresBody(adressen[0]) });
          if (w.status === 200) break;
          expect(w.status, JSON.stringify(w.body)).toBe(503);
          expect(i).toBeLessThan(240);
          await new Promise((ok) => setTimeout(ok, 500));
        }
      }
      const { accountId, key } = await t.klant(100_000);
      await t.db.prisma.webhookEndpoint.create({ data: { accountId, url: 'https://voorbeeld.invalid/hook', events: ['sleutel.limiet_bereikt'], geheim: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
      await zetMaandlimiet(t.db.prisma, { accountId, keyId: await sleutelId(accountId), credits: 18 * 10 });
      const antwoorden = await Promise.all(
        Array.from({ length: 200 }, (_, i) => verzoek(servers[i % 2].url, 'POST', '/api/v1/inzicht/waarde', { key, body: adresBody(adressen[i % 10]) })),
      );
      const statussen = antwoorden.map((r) => r.status);
      expect(statussen.filter((s) => s === 200)).toHaveLength(10);
      expect(statussen.filter((s) => s === 402)).toHaveLength(190);
      for (const r of antwoorden.filter((x) => x.status === 402)) expect(r.body.fout).toMatch(/maandlimiet van deze sleutel is bereikt/);
      expect(await leesSaldo(t.db.prisma, accountId)).toBe(100_000 - 180);
      expect(await grootboekSom(t.db.prisma, accountId)).toBe(100_000 - 180);
      expect(await t.db.prisma.webhookEvent.count({ where: { accountId, type: 'sleutel.limiet_bereikt' } })).toBe(1);
      expect(await t.db.prisma.usageRecord.count({ where: { accountId, status: 402, credits: 0 } })).toBe(190);
      const ander = await t.key(accountId);
      expect((await verzoek(servers[1].url, 'POST', '/api/v1/inzicht/waarde', { key: ander, body: adresBody(adressen[0]) })).status).toBe(200);
      expect(await leesSaldo(t.db.prisma, accountId)).toBe(100_000 - 198);
    }, 180_000);
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
      expect(await leesSaldo(t.db.prisma, accountId)).toBe(100_000 - 10);
      expect(await grootboekSom(t.db.prisma, accountId)).toBe(100_000 - 10);
      const ander = await t.key(accountId);
      expect((await verzoek(servers[0].url, 'POST', '/api/v1/inzicht/woz', { key: ander, body: adresBody(adressen[0]) })).status).toBe(200);
    });
  });
});
