/**
 * Influence objects from a GeoJSON FeatureCollection (docs/import-formaten.md), scanned incrementally so
 * memory is bounded by the largest feature, not the file. Without an id, the id is a hash of type and
 * geometry. A legacy `crs` naming EPSG:28992 is reprojected; coordinates stored 2D to ~1 cm.
 */
import { createHash } from 'node:crypto';
import proj4 from 'proj4';
import type { Geometry, Position } from 'geojson';
import { type InvloedObjectRij, type ParseFout, type ParseOk, citeer, controleerTekstbestand } from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';
import { leidAdresInvloedenAf } from '../import/invloeden-na.ts';
import { StrikteDecoder } from '../import/utf8.ts';
import { SchijfSet } from '../import/schijf-set.ts';
import type { ImportSoort } from '../import/types.ts';
import type { Database } from '../../../db/client.ts';
import { DEMO_BRON } from '../demo/opzet.ts';

export type { InvloedObjectRij } from './gedeeld.ts';

export type InvloedResultaat = ParseOk<'invloed_object', InvloedObjectRij> | ParseFout;

export interface InvloedOpties {
  bron?: string;
  maxFeatureTekens?: number;
}

const VERWACHT =
  'GeoJSON-FeatureCollection ({"type":"FeatureCollection","features":[...]}) met per feature properties.type (natura2000, hoogspanning, ...)';

export const RD_PROJ4 =
  '+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel +towgs84=565.417,50.3319,465.552,-0.398957,0.343988,-1.8774,4.0725 +units=m +no_defs';

const TOEGESTAAN: Record<string, readonly string[]> = {
  natura2000: ['Polygon', 'MultiPolygon'],
  hoogspanning: ['LineString', 'MultiLineString'],
};
const OVERIG_TOEGESTAAN = ['Polygon', 'MultiPolygon', 'LineString', 'MultiLineString', 'Point', 'MultiPoint'];

interface RuweFeature {
  tekst: string;
  regel: number;
  nummer: number;
}

/** Throws early when the text is not a FeatureCollection. */
class FeatureScanner {
  private diepte = 0;
  private inString = false;
  private escape = false;
  private regel = 1;
  private begonnen = false;
  private klaar = false;
  private verwachtSleutel = false;
  private sleutel: string | null = null;
  private sleutelDelen: string[] | null = null;
  private inFeatures = false;
  private featuresGezien = false;
  private typeGezien: string | null = null;
  private aantal = 0;
  private vangst: 'feature' | 'crs' | 'type' | null = null;
  private vangstDelen: string[] = [];
  private vangstLengte = 0;
  private vangstRegel = 0;
  private vangstDiepte = 0;
  crs: unknown = null;

  private readonly maxTekens: number;
  constructor(maxTekens: number) {
    this.maxTekens = maxTekens;
  }

