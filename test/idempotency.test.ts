import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres, uniekePostcode } from './support/register.ts';
import { waardeerOp } from '../src/domain/billing/tegoed.ts';
import { expectFout, lookup, saldo } from './support/http.ts';

/** Idempotency-Key on REST lookups (decisions section 5). */
describe(`Idempotency-Key (${dialect})`, () => {
  let t: TestApp;
  let n = 0;
  /** A fresh Idempotency-Key per use: tests never collide. */
  const nieuweSleutel = () => `test-${process.pid}-${Date.now()}-${++n}`;
  const debits = (accountId: string) => t.db.prisma.ledgerEntry.count({ where: { accountId, soort: 'afschrijving' } });

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', RATE_LIMIT_INVLOEDEN_PER_MIN: '1000' });
  });
  afterAll(async () => t?.close());

  it('a replay returns the stored answer: same data, cached true, gefactureerd_cent 0, Idempotent-Replayed, not charged', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    const eerste = await lookup(t, 'invloeden', key, adresBody(a), ik);
    expect(eerste.statusCode, eerste.body).toBe(200);
    expect(eerste.headers['idempotent-replayed']).toBeUndefined();
    expect(eerste.json().meta).toMatchObject({ cached: false, gefactureerd_cent: 80 });
    expect(await saldo(t, accountId)).toBe(84);

    const tweede = await lookup(t, 'invloeden', key, adresBody(a), ik);
    expect(tweede.statusCode, tweede.body).toBe(200);
    expect(tweede.headers['idempotent-replayed']).toBe('true');
    expect(tweede.json().data).toStrictEqual(eerste.json().data);
    expect(tweede.json().meta).toStrictEqual({ ...eerste.json().meta, cached: true, gefactureerd_cent: 0 });
    expect(await saldo(t, accountId)).toBe(84);
    expect(await debits(accountId)).toBe(1);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer: '12' } }, ik)).statusCode).toBe(200);
    const r = await lookup(t, 'woz', key, { adres: { huisnummer: '12', postcode: a.postcode } }, ik);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().meta.cached).toBe(true);
    expect(await debits(accountId)).toBe(1);
  });

  it('an empty toevoeging is none: with the same key the same request (a replay), not a 409', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).statusCode).toBe(200);
    for (const toevoeging of ['', ' ']) {
      const r = await lookup(t, 'woz', key, adresBody(a, toevoeging), ik);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().meta.cached).toBe(true);
    }
    expect(await debits(accountId)).toBe(1);
  });

  it('one toevoeging in another spelling (case, space or hyphen) is the same request: a replay, not a 409', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma, { huisletter: 'A', toevoeging: '2' });
    const ik = { 'idempotency-key': nieuweSleutel() };
    const eerste = await lookup(t, 'woz', key, adresBody(a, 'a2'), ik);
    expect(eerste.statusCode, eerste.body).toBe(200);
    expect(eerste.json().data.adres.toevoeging).toBe('A-2');
    for (const toevoeging of ['A-2', 'A 2', 'a-2']) {
      const r = await lookup(t, 'woz', key, adresBody(a, toevoeging), ik);
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json().meta.cached).toBe(true);
    }
    expect(await debits(accountId)).toBe(1);
  });

  it('a replay needs no balance: the stored answer comes back even when the account is empty', async () => {
    const { key, accountId } = await t.klant(1);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(0);
    const r = await lookup(t, 'woz', key, adresBody(a), ik);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().meta).toMatchObject({ cached: true, gefactureerd_cent: 0 });
  });

  it('50 concurrent identical requests with one key charge exactly once; every answer is the original, a replay or 409', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    const antwoorden = await Promise.all(Array.from({ length: 50 }, () => lookup(t, 'woz', key, adresBody(a), ik)));

    const origineel = antwoorden.filter((r) => r.statusCode === 200 && r.json().meta.cached === false);
    const herhalingen = antwoorden.filter((r) => r.statusCode === 200 && r.json().meta.cached === true);
    const conflicten = antwoorden.filter((r) => r.statusCode === 409);
    expect(origineel).toHaveLength(1);
    expect(origineel.length + herhalingen.length + conflicten.length, antwoorden.map((r) => r.statusCode).join(',')).toBe(50);
    const data = origineel[0].json().data;
    expect(origineel[0].json().meta.gefactureerd_cent).toBe(5);
    for (const r of herhalingen) {
      expect(r.json().data).toStrictEqual(data);
      expect(r.json().meta.gefactureerd_cent).toBe(0);
      expect(r.headers['idempotent-replayed']).toBe('true');
    }
    for (const r of conflicten) {
      expectFout(r, 409);
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(await saldo(t, accountId)).toBe(99);
    expect(await debits(accountId)).toBe(1);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId, credits: { gt: 0 } } })).toBe(1);

    // Once the first is done, the same request is always a replay.
    const later = await lookup(t, 'woz', key, adresBody(a), ik);
    expect(later.statusCode).toBe(200);
    expect(later.json()).toStrictEqual({ data, meta: { ...origineel[0].json().meta, cached: true, gefactureerd_cent: 0 } });
  });

  it('the same key with a different body -> 409, nothing charged', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const b = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).statusCode).toBe(200);
    const r = await lookup(t, 'woz', key, adresBody(b), ik);
    expect(expectFout(r, 409)).toMatch(/Idempotency-Key/);
    expect(r.headers['idempotent-replayed']).toBeUndefined();
    // A different optional field is a different body too.
    expect((await lookup(t, 'invloeden', key, adresBody(a), ik)).statusCode).toBe(200);
    expectFout(await lookup(t, 'invloeden', key, { ...adresBody(a), types: ['natura2000'] }, ik), 409);
    expect(await saldo(t, accountId)).toBe(100 - 1 - 16);
  });

  it('the same key on another voorziening is independent (charged again there)', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    const woz = await lookup(t, 'woz', key, adresBody(a), ik);
    const label = await lookup(t, 'energielabel', key, adresBody(a), ik);
    expect(woz.statusCode).toBe(200);
    expect(label.statusCode, label.body).toBe(200);
    expect(label.json().meta).toMatchObject({ voorziening: 'energielabel', cached: false, gefactureerd_cent: 5 });
    expect(label.headers['idempotent-replayed']).toBeUndefined();
    expect(await saldo(t, accountId)).toBe(98);
  });

  it('the same key used by another API key is independent', async () => {
    const { key, accountId } = await t.klant(100);
    const ander = await t.key(accountId);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).json().meta.cached).toBe(false);
    const r = await lookup(t, 'woz', ander, adresBody(a), ik);
    expect(r.statusCode).toBe(200);
    expect(r.json().meta.cached).toBe(false);
    expect(await saldo(t, accountId)).toBe(98);
  });

  it('a 404 outcome is stored and replayed (still 404, not charged), even once the address exists', async () => {
    const { key, accountId } = await t.klant(100);
    const postcode = uniekePostcode();
    const body = { adres: { postcode, huisnummer: '12' } };
    const ik = { 'idempotency-key': nieuweSleutel() };
    const eerste = await lookup(t, 'woz', key, body, ik);
    const melding = expectFout(eerste, 404);
    // The address appears in the register afterwards; the stored answer still wins for this key.
    await maakVolledigAdres(t.db.prisma, { postcode });
    const tweede = await lookup(t, 'woz', key, body, ik);
    expect(expectFout(tweede, 404)).toBe(melding);
    expect(tweede.headers['idempotent-replayed']).toBe('true');
    expect(await saldo(t, accountId)).toBe(100);
    // Without the key the address is found and charged.
    expect((await lookup(t, 'woz', key, body)).statusCode).toBe(200);
    expect(await saldo(t, accountId)).toBe(99);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['non-ASCII', 'sleutel-é'],
    ['a space', 'twee woorden'],
    ['a control character', 'a\tb'],
  ])('an invalid Idempotency-Key (%s) -> 400, not charged', async (_naam, waarde) => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    expect(expectFout(await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': waarde }), 400)).toMatch(/Idempotency-Key/);
    expect(await saldo(t, accountId)).toBe(100);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(0);
  });

  it('a key of exactly 255 visible ASCII characters is valid', async () => {
    const { key } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const lang = `${nieuweSleutel()}!~`.padEnd(255, 'z');
    const r = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': lang });
    expect(r.statusCode, r.body).toBe(200);
  });

  it('after 24 hours the same key is new and charges again', async () => {
    const { key, accountId } = await t.klant(100);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).json().meta.cached).toBe(false);
    t.clock.advance(23 * 3_600_000);
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).json().meta.cached).toBe(true);
    t.clock.advance(3_600_000 + 1000);
    const r = await lookup(t, 'woz', key, adresBody(a), ik);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().meta).toMatchObject({ cached: false, gefactureerd_cent: 5 });
    expect(r.headers['idempotent-replayed']).toBeUndefined();
    expect(await saldo(t, accountId)).toBe(98);
    // The new answer is stored for the next 24 hours.
    expect((await lookup(t, 'woz', key, adresBody(a), ik)).json().meta.cached).toBe(true);
    expect(await saldo(t, accountId)).toBe(98);
  });

  it('a 402 outcome is not stored: after a top-up the same key succeeds', async () => {
    const { key, accountId } = await t.klant(0);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    const geweigerd = await lookup(t, 'woz', key, adresBody(a), ik);
    expectFout(geweigerd, 402);
    expect(geweigerd.headers['idempotent-replayed']).toBeUndefined();
    expectFout(await lookup(t, 'woz', key, adresBody(a), ik), 402);
    await waardeerOp(t.db.prisma, { accountId, credits: 10 });
    const r = await lookup(t, 'woz', key, adresBody(a), ik);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().meta).toMatchObject({ cached: false, gefactureerd_cent: 5 });
    expect(await saldo(t, accountId)).toBe(9);
  });

  it('a 400 outcome is not stored: the same key with a corrected body succeeds', async () => {
    const { key } = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    const ik = { 'idempotency-key': nieuweSleutel() };
    expectFout(await lookup(t, 'woz', key, { adres: { postcode: a.postcode, huisnummer: '12x' } }, ik), 400);
    const r = await lookup(t, 'woz', key, adresBody(a), ik);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().meta.cached).toBe(false);
  });
});
