import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { datumAmsterdam, isoAmsterdam } from '../../src/domain/begrippen.ts';
import { csvVeld, VERBRUIK_CSV_KOP, VERBRUIK_CSV_PAD } from '../../src/gateways/verbruik-export.ts';

const KOP = VERBRUIK_CSV_KOP.join(';');
import { aanmelden, trpc, type Sessie } from './trpc-hulp.ts';

/** The web app's CSV export: written by the server page by page through the list's own procedure. */
describe(`usage export as CSV (${dialect})`, () => {
  let t: TestApp;
  let s: Sessie;
  let dag: string;
  const RIJEN = 1_203;

  beforeAll(async () => {
    t = await createTestApp();
    s = await aanmelden(t);
    const sleutel = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'export' }, { sessie: s })).data.id as string;
    const nu = t.services.now().getTime();
    dag = datumAmsterdam(t.services.now());
    await t.db.prisma.usageRecord.createMany({
      data: Array.from({ length: RIJEN }, (_, i) => ({
        accountId: s.accountId,
        keyId: sleutel,
        kanaal: i % 3 === 0 ? 'mcp' : 'rest',
        voorziening: i % 2 === 0 ? 'woz' : 'waarde',
        status: 200,
        credits: i % 2 === 0 ? 1 : 18,
        gefactureerdCent: i % 2 === 0 ? 5 : 90,
        adres: i === 7 ? 'Kerkstraat 1, Ons "Dorp"' : i === 8 ? '=1+1' : `Laan ${i}`,
        aangemaaktOp: new Date(nu - i * 1000),
      })),
    });
  });
  afterAll(async () => t?.close());

  const haal = (query: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: `${VERBRUIK_CSV_PAD}?${query}`, headers });

  it('every row of the period across pages, newest first, as the list gives them; a download header; never cached', async () => {
    const res = await haal(`van=${dag}&tot=${dag}`, { cookie: s.cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="verbruik-${dag}-${dag}.csv"`);
    expect(res.headers['cache-control']).toBe('no-store');
    // For Dutch Excel: a byte order mark (else it reads Windows-1252) and ';' (its list separator).
    expect([...Buffer.from(res.body, 'utf8').subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const regels = res.body.replace(/^\ufeff/, '').split('\r\n');
    expect(regels.pop()).toBe('');
    expect(regels[0]).toBe(KOP);
    expect(regels).toHaveLength(RIJEN + 1);
    const eerste = await trpc(t, 'query', 'verbruik.lijst', { van: dag, tot: dag, per_pagina: 10 }, { sessie: s });
    for (const [i, r] of (eerste.data.regels as Record<string, string | number | null>[]).entries()) {
      const tijdstip = isoAmsterdam(new Date(r.tijdstip as string));
      expect(regels[i + 1]).toBe(VERBRUIK_CSV_KOP.map((k) => csvVeld(k === 'tijdstip' ? tijdstip : r[k])).join(';'));
    }
    expect(new Set(regels.slice(1).map((r) => r.split(';')[0])).size).toBe(RIJEN);
    expect(regels[8]).toContain(';"Kerkstraat 1, Ons ""Dorp""";');
    expect(regels[9]).toContain(";'=1+1;");
  });

  it("writes times as Amsterdam's local time with its offset, so a row's date is the filter's day; 'Citroën' stays UTF-8", async () => {
    const ander = await aanmelden(t);
    const sleutel = (await trpc(t, 'mutation', 'sleutels.maak', { naam: 'Citroën' }, { sessie: ander })).data.id as string;
    // Ten past midnight in Amsterdam: still the day before in UTC.
    const offset = isoAmsterdam(new Date(`${dag}T12:00:00Z`)).slice(-6);
    const moment = new Date(`${dag}T00:10:00.250${offset}`);
    const vorige = new Date(Date.parse(dag) - 86_400_000).toISOString().slice(0, 10);
    expect(moment.toISOString().slice(0, 10)).toBe(vorige);
    await t.db.prisma.usageRecord.create({
      data: { accountId: ander.accountId, keyId: sleutel, kanaal: 'rest', voorziening: 'woz', status: 200, credits: 1, gefactureerdCent: 5, adres: 'Citroënstraat 1', aangemaaktOp: moment },
    });
    const res = await haal(`van=${dag}&tot=${dag}`, { cookie: ander.cookie });
    expect(res.statusCode).toBe(200);
    const [, regel] = res.body.split('\r\n');
    expect(regel.split(';')[1]).toBe(`${dag}T00:10:00.250${offset}`);
    expect(regel).toContain(';Citroënstraat 1;');
    expect(regel.endsWith(';Citroën')).toBe(true);
    expect((await haal(`van=${vorige}&tot=${vorige}`, { cookie: ander.cookie })).body).toBe(`\ufeff${KOP}\r\n`);
  });

  it("takes the list's filters", async () => {
    const res = await haal(`van=${dag}&tot=${dag}&voorziening=waarde`, { cookie: s.cookie });
    expect(res.statusCode).toBe(200);
    const regels = res.body.trim().split('\r\n').slice(1);
    expect(regels).toHaveLength(Math.floor(RIJEN / 2));
    expect(regels.every((r) => r.split(';')[3] === 'waarde')).toBe(true);
  });

  it('refuses bad filters with the Dutch message of the list, before anything is written', async () => {
    for (const [query, deel] of [
      [`van=${dag}`, 'tot'],
      ['van=2026-02-30&tot=2026-03-01', 'van'],
      [`van=${dag}&tot=${dag}&uitkomst=soms`, 'uitkomst'],
      [`van=${dag}&tot=${dag}&sleutel_id=x`, 'sleutel_id'],
      [`van=${dag}&tot=${dag}&onbekend=1`, 'onbekend'],
      [`van=${dag}&van=${dag}&tot=${dag}`, 'van'],
    ]) {
      const res = await haal(query, { cookie: s.cookie });
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json().fout, query).toContain(deel);
    }
  });

  it('needs a session: none, an expired one or an API key gets 401; another account sees only its own rows', async () => {
    const zonder = await haal(`van=${dag}&tot=${dag}`);
    expect(zonder.statusCode).toBe(401);
    expect(zonder.json().fout).toMatch(/aangemeld/);
    expect((await haal(`van=${dag}&tot=${dag}`, { cookie: 'insight_sessie=verzonnen' })).statusCode).toBe(401);
    const { key } = await t.klant();
    const metSleutel = await haal(`van=${dag}&tot=${dag}`, { authorization: `Bearer ${key}`, cookie: s.cookie });
    expect(metSleutel.statusCode).toBe(401);
    expect(metSleutel.body).not.toContain(key);
    const ander = await aanmelden(t);
    const res = await haal(`van=${dag}&tot=${dag}`, { cookie: ander.cookie });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`\ufeff${KOP}\r\n`);
  });
});
