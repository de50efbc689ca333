import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { adresBody, maakVolledigAdres } from './support/register.ts';
import { startOntvanger, type Ontvangen, type Ontvanger } from './support/ontvanger.ts';
import { maakSleutel, roteerSleutel } from '../src/domain/keys/sleutels.ts';
import { meldVerlopendeSleutels, startBezorger, SCHEMA_MS, type Bezorger } from '../src/domain/webhooks/bezorger.ts';
import type { Resolver } from '../src/domain/webhooks/doeladres.ts';

type Body = { type: string; timestamp: string; data: Record<string, unknown> };

function verifieer(geheim: string, o: Pick<Ontvangen, 'headers' | 'body'>, wijzig: Partial<Record<'webhook-id' | 'webhook-timestamp' | 'body', string>> = {}): Body {
  const h = { 'webhook-id': String(o.headers['webhook-id']), 'webhook-timestamp': String(o.headers['webhook-timestamp']), 'webhook-signature': String(o.headers['webhook-signature']) };
  return new Webhook(geheim).verify(wijzig.body ?? o.body, { ...h, ...wijzig }) as Body;
}

describe(`webhooks (${dialect})`, () => {
  let t: TestApp;
  let r: Ontvanger;
  let bezorger: Bezorger;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '10000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '1000' });
    t.clock.now = new Date();
    r = await startOntvanger();
    // Jitter fixed at its middle (factor 1.0) and a short send timeout, so the schedule and the cut-off are exact.
    bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, maxPerEndpoint: 4, verloopControleMs: 0 });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await bezorger?.sluit(100);
    await r?.sluit();
    await t?.close();
  });

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  async function registreer(key: string, url: string, events = ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag']) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(key), payload: { url, events, omschrijving: 'test' } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { id: string; geheim: string; url: string };
  }
  const pad = () => `/${randomUUID()}`;

  describe('registration', () => {
    it('creates, lists, reads, changes and deletes an endpoint; the secret is shown once', async () => {
      const { key } = await t.klant(10);
      const w = await registreer(key, `${r.base}${pad()}/ok`);
      expect(w.geheim).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      const lijst = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: auth(key) });
      expect(lijst.statusCode).toBe(200);
      expect(lijst.json().data).toHaveLength(1);
      expect(lijst.body).not.toContain(w.geheim.slice(6, 20));
      const een = await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) });
      expect(een.json().data).toMatchObject({ id: w.id, actief: true, events: ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag'], uitschakel_reden: null });
      expect(een.json().data.geheim).toBeUndefined();
      const patch = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, headers: auth(key), payload: { events: ['saldo.laag'], actief: 'false' } });
      expect(patch.statusCode, patch.body).toBe(200);
      expect(patch.json().data).toMatchObject({ events: ['saldo.laag'], actief: false, uitschakel_reden: expect.any(String) });
      const aan = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, headers: auth(key), payload: { actief: 'true' } });
      expect(aan.json().data).toMatchObject({ actief: true, uitschakel_reden: null });
      // A repeated switch (a client's retry) or an empty PATCH changes nothing and says so: 200, not 404.
      for (const payload of [{ actief: 'true' }, {}]) {
        const nogmaals = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, headers: auth(key), payload });
        expect(nogmaals.statusCode, nogmaals.body).toBe(200);
        expect(nogmaals.json().data).toMatchObject({ id: w.id, actief: true, events: ['saldo.laag'] });
      }
      const weg = await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) });
      expect(weg.statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) })).statusCode).toBe(404);
    });

    it("never shows or changes another account's endpoint: 404 everywhere", async () => {
      const een = await t.klant(10);
      const ander = await t.klant(10);
      const w = await registreer(een.key, `${r.base}${pad()}/ok`);
      const a = auth(ander.key);
      const verzoeken = [
        { method: 'GET', url: `/api/v1/webhooks/${w.id}` },
        { method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, payload: { actief: 'false' } },
        { method: 'DELETE', url: `/api/v1/webhooks/${w.id}` },
        { method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {} },
        { method: 'POST', url: `/api/v1/webhooks/${w.id}/geheim-roteren`, payload: {} },
        { method: 'GET', url: `/api/v1/webhooks/${w.id}/afleveringen` },
        { method: 'POST', url: `/api/v1/webhooks/${w.id}/afleveringen/${randomUUID()}/opnieuw`, payload: {} },
        { method: 'GET', url: '/api/v1/webhooks/niet-een-uuid' },
      ] as const;
      for (const v of verzoeken) {
        const res = await t.app.inject({ ...v, headers: a });
        expect(res.statusCode, `${v.method} ${v.url}`).toBe(404);
        expect(Object.keys(res.json())).toEqual(['fout']);
      }
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: a })).json().data).toEqual([]);
      expect(await t.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: w.id } })).toMatchObject({ actief: true });
    });

    it('needs an insight key: none is 401, a management key 403', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks' })).statusCode).toBe(401);
      const acc = await t.account(10);
      const beheer = await t.key(acc.id, { familie: 'beheer' });
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(beheer), payload: { url: `${r.base}/ok`, events: ['saldo.laag'] } });
      expect(res.statusCode).toBe(403);
      expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId: acc.id } })).toBe(0);
    });

    it('allows at most 10 endpoints per account (409), and refuses unknown event types and extra fields (400)', async () => {
      const { key } = await t.klant(10);
      await Promise.all(Array.from({ length: 10 }, () => registreer(key, `${r.base}${pad()}/ok`, ['saldo.laag'])));
      const elfde = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(key), payload: { url: `${r.base}/ok`, events: ['saldo.laag'] } });
      expect(elfde.statusCode).toBe(409);
      expect(elfde.json().fout).toMatch(/10 webhooks/);
      const ander = await t.klant(10);
      for (const payload of [{ url: `${r.base}/ok`, events: ['bestaat.niet'] }, { url: `${r.base}/ok`, events: [] }, { url: `${r.base}/ok`, events: ['saldo.laag'], extra: 1 }, { events: ['saldo.laag'] }]) {
        const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(ander.key), payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(Object.keys(res.json())).toEqual(['fout']);
      }
    });
    it('an Idempotency-Key makes the create idempotent: a retry gets the first answer (the same secret), another body 409, a failed create stores nothing', async () => {
      const { accountId, key } = await t.klant(10);
      const maak = (payload: object, sleutel: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { ...auth(key), 'idempotency-key': sleutel }, payload });
      const body = { url: `${r.base}${pad()}/ok`, events: ['saldo.laag'] };
      const eerste = await maak(body, 'maak-1');
      expect(eerste.statusCode, eerste.body).toBe(200);
      expect(eerste.headers['idempotent-replayed']).toBeUndefined();
      const tweede = await maak(body, 'maak-1');
      expect(tweede.statusCode).toBe(200);
      expect(tweede.headers['idempotent-replayed']).toBe('true');
      expect(tweede.json()).toEqual(eerste.json());
      const ander = await maak({ ...body, events: ['saldo.laag', 'inzicht.voltooid'] }, 'maak-1');
      expect(ander.statusCode).toBe(409);
      expect(ander.json().fout).toMatch(/ander verzoek/);
      expect((await maak(body, 'met spatie')).statusCode).toBe(400);
      const fout = await maak({ url: 'http://10.0.0.1/x', events: ['saldo.laag'] }, 'maak-2');
      expect(fout.statusCode).toBe(400);
      const daarna = await maak(body, 'maak-2');
      expect(daarna.statusCode).toBe(200);
      expect(daarna.json().data.id).not.toBe(eerste.json().data.id);
      expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId } })).toBe(2);
      const gelijktijdig = await Promise.all(Array.from({ length: 5 }, () => maak(body, 'maak-3')));
      expect(gelijktijdig.filter((x) => x.statusCode === 200).length).toBeGreaterThanOrEqual(1);
      expect(gelijktijdig.every((x) => x.statusCode === 200 || x.statusCode === 409)).toBe(true);
      expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId } })).toBe(3);
    });
  });

  describe('secret rotation with an Idempotency-Key', () => {
    it('a retried rotation gets the first answer (the same new secret) and does not rotate again; another webhook with the same key is its own', async () => {
      const { key } = await t.klant(10);
      const maak = async () => (await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth(key), payload: { url: `${r.base}${pad()}/ok`, events: ['saldo.laag'] } })).json().data;
      const [w, w2] = [await maak(), await maak()];
      const roteer = (id: string, sleutel: string) => t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/geheim-roteren`, headers: { ...auth(key), 'idempotency-key': sleutel }, payload: {} });
      const eerste = await roteer(w.id, 'roteer-1');
      expect(eerste.statusCode, eerste.body).toBe(200);
      const tweede = await roteer(w.id, 'roteer-1');
      expect(tweede.headers['idempotent-replayed']).toBe('true');
      expect(tweede.json().data.geheim).toBe(eerste.json().data.geheim);
      const rij = await t.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: w.id } });
      expect(rij.geheim).toBe(eerste.json().data.geheim);
      expect(rij.vorigGeheim, 'the secret in use before still signs for 24 h').toBe(w.geheim);
      const ander = await roteer(w2.id, 'roteer-1');
      expect(ander.statusCode).toBe(409);
      expect((await roteer('0190a000-0000-7000-8000-000000000000', 'roteer-2')).statusCode).toBe(404);
      expect((await roteer(w2.id, 'roteer-2')).statusCode, 'a refused rotation keeps no answer').toBe(200);
    });
  });

  describe('events and signatures', () => {
    it('a REST lookup gives exactly one inzicht.voltooid, signed, joinable with verbruik, with the Idempotency-Key', async () => {
      t.clock.now = new Date();
      const { key, accountId } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/ok`, ['inzicht.voltooid', 'inzicht.mislukt']);
      const a = await maakVolledigAdres(t.db.prisma);
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { ...auth(key), 'idempotency-key': 'bestelling-42' }, payload: adresBody(a) });
      expect(res.statusCode, res.body).toBe(200);
      const [o] = await r.wacht(`${p}/ok`, 1);
      await bezorger.leeg();
      expect(r.van(`${p}/ok`)).toHaveLength(1);
      const body = verifieer(w.geheim, o);
      const [usage] = await t.db.prisma.usageRecord.findMany({ where: { accountId } });
      expect(body).toMatchObject({ type: 'inzicht.voltooid', data: { verzoek_id: usage.id, kanaal: 'rest', voorziening: 'woz', status: 200, gefactureerd_cent: 5, idempotency_key: 'bestelling-42' } });
      // The answer names the same id, so a caller can match it with the event and GET /verbruik.
      expect(res.headers['insight-verzoek-id']).toBe(usage.id);
      const herhaald = await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: { ...auth(key), 'idempotency-key': 'bestelling-42' }, payload: adresBody(a) });
      expect(herhaald.headers['idempotent-replayed']).toBe('true');
      expect(herhaald.headers['insight-verzoek-id'], 'a replay wrote no usage record').toBeUndefined();
      expect(body.timestamp).toMatch(/\+00:00$/);
      expect(o.body).not.toContain(key);
      expect(o.body).not.toContain('waarden');
      expect(o.headers['webhook-id']).toMatch(/^msg_/);
    });

    it('an MCP tool call gives exactly one inzicht.voltooid with kanaal mcp', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/ok`, ['inzicht.voltooid']);
      const a = await maakVolledigAdres(t.db.prisma);
      const c = new Client({ name: 'test', version: '1.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth(key) } }));
      const uit = await c.callTool({ name: 'woz', arguments: { postcode: a.postcode, huisnummer: a.huisnummer } });
      expect(uit.isError).toBeFalsy();
      await c.close();
      const [o] = await r.wacht(`${p}/ok`, 1);
      await bezorger.leeg();
      expect(r.van(`${p}/ok`)).toHaveLength(1);
      const verzoekId = (uit._meta as { verzoek_id?: string }).verzoek_id;
      expect(verzoekId).toMatch(/^[0-9a-f-]{36}$/);
      expect(verifieer(w.geheim, o)).toMatchObject({ type: 'inzicht.voltooid', data: { verzoek_id: verzoekId, kanaal: 'mcp', voorziening: 'woz', status: 200 } });
    });

    it('a 404 and a 402 give inzicht.mislukt; saldo.laag fires once when the balance crosses the threshold', async () => {
      t.clock.now = new Date();
      const { key, accountId } = await t.klant(102);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/ok`);
      await t.db.prisma.account.update({ where: { id: accountId }, data: { drempelCredits: 100 } });
      const a = await maakVolledigAdres(t.db.prisma);
      expect((await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/adres', headers: auth(key), payload: { adres: { postcode: '9999ZZ', huisnummer: '9' } } })).statusCode).toBe(404);
      for (let i = 0; i < 4; i++) {
        expect((await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: auth(key), payload: adresBody(a) })).statusCode).toBe(200);
      }
      await t.db.prisma.account.update({ where: { id: accountId }, data: { credits: 0 } });
      expect((await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: auth(key), payload: adresBody(a) })).statusCode).toBe(402);
      await r.wacht(`${p}/ok`, 7);
      await bezorger.leeg();
      const bodies = r.van(`${p}/ok`).map((o) => verifieer(w.geheim, o));
      const soorten = bodies.map((b) => `${b.type}:${b.data.status ?? b.data.credits}`).sort();
      expect(soorten).toEqual(['inzicht.mislukt:402', 'inzicht.mislukt:404', 'inzicht.voltooid:200', 'inzicht.voltooid:200', 'inzicht.voltooid:200', 'inzicht.voltooid:200', 'saldo.laag:99']);
      expect(bodies.find((b) => b.type === 'saldo.laag')?.data).toMatchObject({ credits: 99, drempel_credits: 100, tegoed_cent: 495 });
    });

    it('a tampered body, id or timestamp fails verification; during a rotation both secrets verify', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/ok`);
      const rot = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/geheim-roteren`, payload: {}, headers: auth(key) });
      expect(rot.statusCode, rot.body).toBe(200);
      const nieuw = rot.json().data.geheim as string;
      expect(nieuw).not.toBe(w.geheim);
      expect(rot.json().data.vorig_geheim_geldig_tot).toEqual(expect.any(String));
      const test = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      expect(test.statusCode, test.body).toBe(200);
      const [o] = await r.wacht(`${p}/ok`, 1);
      expect(String(o.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifieer(nieuw, o)).toMatchObject({ type: 'webhook.test', data: { webhook_id: w.id } });
      expect(verifieer(w.geheim, o)).toMatchObject({ type: 'webhook.test' });
      expect(() => verifieer(nieuw, o, { body: o.body.replace('webhook.test', 'webhook.tesT') })).toThrow();
      expect(() => verifieer(nieuw, o, { 'webhook-id': 'msg_ander' })).toThrow();
      expect(() => verifieer(nieuw, o, { 'webhook-timestamp': String(Number(o.headers['webhook-timestamp']) + 1) })).toThrow();
      expect(() => verifieer(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, o)).toThrow();
      // After 24 hours only the new secret signs.
      t.clock.advance(24 * 3600_000 + 1000);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      const [, o2] = await r.wacht(`${p}/ok`, 2);
      expect(String(o2.headers['webhook-signature']).split(' ')).toHaveLength(1);
      t.clock.now = new Date();
    });
  });

  describe('sleutel.verloopt', () => {
    it('fires 7 days and 1 day before a key expires, once each, never for a revoked key', async () => {
      t.clock.now = new Date();
      const acc = await t.account(10);
      const key = await t.key(acc.id, { verlooptOp: new Date(t.clock.now.getTime() + 10 * 24 * 3600_000) });
      const ingetrokken = await t.key(acc.id, { verlooptOp: new Date(t.clock.now.getTime() + 3 * 24 * 3600_000) });
      await t.db.prisma.apiKey.updateMany({ where: { voorvoegsel: ingetrokken.slice(0, 12) }, data: { ingetrokkenOp: t.clock.now } });
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/ok`, ['sleutel.verloopt']);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBe(0);
      const gemeld: number[] = [];
      for (const dagen of [3, 0, 1, 5, 0]) {
        t.clock.advance(dagen * 24 * 3600_000 + 1000);
        gemeld.push(await meldVerlopendeSleutels(t.db.prisma, t.clock.now));
        await bezorger.leeg();
      }
      expect(gemeld).toEqual([1, 0, 0, 1, 0]);
      const ontvangen = await r.wacht(`${p}/ok`, 2);
      expect(r.van(`${p}/ok`)).toHaveLength(2);
      const data = ontvangen.map((o) => (JSON.parse(o.body) as Body).data);
      expect(data.map((d) => d.dagen)).toEqual([7, 1]);
      expect(data[0]).toMatchObject({ sleutel_voorvoegsel: key.slice(0, 12), verloopt_op: expect.stringMatching(/\+00:00$/) });
      expect(ontvangen[0].body).not.toContain(key);
      expect(w.id).toBeTruthy();
      t.clock.now = new Date();
    });
  });

  describe('sleutel.verloopt for a key made to live one day', () => {
    it('gets its 1-day notice', async () => {
      t.clock.now = new Date();
      const acc = await t.account(10);
      const k = await maakSleutel(t.db.prisma, { accountId: acc.id, naam: 'een dag', verlooptOp: new Date(t.clock.now.getTime() + 24 * 3600_000), now: t.clock.now });
      t.clock.advance(60_000);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBeGreaterThanOrEqual(1);
      expect(await t.db.prisma.apiKey.findUnique({ where: { id: k.id }, select: { verloopMelding1dOp: true } })).toEqual({ verloopMelding1dOp: t.clock.now });
      t.clock.now = new Date();
    });
  });

  describe('sleutel.verloopt after a rotation', () => {
    it('the rotated key (same expiry) does not announce the expiry again', async () => {
      t.clock.now = new Date();
      const acc = await t.account(10);
      await t.key(acc.id, { verlooptOp: new Date(t.clock.now.getTime() + 10 * 24 * 3600_000) });
      t.clock.advance(4 * 24 * 3600_000);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBe(1);
      const oud = await t.db.prisma.apiKey.findFirstOrThrow({ where: { accountId: acc.id } });
      await roteerSleutel(t.db.prisma, { accountId: acc.id, keyId: oud.id, now: t.clock.now });
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBe(0);
      t.clock.advance(5 * 24 * 3600_000 + 1000);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now), 'the 1-day notice is still due, once').toBe(1);
      t.clock.now = new Date();
    });

    it('a key made with 3 days to live gets no 7-day notice, only the 1-day one', async () => {
      t.clock.now = new Date();
      const acc = await t.account(10);
      const key = await t.key(acc.id, { verlooptOp: new Date(t.clock.now.getTime() + 3 * 24 * 3600_000) });
      await registreer(key, `${r.base}${pad()}/ok`, ['sleutel.verloopt']);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBe(0);
      t.clock.advance(2 * 24 * 3600_000 + 1000);
      expect(await meldVerlopendeSleutels(t.db.prisma, t.clock.now)).toBe(1);
      const [g] = await t.db.prisma.$queryRawUnsafe<{ payload: { data: { dagen: number; sleutel_voorvoegsel: string } } }[]>(
        `SELECT payload FROM webhook_gebeurtenis WHERE account_id = $1::uuid AND type = 'sleutel.verloopt'`, acc.id);
      expect(g?.payload.data).toMatchObject({ dagen: 1, sleutel_voorvoegsel: key.slice(0, 12) });
      t.clock.now = new Date();
    });
  });

  describe('delivery', () => {
    it('receiver down: retried on schedule with the same webhook-id, delivered once it is up; listed newest first', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/wisselend`);
      r.wisselendAan = false;
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/wisselend`, 1);
      await bezorger.leeg();
      // Not due before its time.
      t.clock.advance(SCHEMA_MS[0] - 100);
      await bezorger.leeg();
      expect(r.van(`${p}/wisselend`)).toHaveLength(1);
      t.clock.advance(200);
      await r.wacht(`${p}/wisselend`, 2);
      await bezorger.leeg();
      let lijst = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}/afleveringen`, headers: auth(key) })).json().data;
      expect(lijst[0]).toMatchObject({ toestand: 'wachtend', pogingen: 2, laatste_status: 503, laatste_fout: expect.stringMatching(/503/) });
      expect(new Date(lijst[0].volgende_poging).getTime() - t.clock.now.getTime()).toBe(SCHEMA_MS[1]);
      r.wisselendAan = true;
      t.clock.advance(SCHEMA_MS[1]);
      const ontvangen = await r.wacht(`${p}/wisselend`, 3);
      await bezorger.leeg();
      expect(new Set(ontvangen.map((o) => o.headers['webhook-id'])).size).toBe(1);
      lijst = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}/afleveringen`, headers: auth(key) })).json().data;
      expect(lijst[0]).toMatchObject({ toestand: 'afgeleverd', pogingen: 3, laatste_status: 200, laatste_fout: null, volgende_poging: null });
      // Replay: the same webhook-id once more.
      const opnieuw = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/afleveringen/${lijst[0].id}/opnieuw`, payload: {}, headers: auth(key) });
      expect(opnieuw.statusCode, opnieuw.body).toBe(200);
      const alle = await r.wacht(`${p}/wisselend`, 4);
      expect(alle[3].headers['webhook-id']).toBe(ontvangen[0].headers['webhook-id']);
      t.clock.now = new Date();
    });

    it('410 disables the endpoint with a visible reason; a 3xx is a failure, not followed', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const weg = await registreer(key, `${r.base}${p}/weg`);
      const verwijs = await registreer(key, `${r.base}${p}/verwijs`);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${weg.id}/test`, payload: {}, headers: auth(key) });
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${verwijs.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/weg`, 1);
      await r.wacht(`${p}/verwijs`, 1);
      await bezorger.leeg();
      const w1 = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${weg.id}`, headers: auth(key) })).json().data;
      expect(w1).toMatchObject({ actief: false, uitschakel_reden: expect.stringMatching(/410/) });
      const a2 = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${verwijs.id}/afleveringen`, headers: auth(key) })).json().data;
      expect(a2[0]).toMatchObject({ toestand: 'wachtend', laatste_status: 302, laatste_fout: expect.stringMatching(/Doorverwijzing/) });
      expect(r.van(`${p}/ok`)).toHaveLength(0);
      // A disabled endpoint gets no new events.
      const a = await maakVolledigAdres(t.db.prisma);
      await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: auth(key), payload: adresBody(a) });
      await bezorger.leeg();
      expect(r.van(`${p}/weg`)).toHaveLength(1);
    });

    it('a receiver that never answers is cut off at the timeout and does not delay a healthy endpoint', async () => {
      t.clock.now = new Date();
      const traag = await t.klant(100);
      const snel = await t.klant(100);
      const p = pad();
      const h = await registreer(traag.key, `${r.base}${p}/hangt`);
      await registreer(snel.key, `${r.base}${p}/ok`, ['inzicht.voltooid']);
      // A worker of its own with a 2 s timeout: the healthy delivery has to pass while all 4 slots of the slow endpoint hang.
      await bezorger.sluit(100);
      const eigen = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 2000, maxPerEndpoint: 4, verloopControleMs: 0 });
      try {
        for (let i = 0; i < 8; i++) await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${h.id}/test`, payload: {}, headers: auth(traag.key) });
        await r.wacht(`${p}/hangt`, 4);
        const a = await maakVolledigAdres(t.db.prisma);
        await t.app.inject({ method: 'POST', url: '/api/v1/inzicht/woz', headers: auth(snel.key), payload: adresBody(a) });
        const [ok] = await r.wacht(`${p}/ok`, 1);
        // Delivered while the slow endpoint's first 4 were still hanging (none cut off, none of the other 4 sent).
        expect(r.van(`${p}/hangt`).filter((o) => o.op <= ok.op)).toHaveLength(4);
        await r.wacht(`${p}/hangt`, 8);
        // Per-endpoint bound: never more than 4 of the 8 in flight at once.
        expect(r.maxGelijktijdigPerPad.get(`${p}/hangt`)).toBe(4);
        await eigen.leeg();
      } finally {
        await eigen.sluit(100);
        bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, maxPerEndpoint: 4, verloopControleMs: 0 });
      }
      const lijst = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${h.id}/afleveringen`, headers: auth(traag.key) })).json().data as { laatste_fout: string | null }[];
      expect(lijst.filter((x) => x.laatste_fout === 'Geen antwoord binnen 2 s.')).toHaveLength(8);
      await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${h.id}`, headers: auth(traag.key) });
    });

    it('graceful shutdown hands an in-flight delivery back without counting an attempt', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(10);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/hangt`);
      // A worker of its own with a long timeout, so the send is still in flight when it stops.
      await bezorger.sluit(100);
      const eigen = await startBezorger(t.services, t.db, { pollMs: 25, timeoutMs: 60_000, verloopControleMs: 0 });
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/hangt`, 1);
      await eigen.sluit(200);
      const [a] = await t.db.prisma.webhookDelivery.findMany({ where: { endpointId: w.id } });
      expect(a).toMatchObject({ toestand: 'wachtend', pogingen: 0, geclaimdTot: null });
      await t.app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) });
      bezorger = await startBezorger(t.services, t.db, { pollMs: 25, random: () => 0.5, timeoutMs: 400, maxPerEndpoint: 4, verloopControleMs: 0 });
    });

    it('5 days of failure disables the endpoint with a reason', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/fout`);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/fout`, 1);
      await bezorger.leeg();
      for (const ms of SCHEMA_MS) {
        t.clock.advance(ms);
        await bezorger.leeg();
      }
      // The schedule ends after about 3 days; a failure a day later (no pause above 27 h) keeps the streak: still
      // on at 4 days, off at the first failure 5 days into it.
      const actief = async () => (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) })).json().data.actief;
      expect(await actief()).toBe(true);
      for (const verwacht of [true, false]) {
        t.clock.advance(24 * 3600_000);
        await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
        await bezorger.leeg();
        expect(await actief()).toBe(verwacht);
      }
      const e = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) })).json().data;
      expect(e).toMatchObject({ actief: false, uitschakel_reden: expect.stringMatching(/Vijf dagen/) });
      t.clock.now = new Date();
    });

    it('one failure weeks after an old failed series starts a new streak: the endpoint stays on', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/fout`);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/fout`, 1);
      await bezorger.leeg();
      for (const ms of SCHEMA_MS) {
        t.clock.advance(ms);
        await bezorger.leeg();
      }
      t.clock.advance(21 * 24 * 3600_000);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await bezorger.leeg();
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${w.id}`, headers: auth(key) })).json().data).toMatchObject({ actief: true, uitschakel_reden: null });
      expect(await t.db.prisma.webhookEndpoint.findUnique({ where: { id: w.id }, select: { falendSinds: true } })).toEqual({ falendSinds: t.clock.now });
      t.clock.now = new Date();
    });

    it('switched on again, its waiting deliveries go at once, not at their back-off step', async () => {
      t.clock.now = new Date();
      const { key } = await t.klant(100);
      const p = pad();
      const w = await registreer(key, `${r.base}${p}/fout`);
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${w.id}/test`, payload: {}, headers: auth(key) });
      await r.wacht(`${p}/fout`, 1);
      await bezorger.leeg();
      for (const ms of SCHEMA_MS.slice(0, 4)) {
        t.clock.advance(ms);
        await bezorger.leeg();
      }
      // Waiting for its 5-hour step; the receiver is mended and the endpoint switched off and on.
      const uit = await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, headers: auth(key), payload: { actief: 'false', url: `${r.base}${p}/ok` } });
      expect(uit.statusCode, uit.body).toBe(200);
      expect((await t.app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${w.id}`, headers: auth(key), payload: { actief: 'true' } })).statusCode).toBe(200);
      await bezorger.leeg();
      expect(r.van(`${p}/ok`)).toHaveLength(1);
      t.clock.now = new Date();
    });
  });
});

