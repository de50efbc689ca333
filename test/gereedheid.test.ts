import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakAdres } from './support/register.ts';
import { maakVerkopen } from './support/verkopen.ts';

describe(`liveness at once, ready when the valuation model is built (${dialect})`, () => {
  let t: TestApp;
  let subject: Awaited<ReturnType<typeof maakAdres>>;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000' });
    await maakVerkopen(t.db.prisma, { lat: 52.1, lon: 5.1, n: 300, van: '2022-01-01', tot: '2026-10-31' });
    subject = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 110 });
    // As `insight serve` holds it: requests do not wait for the first build.
    t.services.waardemodel = maakModelHouder(t.db.prisma, pino({ level: 'silent' }), { wachtOpEerste: false });
  });
  afterAll(async () => t?.close());

  it('before the model: /healthz 200, /readyz and valuations 503 in Dutch, nothing charged; after: 200', async () => {
    const { accountId, key } = await t.klant(100);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const nietGereed = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(nietGereed.statusCode).toBe(503);
    expect(nietGereed.json().fout).toMatch(/waardemodel wordt nog gebouwd/);

    const waarde = () => t.app.inject({ method: 'POST', url: '/api/v1/inzicht/waarde', headers: { authorization: `Bearer ${key}` }, payload: adresBody(subject) });
    const vroeg = await waarde();
    expect(vroeg.statusCode).toBe(503);
    expect(vroeg.json()).toEqual({ fout: expect.stringMatching(/^Het waardemodel wordt nog gebouwd.*niets gefactureerd\.$/) });
    expect(vroeg.headers['retry-after']).toBe('15');
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).credits).toBe(100);
    // Other lookups do not need the model.
    const adres = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: { authorization: `Bearer ${key}` }, payload: adresBody(subject) });
    expect(adres.statusCode, adres.body).toBe(200);

    await t.services.waardemodel.vernieuw();
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok' });
    const laat = await waarde();
    expect(laat.statusCode, laat.body).toBe(200);
    expect(laat.json().meta.gefactureerd_cent).toBe(90);
  });
});
