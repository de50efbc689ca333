import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { lookup } from './support/http.ts';
import { startOntvanger, type Ontvanger } from './support/ontvanger.ts';
import { startBezorger, type Bezorger } from '../src/domain/webhooks/bezorger.ts';
import { leesSaldo, grootboekSom } from '../src/domain/billing/tegoed.ts';
import { maakSleutel, MAX_GELDIGE_INZICHT_SLEUTELS, MAX_GELDIGE_TEST_SLEUTELS, SleutelFout } from '../src/domain/keys/sleutels.ts';
import { isGeldigeSleutelvorm } from '../src/domain/keys/format.ts';
import { isDemoPostcode } from '../src/domain/keys/testsleutel.ts';
import { generateDemoDataset } from '../src/domain/register/demo/index.ts';

/** A postcode of the demo town's kind (letters SD, which PostNL never issues), unique per call. */
let n = 0;
const demoPostcode = () => `${7000 + ((process.pid + n++) % 2000)}SD`;

describe(`test keys (${dialect})`, () => {
  let t: TestApp;
  let r: Ontvanger;
  let bezorger: Bezorger;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '5', RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' });
    t.clock.now = new Date();
    r = await startOntvanger();
    bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, verloopControleMs: 0 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await bezorger?.sluit(100);
    await r?.sluit();
    await t?.close();
  });

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const demoAdres = () => maakVolledigAdres(t.db.prisma, { postcode: demoPostcode(), huisnummer: 100 + n++ });

  it('every address of the generated demo town has a demo postcode; the fixtures of other tests do not', async () => {
    const ds = await generateDemoDataset(1);
    expect(ds.adres.length).toBeGreaterThan(1000);
    expect(ds.adres.filter((a) => !isDemoPostcode(a.postcode as string))).toEqual([]);
    expect(isDemoPostcode('1012AB')).toBe(false);
  });

  it('a test key is pct_test_..., well formed, and counted apart: 5 test keys beside 10 live keys', async () => {
    const acc = await t.account(0);
    const k = await maakSleutel(t.db.prisma, { accountId: acc.id, naam: 't', modus: 'test', now: t.clock.now });
    expect(k.key).toMatch(/^pct_test_[0-9A-Za-z]{38}$/);
    expect(isGeldigeSleutelvorm(k.key)).toBe(true);
    expect(isGeldigeSleutelvorm(k.key.replace('pct_test_', 'pct_tost_'))).toBe(false);
    for (let i = 1; i < MAX_GELDIGE_TEST_SLEUTELS; i++) await maakSleutel(t.db.prisma, { accountId: acc.id, naam: `t${i}`, modus: 'test', now: t.clock.now });
    await expect(maakSleutel(t.db.prisma, { accountId: acc.id, naam: 'te veel', modus: 'test', now: t.clock.now })).rejects.toThrow(SleutelFout);
    for (let i = 0; i < MAX_GELDIGE_INZICHT_SLEUTELS; i++) await maakSleutel(t.db.prisma, { accountId: acc.id, naam: `l${i}`, now: t.clock.now });
    await expect(maakSleutel(t.db.prisma, { accountId: acc.id, naam: 'te veel', now: t.clock.now })).rejects.toThrow(/10 geldige inzichtsleutels/);
  });

  it('whoami shows the mode', async () => {
    const acc = await t.account(50);
    const test = await t.key(acc.id, { modus: 'test' });
    const live = await t.key(acc.id);
    const w = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: auth(test) });
    expect(w.json().data).toMatchObject({ modus: 'test', voorvoegsel: expect.stringMatching(/^pct_test_/), maandlimiet: null, saldo: { credits: 50 } });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: auth(live) })).json().data.modus).toBe('live');
  });

  it('answers a demo address like a live key, at 0 cost: balance unchanged, no ledger row, a usage row of 0, meta.test', async () => {
    const acc = await t.account(100);
    const key = await t.key(acc.id, { modus: 'test' });
    const live = await t.key(acc.id);
    const a = await demoAdres();
    const res = await lookup(t, 'woz', key, adresBody(a));
    expect(res.statusCode, res.body).toBe(200);
    const liveRes = await lookup(t, 'woz', live, adresBody(a));
    expect(liveRes.statusCode).toBe(200);
    // Same shape and data; meta differs only in what it costs and the additive test marker.
    expect(res.json().data).toEqual(liveRes.json().data);
    expect(res.json().meta).toEqual({ ...liveRes.json().meta, gefactureerd_cent: 0, test: true });
    expect(liveRes.json().meta.test).toBeUndefined();
    expect(res.headers['insight-gefactureerd-cent']).toBe('0');
    expect(await leesSaldo(t.db.prisma, acc.id)).toBe(99);
    expect(await grootboekSom(t.db.prisma, acc.id)).toBe(99);
    expect(await t.db.prisma.ledgerEntry.count({ where: { accountId: acc.id, soort: 'afschrijving' } })).toBe(1);
    const rijen = await t.db.prisma.usageRecord.findMany({ where: { accountId: acc.id }, orderBy: { aangemaaktOp: 'asc' } });
    expect(rijen.map((u) => u.credits).sort()).toEqual([0, 1]);
    const lijst = await t.app.inject({ method: 'GET', url: '/api/v1/verbruik', headers: auth(live) });
    expect(lijst.json().data.map((x: { sleutel_voorvoegsel: string }) => x.sleutel_voorvoegsel.startsWith('pct_test_')).sort()).toEqual([false, true]);
    // Validation is the live key's: bad input is 400.
    expect((await lookup(t, 'woz', key, { adres: { postcode: '12', huisnummer: '1' } })).statusCode).toBe(400);
    // An empty balance does not stop a test key.
    const leeg = await t.account(0);
    expect((await lookup(t, 'adres', await t.key(leeg.id, { modus: 'test' }), adresBody(a))).statusCode).toBe(200);
  });

  it('a real address is 404 with the Dutch message that names the demo addresses; nothing charged', async () => {
    const acc = await t.account(100);
    const key = await t.key(acc.id, { modus: 'test' });
    const echt = await maakVolledigAdres(t.db.prisma);
    const res = await lookup(t, 'woz', key, adresBody(echt));
    expect(res.statusCode).toBe(404);
    expect(Object.keys(res.json())).toEqual(['fout']);
    expect(res.json().fout).toMatch(/testsleutel kent alleen de adressen van de synthetische demogemeente Fictiedal/);
    expect(res.json().fout).toMatch(/op \/docs, in de voorbeelden bij elke opvraging/);
    expect(await leesSaldo(t.db.prisma, acc.id)).toBe(100);
  });

  it('idempotency is the live key\'s: the same key and body replay, another body is 409', async () => {
    const acc = await t.account(100);
    const key = await t.key(acc.id, { modus: 'test' });
    const a = await demoAdres();
    const eerste = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'test-1' });
    const tweede = await lookup(t, 'woz', key, adresBody(a), { 'idempotency-key': 'test-1' });
    expect(tweede.statusCode).toBe(200);
    expect(tweede.headers['idempotent-replayed']).toBe('true');
    expect(tweede.json().data).toEqual(eerste.json().data);
    expect(tweede.json().meta).toMatchObject({ cached: true, test: true });
    expect((await lookup(t, 'woz', key, adresBody(await demoAdres()), { 'idempotency-key': 'test-1' })).statusCode).toBe(409);
  });

  it('the rate limit is the live key\'s (5 a minute here): the 6th call is 429', async () => {
    const acc = await t.account(0);
    const key = await t.key(acc.id, { modus: 'test' });
    const a = await demoAdres();
    const statussen = [];
    for (let i = 0; i < 6; i++) statussen.push((await lookup(t, 'adres', key, adresBody(a))).statusCode);
    expect(statussen).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('webhooks fire as for a live key, signed, with data.test; MCP answers the same, marked test', async () => {
    t.clock.now = new Date();
    const acc = await t.account(0);
    const key = await t.key(acc.id, { modus: 'test' });
    const p = `/${randomUUID()}`;
    const reg = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(key), payload: { url: `${r.base}${p}`, events: ['inzicht.voltooid', 'inzicht.mislukt'] } });
    expect(reg.statusCode, reg.body).toBe(200);
    const geheim = reg.json().data.geheim as string;
    const a = await demoAdres();
    expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
    expect((await lookup(t, 'woz', key, adresBody(await maakVolledigAdres(t.db.prisma)))).statusCode).toBe(404);
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth(key) } }));
    const uit = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } });
    expect(uit.isError).toBeFalsy();
    expect(JSON.stringify(uit.structuredContent ?? uit.content)).toContain('"test":true');
    const echt = await c.callTool({ name: 'woz', arguments: { postcode: '1012AB', huisnummer: 1 } });
    expect(echt.isError).toBe(true);
    expect(JSON.stringify(echt.content)).toMatch(/testsleutel kent alleen/);
    await c.close();
    const ontvangen = await r.wacht(p, 4);
    await bezorger.leeg();
    const bodies = ontvangen.map((o) =>
      new Webhook(geheim).verify(o.body, { 'webhook-id': String(o.headers['webhook-id']), 'webhook-timestamp': String(o.headers['webhook-timestamp']), 'webhook-signature': String(o.headers['webhook-signature']) }) as { type: string; data: Record<string, unknown> },
    );
    expect(bodies.map((b) => `${b.type} ${b.data.kanaal} ${b.data.status}`).sort()).toEqual(['inzicht.mislukt mcp 404', 'inzicht.mislukt rest 404', 'inzicht.voltooid mcp 200', 'inzicht.voltooid rest 200']);
    for (const b of bodies) expect(b.data).toMatchObject({ test: true, gefactureerd_cent: 0, sleutel_voorvoegsel: expect.stringMatching(/^pct_test_/) });
  });

  it('a live key is unaffected: charged, no test marker in its answer or its event', async () => {
    const { accountId, key } = await t.klant(10);
    const a = await demoAdres();
    const res = await lookup(t, 'woz', key, adresBody(a));
    expect(res.json().meta).toMatchObject({ gefactureerd_cent: 5 });
    expect(res.json().meta.test).toBeUndefined();
    expect((await lookup(t, 'woz', key, adresBody(await maakVolledigAdres(t.db.prisma)))).statusCode).toBe(200);
    expect(await leesSaldo(t.db.prisma, accountId)).toBe(8);
  });
});
