/**
 * A BAG refresh: a newer extract removes what the BAG ended or no longer holds, an older one rolls nothing
 * back (review findings H2 and M1). Built from the Doesburg sample with its date moved on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samenvattingTekst, voerImportUit } from '../../src/domain/register/import/runner.ts';
import { DEMO_BRON } from '../../src/domain/register/demo/opzet.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { XML_MAP, fixtureBestanden, tijdelijkeMap } from '../support/hulp.ts';

const KOSTERSTRAAT_4 = '0221200000330227'; // VBO 0221010000330226
const LIGPLAATS_20 = '0221200000330153'; // LIG 0221020000330154
const GESLOOPT_PAND = '0221100000311191';

const NLD =
  '<selecties-extract:Gebied-Registratief><selecties-extract:Gebied-NLD><selecties-extract:GebiedIdentificatie>NLD</selecties-extract:GebiedIdentificatie></selecties-extract:Gebied-NLD></selecties-extract:Gebied-Registratief>';

describe(`bag-xml refresh: ended and vanished objects, older extracts (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());
  let n = 0;

  /** The sample as of `datum`, each file changed by `wijzig`. */
  const extract = (datum: string, wijzig: (naam: string, t: string) => string = (_n, t) => t) => {
    const map = path.join(tmp.pad, `extract-${n++}`);
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      if (naam.endsWith('.zip') || naam.endsWith('.geojson')) writeFileSync(path.join(map, naam), inhoud);
      else writeFileSync(path.join(map, naam), wijzig(naam, inhoud.toString('utf8').replaceAll('StandTechnischeDatum>2020-09-15<', `StandTechnischeDatum>${datum}<`)));
    }
    return map;
  };
  const vreemd = (id: string, bron: string, gemeenteCode: string) =>
    db.prisma.adres.create({
      data: { id, postcode: '1011AB', huisnummer: 1, straat: 'Elders', woonplaats: 'Amsterdam', gemeenteCode, objectType: 'verblijfsobject', objectId: `${id}v`, bron, bronDatum: new Date('2020-01-01') },
    });
  const ids = async () => (await db.prisma.adres.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);

  it('a newer extract deletes the address of a withdrawn VBO and of a vanished ligplaats, and a demolished pand', async () => {
    await voerImportUit(db, 'bag-xml', XML_MAP);
    await vreemd('0363200000000001', 'BAG 2.0 Extract 2020-09-15', '0363'); // outside the extract's gemeente
    await db.prisma.wozWaarde.create({ data: { adresId: KOSTERSTRAAT_4, peildatum: new Date('2020-01-01'), waarde: 300000, bron: 'test' } });
    await db.prisma.adresInvloed.create({ data: { adresId: KOSTERSTRAAT_4, type: 'natura2000', indicator: 'groen', afstandM: 900, omschrijving: 'x', bron: 'test' } });
    expect(await db.prisma.woningtype.count({ where: { adresId: { in: [KOSTERSTRAAT_4, LIGPLAATS_20] } } })).toBe(2);

    const nieuw = extract('2021-03-01', (naam, t) => {
      if (naam.includes('VBO')) return t.replace('<Objecten:status>Verbouwing verblijfsobject</Objecten:status>', '<Objecten:status>Verblijfsobject ingetrokken</Objecten:status>');
      if (naam.includes('LIG')) return t.replace(/<sl-bag-extract:bagObject>(?:(?!<\/sl-bag-extract:bagObject>)[\s\S])*0221020000330154[\s\S]*?<\/sl-bag-extract:bagObject>/, '');
      if (naam.includes('PND')) {
        const i = t.lastIndexOf('<Objecten:status>Pand in gebruik</Objecten:status>');
        return `${t.slice(0, i)}<Objecten:status>Pand gesloopt</Objecten:status>${t.slice(i + '<Objecten:status>Pand in gebruik</Objecten:status>'.length)}`;
      }
      return t;
    });
    const s = await voerImportUit(db, 'bag-xml', nieuw);
    expect(s.verwijderd).toEqual({ adressen: 2, ingetrokken: 1, nietInExtract: 1, panden: 1 });
    expect(s.gebied).toEqual(['0221']);
    expect(samenvattingTekst(s)).toContain('\n  verwijderd: adressen 2, ingetrokken 1, nietInExtract 1, panden 1\n');
    expect(await ids()).toEqual(['0221200000330151', '0221200000330171', '0221200000330173', '0363200000000001']);
    expect(await db.prisma.pand.findUnique({ where: { id: GESLOOPT_PAND } })).toBeNull();
    // Derived rows go with the address; the WOZ value stays (the valuation reads WOZ per sale).
    expect(await db.prisma.woningtype.count({ where: { adresId: { in: [KOSTERSTRAAT_4, LIGPLAATS_20] } } })).toBe(0);
    expect(await db.prisma.adresInvloed.count({ where: { adresId: KOSTERSTRAAT_4 } })).toBe(0);
    expect(await db.prisma.wozWaarde.count({ where: { adresId: KOSTERSTRAAT_4 } })).toBe(1);
    const a = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0221200000330151' } });
    expect([a.bron, a.bronDatum?.toISOString().slice(0, 10)]).toEqual(['BAG 2.0 Extract 2021-03-01', '2021-03-01']);
  });

  it('an older extract afterwards changes no row of the newer one and counts them', async () => {
    const voor = await db.prisma.adres.findMany({ where: { id: { in: ['0221200000330151', '0221200000330171', '0221200000330173'] } }, orderBy: { id: 'asc' } });
    const panden = await db.prisma.pand.findMany({ orderBy: { id: 'asc' } });
    const s = await voerImportUit(db, 'bag-xml', XML_MAP);
    expect(s.ouderDanBestaand).toBe(3);
    expect(samenvattingTekst(s)).toContain('\n  ouder dan bestaand (behouden): 3\n');
    expect(s.verwijderd).toEqual({ adressen: 0, ingetrokken: 0, nietInExtract: 0, panden: 0 });
    expect(await db.prisma.adres.findMany({ where: { id: { in: voor.map((a) => a.id) } }, orderBy: { id: 'asc' } })).toEqual(voor);
    expect((await db.prisma.pand.findMany({ where: { id: { in: panden.map((p) => p.id) } }, orderBy: { id: 'asc' } })).map((p) => p.bron)).toEqual(panden.map((p) => p.bron));
  });

  it('a national extract (Gebied-NLD) also deletes BAG-extract rows elsewhere that it lacks, never rows of other sources', async () => {
    await vreemd('0363200000000002', 'NLExtract bagadres-full', '0363');
    await vreemd('0363200000000003', DEMO_BRON, '0363');
    const land = extract('2021-06-01', (naam, t) => (naam.startsWith('Leveringsdocument') ? t.replace(/<selecties-extract:Gebied-Registratief>[\s\S]*<\/selecties-extract:Gebied-Registratief>/, NLD) : t));
    const s = await voerImportUit(db, 'bag-xml', land);
    expect(s.gebied).toBe('NLD');
    expect(s.verwijderd).toMatchObject({ nietInExtract: 1 });
    const over = await ids();
    expect(over).not.toContain('0363200000000001');
    expect(over).toEqual(expect.arrayContaining(['0363200000000002', '0363200000000003', '0221200000330151']));
  });

  it('an extract that fails to read deletes nothing', async () => {
    const voor = await ids();
    // Every ligplaats gone, and the last file read cut off.
    const kapot = extract('2022-01-01', (naam, t) =>
      naam.includes('WPL') ? t.slice(0, 3000) : naam.includes('LIG') ? t.replace(/<sl-bag-extract:bagObject>[\s\S]*?<\/sl-bag-extract:bagObject>/g, '') : t,
    );
    await expect(voerImportUit(db, 'bag-xml', kapot)).rejects.toThrow(/XML-fout/);
    expect(await ids()).toEqual(voor);
  });
});
