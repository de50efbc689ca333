import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { VerkeerdFormaatFout } from '../../src/domain/register/import/types.ts';
import { createTestDatabase, dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, XML_MAP, fixtureBestanden, maakZip, momentopname, schrijf, tijdelijkeMap } from '../support/hulp.ts';

interface GeoFeature {
  properties: Record<string, unknown>;
  geometry: { type: string; coordinates: unknown };
}

const gdal = (f: string) => (JSON.parse(readFileSync(path.join(XML_MAP, f), 'utf8')) as { features: GeoFeature[] }).features;

/** The five addresses of the Doesburg sample that have a postcode in their current NUM voorkomen. */
const VERWACHT = [
  ['0221200000330151', '6982CZ', 2, 'Koppenberch', 'ligplaats', '0221020000330152'],
  ['0221200000330153', '6982CZ', 20, 'Koppenberch', 'ligplaats', '0221020000330154'],
  ['0221200000330171', '6981ED', 1, 'Het Hoornwerck', 'standplaats', '0221030000330172'],
  ['0221200000330173', '6981ED', 4, 'Het Hoornwerck', 'standplaats', '0221030000330174'],
  ['0221200000330227', '6981CH', 4, 'Kosterstraat', 'verblijfsobject', '0221010000330226'],
];

