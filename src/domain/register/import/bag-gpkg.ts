/**
 * `insight import bag-gpkg`: PDOK's "BAG light" GeoPackage, read with node:sqlite (docs/import-formaten.md).
 * Layers are streamed in rowid order, so memory stays flat; only ids that occur twice are held.
 */
import { DatabaseSync } from 'node:sqlite';
import { beschrijfKop, type Bron } from './bron.ts';
import type { Position } from 'geojson';
import { beterPand, pandKandidaat, type PandKandidaat, geldigRd, lonLatNaarRd, rdNaarLonLat, rdPolygonenNaarGeoJson, ringZwaartepunt, zwaartepunt, leesGpkgGeometrie } from './geo.ts';
import { type ImportRecord, type LeesContext, VerkeerdFormaatFout, bagSoort, bouwjaarOfNull } from './types.ts';
import { gemeenteNaam } from './gemeenten.ts';
import { EINDSTATUS, ruimBeeindigdeOp } from './opruimen.ts';
import { SchijfSet } from './schijf-set.ts';
import { woningtypeNa } from './woningtype-soort.ts';
import { citeer, geldigePostcode } from '../../begrippen.ts';

const VERWACHT = 'PDOK bag-light.gpkg (GeoPackage met de lagen pand, verblijfsobject, ligplaats en standplaats)';

const ADRES_KOLOMMEN = ['identificatie', 'nummeraanduiding_hoofdadres_identificatie', 'openbare_ruimte_naam', 'huisnummer', 'postcode', 'woonplaats_naam'];

const VEREIST: Record<string, string[]> = {
  pand: ['identificatie'],
  verblijfsobject: ADRES_KOLOMMEN,
  ligplaats: ADRES_KOLOMMEN,
  standplaats: ADRES_KOLOMMEN,
};


interface Laag {
  naam: string;
  geomKolom: string;
  srs: number;
  kolommen: Set<string>;
  aantal: number;
}

function openGpkg(pad: string): DatabaseSync {
  try {
    return new DatabaseSync(pad, { readOnly: true });
  } catch (e) {
    throw new VerkeerdFormaatFout(`Kan ${pad} niet openen als GeoPackage: ${e instanceof Error ? e.message : String(e)}. Verwacht: ${VERWACHT}.`);
  }
}

function lagen(db: DatabaseSync): Map<string, Laag> {
  let rijen: { table_name: string; column_name: string; srs_id: number }[];
  try {
    rijen = db
      .prepare(
        `SELECT c.table_name, g.column_name, g.srs_id FROM gpkg_contents c JOIN gpkg_geometry_columns g ON g.table_name = c.table_name WHERE c.data_type = 'features'`,
      )
      .all() as typeof rijen;
  } catch {
    throw new VerkeerdFormaatFout(`Dit is een SQLite-database maar geen GeoPackage (gpkg_contents/gpkg_geometry_columns ontbreken). Verwacht: ${VERWACHT}.`);
  }
  const uit = new Map<string, Laag>();
  for (const r of rijen) {
    const naam = r.table_name.toLowerCase();
    const kolommen = new Set(
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(r.table_name) as { name: string }[]).map((k) => k.name.toLowerCase()),
    );
    uit.set(naam, { naam: r.table_name, geomKolom: r.column_name, srs: Number(r.srs_id), kolommen, aantal: 0 });
  }
  return uit;
}