describe(`webhook URL guard (${dialect})`, () => {
  let t: TestApp;
  let r: Ontvanger;
  let dns: Record<string, string[]>;
  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE: 'false', RATE_LIMIT_REST_PER_MIN: '10000' });
    r = await startOntvanger();
    dns = {};
    const resolver: Resolver = async (host) => {
      const a = dns[host];
      if (!a) throw new Error('ENOTFOUND');
      return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    t.services.webhookResolver = resolver;
  });
  afterAll(async () => {
    await r?.sluit();
    await t?.close();
  });

  it('refuses non-https, private, loopback, link-local, CGNAT, metadata, mapped and IPv4-compatible addresses, and credentials, each with a Dutch 400', async () => {
    dns['intern.voorbeeld.nl'] = ['93.184.216.34', '10.1.2.3'];
    dns['zes.voorbeeld.nl'] = ['fd00::1'];
    const { key, accountId } = await t.klant(10);
    for (const url of [
      'http://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://[::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:7f00:1]/hook',
      'https://[::a9fe:a9fe]/latest/meta-data', 'https://[::7f00:1]/hook', 'https://[::a00:1]/hook',
      'https://169.254.169.254/latest/meta-data', 'https://192.0.0.192/opc/v2/', 'https://168.63.129.16/machine', 'https://100.64.0.1/hook', 'https://192.168.1.1/', 'https://0.0.0.0/', 'https://224.0.0.1/',
      'https://[fe80::1]/', 'https://intern.voorbeeld.nl/hook', 'https://zes.voorbeeld.nl/hook', 'https://onbekend.voorbeeld.nl/hook',
      'ftp://voorbeeld.nl/hook', 'https://gebruiker:wachtwoord@93.184.216.34/hook', 'http://93.184.216.34/hook', 'geen url',
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` }, payload: { url, events: ['saldo.laag'] } });
      expect(res.statusCode, url).toBe(400);
      expect(Object.keys(res.json())).toEqual(['fout']);
      expect(res.json().fout, url).toMatch(/^Ongeldige invoer: url: /);
    }
    expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId } })).toBe(0);
  });

  it('a host public at registration and private at send time is not contacted', async () => {
    dns['wisselt.voorbeeld.nl'] = ['93.184.216.34'];
    const { key } = await t.klant(10);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` }, payload: { url: 'https://wisselt.voorbeeld.nl/hook', events: ['saldo.laag'] } });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().data.id;
    dns['wisselt.voorbeeld.nl'] = ['127.0.0.1'];
    t.clock.now = new Date();
    const bezorger = await startBezorger(t.services, t.db, { pollMs: 25, verloopControleMs: 0 });
    try {
      await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, payload: {}, headers: { authorization: `Bearer ${key}` } });
      await bezorger.leeg();
    } finally {
      await bezorger.sluit(100);
    }
    const [a] = (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${id}/afleveringen`, headers: { authorization: `Bearer ${key}` } })).json().data;
    expect(a).toMatchObject({ toestand: 'wachtend', pogingen: 1, laatste_status: null, laatste_fout: 'Niet verstuurd: url: de host wisselt.voorbeeld.nl is niet te vinden of wijst niet naar een openbaar adres; alleen openbare adressen zijn toegestaan.' });
    expect(r.ontvangen).toHaveLength(0);
  });
});
