import path from 'node:path';
import wkx from 'wkx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { VerkeerdFormaatFout } from '../../src/domain/register/import/types.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, type GpkgVbo, gpBlob, maakGpkg, momentopname, rechthoek, tijdelijkeMap } from '../support/hulp.ts';
import { DatabaseSync } from 'node:sqlite';

const X0 = 206000;
const Y0 = 447000;
const pid = (n: number) => `0221100000${String(n).padStart(6, '0')}`;
const vid = (n: number) => `0221010000${String(n).padStart(6, '0')}`;
const nid = (n: number) => `0221200000${String(n).padStart(6, '0')}`;
const vlak = (x0: number, x1: number, y1 = 10) => gpBlob(rechthoek(X0 + x0, Y0, X0 + x1, Y0 + y1));
const punt = (x: number, y = 5) => gpBlob(new wkx.Point(X0 + x, Y0 + y));

/**
 * A street of panden (x in metres from X0):
 *   A B C D : a row of four (0-24); N (24-30) is demolished and must not count
 *   E F     : a pair (40-54)
 *   G + M   : a detached house (80-90) with a non-residential shed M against it (90-95)
 *   H       : a building with three flats and a shop (120-140)
 *   I J     : a pair 0.2 m apart (touching within the 0.3 m tolerance)
 *   K L     : two houses 0.5 m apart (not touching)
 *   Q R     : one verblijfsobject listed in both (bag-light repeats it), its point in Q: kept in Q only
 *   P       : an unreadable geometry
 */
function bouw(bestand: string): void {
  const vbo = (n: number, pand: number | null, x: number, doel = 'woonfunctie', extra: Partial<GpkgVbo> = {}): GpkgVbo => ({
    id: vid(n),
    nad: nid(n),
    huisnummer: n,
    postcode: '6981AB',
    gebruiksdoel: doel,
    pand: pand === null ? null : pid(pand),
    geom: punt(x),
    ...extra,
  });
  maakGpkg(bestand, {
    panden: [
      { id: pid(1), geom: vlak(0, 6), bouwjaar: 1930 },
      { id: pid(2), geom: vlak(6, 12) },
      { id: pid(3), geom: vlak(12, 18) },
      { id: pid(4), geom: vlak(18, 24) },
      { id: pid(14), geom: vlak(24, 30), status: 'Pand gesloopt' },
      { id: pid(5), geom: vlak(40, 47) },
      { id: pid(6), geom: vlak(47, 54) },
      { id: pid(7), geom: vlak(80, 90) },
      { id: pid(13), geom: vlak(90, 95, 5) },
      { id: pid(8), geom: vlak(120, 140, 20) },
      { id: pid(9), geom: vlak(160, 166) },
      { id: pid(10), geom: vlak(166.2, 172) },
      { id: pid(11), geom: vlak(200, 206) },
      { id: pid(12), geom: vlak(206.5, 212) },
      { id: pid(16), geom: vlak(300, 306) },
      { id: pid(17), geom: vlak(306, 312) },
      { id: pid(15), geom: Buffer.from('GP\u0000\u0001onzin') },
    ],
    vbos: [
      vbo(1, 1, 3, 'woonfunctie', { huisletter: 'A', toevoeging: '2', bouwjaar: 1930 }),
      vbo(2, 2, 9),
      vbo(3, 3, 15),
      vbo(4, 4, 21),
      vbo(18, 14, 27, 'woonfunctie', { status: 'Verblijfsobject ingetrokken' }),
      vbo(5, 5, 43),
      vbo(6, 6, 50),
      vbo(7, 7, 85),
      vbo(8, 13, 92, 'overige gebruiksfunctie'),
      vbo(9, 8, 125),
      vbo(10, 8, 130),
      vbo(11, 8, 135, 'woonfunctie,winkelfunctie'),
      vbo(12, 8, 138, 'winkelfunctie'),
      vbo(13, 9, 163),
      vbo(14, 10, 169),
      vbo(15, 11, 203),
      vbo(16, 12, 209),
      vbo(17, 17, 303),
      vbo(17, 16, 303),
      vbo(19, 7, 86, 'woonfunctie', { postcode: 'XX12' }),
      vbo(20, 7, 87, 'woonfunctie', { nad: null }),
      vbo(21, 7, 88, 'woonfunctie', { huisnummer: 'abc' }),
    ],
    ligplaatsen: [{ id: '0221020000000001', nad: nid(30), huisnummer: 30, postcode: '6981AC', geom: vlak(500, 520, 5) }],
    standplaatsen: [{ id: '0221030000000001', nad: nid(31), huisnummer: 31, postcode: '6981AC', geom: vlak(600, 610) }],
  });
}