function controleerLagen(db: DatabaseSync): Map<string, Laag> {
  const l = lagen(db);
  if (!l.has('verblijfsobject') || !l.has('pand')) {
    throw new VerkeerdFormaatFout(
      `Dit is een GeoPackage, maar niet PDOK bag-light: laag ${!l.has('verblijfsobject') ? 'verblijfsobject' : 'pand'} ontbreekt (gevonden: ${[...l.keys()].join(', ') || 'geen lagen'}). Verwacht: ${VERWACHT}.`,
    );
  }
  for (const [naam, vereist] of Object.entries(VEREIST)) {
    const laag = l.get(naam);
    if (!laag) continue;
    const ontbreekt = vereist.filter((k) => !laag.kolommen.has(k));
    if (ontbreekt.length) throw new VerkeerdFormaatFout(`Laag ${naam} mist kolom(men) ${ontbreekt.join(', ')}. Verwacht: ${VERWACHT}.`);
    if (laag.srs !== 28992 && laag.srs !== 4326) throw new VerkeerdFormaatFout(`Laag ${naam} heeft SRS ${laag.srs}; verwacht EPSG:28992 (RD New). Verwacht: ${VERWACHT}.`);
  }
  return l;
}

async function controleer(bron: Bron): Promise<void> {
  if (bron.soort !== 'bestand') {
    throw new VerkeerdFormaatFout(`bag-gpkg leest één .gpkg-bestand, geen ${bron.soort === 'zip' ? 'zip (pak die eerst uit)' : 'map'}. Verwacht: ${VERWACHT}.`);
  }
  const b = beschrijfKop(bron.kop);
  if (b.soort !== 'sqlite') {
    const hint = b.soort === 'tekst' ? ' Voor een NLExtract-CSV: gebruik `insight import bag-csv`.' : b.soort === 'xml' ? ' Voor het LVBAG-extract: gebruik `insight import bag-xml`.' : '';
    throw new VerkeerdFormaatFout(`Dit is ${b.tekst}, geen GeoPackage.${hint} Verwacht: ${VERWACHT}.`);
  }
  const db = openGpkg(bron.pad);
  try {
    controleerLagen(db);
  } finally {
    db.close();
  }
}

const q = (n: string) => `"${n.replace(/"/g, '""')}"`;

function tekst(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const t = String(v).trim();
  return t === '' ? null : t;
}

function plausibelBouwjaar(v: unknown): number | null {
  const n = typeof v === 'number' ? v : Number(tekst(v));
  return bouwjaarOfNull(n, new Date().getUTCFullYear());
}

const ID = /^\d{16}$/;

/**
 * An object listed more than once (bag-light repeats a verblijfsobject per pand) → the rowid to keep. One GROUP BY
 * over the ids, so the layer streams without sorting (a national layer would need gigabytes of temporary space).
 * A verblijfsobject keeps the row of the pand whose footprint holds its point, else the largest footprint, else
 * the lowest pand id: `pand` learns the footprints while the pand layer streams, before the verblijfsobjecten.
 */
class Dubbelen {
  readonly #beste = new Map<string, { k: PandKandidaat; rid: number }>();
  readonly #wacht = new Map<string, { id: string; rid: number; punt: Position | null }[]>();

  constructor(db: DatabaseSync, laag: Laag, naarPand: ((x: number, y: number) => Position) | null) {
    const pandKol = laag.kolommen.has('pand_identificatie') ? 'pand_identificatie' : 'NULL';
    const geomKol = naarPand ? q(laag.geomKolom) : 'NULL';
    const rijen = db
      .prepare(
        `SELECT identificatie AS id, ${pandKol} AS pand, rowid AS rid, ${geomKol} AS geom FROM ${q(laag.naam)}
         WHERE identificatie IN (SELECT identificatie FROM ${q(laag.naam)} GROUP BY identificatie HAVING count(*) > 1)`,
      )
      .all() as { id: string; pand: string | null; rid: number; geom: Uint8Array | null }[];
    for (const r of rijen) {
      const id = String(r.id);
      const rid = Number(r.rid);
      const g = naarPand ? leesGpkgGeometrie(r.geom) : null;
      const xy = g?.type === 'punt' ? { x: g.x, y: g.y } : g?.type === 'vlak' ? zwaartepunt(g.polygonen) : null;
      const punt = xy && naarPand ? naarPand(xy.x, xy.y) : null;
      this.#kies(id, { id: r.pand === null ? '\uffff' : String(r.pand), binnen: false, oppervlak: -1 }, rid);
      if (r.pand === null) continue;
      const wacht = this.#wacht.get(String(r.pand)) ?? [];
      wacht.push({ id, rid, punt });
      this.#wacht.set(String(r.pand), wacht);
    }
  }