describe(`bag-xml: LVBAG 2.0 extract, Doesburg sample (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(async () => {
    tmp.weg();
  });

  it('imports the current voorkomens of the folder, joined NUM -> OPR -> WPL -> GEM and VBO -> PND', async () => {
    const s = await voerImportUit(db, 'bag-xml', XML_MAP);
    expect(s.peildatum).toBe('2020-09-15');
    expect(s.tabellen.adres).toEqual({ ingevoegd: 5, bijgewerkt: 0, ongewijzigd: 0 });
    expect(s.tabellen.pand).toEqual({ ingevoegd: 2, bijgewerkt: 0, ongewijzigd: 0 });
    // 4 historic VBO voorkomens, 4 PND, 6 NUM (two ids have two voorkomens without end: the later one wins, not counted here)
    expect(s.overgeslagen['historische voorkomens']).toBe(14);
    // The hoofd- and nevenadressen of VBO 0221010000330999 have no postcode in their current voorkomen.
    expect(s.afgewezen).toBe(3);
    expect(s.redenen.map((r) => r.reden)).toEqual([
      '0221VBO15092020-000001.xml: verblijfsobject 0221010000330999, hoofdadres 0221200000330229: nummeraanduiding heeft geen postcode',
      '0221VBO15092020-000001.xml: verblijfsobject 0221010000330999, nevenadres 0221200000330998: nummeraanduiding heeft geen postcode',
      '0221VBO15092020-000001.xml: verblijfsobject 0221010000330999, nevenadres 0221200000330999: nummeraanduiding heeft geen postcode',
    ]);
    expect(s.redenen[0].regel).toBeGreaterThan(150);

    const adressen = await db.prisma.adres.findMany({ orderBy: { id: 'asc' } });
    expect(adressen.map((a) => [a.id, a.postcode, a.huisnummer, a.straat, a.objectType, a.objectId])).toEqual(VERWACHT);
    for (const a of adressen) {
      expect(a).toMatchObject({ woonplaats: 'Doesburg', gemeente: 'Doesburg', gemeenteCode: '0221', bron: 'BAG 2.0 Extract 2020-09-15' });
      expect(a.bronDatum?.toISOString().slice(0, 10)).toBe('2020-09-15');
    }
    const vbo = adressen.find((a) => a.id === '0221200000330227')!;
    // Current VBO voorkomen (4): status, oppervlakte; bouwjaar from the current PND voorkomen.
    expect(vbo).toMatchObject({
      status: 'Verbouwing verblijfsobject',
      oppervlakte: 223,
      gebruiksdoelen: ['woonfunctie'],
      pandId: '0221100000312938',
      bouwjaar: 1585,
      rdX: 206335.699,
      rdY: 447529.842,
    });
    // WGS84 as GDAL's LVBAG driver computed it (same towgs84 parameters): equal to ~1 cm.
    const g = gdal('VBO.gdal-lvbag.geojson').find((f) => f.properties.identificatie === '0221010000330226')!;
    const [lon, lat] = g.geometry.coordinates as number[];
    expect(Math.abs(vbo.lon! - lon)).toBeLessThan(2e-7);
    expect(Math.abs(vbo.lat! - lat)).toBeLessThan(2e-7);
    // A standplaats: centroid of its polygon, area as oppervlakte.
    const sta = adressen.find((a) => a.id === '0221200000330173')!;
    expect(sta.rdX).toBeCloseTo(206280.748, 2);
    expect(sta.oppervlakte).toBe(160);
    expect(sta.gebruiksdoelen ?? []).toEqual([]); // NULL in the database; Prisma shows a list
  });

  it('stores pand footprints as GeoJSON in WGS84, equal to GDAL up to rounding', async () => {
    const panden = await db.prisma.pand.findMany({ orderBy: { id: 'asc' } });
    expect(panden.map((p) => [p.id, p.bouwjaar, p.status])).toEqual([
      ['0221100000311191', 1992, 'Pand in gebruik'],
      ['0221100000312938', 1585, 'Pand in gebruik'],
    ]);
    for (const p of panden) {
      const huidig = gdal('PND.gdal-lvbag.geojson').find((f) => f.properties.identificatie === p.id && !f.properties.eindGeldigheid)!;
      const ons = p.geometrie as { type: string; coordinates: number[][][] };
      expect(ons.type).toBe('Polygon');
      const ref = huidig.geometry.coordinates as number[][][];
      expect(ons.coordinates[0]).toHaveLength(ref[0].length);
      ons.coordinates[0].forEach(([x, y], i) => {
        expect(Math.abs(x - ref[0][i][0])).toBeLessThan(2e-7);
        expect(Math.abs(y - ref[0][i][1])).toBeLessThan(2e-7);
      });
    }
  });

  it('derives house types afterwards: the only residential pand is detached, plaatsen are overig', async () => {
    const typen = await db.prisma.woningtype.findMany({ orderBy: { adresId: 'asc' } });
    expect(typen.map((t) => [t.adresId, t.woningtype])).toEqual([
      ['0221200000330151', 'overig'],
      ['0221200000330153', 'overig'],
      ['0221200000330171', 'overig'],
      ['0221200000330173', 'overig'],
      ['0221200000330227', 'vrijstaand'],
    ]);
    expect(typen[4]).toMatchObject({ bron: 'BAG-afleiding', afgeleidUit: 'BAG: pand 0221100000312938 raakt geen ander woonpand' });
  });

  it('a second import of the same extract changes nothing', async () => {
    const voor = await momentopname(db);
    const s = await voerImportUit(db, 'bag-xml', XML_MAP);
    expect([s.ingevoegd, s.bijgewerkt]).toEqual([0, 0]);
    expect(s.ongewijzigd).toBe(7);
    expect(s.woningtype).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 5 });
    expect(await momentopname(db)).toEqual(voor);
  });

  it('reads the national layout: zips in a zip, with GEM-WPL-RELATIE; skips the Inactief part', async () => {
    const f = fixtureBestanden();
    const innerZip = (type: string) => maakZip({ [`0221${type}15092020-000001.xml`]: f[`0221${type}15092020-000001.xml`] });
    // An "Inactief" part that would add an address if it were read.
    const inactief = maakZip({
      '0221IAVBO15092020-000001.xml': f['0221VBO15092020-000001.xml'].toString('utf8').replaceAll('0221200000330227', '0221200000399999'),
    });
    const buiten = maakZip({
      'Leveringsdocument-BAG-Extract.xml': f['Leveringsdocument-BAG-Extract.xml'],
      'GEM-WPL-RELATIE-15092020.zip': f['GEM-WPL-RELATIE-15092020.zip'],
      ...Object.fromEntries(['LIG', 'NUM', 'OPR', 'PND', 'STA', 'VBO', 'WPL'].map((t) => [`0221${t}15092020.zip`, innerZip(t)])),
      '0221Inactief15092020.zip': inactief,
    });
    const zip = schrijf(path.join(tmp.pad, 'BAGGEM0221L-15092020.zip'), buiten);
    const voor = await momentopname(db);
    const s = await voerImportUit(db, 'bag-xml', zip);
    expect(s.tabellen.adres).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 5 });
    expect(s.afgewezen).toBe(3);
    expect(await momentopname(db)).toEqual(voor);
    const run = await db.prisma.importRun.findUniqueOrThrow({ where: { id: s.importRunId } });
    expect(run.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports malformed objects and skips them; the rest is written', async () => {
    const map = path.join(tmp.pad, 'kapot');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      let t = inhoud;
      if (naam.includes('NUM')) {
        // Kosterstraat 4: huisnummer "vier".
        t = Buffer.from(inhoud.toString('utf8').replace('<Objecten:huisnummer>4</Objecten:huisnummer>\n                    <Objecten:postcode>6981CH', '<Objecten:huisnummer>vier</Objecten:huisnummer>\n                    <Objecten:postcode>6981CH'));
      }
      if (naam.includes('LIG')) {
        // The first ligplaats: an unreadable polygon.
        t = Buffer.from(inhoud.toString('utf8').replace('207429.775 446266.916 207447.071', '207429.775 446266.916 abc'));
      }
      writeFileSync(path.join(map, naam), t);
    }
    const db2 = await createTestDatabase();
    try {
      const s = await voerImportUit(db2, 'bag-xml', map);
      const redenen = s.redenen.map((r) => r.reden);
      expect(redenen).toContain('0221VBO15092020-000001.xml: verblijfsobject 0221010000330226, hoofdadres 0221200000330227: ongeldig huisnummer "vier"');
      expect(redenen.some((r) => r.startsWith('0221LIG15092020-000001.xml: LIG 0221020000330152: ongeldige geometrie'))).toBe(true);
      expect(s.afgewezen).toBe(5);
      const ids = (await db2.prisma.adres.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
      expect(ids).toEqual(['0221200000330153', '0221200000330171', '0221200000330173']);
      expect(await db2.prisma.pand.count()).toBe(2);
    } finally {
      await db2.close();
    }
  });

  it('nevenadressen become addresses of their verblijfsobject', async () => {
    // In the sample the current voorkomen of nevenadres 0221200000330998 has no postcode; give it one.
    const map = path.join(tmp.pad, 'neven');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      let t = inhoud;
      if (naam.includes('NUM')) {
        const tekst = inhoud.toString('utf8');
        const plek = '<Objecten:huisletter>x</Objecten:huisletter>\n                    <Objecten:typeAdresseerbaarObject>Verblijfsobject';
        expect(tekst.split(plek)).toHaveLength(2);
        t = Buffer.from(tekst.replace(plek, '<Objecten:huisletter>x</Objecten:huisletter>\n                    <Objecten:postcode>6981EA</Objecten:postcode>\n                    <Objecten:typeAdresseerbaarObject>Verblijfsobject'));
      }
      writeFileSync(path.join(map, naam), t);
    }
    const db2 = await createTestDatabase();
    try {
      const s = await voerImportUit(db2, 'bag-xml', map);
      expect(s.afgewezen).toBe(2);
      expect(await db2.prisma.adres.findUniqueOrThrow({ where: { id: '0221200000330998' } })).toMatchObject({
        postcode: '6981EA',
        huisnummer: 9,
        huisletter: 'x',
        straat: 'Schout bij Nacht Doormansingel',
        objectType: 'verblijfsobject',
        objectId: '0221010000330999',
        pandId: '0221100000311191',
        bouwjaar: 1992,
        gebruiksdoelen: ['overige gebruiksfunctie'],
        rdX: 206289.487,
      });
      expect(await db2.prisma.woningtype.findUniqueOrThrow({ where: { adresId: '0221200000330998' } })).toMatchObject({ woningtype: 'overig' });
    } finally {
      await db2.close();
    }
  });

  it('a verblijfsobject in two panden takes the one whose footprint holds its point, not the lowest id', async () => {
    // Kosterstraat 4 (point 206335.699 447529.842 inside pand 0221100000312938, bouwjaar 1585) also in pand ...311191 (1992).
    const map = path.join(tmp.pad, 'twee-panden');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      let t = inhoud;
      if (naam.startsWith('0221VBO')) {
        const ref = '<Objecten-ref:PandRef domein="NL.IMBAG.Pand">0221100000312938</Objecten-ref:PandRef>';
        const delen = inhoud.toString('utf8').split(ref);
        expect(delen).toHaveLength(5);
        // The last is in the current voorkomen (4, from 2019-11-19).
        delen[4] = `<Objecten-ref:PandRef domein="NL.IMBAG.Pand">0221100000311191</Objecten-ref:PandRef>${delen[4]}`;
        t = Buffer.from(delen.join(ref));
      }
      writeFileSync(path.join(map, naam), t);
    }
    const db2 = await createTestDatabase();
    try {
      await voerImportUit(db2, 'bag-xml', map);
      expect(await db2.prisma.adres.findUniqueOrThrow({ where: { id: '0221200000330227' } })).toMatchObject({ pandId: '0221100000312938', bouwjaar: 1585 });
    } finally {
      await db2.close();
    }
  });

  it('a damaged XML file stops the import before anything is written', async () => {
    const map = path.join(tmp.pad, 'afgekapt');
    mkdirSync(map);
    for (const [naam, inhoud] of Object.entries(fixtureBestanden())) {
      writeFileSync(path.join(map, naam), naam.includes('PND') ? inhoud.subarray(0, 5000) : inhoud);
    }
    const db2 = await createTestDatabase();
    try {
      await expect(voerImportUit(db2, 'bag-xml', map)).rejects.toThrow(/XML-fout in 0221PND15092020-000001\.xml.*er is niets geschreven/);
      expect(await db2.prisma.adres.count()).toBe(0);
      expect(await db2.prisma.pand.count()).toBe(0);
      const run = await db2.prisma.importRun.findFirstOrThrow();
      expect(run.klaarOp).toBeNull();
      expect((run.samenvatting as { fout: string }).fout).toMatch(/XML-fout/);
    } finally {
      await db2.close();
    }
  });

  it('refuses other kinds of input early, naming the expected format', async () => {
    const runs = await db.prisma.importRun.count();
    await expect(voerImportUit(db, 'bag-xml', CSV_FULL)).rejects.toThrow(VerkeerdFormaatFout);
    await expect(voerImportUit(db, 'bag-xml', CSV_FULL)).rejects.toThrow(/geen LVBAG-extract.*bag-csv.*Verwacht: een LVBAG 2\.0-extract/);
    await expect(voerImportUit(db, 'bag-xml', path.join(XML_MAP, '0221VBO15092020-000001.xml'))).rejects.toThrow(/niet één los bestand/);
    const zonder = schrijf(path.join(tmp.pad, 'csv.zip'), maakZip({ 'bagadres-full.csv': readFileSync(CSV_FULL) }));
    await expect(voerImportUit(db, 'bag-xml', zonder)).rejects.toThrow(/bevat geen NUM- en VBO\/LIG\/STA-bestanden.*bagadres-full\.csv/);
    const mutatie = schrijf(
      path.join(tmp.pad, 'mut.zip'),
      maakZip({
        '9999NUM08012021-000001.xml': '<?xml version="1.0"?><ml:bagMutaties xmlns:ml="x"></ml:bagMutaties>',
        '9999VBO08012021-000001.xml': '<?xml version="1.0"?><ml:bagMutaties xmlns:ml="x"></ml:bagMutaties>',
      }),
    );
    await expect(voerImportUit(db, 'bag-xml', mutatie)).rejects.toThrow(/hoofdelement bagMutaties\), geen BAG 2\.0-standlevering/);
    expect(await db.prisma.importRun.count()).toBe(runs);
  });
});
