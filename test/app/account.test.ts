import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { adresBody, maakVolledigAdres } from '../support/register.ts';
import { lookup } from '../support/http.ts';
import { aanmelden, expectWeigering, trpc } from './trpc-hulp.ts';

const whoami = (t: TestApp, key: string) => t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${key}` } });

/** Every procedure with a valid input, for the security checks that must hold for all of them. */
const PROCEDURES: { soort: 'query' | 'mutation'; pad: string; input?: unknown }[] = [
  { soort: 'query', pad: 'sessie.huidig' },
  { soort: 'mutation', pad: 'sessie.afmelden' },
  { soort: 'query', pad: 'sleutels.lijst' },
  { soort: 'mutation', pad: 'sleutels.maak', input: { naam: 'x' } },
  { soort: 'mutation', pad: 'sleutels.roteer', input: { id: '00000000-0000-4000-8000-000000000000' } },
  { soort: 'mutation', pad: 'sleutels.trekIn', input: { id: '00000000-0000-4000-8000-000000000000' } },
  { soort: 'query', pad: 'tegoed.saldo' },
  { soort: 'query', pad: 'tegoed.grootboek', input: { pagina: 1 } },
  { soort: 'query', pad: 'verbruik.perDag', input: { van: '2026-11-01', tot: '2026-11-30' } },
  { soort: 'query', pad: 'verbruik.lijst', input: { van: '2026-11-01', tot: '2026-11-30' } },
];

describe(`web-app procedures over /trpc (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  describe('security, for every procedure', () => {
    it('no session: 401', async () => {
      for (const p of PROCEDURES) expectWeigering(await trpc(t, p.soort, p.pad, p.input), 401);
    });
    it('an expired session: 401', async () => {
      const s = await aanmelden(t);
      t.clock.advance(12 * 3_600_000 + 1);
      for (const p of PROCEDURES) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { sessie: s }), 401);
    });
    it('an API key instead of a session: 401', async () => {
      const s = await aanmelden(t);
      const key = await t.key(s.accountId);
      for (const p of PROCEDURES) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { headers: { authorization: `Bearer ${key}` } }), 401);
    });
    it('a mutation without the CSRF token: 403, and nothing changes', async () => {
      const s = await aanmelden(t);
      for (const p of PROCEDURES.filter((x) => x.soort === 'mutation')) expectWeigering(await trpc(t, p.soort, p.pad, p.input, { sessie: s, zonderCsrf: true }), 403);
      expect(await t.db.prisma.apiKey.count({ where: { accountId: s.accountId } })).toBe(0);
      expect((await trpc(t, 'query', 'sessie.huidig', undefined, { sessie: s })).status).toBe(200);
    });
    it('the CSRF token of another session does not work', async () => {
      const s = await aanmelden(t);
      const ander = await aanmelden(t);
      expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', { naam: 'x' }, { sessie: { cookie: s.cookie, csrf: ander.csrf } }), 403);
    });
    it('a mutation sent as GET is refused', async () => {
      const s = await aanmelden(t);
      const r = await t.app.inject({ method: 'GET', url: `/trpc/sleutels.maak?input=${encodeURIComponent(JSON.stringify({ naam: 'x' }))}`, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
      expect(r.statusCode).toBe(405);
      expect(await t.db.prisma.apiKey.count({ where: { accountId: s.accountId } })).toBe(0);
    });
  });

  describe('sleutels', () => {
    it('create shows the key once; it works over REST; the list shows it without the key', async () => {
      const s = await aanmelden(t);
      const r = await trpc(t, 'mutation', 'sleutels.maak', { naam: 'productie', looptijd_dagen: 30 }, { sessie: s });
      expect(r.status).toBe(200);
      expect(r.data).toEqual({ id: expect.any(String), sleutel: expect.stringMatching(/^pct_/), voorvoegsel: r.data.sleutel.slice(0, 12), verloopt_op: expect.stringMatching(/^2026-12-22T/) });
      expect((await whoami(t, r.data.sleutel)).statusCode).toBe(200);
      const lijst = await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s });
      expect(lijst.data).toEqual([
        {
          id: r.data.id, naam: 'productie', voorvoegsel: r.data.voorvoegsel, familie: 'inzicht', rechten: ['inzicht:lezen'], modus: 'live', maandlimiet: null,
          // Used once (the whoami above): laatst_gebruikt_op is kept (issue 12).
          aangemaakt_op: expect.any(String), laatst_gebruikt_op: expect.any(String), verloopt_op: r.data.verloopt_op, ingetrokken_op: null, status: 'geldig',
        },
      ]);
      expect(JSON.stringify(lijst.data)).not.toContain(r.data.sleutel);
    });

    it('rotate: the old key gets 401 at once, the new one works with the same name; revoke: 401', async () => {
      const s = await aanmelden(t);
      const oud = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'rotatie' }, { sessie: s })).data;
      const nieuw = await trpc(t, 'mutation', 'sleutels.roteer', { id: oud.id }, { sessie: s });
      expect(nieuw.status).toBe(200);
      expect(nieuw.data.sleutel).not.toBe(oud.sleutel);
      expect((await whoami(t, oud.sleutel)).statusCode).toBe(401);
      expect((await whoami(t, nieuw.data.sleutel)).statusCode).toBe(200);
      const lijst = (await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s })).data;
      expect(lijst.map((k: { naam: string; status: string }) => [k.naam, k.status]).sort()).toEqual([['rotatie', 'geldig'], ['rotatie', 'ingetrokken']]);
      expectWeigering(await trpc(t, 'mutation', 'sleutels.roteer', { id: oud.id }, { sessie: s }), 404);
      const weg = await trpc(t, 'mutation', 'sleutels.trekIn', { id: nieuw.data.id }, { sessie: s });
      expect(weg.data).toEqual({ id: nieuw.data.id, ingetrokken: true });
      expect((await whoami(t, nieuw.data.sleutel)).statusCode).toBe(401);
      expectWeigering(await trpc(t, 'mutation', 'sleutels.trekIn', { id: nieuw.data.id }, { sessie: s }), 404);
    });

    it("another account's key id: 404 on rotate and revoke, and that key keeps working", async () => {
      const s = await aanmelden(t);
      const ander = await aanmelden(t);
      const vreemd = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'van een ander' }, { sessie: ander })).data;
      expectWeigering(await trpc(t, 'mutation', 'sleutels.roteer', { id: vreemd.id }, { sessie: s }), 404);
      expectWeigering(await trpc(t, 'mutation', 'sleutels.trekIn', { id: vreemd.id }, { sessie: s }), 404);
      expect((await whoami(t, vreemd.sleutel)).statusCode).toBe(200);
      const mijn = (await trpc(t, 'query', 'sleutels.lijst', undefined, { sessie: s })).data;
      expect(mijn.some((k: { id: string }) => k.id === vreemd.id)).toBe(false);
    });

    it('the 11th valid insight key is refused with 409; a rotation does not count; after a revoke there is room again', async () => {
      const s = await aanmelden(t);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await trpc(t, 'mutation', 'sleutels.maak', { naam: `k${i}` }, { sessie: s })).data.id);
      expect(expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', { naam: 'k11' }, { sessie: s }), 409)).toMatch(/hoogstens 10/);
      expect((await trpc(t, 'mutation', 'sleutels.roteer', { id: ids[0] }, { sessie: s })).status).toBe(200);
      expect(await t.db.prisma.apiKey.count({ where: { accountId: s.accountId, ingetrokkenOp: null } })).toBe(10);
      await trpc(t, 'mutation', 'sleutels.trekIn', { id: ids[1] }, { sessie: s });
      expect((await trpc(t, 'mutation', 'sleutels.maak', { naam: 'k11' }, { sessie: s })).status).toBe(200);
    });

    it('bad input is a Dutch 400 and creates nothing', async () => {
      const s = await aanmelden(t);
      for (const input of [{ naam: '' }, { naam: 'x', looptijd_dagen: 0 }, { naam: 'x', looptijd_dagen: 731 }, { naam: 'x', looptijd_dagen: 1.5 }, { naam: 'x', familie: 'alles' }, { naam: 'x', extra: 1 }, {}]) {
        expectWeigering(await trpc(t, 'mutation', 'sleutels.maak', input, { sessie: s }), 400);
      }
      expectWeigering(await trpc(t, 'mutation', 'sleutels.roteer', { id: 'geen-uuid' }, { sessie: s }), 400);
      expect(await t.db.prisma.apiKey.count({ where: { accountId: s.accountId } })).toBe(0);
    });
  });

  describe('tegoed en verbruik', () => {
    it('balance, credits this month, the ledger in pages, usage per day and lookup, and the filtered list', async () => {
      const s = await aanmelden(t, 500);
      const ander = await aanmelden(t);
      const key = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'rapport' }, { sessie: s })).data.sleutel;
      const a = await maakVolledigAdres(t.db.prisma);
      expect((await lookup(t, 'woz', key, adresBody(a))).statusCode).toBe(200);
      expect((await lookup(t, 'invloeden', key, adresBody(a))).statusCode).toBe(200);
      expect((await lookup(t, 'woz', key, { adres: { postcode: '9999ZZ', huisnummer: '1' } })).statusCode).toBe(404);

      const saldo = (await trpc(t, 'query', 'tegoed.saldo', undefined, { sessie: s })).data;
      const kosten = 1 + 16;
      const lijstAlle = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22' }, { sessie: s })).data;
      const betaald = lijstAlle.regels.reduce((n: number, r: { credits: number }) => n + r.credits, 0);
      expect(betaald).toBeGreaterThanOrEqual(kosten);
      expect(saldo).toMatchObject({ credits: 500 - betaald, eenheid_cent: 5, tegoed_cent: (500 - betaald) * 5, maand_van: '2026-11-01', credits_deze_maand: betaald, opvragingen_deze_maand: 3 });

      const boek = (await trpc(t, 'query', 'tegoed.grootboek', { pagina: 1, per_pagina: 2 }, { sessie: s })).data;
      expect(boek.totaal).toBe(1 + lijstAlle.regels.filter((r: { credits: number }) => r.credits > 0).length);
      expect(boek.regels).toHaveLength(2);
      const p2 = (await trpc(t, 'query', 'tegoed.grootboek', { pagina: 2, per_pagina: 2 }, { sessie: s })).data;
      // The opening top-up is stamped by the database's clock, the lookups by the test's injected clock:
      // where it stands in the order depends on the time of day, so look for it on both pages.
      const alle = [...boek.regels, ...p2.regels] as { soort: string; credits: number }[];
      expect(alle).toHaveLength(3);
      expect(alle.filter((r) => r.soort === 'opwaardering')).toEqual([expect.objectContaining({ credits: 500 })]);
      expect(alle.reduce((n, r) => n + r.credits, 0)).toBe(saldo.credits);

      const perDag = (await trpc(t, 'query', 'verbruik.perDag', { van: '2026-11-01', tot: '2026-11-30' }, { sessie: s })).data;
      expect(perDag.per_dag).toEqual(expect.arrayContaining([
        { dag: '2026-11-22', voorziening: 'invloeden', aantal: 1, credits: 16, gefactureerd_cent: 80 },
        expect.objectContaining({ dag: '2026-11-22', voorziening: 'woz', aantal: 2 }),
      ]));
      expect(perDag.per_voorziening[0]).toMatchObject({ voorziening: 'invloeden', credits: 16 });

      const woz = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', voorziening: 'woz' }, { sessie: s })).data;
      expect(woz.totaal).toBe(2);
      const mislukt = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', uitkomst: 'mislukt' }, { sessie: s })).data;
      expect(mislukt.regels.map((r: { status: number }) => r.status)).toEqual([404]);
      expect(mislukt.regels[0]).toMatchObject({ kanaal: 'rest', sleutel_naam: 'rapport', sleutel_voorvoegsel: key.slice(0, 12) });
      const leeg = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-10-01', tot: '2026-10-31' }, { sessie: s })).data;
      expect(leeg.totaal).toBe(0);

      // Another account sees none of it.
      expect((await trpc(t, 'query', 'verbruik.perDag', { van: '2026-11-01', tot: '2026-11-30' }, { sessie: ander })).data.per_dag).toEqual([]);
      const vreemd = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-01', tot: '2026-11-30' }, { sessie: ander })).data;
      expect(vreemd.regels.some((r: { verzoek_id: string }) => lijstAlle.regels.some((m: { verzoek_id: string }) => m.verzoek_id === r.verzoek_id))).toBe(false);
      const kRows = await t.db.prisma.apiKey.findMany({ where: { accountId: s.accountId }, select: { id: true } });
      expect((await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-01', tot: '2026-11-30', sleutel_id: kRows[0].id }, { sessie: ander })).data.totaal).toBe(0);

      // The export's walk: after a cursor (a page number beside it ignored), one row a page, the list's rows in its order, then null.
      const gelopen: string[] = [];
      for (let na: string | null | undefined, n = 0; na !== null && n < 10; n++) {
        const deel = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', per_pagina: 1, ...(na ? { na, pagina: 3 } : {}) }, { sessie: s })).data;
        gelopen.push(...deel.regels.map((r: { verzoek_id: string }) => r.verzoek_id));
        expect(deel.totaal).toBe(3);
        na = deel.volgende;
      }
      expect(gelopen).toEqual(lijstAlle.regels.map((r: { verzoek_id: string }) => r.verzoek_id));
      // Filtered the same way; another account's session walks only its own rows from the same cursor.
      const eerste = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', per_pagina: 1 }, { sessie: s })).data;
      const verder = (await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', voorziening: 'woz', na: eerste.volgende }, { sessie: s })).data;
      expect(verder.regels.every((r: { voorziening: string }) => r.voorziening === 'woz')).toBe(true);
      expect((await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-22', tot: '2026-11-22', na: eerste.volgende }, { sessie: ander })).data.regels).toEqual([]);
    });

    it('a bad period or page is a Dutch 400', async () => {
      const s = await aanmelden(t);
      for (const input of [{ van: '2026-11-30', tot: '2026-11-01' }, { van: '2025-01-01', tot: '2026-11-30' }, { van: '2026-02-30', tot: '2026-03-01' }, { van: 'gisteren', tot: '2026-11-01' }, { van: '2026-11-01' }, { van: '0000-01-01', tot: '0000-02-01' }]) {
        expectWeigering(await trpc(t, 'query', 'verbruik.perDag', input, { sessie: s }), 400);
      }
      expectWeigering(await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-01', tot: '2026-11-30', per_pagina: 501 }, { sessie: s }), 400);
      expectWeigering(await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-01', tot: '2026-11-30', uitkomst: 'soms' }, { sessie: s }), 400);
      const cursor = await trpc(t, 'query', 'verbruik.lijst', { van: '2026-11-01', tot: '2026-11-30', na: 'geen-cursor' }, { sessie: s });
      expect(expectWeigering(cursor, 400)).toContain('gebruik volgende van de vorige pagina');
      expectWeigering(await trpc(t, 'query', 'tegoed.grootboek', { pagina: 0 }, { sessie: s }), 400);
    });
  });
});