  voer(t: string): RuweFeature[] {
    const uit: RuweFeature[] = [];
    let vangstStart = this.vangst ? 0 : -1;
    let sleutelStart = this.sleutelDelen ? 0 : -1;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 10) this.regel++;
      if (this.klaar) {
        if (c !== 32 && c !== 10 && c !== 13 && c !== 9) throw new Error(`Onverwachte tekst na het einde van de GeoJSON (regel ${this.regel}).`);
        continue;
      }
      if (!this.begonnen) {
        if (c === 0xfeff || c === 32 || c === 10 || c === 13 || c === 9) continue;
        if (c !== 123 /* { */) {
          throw new Error(
            c === 91 ? `Dit is een JSON-lijst, geen ${VERWACHT}.` : `Dit is geen JSON/GeoJSON (eerste teken "${t[i]}"); verwacht ${VERWACHT}.`,
          );
        }
        this.begonnen = true;
        this.diepte = 1;
        this.verwachtSleutel = true;
        continue;
      }
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92 /* \ */) this.escape = true;
        else if (c === 34 /* " */) {
          this.inString = false;
          if (this.sleutelDelen) {
            this.sleutelDelen.push(t.slice(sleutelStart, i));
            this.sleutel = this.sleutelDelen.join('');
            this.sleutelDelen = null;
            sleutelStart = -1;
          }
          if (this.vangst === 'type' && this.diepte === this.vangstDiepte) {
            this.vangstDelen.push(t.slice(vangstStart, i + 1));
            this.sluitVangst();
            vangstStart = -1;
          }
        }
        continue;
      }
      switch (c) {
        case 34: // "
          this.inString = true;
          if (this.diepte === 1 && this.verwachtSleutel) {
            this.sleutelDelen = [];
            sleutelStart = i + 1;
          } else if (this.diepte === 1 && !this.verwachtSleutel && this.sleutel === 'type' && !this.vangst) {
            this.startVangst('type', i);
            vangstStart = i;
          }
          break;
        case 123: // {
        case 91: // [
          this.diepte++;
          if (this.diepte === 2 && c === 91 && this.sleutel === 'features') {
            this.inFeatures = true;
            this.featuresGezien = true;
          } else if (this.diepte === 3 && c === 123 && this.inFeatures) {
            this.startVangst('feature', i);
            vangstStart = i;
          } else if (this.diepte === 2 && c === 123 && this.sleutel === 'crs' && !this.vangst) {
            this.startVangst('crs', i);
            vangstStart = i;
          } else if (this.diepte === 3 && c === 91 && this.inFeatures) {
            throw new Error(`Element ${this.aantal + 1} van "features" is geen object (regel ${this.regel}).`);
          }
          break;
        case 125: // }
        case 93: // ]
          if (this.vangst && this.diepte === this.vangstDiepte) {
            this.vangstDelen.push(t.slice(vangstStart, i + 1));
            const soort = this.vangst;
            const tekst = this.sluitVangst();
            vangstStart = -1;
            if (soort === 'feature') uit.push({ tekst, regel: this.vangstRegel, nummer: ++this.aantal });
            else if (soort === 'crs') {
              try {
                this.crs = JSON.parse(tekst);
              } catch {
                throw new Error(`Het crs-lid van de GeoJSON is onleesbaar (regel ${this.vangstRegel}).`);
              }
            }
          }
          this.diepte--;
          if (this.diepte === 1 && this.inFeatures && c === 93) this.inFeatures = false;
          if (this.diepte === 0) {
            this.klaar = true;
            if (!this.featuresGezien) throw new Error(`De JSON heeft geen "features"-lijst: dit is geen ${VERWACHT}.`);
          }
          if (this.diepte < 0) throw new Error(`Ongeldige JSON: sluithaakje zonder openingshaakje (regel ${this.regel}).`);
          break;
        case 58: // :
          if (this.diepte === 1) this.verwachtSleutel = false;
          break;
        case 44: // ,
          if (this.diepte === 1) {
            this.verwachtSleutel = true;
            this.sleutel = null;
          }
          break;
        default:
          if (this.diepte === 1 && !this.verwachtSleutel && this.sleutel === 'type' && c !== 32 && c !== 10 && c !== 13 && c !== 9 && !this.vangst) {
            throw new Error(`Het lid "type" van de JSON is geen tekst: dit is geen ${VERWACHT}.`);
          }
      }
    }
    if (this.vangst && vangstStart >= 0) {
      const deel = t.slice(vangstStart);
      this.vangstDelen.push(deel);
      this.vangstLengte += deel.length;
      if (this.vangstLengte > this.maxTekens) {
        throw new Error(`Feature ${this.aantal + 1} (vanaf regel ${this.vangstRegel}) is groter dan ${this.maxTekens} tekens; splits het bestand of vereenvoudig de geometrie.`);
      }
    }
    if (this.sleutelDelen && sleutelStart >= 0) this.sleutelDelen.push(t.slice(sleutelStart));
    return uit;
  }

  private startVangst(soort: 'feature' | 'crs' | 'type', _i: number): void {
    this.vangst = soort;
    this.vangstDelen = [];
    this.vangstLengte = 0;
    this.vangstRegel = this.regel;
    this.vangstDiepte = soort === 'type' ? 1 : this.diepte;
  }

  private sluitVangst(): string {
    const tekst = this.vangstDelen.join('');
    const soort = this.vangst;
    this.vangst = null;
    this.vangstDelen = [];
    this.vangstLengte = 0;
    if (soort === 'type') {
      let waarde: unknown;
      try {
        waarde = JSON.parse(tekst);
      } catch {
        waarde = tekst;
      }
      this.typeGezien = String(waarde);
      if (this.typeGezien !== 'FeatureCollection') {
        throw new Error(`Dit is een GeoJSON ${citeer(this.typeGezien)}, geen FeatureCollection; verwacht ${VERWACHT}.`);
      }
    }
    return tekst;
  }

  einde(): void {
    if (!this.begonnen) throw new Error(`Het bestand is leeg; verwacht ${VERWACHT}.`);
    if (!this.klaar) throw new Error(`De GeoJSON is afgebroken: het bestand eindigt midden in de JSON (regel ${this.regel}).`);
  }
}

function isRd(crs: unknown): boolean {
  const naam = (crs as { properties?: { name?: unknown } } | null)?.properties?.name;
  return typeof naam === 'string' && /(EPSG:+28992|EPSG::28992)\b/i.test(naam.replace('urn:ogc:def:crs:', ''));
}

function isWgs84Crs(crs: unknown): boolean {
  if (crs === null || crs === undefined) return true;
  const naam = (crs as { properties?: { name?: unknown } } | null)?.properties?.name;
  return typeof naam === 'string' && /(CRS84|EPSG:+4326|EPSG::4326)/i.test(naam);
}

