/**
 * Helpers for the register import tests: a minimal zip writer (deflate, for zips and zips in zips),
 * a GeoPackage builder on node:sqlite with "GP"+WKB geometry blobs, and table snapshots to prove that
 * a second import changes nothing.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { crc32, deflateRawSync } from 'node:zlib';
import wkx from 'wkx';
import type { Database } from '../../src/db/client.ts';

import { FIXTURES } from './gedeeld.ts';
export { FIXTURES };
export const XML_MAP = path.join(FIXTURES, 'bag-lvbag-xml-doesburg');
export const CSV_FULL = path.join(FIXTURES, 'bag-nlextract-csv/bagadres-full.csv');
export const CSV_PLUS = path.join(FIXTURES, 'bag-nlextract-csv/bagadresplus.csv');
export const CSV_KORT = path.join(FIXTURES, 'bag-nlextract-csv/bagadres.csv');
export const CBS_CSV = path.join(FIXTURES, 'cbs-83906NED/83906NED_UntypedDataSet_05022022_160508.csv');

export function tijdelijkeMap(prefix = 'insight-test-'): { pad: string; weg: () => void } {
  const pad = mkdtempSync(path.join(tmpdir(), prefix));
  return { pad, weg: () => rmSync(pad, { recursive: true, force: true }) };
}

/** A zip file (deflated entries) from name -> content. */
export function maakZip(entries: Record<string, Buffer | string>): Buffer {
  const lokaal: Buffer[] = [];
  const centraal: Buffer[] = [];
  let offset = 0;
  for (const [naam, inhoud] of Object.entries(entries)) {
    const data = Buffer.isBuffer(inhoud) ? inhoud : Buffer.from(inhoud, 'utf8');
    const comp = deflateRawSync(data);
    const naamBuf = Buffer.from(naam, 'utf8');
    const crc = crc32(data);
    const kop = Buffer.alloc(30);
    kop.writeUInt32LE(0x04034b50, 0);
    kop.writeUInt16LE(20, 4);
    kop.writeUInt16LE(0x0800, 6); // UTF-8 names
    kop.writeUInt16LE(8, 8); // deflate
    kop.writeUInt32LE(0, 10);
    kop.writeUInt32LE(crc, 14);
    kop.writeUInt32LE(comp.length, 18);
    kop.writeUInt32LE(data.length, 22);
    kop.writeUInt16LE(naamBuf.length, 26);
    kop.writeUInt16LE(0, 28);
    lokaal.push(kop, naamBuf, comp);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(0, 12);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(comp.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(naamBuf.length, 28);
    c.writeUInt32LE(offset, 42);
    centraal.push(c, naamBuf);
    offset += 30 + naamBuf.length + comp.length;
  }
  const cd = Buffer.concat(centraal);
  const eind = Buffer.alloc(22);
  eind.writeUInt32LE(0x06054b50, 0);
  eind.writeUInt16LE(Object.keys(entries).length, 8);
  eind.writeUInt16LE(Object.keys(entries).length, 10);
  eind.writeUInt32LE(cd.length, 12);
  eind.writeUInt32LE(offset, 16);
  return Buffer.concat([...lokaal, cd, eind]);
}

/** The fixture's files as name -> bytes. */
export function fixtureBestanden(map = XML_MAP): Record<string, Buffer> {
  const uit: Record<string, Buffer> = {};
  for (const f of readdirSync(map)) uit[f] = readFileSync(path.join(map, f));
  return uit;
}

/** Every row of the register tables, ordered, for before/after comparisons. */
export async function momentopname(db: Database): Promise<Record<string, unknown[]>> {
  const uit: Record<string, unknown[]> = {};
  for (const [t, orde] of [
    ['adres', 'id'],
    ['pand', 'id'],
    ['woningtype', 'adres_id'],
  ] as const) {
    uit[t] = (await db.prisma.$queryRawUnsafe(`SELECT * FROM ${t} ORDER BY ${orde}`)) as unknown[];
  }
  return uit;
}

// ------------------------------------------------------------------------------------------ GeoPackage

/** "GP" header (version 0, little endian, no envelope, srs 28992) + WKB. */
export function gpBlob(geom: wkx.Geometry, srs = 28992): Buffer {
  const kop = Buffer.alloc(8);
  kop.write('GP', 0, 'latin1');
  kop.writeUInt8(0, 2);
  kop.writeUInt8(0b00000001, 3);
  kop.writeInt32LE(srs, 4);
  return Buffer.concat([kop, geom.toWkb()]);
}

export function rechthoek(x0: number, y0: number, x1: number, y1: number): wkx.Polygon {
  const p = (x: number, y: number) => new wkx.Point(x, y);
  return new wkx.Polygon([p(x0, y0), p(x1, y0), p(x1, y1), p(x0, y1), p(x0, y0)]);
}

export interface GpkgPand {
  id: string;
  geom: Buffer | null;
  bouwjaar?: number;
  status?: string;
}

export interface GpkgVbo {
  id: string;
  nad: string | null;
  straat?: string;
  huisnummer: number | string;
  huisletter?: string | null;
  toevoeging?: string | null;
  postcode: string;
  woonplaats?: string;
  gebruiksdoel: string;
  oppervlakte?: number;
  status?: string;
  pand: string | null;
  bouwjaar?: number;
  geom: Buffer | null;
}

export interface GpkgPlaats {
  id: string;
  nad: string;
  huisnummer: number;
  postcode: string;
  geom: Buffer;
}

/** A bag-light-like GeoPackage (the layers and columns PDOK's bag-light has). */
export function maakGpkg(
  bestand: string,
  inhoud: { panden: GpkgPand[]; vbos: GpkgVbo[]; ligplaatsen?: GpkgPlaats[]; standplaatsen?: GpkgPlaats[] },
): void {
  const db = new DatabaseSync(bestand);
  db.exec(`
    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
      organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    INSERT INTO gpkg_spatial_ref_sys VALUES ('Amersfoort / RD New', 28992, 'EPSG', 28992, 'PROJCS["Amersfoort / RD New"]', NULL);
    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '',
      last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL,
      z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
    CREATE TABLE pand (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, identificatie TEXT, bouwjaar INTEGER, status TEXT, gebruiksdoel TEXT,
      oppervlakte_min INTEGER, oppervlakte_max INTEGER, aantal_verblijfsobjecten INTEGER);
    CREATE TABLE verblijfsobject (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POINT, identificatie TEXT, oppervlakte INTEGER, status TEXT, gebruiksdoel TEXT,
      openbare_ruimte_naam TEXT, openbare_ruimte_naam_kort TEXT, huisnummer INTEGER, huisletter TEXT, toevoeging TEXT, postcode TEXT, woonplaats_naam TEXT,
      bouwjaar INTEGER, pand_identificatie TEXT, pandstatus TEXT, nummeraanduiding_hoofdadres_identificatie TEXT, openbare_ruimte_identificatie TEXT,
      woonplaats_identificatie TEXT, bronhouder_identificatie TEXT);
    CREATE TABLE ligplaats (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, identificatie TEXT, status TEXT, openbare_ruimte_naam TEXT,
      openbare_ruimte_naam_kort TEXT, huisnummer INTEGER, huisletter TEXT, toevoeging TEXT, postcode TEXT, woonplaats_naam TEXT,
      nummeraanduiding_hoofdadres_identificatie TEXT, openbare_ruimte_identificatie TEXT, woonplaats_identificatie TEXT, bronhouder_identificatie TEXT);
    CREATE TABLE standplaats AS SELECT * FROM ligplaats WHERE 0;
  `);
  for (const [t, type] of [
    ['pand', 'POLYGON'],
    ['verblijfsobject', 'POINT'],
    ['ligplaats', 'POLYGON'],
    ['standplaats', 'POLYGON'],
  ]) {
    db.prepare(`INSERT INTO gpkg_contents (table_name, data_type, identifier, last_change, srs_id) VALUES (?, 'features', ?, '2026-10-01T03:00:00.000Z', 28992)`).run(t, t);
    db.prepare(`INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, 28992, 0, 0)`).run(t, type);
  }
  const pand = db.prepare(`INSERT INTO pand (geom, identificatie, bouwjaar, status) VALUES (?, ?, ?, ?)`);
  for (const p of inhoud.panden) pand.run(p.geom, p.id, p.bouwjaar ?? 1990, p.status ?? 'Pand in gebruik');
  const vbo = db.prepare(`INSERT INTO verblijfsobject (geom, identificatie, oppervlakte, status, gebruiksdoel, openbare_ruimte_naam, huisnummer, huisletter,
    toevoeging, postcode, woonplaats_naam, bouwjaar, pand_identificatie, nummeraanduiding_hoofdadres_identificatie, bronhouder_identificatie)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const v of inhoud.vbos) {
    vbo.run(
      v.geom,
      v.id,
      v.oppervlakte ?? 100,
      v.status ?? 'Verblijfsobject in gebruik',
      v.gebruiksdoel,
      v.straat ?? 'Teststraat',
      v.huisnummer,
      v.huisletter ?? null,
      v.toevoeging ?? null,
      v.postcode,
      v.woonplaats ?? 'Doesburg',
      v.bouwjaar ?? 1990,
      v.pand,
      v.nad,
      '221',
    );
  }
  for (const [t, lijst] of [
    ['ligplaats', inhoud.ligplaatsen ?? []],
    ['standplaats', inhoud.standplaatsen ?? []],
  ] as const) {
    const st = db.prepare(
      `INSERT INTO ${t} (geom, identificatie, status, openbare_ruimte_naam, huisnummer, postcode, woonplaats_naam, nummeraanduiding_hoofdadres_identificatie, bronhouder_identificatie)
       VALUES (?, ?, 'Plaats aangewezen', 'Havenkade', ?, ?, 'Doesburg', ?, '0221')`,
    );
    for (const l of lijst) st.run(l.geom, l.id, l.huisnummer, l.postcode, l.nad);
  }
  db.close();
}

export function schrijf(pad: string, inhoud: string | Buffer): string {
  writeFileSync(pad, inhoud);
  return pad;
}
