import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { leesSaldo, grootboekSom } from '../src/domain/billing/tegoed.ts';

/**
 * Issue 24 item 20: an answer that fails its own output schema is a 500 that charged nothing — the
 * output is checked before the charge, not after. A coordinate stored as NaN (a valid float8) makes
 * the `adres` answer fail its schema (`lat` must be a finite number).
 */
describe(`output checked before charging (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('a shape failure is an uncharged 500 without a usage record', async () => {
    const { accountId, key } = await t.klant(10);
    const a = await maakVolledigAdres(t.db.prisma);
    await t.db.prisma.$executeRawUnsafe(`UPDATE adres SET lat = 'NaN'::float8 WHERE postcode = $1 AND huisnummer = $2`, a.postcode, a.huisnummer);
    const res = await lookup(t, 'adres', key, adresBody(a), { 'idempotency-key': 'vorm-1' });
    expect(res.statusCode, res.body).toBe(500);
    expect(Object.keys(res.json())).toEqual(['fout']);
    expect(res.headers['insight-gefactureerd-cent']).toBe('0');
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(10);
    expect(await grootboekSom(t.db.prisma, accountId)).toBe(10);
    expect(await t.db.prisma.usageRecord.count({ where: { accountId } })).toBe(0);
    // The claim was given up: the same key may be retried once the data is repaired.
    await t.db.prisma.$executeRawUnsafe(`UPDATE adres SET lat = 52.1 WHERE postcode = $1 AND huisnummer = $2`, a.postcode, a.huisnummer);
    const opnieuw = await lookup(t, 'adres', key, adresBody(a), { 'idempotency-key': 'vorm-1' });
    expect(opnieuw.statusCode, opnieuw.body).toBe(200);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(9);
  });
});
