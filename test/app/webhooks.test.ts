import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { aanmelden, expectWeigering, trpc, type Sessie } from './trpc-hulp.ts';

const ONTVANGER = 'http://127.0.0.1:9/ontvanger';
const NUL_ID = '00000000-0000-4000-8000-000000000000';

/** Every webhook procedure with a valid input for webhook `id` (and delivery `aflevering`). */
const procedures = (id: string, aflevering: string) => [
  { soort: 'query' as const, pad: 'webhooks.lijst' },
  { soort: 'mutation' as const, pad: 'webhooks.maak', input: { url: ONTVANGER, events: ['inzicht.voltooid'] } },
  { soort: 'mutation' as const, pad: 'webhooks.wijzig', input: { id, omschrijving: 'gewijzigd', actief: false } },
  { soort: 'mutation' as const, pad: 'webhooks.test', input: { id } },
  { soort: 'mutation' as const, pad: 'webhooks.roteer', input: { id } },
  { soort: 'query' as const, pad: 'webhooks.afleveringen', input: { id } },
  { soort: 'mutation' as const, pad: 'webhooks.opnieuw', input: { id, aflevering } },
  { soort: 'mutation' as const, pad: 'webhooks.verwijder', input: { id } },
];

describe(`web-app webhook procedures over /trpc (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const maak = async (s: Sessie, url = ONTVANGER, events = ['inzicht.voltooid', 'saldo.laag']) => {
    const r = await trpc(t, 'mutation', 'webhooks.maak', { url, events, omschrijving: 'productie' }, { sessie: s });
    expect(r.status, r.fout).toBe(200);
    return r.data as { id: string; geheim: string; url: string };
  };
  const stand = (id: string) => t.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id }, select: { url: true, actief: true, geheim: true, omschrijving: true } });

  describe('security, for every procedure', () => {
    let eigenaar: Sessie;
    let id: string;
    let aflevering: string;
    beforeAll(async () => {
      eigenaar = await aanmelden(t);
      id = (await maak(eigenaar)).id;
      aflevering = (await trpc(t, 'mutation', 'webhooks.test', { id }, { sessie: eigenaar })).data.aflevering_id;
    });

    it('no session, an expired session, an API key instead of a session: 401', async () => {
      for (const p of procedures(id, aflevering)) expectWeigering(await trpc(t, p.soort, p.pad, p.input), 401);
      const key = await t.key(eigenaar.accountId);
      for (const p of procedures(id, aflevering)) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { headers: { authorization: `Bearer ${key}` } }), 401);
      const s = await aanmelden(t);
      t.clock.advance(12 * 3_600_000 + 1);
      for (const p of procedures(id, aflevering)) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { sessie: s }), 401);
      // The owner's own session has expired too by now: log in again for the other tests.
      eigenaar = { ...eigenaar, ...(await herAanmelden(eigenaar)) };
    });

    it('a mutation without the CSRF token: 403, and nothing changes', async () => {
      const voor = await stand(id);
      const aantal = await t.db.prisma.webhookEndpoint.count({ where: { accountId: eigenaar.accountId } });
      for (const p of procedures(id, aflevering).filter((x) => x.soort === 'mutation')) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { sessie: eigenaar, zonderCsrf: true }), 403);
      expect(await stand(id)).toEqual(voor);
      expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId: eigenaar.accountId } })).toBe(aantal);
      expect(await t.db.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(1);
    });

    it("another account's webhook id: 404 everywhere, and nothing of it changes or shows", async () => {
      const ander = await aanmelden(t);
      const voor = await stand(id);
      for (const p of procedures(id, aflevering).filter((x) => 'input' in x && x.input && 'id' in x.input)) {
        expectWeigering(await trpc(t, p.soort, p.pad, p.input, { sessie: ander }), 404);
      }
      expect(await stand(id)).toEqual(voor);
      expect(await t.db.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(1);
      expect((await trpc(t, 'query', 'webhooks.lijst', undefined, { sessie: ander })).data.webhooks).toEqual([]);
      // Someone else's delivery id under one's own webhook is not found either.
      const eigen = (await maak(ander)).id;
      expectWeigering(await trpc(t, 'mutation', 'webhooks.opnieuw', { id: eigen, aflevering }, { sessie: ander }), 404);
      // And an id that exists nowhere: the same 404.
      expectWeigering(await trpc(t, 'mutation', 'webhooks.test', { id: NUL_ID }, { sessie: ander }), 404);
    });

    async function herAanmelden(s: Sessie) {
      const r = await trpc(t, 'mutation', 'sessie.aanmelden', { email: s.email, wachtwoord: 'een-lang-genoeg-wachtwoord' }, { ip: '10.99.0.1' });
      expect(r.status, r.fout).toBe(200);
      return { cookie: r.setCookie.find((c) => c.startsWith('insight_sessie='))!.split(';')[0], csrf: r.data.csrf as string };
    }
  });

  describe('happy paths', () => {
    it('create shows the secret once; the list (and REST, the same domain functions) never shows it', async () => {
      const s = await aanmelden(t);
      const w = await maak(s);
      expect(w).toMatchObject({ url: ONTVANGER, events: ['inzicht.voltooid', 'saldo.laag'], omschrijving: 'productie', actief: true, uitschakel_reden: null });
      expect(w.geheim).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await stand(w.id)).geheim).toBe(w.geheim);
      const lijst = (await trpc(t, 'query', 'webhooks.lijst', undefined, { sessie: s })).data;
      expect(lijst.max).toBe(10);
      expect(lijst.event_typen).toEqual(['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag', 'sleutel.verloopt', 'sleutel.limiet_bereikt']);
      const { geheim: _geheim, ...zonderGeheim } = w;
      expect(lijst.webhooks).toEqual([zonderGeheim]);
      expect(JSON.stringify(lijst)).not.toContain(w.geheim);
      const key = await t.key(s.accountId);
      const rest = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: { authorization: `Bearer ${key}` } });
      expect(rest.json().data).toEqual(lijst.webhooks);
    });

    it('update switches off and on again, changes url, events and description', async () => {
      const s = await aanmelden(t);
      const w = await maak(s);
      const uit = await trpc(t, 'mutation', 'webhooks.wijzig', { id: w.id, actief: false }, { sessie: s });
      expect(uit.data).toMatchObject({ actief: false, uitschakel_reden: 'Uitgeschakeld door het account.', uitgeschakeld_op: expect.any(String) });
      const aan = await trpc(t, 'mutation', 'webhooks.wijzig', { id: w.id, actief: true, url: 'http://127.0.0.1:9/nieuw', events: ['saldo.laag'], omschrijving: null }, { sessie: s });
      expect(aan.data).toMatchObject({ id: w.id, actief: true, uitschakel_reden: null, uitgeschakeld_op: null, url: 'http://127.0.0.1:9/nieuw', events: ['saldo.laag'], omschrijving: null });
    });

    it('test send queues a webhook.test delivery; deliveries page newest first; replay starts it afresh; rotate; delete', async () => {
      const s = await aanmelden(t);
      const w = await maak(s);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await trpc(t, 'mutation', 'webhooks.test', { id: w.id }, { sessie: s });
        expect(r.data).toEqual({ gebeurtenis_id: expect.stringMatching(/^msg_/), aflevering_id: expect.any(String) });
        ids.push(r.data.aflevering_id);
        t.clock.advance(1000);
      }
      const p1 = (await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, limiet: 2 }, { sessie: s })).data;
      expect(p1.regels.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
      expect(p1.regels[0]).toMatchObject({ type: 'webhook.test', toestand: 'wachtend', pogingen: 0, laatste_status: null });
      expect(p1.volgende).toEqual(expect.any(String));
      const p2 = (await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, limiet: 2, na: p1.volgende }, { sessie: s })).data;
      expect(p2).toEqual({ regels: [expect.objectContaining({ id: ids[0] })], volgende: null });

      // A delivery that failed, replayed: waiting again, attempts from zero, the same event id.
      await t.db.prisma.webhookDelivery.update({ where: { id: ids[0] }, data: { toestand: 'mislukt', pogingen: 10, laatsteStatus: 500, laatsteFout: 'HTTP 500' } });
      const opnieuw = await trpc(t, 'mutation', 'webhooks.opnieuw', { id: w.id, aflevering: ids[0] }, { sessie: s });
      // A new series of retries, while the attempts shown keep counting (10 made so far).
      expect(opnieuw.data).toMatchObject({ id: ids[0], gebeurtenis_id: p2.regels[0].gebeurtenis_id, toestand: 'wachtend', pogingen: 10 });
      expect(await t.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids[0] } })).toMatchObject({ pogingen: 0, eerderePogingen: 10 });

      const nieuw = await trpc(t, 'mutation', 'webhooks.roteer', { id: w.id }, { sessie: s });
      expect(nieuw.data.geheim).toMatch(/^whsec_/);
      expect(nieuw.data.geheim).not.toBe(w.geheim);
      expect(nieuw.data.vorig_geheim_geldig_tot).toEqual(expect.any(String));

      expect((await trpc(t, 'mutation', 'webhooks.verwijder', { id: w.id }, { sessie: s })).data).toEqual({ id: w.id, verwijderd: true });
      expectWeigering(await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id }, { sessie: s }), 404);
      expectWeigering(await trpc(t, 'mutation', 'webhooks.verwijder', { id: w.id }, { sessie: s }), 404);
    });
  });

  describe('errors', () => {
    it('bad input is a Dutch 400 and creates nothing', async () => {
      const s = await aanmelden(t);
      for (const input of [
        { url: 'geen url', events: ['inzicht.voltooid'] },
        { url: 'ftp://127.0.0.1/x', events: ['inzicht.voltooid'] },
        { url: 'http://gebruiker:geheim@127.0.0.1/x', events: ['inzicht.voltooid'] },
        { url: ONTVANGER, events: [] },
        { url: ONTVANGER, events: ['alles'] },
        { url: '', events: ['inzicht.voltooid'] },
        { url: ONTVANGER, events: ['inzicht.voltooid'], extra: 1 },
        { events: ['inzicht.voltooid'] },
      ]) {
        expectWeigering(await trpc(t, 'mutation', 'webhooks.maak', input, { sessie: s }), 400);
      }
      expect(await t.db.prisma.webhookEndpoint.count({ where: { accountId: s.accountId } })).toBe(0);
      const w = await maak(s);
      expectWeigering(await trpc(t, 'mutation', 'webhooks.wijzig', { id: w.id, actief: 'ja' }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'mutation', 'webhooks.wijzig', { id: w.id, url: 'ftp://x' }, { sessie: s }), 400);
      expect((await stand(w.id)).url).toBe(ONTVANGER);
      expectWeigering(await trpc(t, 'mutation', 'webhooks.test', { id: 'geen-uuid' }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, limiet: 0 }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, limiet: 101 }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, na: 'onzin' }, { sessie: s }), 400);
      const jaarNul = Buffer.from('0000-01-01T00:00:00.000Z|00000000-0000-4000-8000-000000000000').toString('base64url');
      expectWeigering(await trpc(t, 'query', 'webhooks.afleveringen', { id: w.id, na: jaarNul }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'mutation', 'webhooks.opnieuw', { id: w.id, aflevering: NUL_ID }, { sessie: s }), 404);
    });

    it('the 11th webhook is refused with 409; after a delete there is room again', async () => {
      const s = await aanmelden(t);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await maak(s, `http://127.0.0.1:9/w${i}`)).id);
      const r = await trpc(t, 'mutation', 'webhooks.maak', { url: ONTVANGER, events: ['saldo.laag'] }, { sessie: s });
      expect(expectWeigering(r, 409)).toMatch(/al 10 webhooks/);
      await trpc(t, 'mutation', 'webhooks.verwijder', { id: ids[0] }, { sessie: s });
      await maak(s);
    });
  });
});