const rond = (x: number) => Math.round(x * 1e7) / 1e7;

type Omzetter = (p: Position) => Position;

function zetPosities(c: unknown, diepte: number, om: Omzetter, pad: string): unknown {
  if (!Array.isArray(c)) throw new Error(`coördinaten ${pad} zijn geen lijst`);
  if (diepte === 0) {
    if (c.length < 2 || typeof c[0] !== 'number' || typeof c[1] !== 'number' || !Number.isFinite(c[0]) || !Number.isFinite(c[1])) {
      throw new Error(`ongeldige positie ${citeer(c)}`);
    }
    const [lon, lat] = om([c[0], c[1]]);
    if (Math.abs(lon) > 180 || Math.abs(lat) > 90) {
      throw new Error(`positie ${citeer(c)} is geen WGS84 lon/lat (RD-coördinaten? geef dan "crs" EPSG:28992 op)`);
    }
    return [rond(lon), rond(lat)];
  }
  return c.map((x, i) => zetPosities(x, diepte - 1, om, `${pad}[${i}]`));
}

const DIEPTE: Record<string, number> = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 };

function controleerVorm(g: Geometry): void {
  const ring = (r: Position[], waar: string) => {
    if (r.length < 4) throw new Error(`ring ${waar} heeft minder dan 4 posities`);
    const a = r[0];
    const b = r[r.length - 1];
    if (a[0] !== b[0] || a[1] !== b[1]) throw new Error(`ring ${waar} is niet gesloten (eerste en laatste positie verschillen)`);
  };
  const lijn = (l: Position[], waar: string) => {
    if (l.length < 2) throw new Error(`lijn ${waar} heeft minder dan 2 posities`);
  };
  switch (g.type) {
    case 'LineString':
      lijn(g.coordinates, '0');
      break;
    case 'MultiLineString':
      if (!g.coordinates.length) throw new Error('MultiLineString zonder lijnen');
      g.coordinates.forEach((l, i) => lijn(l, `${i}`));
      break;
    case 'Polygon':
      if (!g.coordinates.length) throw new Error('Polygon zonder ringen');
      g.coordinates.forEach((r, i) => ring(r, `${i}`));
      break;
    case 'MultiPolygon':
      if (!g.coordinates.length) throw new Error('MultiPolygon zonder vlakken');
      g.coordinates.forEach((p, j) => {
        if (!p.length) throw new Error(`vlak ${j} zonder ringen`);
        p.forEach((r, i) => ring(r, `${j}.${i}`));
      });
      break;
    case 'MultiPoint':
      if (!g.coordinates.length) throw new Error('MultiPoint zonder punten');
      break;
    default:
  }
}

function veiligeId(v: string): string {
  return v.replace(/[^0-9A-Za-z._:-]+/g, '_').slice(0, 120);
}

export function featureNaarRij(f: unknown, opts: { bron?: string; omzetter?: Omzetter } = {}): InvloedObjectRij {
  if (!f || typeof f !== 'object' || (f as { type?: unknown }).type !== 'Feature') throw new Error('element is geen GeoJSON Feature');
  const feat = f as { id?: unknown; properties?: Record<string, unknown> | null; geometry?: { type?: unknown; coordinates?: unknown } | null };
  const props = feat.properties ?? {};
  const typeRuw = props.type;
  if (typeof typeRuw !== 'string' || !typeRuw.trim()) throw new Error('properties.type ontbreekt (bijv. natura2000 of hoogspanning)');
  const type = typeRuw.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(type)) throw new Error(`ongeldig type ${citeer(typeRuw)} (kleine letters, cijfers, - en _)`);
  const g = feat.geometry;
  if (!g || typeof g !== 'object') throw new Error('geometrie ontbreekt');
  const gType = String(g.type);
  const toegestaan = TOEGESTAAN[type] ?? OVERIG_TOEGESTAAN;
  if (!toegestaan.includes(gType)) throw new Error(`geometrie ${citeer(gType)} past niet bij type ${type} (verwacht ${toegestaan.join(' of ')})`);
  const om: Omzetter = opts.omzetter ?? ((p) => p);
  const geometrie = { type: gType, coordinates: zetPosities(g.coordinates, DIEPTE[gType], om, '') } as Geometry;
  controleerVorm(geometrie);
  const idRuw = feat.id ?? props.id ?? props.identificatie;
  const id =
    typeof idRuw === 'string' || typeof idRuw === 'number'
      ? `${type}-${veiligeId(String(idRuw))}`
      : `${type}-${createHash('sha256').update(JSON.stringify(geometrie)).digest('hex').slice(0, 20)}`;
  const naamRuw = props.naam ?? props.name ?? props.naamN2K ?? props.naam_n2k;
  const naam = typeof naamRuw === 'string' && naamRuw.trim() ? naamRuw.trim() : null;
  const bron = opts.bron ?? (typeof props.bron === 'string' && props.bron.trim() ? props.bron.trim() : 'GeoJSON-import');
  return { id, type, naam, geometrie, bron };
}

