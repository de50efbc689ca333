import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { sleutelHash } from '../src/domain/keys/format.ts';
import { zetMaandlimiet } from '../src/domain/keys/sleutels.ts';
import { lookup } from './support/http.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';

const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

describe(`GET /api/v1/whoami (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('describes the key and the balance with every contract field and type', async () => {
    const { key } = await t.klant(250);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual({
      naam: expect.any(String),
      familie: 'inzicht',
      voorvoegsel: key.slice(0, 12),
      modus: 'live',
      maandlimiet: null,
      rechten: ['inzicht:lezen'],
      bereik: 'account',
      verloopt_op: expect.stringMatching(ISO_OFFSET),
      saldo: { credits: 250, eenheid_cent: 5, tegoed_cent: 1250 },
    });
    expect(body.data.voorvoegsel.startsWith('pct_')).toBe(true);
    expect(body.meta.schema).toMatch(/\/api$/);
    expect(body.meta.schema_versie).toBe('1.0');
  });

  it("shows the key's monthly cap and what is left this calendar month (Europe/Amsterdam)", async () => {
    const { accountId, key } = await t.klant(250);
    const keyId = (await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId } })).id;
    await zetMaandlimiet(t.db.prisma, { accountId, keyId, credits: 20 });
    const a = await maakVolledigAdres(t.db.prisma);
    t.clock.now = new Date('2026-11-30T22:30:00Z'); // 23:30 on 30 November in Amsterdam
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    const whoami = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } })).json().data.maandlimiet;
    expect(await whoami()).toEqual({ credits: 20, verbruikt: 1, resterend: 19, maand: '2026-11' });
    t.clock.now = new Date('2026-11-30T23:00:00Z'); // 1 December in Amsterdam
    expect(await whoami()).toEqual({ credits: 20, verbruikt: 0, resterend: 20, maand: '2026-12' });
  });

  it('is free and works with an empty balance', async () => {
    const { accountId, key } = await t.klant(0);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.saldo.credits).toBe(0);
    expect(await t.db.prisma.ledgerEntry.count({ where: { accountId } })).toBe(0);
  });

  it('reports a management key as such', async () => {
    const acc = await t.account(5);
    const key = await t.key(acc.id, { familie: 'beheer' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.familie).toBe('beheer');
    expect(res.json().data.rechten).not.toContain('inzicht:lezen');
  });

  it('gives 401 with WWW-Authenticate for missing, malformed, unknown, expired and revoked keys', async () => {
    const { accountId, key } = await t.klant();
    const verlopen = await t.key(accountId, { verlooptOp: new Date(t.clock.now.getTime() + 1000) });
    const ingetrokken = await t.key(accountId);
    await t.db.prisma.apiKey.update({ where: { hash: sleutelHash(ingetrokken) }, data: { ingetrokkenOp: t.clock.now } });
    t.clock.advance(2000);
    const onbekend = `pct_${'A'.repeat(32)}${'0'.repeat(6)}`;
    const gevallen: (string | undefined)[] = [
      undefined,
      'Bearer',
      'Basic Zm9vOmJhcg==',
      `Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`,
      `Bearer ${onbekend}`,
      `Bearer ${verlopen}`,
      `Bearer ${ingetrokken}`,
      key,
    ];
    for (const authorization of gevallen) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: authorization ? { authorization } : {} });
      expect(res.statusCode, String(authorization)).toBe(401);
      expect(res.json()).toEqual({ fout: 'Ongeldige of ontbrekende sleutel.' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('works through createCaller with the same checks', async () => {
    const { key } = await t.klant(7);
    const out = await t.caller(`Bearer ${key}`).whoami();
    expect(out.data.saldo.credits).toBe(7);
    await expect(t.caller(undefined).whoami()).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Ongeldige of ontbrekende sleutel.' });
  });

  it('stores no plaintext key anywhere in the database', async () => {
    const { key } = await t.klant();
    const dump = await t.db.prisma.$queryRawUnsafe<{ t: string }[]>(`SELECT row_to_json(k)::text AS t FROM api_sleutel k`);
    expect(dump.length).toBeGreaterThan(0);
    expect(dump.some((r) => r.t.includes(key))).toBe(false);
    expect(dump.some((r) => r.t.includes(sleutelHash(key)))).toBe(true);
  });
});