describe(`bag-gpkg: PDOK bag-light GeoPackage (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  const gpkg = path.join(tmp.pad, 'bag-light.gpkg');
  beforeAll(async () => {
    bouw(gpkg);
  });
  afterAll(async () => {
    tmp.weg();
  });

  it('imports panden, verblijfsobjecten, ligplaatsen and standplaatsen; refuses malformed rows', async () => {
    const s = await voerImportUit(db, 'bag-gpkg', gpkg);
    expect(s.tabellen.pand).toEqual({ ingevoegd: 15, bijgewerkt: 0, ongewijzigd: 0 });
    expect(s.tabellen.adres).toEqual({ ingevoegd: 19, bijgewerkt: 0, ongewijzigd: 0 });
    expect(s.overgeslagen).toEqual({ 'status "Pand gesloopt"': 1, 'status "Verblijfsobject ingetrokken"': 1 });
    expect(s.afgewezen).toBe(4);
    expect(s.redenen.map((r) => r.reden)).toEqual([
      `pand ${pid(15)}: geometrie ontbreekt of is onleesbaar`,
      `verblijfsobject ${vid(19)}: ongeldige postcode "XX12"`,
      `verblijfsobject ${vid(20)}: hoofdadres (nummeraanduiding) ontbreekt`,
      `verblijfsobject ${vid(21)}: ongeldig huisnummer "abc"`,
    ]);
    expect(s.gelezen).toBe(15 + 19 + 4);
    expect(s.peildatum).toBe('2026-10-01');

    const a = await db.prisma.adres.findUniqueOrThrow({ where: { id: nid(1) } });
    expect(a).toMatchObject({
      postcode: '6981AB',
      huisnummer: 1,
      huisletter: 'A',
      toevoeging: '2',
      straat: 'Teststraat',
      woonplaats: 'Doesburg',
      gemeenteCode: '0221',
      gemeente: 'Doesburg', // from the CBS table: BAG light has no names
      objectType: 'verblijfsobject',
      objectId: vid(1),
      pandId: pid(1),
      gebruiksdoelen: ['woonfunctie'],
      bouwjaar: 1930,
      rdX: X0 + 3,
      rdY: Y0 + 5,
      bron: 'PDOK BAG light 2026-10-01',
    });
    expect(a.lat).toBeGreaterThan(52);
    expect((await db.prisma.adres.findUniqueOrThrow({ where: { id: nid(11) } })).gebruiksdoelen).toEqual(['woonfunctie', 'winkelfunctie']);
    expect((await db.prisma.adres.findUniqueOrThrow({ where: { id: nid(17) } })).pandId).toBe(pid(16));
    const lig = await db.prisma.adres.findUniqueOrThrow({ where: { id: nid(30) } });
    expect(lig).toMatchObject({ objectType: 'ligplaats', rdX: X0 + 510, rdY: Y0 + 2.5, oppervlakte: 100, gemeenteCode: '0221' });
    const p = await db.prisma.pand.findUniqueOrThrow({ where: { id: pid(1) } });
    expect(p).toMatchObject({ bouwjaar: 1930, status: 'Pand in gebruik' });
    expect((p.geometrie as { type: string }).type).toBe('Polygon');
    expect(await db.prisma.pand.findUnique({ where: { id: pid(14) } })).toBeNull();
  });

  it('derives the house type from touching residential panden', async () => {
    const typen = Object.fromEntries((await db.prisma.woningtype.findMany()).map((t) => [t.adresId, t.woningtype]));
    expect(typen).toEqual({
      [nid(1)]: 'hoekwoning',
      [nid(2)]: 'tussenwoning',
      [nid(3)]: 'tussenwoning',
      [nid(4)]: 'hoekwoning',
      [nid(5)]: 'twee-onder-een-kap',
      [nid(6)]: 'twee-onder-een-kap',
      [nid(7)]: 'vrijstaand',
      [nid(8)]: 'overig',
      [nid(9)]: 'appartement',
      [nid(10)]: 'appartement',
      [nid(11)]: 'appartement',
      [nid(12)]: 'overig',
      [nid(13)]: 'twee-onder-een-kap',
      [nid(14)]: 'twee-onder-een-kap',
      [nid(15)]: 'vrijstaand',
      [nid(16)]: 'vrijstaand',
      [nid(17)]: 'vrijstaand',
      [nid(30)]: 'overig',
      [nid(31)]: 'overig',
    });
    const uitleg = Object.fromEntries((await db.prisma.woningtype.findMany()).map((t) => [t.adresId, t.afgeleidUit]));
    expect(uitleg[nid(9)]).toBe(`BAG: 3 woonfuncties in pand ${pid(8)}`);
    expect(uitleg[nid(1)]).toBe(`BAG: pand ${pid(1)} raakt alleen woonpand ${pid(2)}, dat 2 woonpanden raakt (eind van een rij)`);
    expect(uitleg[nid(2)]).toBe(`BAG: pand ${pid(2)} raakt 2 woonpanden`);
    expect(uitleg[nid(5)]).toBe(`BAG: pand ${pid(5)} raakt alleen woonpand ${pid(6)}, dat alleen dit pand raakt`);
    expect(uitleg[nid(12)]).toBe('BAG: geen woonfunctie (winkelfunctie)');
  });

  it('a second import changes nothing', async () => {
    const voor = await momentopname(db);
    const s = await voerImportUit(db, 'bag-gpkg', gpkg);
    expect([s.ingevoegd, s.bijgewerkt, s.ongewijzigd]).toEqual([0, 0, 34]);
    expect(s.woningtype).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 19 });
    expect(await momentopname(db)).toEqual(voor);
  });

  it('refuses other inputs with a Dutch message naming bag-light', async () => {
    await expect(voerImportUit(db, 'bag-gpkg', CSV_FULL)).rejects.toThrow(VerkeerdFormaatFout);
    await expect(voerImportUit(db, 'bag-gpkg', CSV_FULL)).rejects.toThrow(/geen GeoPackage.*bag-csv.*Verwacht: PDOK bag-light\.gpkg/);
    const leeg = path.join(tmp.pad, 'ander.gpkg');
    const d = new DatabaseSync(leeg);
    d.exec(`CREATE TABLE gpkg_contents (table_name TEXT, data_type TEXT); CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, srs_id INTEGER);
      CREATE TABLE wegen (fid INTEGER, geom BLOB); INSERT INTO gpkg_contents VALUES ('wegen', 'features'); INSERT INTO gpkg_geometry_columns VALUES ('wegen', 'geom', 28992);`);
    d.close();
    await expect(voerImportUit(db, 'bag-gpkg', leeg)).rejects.toThrow(/GeoPackage, maar niet PDOK bag-light: laag verblijfsobject ontbreekt \(gevonden: wegen\)/);
    const sqlite = path.join(tmp.pad, 'geen.sqlite');
    const e = new DatabaseSync(sqlite);
    e.exec('CREATE TABLE x (a)');
    e.close();
    await expect(voerImportUit(db, 'bag-gpkg', sqlite)).rejects.toThrow(/SQLite-database maar geen GeoPackage/);
  });
});

describe(`bag-gpkg refresh: what a newer file ends is deleted (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());

  it('deletes the address of a VBO now ingetrokken and a pand now gesloopt; a file lacking an object deletes nothing', async () => {
    const v = (n: number, extra: Partial<GpkgVbo> = {}): GpkgVbo => ({ id: vid(n), nad: nid(n), huisnummer: n, postcode: '6981AB', gebruiksdoel: 'woonfunctie', pand: pid(n), geom: punt(n * 10), ...extra });
    const p = (n: number, status?: string) => ({ id: pid(n), geom: vlak(n * 10, n * 10 + 6), ...(status ? { status } : {}) });
    const oud = path.join(tmp.pad, 'oud.gpkg');
    maakGpkg(oud, { panden: [p(1), p(2), p(3)], vbos: [v(1), v(2), v(3)] });
    await voerImportUit(db, 'bag-gpkg', oud);
    expect(await db.prisma.adres.count()).toBe(3);
    const nieuw = path.join(tmp.pad, 'nieuw.gpkg');
    maakGpkg(nieuw, { panden: [p(1), p(2, 'Pand gesloopt')], vbos: [v(1), v(2, { status: 'Verblijfsobject ingetrokken' })] });
    const s = await voerImportUit(db, 'bag-gpkg', nieuw);
    expect(s.verwijderd).toEqual({ adressen: 1, panden: 1 });
    expect((await db.prisma.adres.findMany({ orderBy: { id: 'asc' } })).map((a) => a.id)).toEqual([nid(1), nid(3)]);
    expect((await db.prisma.pand.findMany({ orderBy: { id: 'asc' } })).map((x) => x.id)).toEqual([pid(1), pid(3)]);
    expect(await db.prisma.woningtype.count({ where: { adresId: nid(2) } })).toBe(0);
  });
});