export async function* parseInvloeden(input: NodeJS.ReadableStream, opts: InvloedOpties = {}): AsyncGenerator<InvloedResultaat> {
  const scanner = new FeatureScanner(opts.maxFeatureTekens ?? 256 * 1024 * 1024);
  const decoder = new StrikteDecoder();
  let eerste = true;
  let omzetter: Omzetter | undefined;
  let crsGecontroleerd = false;
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    if (eerste) {
      controleerTekstbestand(buf, VERWACHT);
      eerste = false;
    }
    const features = scanner.voer(decoder.decode(buf));
    for (const rf of features) {
      if (!crsGecontroleerd) {
        crsGecontroleerd = true;
        if (isRd(scanner.crs)) {
          const rd = proj4(RD_PROJ4, 'WGS84');
          omzetter = (p) => rd.forward([p[0], p[1]]);
        } else if (!isWgs84Crs(scanner.crs)) {
          throw new Error(`Onbekend coördinatenstelsel in "crs": ${JSON.stringify(scanner.crs).slice(0, 120)}. Lever WGS84 (lon/lat) of EPSG:28992.`);
        }
      }
      let f: unknown;
      try {
        f = JSON.parse(rf.tekst);
      } catch (e) {
        yield { ok: false, regel: rf.regel, reden: `feature ${rf.nummer}: ongeldige JSON (${(e as Error).message})` };
        continue;
      }
      try {
        yield { ok: true, tabel: 'invloed_object', rij: featureNaarRij(f, { bron: opts.bron, omzetter }) };
      } catch (e) {
        yield { ok: false, regel: rf.regel, reden: `feature ${rf.nummer}: ${(e as Error).message}` };
      }
    }
  }
  scanner.voer(decoder.decode());
  scanner.einde();
}

const basis = bestandSoort({
  naam: 'invloeden', omschrijving: 'omgevingsinvloeden (Natura 2000, hoogspanning, ...)', verwacht: 'een bestand met invloedobjecten', tabellen: ['invloed_object', 'adres_invloed'], parse: (input) => parseInvloeden(input),
  na: async (db) => ({ adresInvloed: await leidAdresInvloedenAf(db) }),
});

/**
 * A file is the whole set of each bron + type it holds: after the writes, objects of those that it lacks are
 * deleted (the after-step then recomputes the changed types). Not when a feature was refused: that one's
 * old object would go too.
 */
export const invloedenSoort: ImportSoort = {
  ...basis,
  async *lees(bron, ctx) {
    const ids = new SchijfSet();
    const sets = new Map<string, { bron: string; type: string }>();
    let afgewezen = 0;
    let klaar = false;
    try {
      for await (const deel of basis.lees(bron, ctx)) {
        for (const r of Array.isArray(deel) ? deel : [deel]) {
          if (!r.ok) afgewezen++;
          else {
            const o = r.rij as unknown as InvloedObjectRij;
            ids.zet(o.id);
            sets.set(`${o.bron}\u0001${o.type}`, { bron: o.bron, type: o.type });
          }
        }
        yield deel;
      }
      klaar = true;
      ctx.naSchrijven({ voer: (db) => verwijderOntbrekende(db, ids, [...sets.values()], afgewezen), sluit: () => ids.sluit() });
    } finally {
      if (!klaar) ids.sluit();
    }
  },
};

async function verwijderOntbrekende(db: Database, ids: SchijfSet, sets: { bron: string; type: string }[], afgewezen: number): Promise<Record<string, unknown>> {
  if (afgewezen > 0) return { verwijderd: { invloedObjecten: 0 }, nietOpgeruimd: `${afgewezen} feature(s) afgewezen: objecten die het bestand mist, blijven staan` };
  let n = 0;
  for (const { bron, type } of sets) {
    if (bron === DEMO_BRON) continue;
    for (let na = ''; ; ) {
      const rijen = (await db.prisma.$queryRawUnsafe(`SELECT id FROM invloed_object WHERE bron = $1 AND type = $2 AND id > $3 ORDER BY id LIMIT 5000`, bron, type, na)) as { id: string }[];
      const weg = rijen.filter((r) => !ids.heeft(r.id)).map((r) => r.id);
      if (weg.length) n += Number(await db.prisma.$executeRawUnsafe(`DELETE FROM invloed_object WHERE id = ANY($1::text[])`, weg));
      if (rijen.length < 5000) break;
      na = rijen[rijen.length - 1].id;
    }
  }
  return { verwijderd: { invloedObjecten: n } };
}
