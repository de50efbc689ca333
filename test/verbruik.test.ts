import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

describe(`GET /api/v1/verbruik (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000' });
  });
  afterAll(async () => t?.close());

  it('lists the usage of every key of the account, newest first, paged, free', async () => {
    const { accountId, key } = await t.klant(100);
    const tweede = await t.key(accountId);
    const a = await maakVolledigAdres(t.db.prisma);
    for (let i = 0; i < 3; i++) {
      await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { authorization: `Bearer ${i % 2 ? tweede : key}` }, payload: adresBody(a) });
      t.clock.advance(1000);
    }
    await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { authorization: `Bearer ${key}` }, payload: { adres: { postcode: '9999ZZ', huisnummer: '9' } } });
    const p1 = await t.app.inject({ method: 'GET', url: '/api/v1/verbruik?limiet=3', headers: { authorization: `Bearer ${key}` } });
    expect(p1.statusCode, p1.body).toBe(200);
    const b1 = p1.json();
    expect(b1.data).toHaveLength(3);
    expect(b1.data[0]).toMatchObject({ voorziening: 'adres', status: 404, credits: 0, gefactureerd_cent: 0, kanaal: 'rest', sleutel_voorvoegsel: key.slice(0, 12) });
    expect(b1.data[1]).toMatchObject({ voorziening: 'woz', status: 200, credits: 1, gefactureerd_cent: 5 });
    expect(b1.data.map((r: { sleutel_voorvoegsel: string }) => r.sleutel_voorvoegsel)).toContain(tweede.slice(0, 12));
    expect(b1.meta.volgende).toEqual(expect.any(String));
    const p2 = await t.app.inject({ method: 'GET', url: `/api/v1/verbruik?limiet=3&na=${b1.meta.volgende}`, headers: { authorization: `Bearer ${key}` } });
    expect(p2.json().data).toHaveLength(1);
    expect(p2.json().meta.volgende).toBeNull();
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(97);
  });

  it('never shows another account its usage', async () => {
    const een = await t.klant(10);
    const ander = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { authorization: `Bearer ${een.key}` }, payload: adresBody(a) });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/verbruik', headers: { authorization: `Bearer ${ander.key}` } });
    expect(res.json().data).toEqual([]);
  });

  it('rejects a bad limit or cursor with 400', async () => {
    const { key } = await t.klant(10);
    // Cursors made up by hand: dates JavaScript reads but PostgreSQL does not, an id of dashes.
    const cursor = (s: string) => `na=${Buffer.from(s).toString('base64url')}`;
    const id = '00000000-0000-4000-8000-000000000000';
    const gemaakt = [`-271821-04-20T00:00:00.000Z|${id}`, `0000-01-01T00:00:00.000Z|${id}`, `+275760-09-13T00:00:00.000Z|${id}`, `2026-01-01T00:00:00.000Z|${'-'.repeat(36)}`].map(cursor);
    for (const q of ['limiet=0', 'limiet=101', 'limiet=abc', 'na=xyz', 'onbekend=1', ...gemaakt]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/verbruik?${q}`, headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, q).toBe(400);
      expect(Object.keys(res.json())).toEqual(['fout']);
      expect(res.json().fout, 'each field named once').not.toMatch(/(\w+): \1:/);
    }
  });
});