describe(`bag-gpkg: a verblijfsobject in several panden (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());

  it('takes the pand holding its point, else the largest, not the lowest id: a row with back extensions stays a row', async () => {
    // Houses 4, 5, 6 (1930) in a row; each has a narrower back extension (2015) with a lower id (1-3), listed too.
    const aanbouw = (n: number) => ({ id: pid(n), geom: gpBlob(rechthoek(X0 + (n - 1) * 6 + 1, Y0 + 10, X0 + n * 6 - 1, Y0 + 13)), bouwjaar: 2015 });
    const huis = (n: number) => ({ id: pid(n), geom: vlak((n - 4) * 6, (n - 3) * 6), bouwjaar: 1930 });
    const v = (n: number, pand: number, x: number, bouwjaar: number, geom: Buffer | null = punt(x)): GpkgVbo => ({ id: vid(n), nad: nid(n), huisnummer: n, postcode: '6981AB', gebruiksdoel: 'woonfunctie', pand: pid(pand), geom, bouwjaar });
    const gpkg = path.join(tmp.pad, 'aanbouw.gpkg');
    maakGpkg(gpkg, {
      panden: [aanbouw(1), aanbouw(2), aanbouw(3), huis(4), huis(5), huis(6), { id: pid(7), geom: vlak(100, 106) }, { id: pid(8), geom: vlak(106, 120) }],
      vbos: [
        v(4, 1, 3, 2015),
        v(4, 4, 3, 1930),
        v(5, 2, 9, 2015),
        v(5, 5, 9, 1930),
        v(6, 6, 15, 1930),
        v(6, 3, 15, 2015),
        // No point: the larger pand.
        v(7, 7, 0, 1990, null),
        v(7, 8, 0, 1990, null),
      ],
    });
    await voerImportUit(db, 'bag-gpkg', gpkg);
    const adressen = await db.prisma.adres.findMany({ orderBy: { id: 'asc' }, select: { pandId: true, bouwjaar: true } });
    expect(adressen).toEqual([
      { pandId: pid(4), bouwjaar: 1930 },
      { pandId: pid(5), bouwjaar: 1930 },
      { pandId: pid(6), bouwjaar: 1930 },
      { pandId: pid(8), bouwjaar: 1990 },
    ]);
    const typen = Object.fromEntries((await db.prisma.woningtype.findMany()).map((t) => [t.adresId, t.woningtype]));
    expect([typen[nid(4)], typen[nid(5)], typen[nid(6)]]).toEqual(['hoekwoning', 'tussenwoning', 'hoekwoning']);
  });
});