  #kies(id: string, k: PandKandidaat, rid: number): void {
    const b = this.#beste.get(id);
    if (!b || beterPand(k, b.k) || (k.id === b.k.id && k.binnen === b.k.binnen && k.oppervlak === b.k.oppervlak && rid < b.rid)) this.#beste.set(id, { k, rid });
  }

  /** A current pand's footprint, in the coordinates `naarPand` gives. */
  pand(id: string, polygonen: Position[][][]): void {
    for (const w of this.#wacht.get(id) ?? []) this.#kies(w.id, pandKandidaat(id, polygonen, w.punt), w.rid);
  }

  houd(id: string, rid: number): boolean {
    const b = this.#beste.get(id);
    return !b || b.rid === rid;
  }
}
const rond3 = (v: number) => Math.round(v * 1000) / 1000;

async function* lees(bron: Bron | null, ctx: LeesContext): AsyncGenerator<ImportRecord> {
  const db = openGpkg(bron!.pad);
  // Ended objects: "a:" + hoofdadres → object, "p:" + pand; deleted once every row is written.
  const weg = new SchijfSet();
  let overgedragen = false;
  try {
    const l = controleerLagen(db);
    let datum: string | null = null;
    try {
      const r = db.prepare(`SELECT last_change FROM gpkg_contents WHERE lower(table_name) = 'verblijfsobject'`).get() as { last_change?: string } | undefined;
      datum = r?.last_change && /^\d{4}-\d{2}-\d{2}/.test(r.last_change) ? r.last_change.slice(0, 10) : null;
    } catch {
      datum = null;
    }
    const bronTekst = `PDOK BAG light${datum ? ` ${datum}` : ''}`;
    ctx.extra.peildatum = datum;
    const volgorde = ['pand', 'verblijfsobject', 'ligplaats', 'standplaats'].filter((n) => l.has(n));
    let totaal = 0;
    for (const n of volgorde) {
      const laag = l.get(n)!;
      laag.aantal = Number((db.prepare(`SELECT count(*) AS n FROM ${q(laag.naam)}`).get() as { n: number }).n);
      totaal += laag.aantal;
    }
    const vboLaag = l.get('verblijfsobject')!;
    const pandWgs = l.get('pand')!.srs === 4326;
    const vboWgs = vboLaag.srs === 4326;
    const vboDubbel = new Dubbelen(db, vboLaag, (x, y) => (pandWgs === vboWgs ? [x, y] : pandWgs ? rdNaarLonLat(x, y) : lonLatNaarRd(x, y)));
    let gedaan = 0;
    const grootte = bron!.totaalBytes;
    const tik = () => {
      gedaan++;
      if ((gedaan & 255) === 0) bron!.gelezenBytes = totaal ? (grootte * gedaan) / totaal : grootte;
    };
    const kol = (laag: Laag, k: string) => (laag.kolommen.has(k) ? q(k) : 'NULL');

    for (const n of volgorde) {
      const laag = l.get(n)!;
      ctx.fase(n);
      const wgs = laag.srs === 4326;
      const punt = (x: number, y: number) => (wgs ? { lon: x, lat: y, x: null, y: null } : { lon: rdNaarLonLat(x, y)[0], lat: rdNaarLonLat(x, y)[1], x: rond3(x), y: rond3(y) });
      if (n === 'pand') {
        const st = db.prepare(
          `SELECT rowid AS rid, identificatie, ${kol(laag, 'bouwjaar')} AS bouwjaar, ${kol(laag, 'status')} AS status, ${q(laag.geomKolom)} AS geom
           FROM ${q(laag.naam)}`,
        );
        const dubbel = new Dubbelen(db, laag, null);
        for (const r of st.iterate() as Iterable<Record<string, unknown>>) {
          tik();
          const regel = Number(r.rid);
          const id = tekst(r.identificatie);
          if (!id || !ID.test(id)) {
            yield { ok: false, regel, reden: `pand (rij ${regel}): ongeldige identificatie ${citeer(id ?? '')}` };
            continue;
          }
          if (!dubbel.houd(id, regel)) continue;
          const status = tekst(r.status);
          if (status && EINDSTATUS.has(status.toLowerCase())) {
            ctx.overgeslagen(`status ${citeer(status)}`);
            weg.zet(`p:${id}`);
            continue;
          }
          const g = leesGpkgGeometrie(r.geom as Uint8Array | null);
          if (!g || g.type !== 'vlak') {
            yield { ok: false, regel, reden: `pand ${id}: ${g ? 'geometrie is geen vlak' : 'geometrie ontbreekt of is onleesbaar'}` };
            continue;
          }
          const geometrie = wgs
            ? g.polygonen.length === 1
              ? { type: 'Polygon', coordinates: g.polygonen[0] }
              : { type: 'MultiPolygon', coordinates: g.polygonen }
            : rdPolygonenNaarGeoJson(g.polygonen);
          vboDubbel.pand(id, g.polygonen);
          yield { ok: true, tabel: 'pand', regel, rij: { id, bouwjaar: plausibelBouwjaar(r.bouwjaar), status, geometrie, bron: bronTekst } };
        }
        continue;
      }
      const isVbo = n === 'verblijfsobject';
      const st = db.prepare(
        `SELECT rowid AS rid, identificatie, nummeraanduiding_hoofdadres_identificatie AS nad, openbare_ruimte_naam AS straat, huisnummer,
           ${kol(laag, 'huisletter')} AS huisletter, ${kol(laag, 'toevoeging')} AS toevoeging, postcode, woonplaats_naam AS woonplaats,
           ${kol(laag, 'gebruiksdoel')} AS gebruiksdoel, ${kol(laag, 'oppervlakte')} AS oppervlakte, ${kol(laag, 'status')} AS status,
           ${kol(laag, 'bouwjaar')} AS bouwjaar, ${kol(laag, 'pand_identificatie')} AS pand, ${kol(laag, 'bronhouder_identificatie')} AS gemeente_code,
           ${q(laag.geomKolom)} AS geom
         FROM ${q(laag.naam)}`,
      );
      const dubbel = isVbo ? vboDubbel : new Dubbelen(db, laag, null);
      for (const r of st.iterate() as Iterable<Record<string, unknown>>) {
        tik();
        const regel = Number(r.rid);
        const objectId = tekst(r.identificatie);
        const fout = (reden: string): ImportRecord => ({ ok: false, regel, reden: `${n} ${objectId ?? `(rij ${regel})`}: ${reden}` });
        if (!objectId) {
          yield fout('identificatie ontbreekt');
          continue;
        }
        if (!dubbel.houd(objectId, regel)) continue; // the same verblijfsobject in another pand
        const status = tekst(r.status);
        const nad = tekst(r.nad);
        if (status && EINDSTATUS.has(status.toLowerCase())) {
          ctx.overgeslagen(`status ${citeer(status)}`);
          if (nad) weg.zet(`a:${nad}`, objectId);
          continue;
        }
        if (!nad || !ID.test(nad)) {
          yield fout(nad ? `ongeldige nummeraanduiding ${citeer(nad)}` : 'hoofdadres (nummeraanduiding) ontbreekt');
          continue;
        }
        const pcRuw = tekst(r.postcode);
        const postcode = geldigePostcode(pcRuw);
        if (!postcode) {
          yield fout(pcRuw ? `ongeldige postcode ${citeer(pcRuw)}` : 'postcode ontbreekt');
          continue;
        }
        const hnRuw = tekst(r.huisnummer);
        const huisnummer = hnRuw && /^\d{1,5}$/.test(hnRuw) ? Number(hnRuw) : 0;
        if (huisnummer < 1) {
          yield fout(hnRuw ? `ongeldig huisnummer ${citeer(hnRuw)}` : 'huisnummer ontbreekt');
          continue;
        }
        const straat = tekst(r.straat);
        const woonplaats = tekst(r.woonplaats);
        if (!straat || !woonplaats) {
          yield fout(!straat ? 'openbare_ruimte_naam ontbreekt' : 'woonplaats_naam ontbreekt');
          continue;
        }
        const g = leesGpkgGeometrie(r.geom as Uint8Array | null);
        let xy: { x: number; y: number } | null = null;
        let opp: number | null = null;
        if (g?.type === 'punt') xy = { x: g.x, y: g.y };
        else if (g?.type === 'vlak') {
          xy = zwaartepunt(g.polygonen);
          if (!isVbo && !wgs) opp = Math.round(g.polygonen.reduce((s, p) => s + Math.abs(ringZwaartepunt(p[0]).oppervlak), 0));
        } else if (g === null && r.geom !== null && r.geom !== undefined) {
          yield fout('geometrie is onleesbaar');
          continue;
        }
        if (xy && !wgs && !geldigRd(xy.x, xy.y)) {
          yield fout(`coördinaat buiten Nederland (${xy.x}, ${xy.y})`);
          continue;
        }
        if (isVbo) {
          const o = tekst(r.oppervlakte);
          opp = o && /^\d{1,9}$/.test(o) ? Number(o) : null;
          if (o && opp === null) {
            yield fout(`ongeldige oppervlakte ${citeer(o)}`);
            continue;
          }
        }
        const p = xy ? punt(xy.x, xy.y) : null;
        const doelen = isVbo
          ? (tekst(r.gebruiksdoel) ?? '')
              .split(',')
              .map((d) => d.trim())
              .filter(Boolean)
          : [];
        const pand = tekst(r.pand);
        const gem = tekst(r.gemeente_code);
        const gemCode = gem && /^\d{1,4}$/.test(gem) ? gem.padStart(4, '0') : gem;
        yield {
          ok: true,
          tabel: 'adres',
          regel,
          rij: {
            id: nad,
            postcode,
            huisnummer,
            huisletter: tekst(r.huisletter),
            toevoeging: tekst(r.toevoeging),
            straat,
            woonplaats,
            gemeente_code: gemCode,
            gemeente: gemCode ? gemeenteNaam(gemCode, datum ?? new Date().toISOString().slice(0, 10)) : null,
            object_type: n,
            object_id: objectId,
            pand_id: pand && ID.test(pand) ? pand : null,
            gebruiksdoelen: doelen.length ? doelen : null,
            oppervlakte: opp,
            bouwjaar: isVbo ? plausibelBouwjaar(r.bouwjaar) : null,
            status,
            rd_x: p?.x ?? null,
            rd_y: p?.y ?? null,
            lon: p?.lon ?? null,
            lat: p?.lat ?? null,
            bron: bronTekst,
            bron_datum: datum,
          },
        };
      }
    }
    bron!.gelezenBytes = bron!.totaalBytes;
    overgedragen = true;
    ctx.naSchrijven({ voer: (d) => ruimBeeindigdeOp(d, weg, datum ?? new Date().toISOString().slice(0, 10)), sluit: () => weg.sluit() });
  } finally {
    db.close();
    if (!overgedragen) weg.sluit();
  }
}

export const bagGpkg = bagSoort({
  naam: 'bag-gpkg',
  omschrijving: 'PDOK bag-light.gpkg (GeoPackage): adressen, panden met footprint; daarna woningtype afleiden',
  verwacht: VERWACHT,
  controleer,
  lees,
  na: woningtypeNa,
});
