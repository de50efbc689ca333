
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { useCliDatabase } from './support/cli.ts';
import { dialect, } from './support/db.ts';
import { lookup } from './support/http.ts';
import { maakAdres } from './support/register.ts';
import { demoPlaatsAanwezig, zorgVoorDemoPlaats } from '../src/seed.ts';
import { DEMO_ADRESSEN, DEMO_BRON, generateDemoDataset, type DemoDataset } from '../src/domain/register/demo/index.ts';
import { AFGELEID_BRON, leidWoningtypenAf } from '../src/domain/register/woningtype.ts';
import { leidAdresInvloedenAf } from '../src/domain/register/import/invloeden-na.ts';

/**
 * Issue 26: the demo town is in every register, production included, and neither part colours the
 * other. The real address here stands on a demo house's spot, in a building with the demo house's
 * footprint, so every derivation that let the parts meet would show it.
 */
describe(`the demo town beside real data (${dialect})`, () => {
  let t: TestApp;
  let ds: DemoDataset;
  let echt: Awaited<ReturnType<typeof maakAdres>>;
  const geval = (g: string) => DEMO_ADRESSEN.find((a) => a.geval === g)!;
  const body = (a: { postcode: string; huisnummer: number }) => ({ adres: { postcode: a.postcode, huisnummer: String(a.huisnummer) } });

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_REST_PER_MIN: '1000' });
    t.clock.now = new Date();
    ds = await generateDemoDataset(1);
    const plek = geval('natura2000-rood');
    const demoHuis = ds.adres.find((a) => a.postcode === plek.postcode && a.huisnummer === plek.huisnummer)!;
    const demoPand = ds.pand.find((p) => p.id === demoHuis.pand_id)!;
    echt = await maakAdres(t.db.prisma, { lat: demoHuis.lat as number, lon: demoHuis.lon as number });
    await t.db.prisma.pand.create({ data: { id: echt.pandId!, bouwjaar: 1975, geometrie: demoPand.geometrie as object, bron: 'testdata' } });
  }, 300_000);
  afterAll(async () => t?.close());

  it('DEMO_PLAATS=false leaves the town out; by default it is loaded beside real data, which stays as it was', async () => {
    await zorgVoorDemoPlaats(t.services.log, { ...t.services.config, DEMO_PLAATS: false }, t.db);
    expect(await demoPlaatsAanwezig(t.db)).toBe(false);
    expect(await t.db.prisma.adres.count()).toBe(1);

    await zorgVoorDemoPlaats(t.services.log, { ...t.services.config, DEMO_PLAATS: true }, t.db);
    expect(await demoPlaatsAanwezig(t.db)).toBe(true);
    expect(await t.db.prisma.adres.count({ where: { bron: DEMO_BRON } })).toBe(ds.adres.length);
    expect(await t.db.prisma.adres.findUnique({ where: { id: echt.id } })).toEqual(echt);
    // A second start loads nothing again.
    await zorgVoorDemoPlaats(t.services.log, t.services.config, t.db);
    expect(await t.db.prisma.adres.count()).toBe(ds.adres.length + 1);
  }, 300_000);

  it('house type: a demo building never touches a real one, and the demo keeps its own types', async () => {
    await leidWoningtypenAf(t.db);
    expect(await t.db.prisma.woningtype.findUnique({ where: { adresId: echt.id } })).toMatchObject({ woningtype: 'vrijstaand', bron: AFGELEID_BRON });
    expect(await t.db.prisma.woningtype.count({ where: { bron: DEMO_BRON } })).toBe(ds.woningtype.length);
    expect(await t.db.prisma.woningtype.count()).toBe(ds.woningtype.length + 1);
  }, 120_000);

  it("influences: the demo's fictional objects never reach a real address; the demo keeps its rows", async () => {
    await leidAdresInvloedenAf(t.db, { alles: true });
    expect(await t.db.prisma.adresInvloed.findMany({ where: { adresId: echt.id } })).toEqual([]);
    expect(await t.db.prisma.adresInvloed.count({ where: { bron: DEMO_BRON } })).toBe(ds.adres_invloed.length);
    const r = await lookup(t, 'invloeden', (await t.klant(100)).key, body(geval('natura2000-rood')));
    expect(r.statusCode, r.body).toBe(200);
  }, 120_000);

  it('valuation: each part learns only from its own sales; test and live keys each see their part', async () => {
    // A real CBS index for months the demo's own index also has: each part keeps its own.
    await t.db.prisma.prijsindex.createMany({
      data: ['2024-01-01', '2024-02-01'].map((p, i) => ({ tabel: '83906NED', regio: 'NL', periode: new Date(p), index: 100 + i, bron: 'CBS StatLine 83906NED' })),
    });
    const demoVerkopen = ds.verkoop.filter((v) => v.lat !== null && v.lon !== null).length;
    const demo = await t.services.waardemodel.model('demo');
    const register = await t.services.waardemodel.model('register');
    expect(demo.info).toMatchObject({ verkopen: demoVerkopen, indexBron: `CBS 83906NED (${DEMO_BRON})` });
    expect(register.info).toMatchObject({ verkopen: 0, indexBron: 'CBS 83906NED (CBS StatLine 83906NED)' });
    expect(await t.db.prisma.prijsindex.count({ where: { bron: DEMO_BRON } })).toBe(ds.prijsindex.length);

    const acc = await t.account(1000);
    const live = await t.key(acc.id);
    const test = await t.key(acc.id, { modus: 'test' });
    // The real address has no real sales around it: no number from the demo's sales next door.
    const opEcht = await lookup(t, 'waarde', live, body(echt));
    expect(opEcht.statusCode, opEcht.body).toBe(422);
    expect(opEcht.json().data).toBeUndefined();
    const opDemo = await lookup(t, 'waarde', test, body(geval('waardering')));
    expect(opDemo.statusCode, opDemo.body).toBe(200);
    expect(opDemo.json().meta).toMatchObject({ gefactureerd_cent: 0, test: true });
    expect((await lookup(t, 'waarde', test, body(echt))).statusCode).toBe(404);
  }, 300_000);
});

describe(`insight demoplaats (${dialect})`, { timeout: 300_000 }, () => {
  const { insight } = useCliDatabase('demoplaats');

  it('loads the town and removes every row of it again; a wrong action is a Dutch error', async () => {
    expect(await insight('demoplaats', 'laden')).toEqual({ geladen: true });
    const { verwijderd } = await insight('demoplaats', 'verwijderen');
    expect(verwijderd).toBeGreaterThan(20_000);
    expect(await insight('demoplaats', 'verwijderen')).toEqual({ verwijderd: 0 });
    await expect(insight('demoplaats', 'weg')).rejects.toMatchObject({ stderr: expect.stringMatching(/onbekende actie 'weg': kies laden of verwijderen/) });
  });
});
