import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { startOntvanger, type Ontvanger } from './support/ontvanger.ts';
import { startBezorger, type Bezorger } from '../src/domain/webhooks/bezorger.ts';
import { MAX_TEST_ENDPOINTS } from '../src/domain/webhooks/beheer.ts';

/**
 * A test key is kept less carefully than a live one (it lives in CI): it must not read the live addresses
 * looked up, nor redirect, rotate or remove the account's live webhooks. It sees its own world: the calls
 * of test keys, and webhooks registered with test keys, which receive test keys' events only.
 */
describe(`what a test key can reach (${dialect})`, () => {
  let t: TestApp;
  let r: Ontvanger;
  let bezorger: Bezorger;
  let n = 0;
  const demoAdres = () => maakVolledigAdres(t.db.prisma, { postcode: `${7000 + ((process.pid + n++) % 2000)}SD`, huisnummer: 200 + n++ });
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000', WEBHOOK_ALLOW_INSECURE: 'true' });
    t.clock.now = new Date();
    r = await startOntvanger();
    bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, verloopControleMs: 0 });
  });
  afterAll(async () => {
    await bezorger?.sluit(100);
    await r?.sluit();
    await t?.close();
  });

  const vraag = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) }, payload });

  it('the account\'s live webhooks are 404 to a test key, for every operation, and stay as they were; its list holds only test webhooks', async () => {
    const { accountId, key: live } = await t.klant(100);
    const test = await t.key(accountId, { modus: 'test' });
    const w = (await vraag(live, 'POST', '/webhooks', { url: `${r.base}/live`, events: ['inzicht.voltooid'] })).json().data;
    expect(w.test).toBe(false);
    const eigen = await vraag(test, 'POST', '/webhooks', { url: `${r.base}/ci`, events: ['inzicht.voltooid'] });
    expect(eigen.statusCode, eigen.body).toBe(200);
    expect(eigen.json().data.test).toBe(true);
    for (const [method, pad, body] of [
      ['GET', `/webhooks/${w.id}`], ['PATCH', `/webhooks/${w.id}`, { url: 'https://1.1.1.1/aanvaller' }], ['DELETE', `/webhooks/${w.id}`],
      ['POST', `/webhooks/${w.id}/geheim-roteren`], ['POST', `/webhooks/${w.id}/test`], ['GET', `/webhooks/${w.id}/afleveringen`],
      ['POST', `/webhooks/${w.id}/afleveringen/${randomUUID()}/opnieuw`],
    ] as const) {
      const res = await vraag(test, method, pad, body as object | undefined);
      expect(res.statusCode, `${method} ${pad}: ${res.body}`).toBe(404);
    }
    expect((await vraag(test, 'GET', '/webhooks')).json().data.map((x: { id: string }) => x.id)).toEqual([eigen.json().data.id]);
    const nog = (await vraag(live, 'GET', `/webhooks/${w.id}`)).json().data;
    expect(nog).toMatchObject({ url: `${r.base}/live`, actief: true, vorig_geheim_geldig_tot: null });
    expect((await vraag(live, 'GET', '/webhooks')).json().data).toHaveLength(2);
    // Its own webhook it manages like a live key its live ones.
    expect((await vraag(test, 'PATCH', `/webhooks/${eigen.json().data.id}`, { omschrijving: 'ci' })).statusCode).toBe(200);
  });

  it('a test webhook receives the test keys\' events only; a live webhook receives both (test ones marked data.test)', async () => {
    const { accountId, key: live } = await t.klant(100);
    const test = await t.key(accountId, { modus: 'test' });
    const p = `/${randomUUID()}`;
    const q = `/${randomUUID()}`;
    expect((await vraag(live, 'POST', '/webhooks', { url: `${r.base}${p}`, events: ['inzicht.voltooid'] })).statusCode).toBe(200);
    expect((await vraag(test, 'POST', '/webhooks', { url: `${r.base}${q}`, events: ['inzicht.voltooid'] })).statusCode).toBe(200);
    const a = await demoAdres();
    expect((await lookup(t, 'woz', live, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'woz', test, adresBody(a))).statusCode).toBe(200);
    await r.wacht(p, 2);
    await r.wacht(q, 1);
    await bezorger.leeg();
    const data = (pad: string) => r.van(pad).map((o) => JSON.parse(o.body).data as { test?: boolean });
    expect(data(q).map((d) => d.test)).toEqual([true]);
    expect(data(p).map((d) => d.test ?? false).sort()).toEqual([false, true]);
  });

  it('GET /verbruik with a test key lists the calls of test keys only, never the live addresses looked up', async () => {
    const { accountId, key: live } = await t.klant(100);
    const test = await t.key(accountId, { modus: 'test' });
    const echt = await maakVolledigAdres(t.db.prisma);
    const demo = await demoAdres();
    expect((await lookup(t, 'woz', live, adresBody(echt))).statusCode).toBe(200);
    expect((await lookup(t, 'woz', test, adresBody(demo))).statusCode).toBe(200);
    const metTest = (await vraag(test, 'GET', '/verbruik')).json().data as { adres: string; sleutel_voorvoegsel: string }[];
    expect(metTest).toHaveLength(1);
    expect(metTest[0].sleutel_voorvoegsel).toMatch(/^pct_test_/);
    expect((await vraag(live, 'GET', '/verbruik')).json().data).toHaveLength(2);
  });

  it(`test webhooks are counted apart (at most ${MAX_TEST_ENDPOINTS}): a test key cannot take the live places`, async () => {
    const { accountId, key: live } = await t.klant(100);
    const test = await t.key(accountId, { modus: 'test' });
    for (let i = 0; i < MAX_TEST_ENDPOINTS; i++) expect((await vraag(test, 'POST', '/webhooks', { url: `${r.base}/t${i}`, events: ['inzicht.voltooid'] })).statusCode).toBe(200);
    const vol = await vraag(test, 'POST', '/webhooks', { url: `${r.base}/t9`, events: ['inzicht.voltooid'] });
    expect(vol.statusCode).toBe(409);
    expect(vol.json().fout).toMatch(/al 5 test-webhooks/);
    expect((await vraag(live, 'POST', '/webhooks', { url: `${r.base}/l`, events: ['inzicht.voltooid'] })).statusCode).toBe(200);
  });
});
