/**
 * Environmental influences per address: for each address and influence type the distance to the
 * nearest object of that type (0 inside a polygon) and a traffic-light indicator.
 *
 * Geometry: features and addresses are WGS84 lon/lat. Distances are great-circle distances on
 * the sphere with radius 6 371 008.8 m — the model of turf (@turf/point-to-line-distance,
 * @turf/point-to-polygon-distance, both 'geodesic'), so results agree with turf to well under a
 * metre. Segments are great-circle arcs (point-to-arc distance with 3D unit vectors).
 * Containment: even-odd ray casting in the lon/lat plane per polygon (holes respected, MultiPolygon
 * = inside any part), as turf's booleanPointInPolygon; a point on the boundary (< 0.5 m) counts as
 * inside.
 *
 * Spatial index: per type one Flatbush over every border/line segment of its features, searched
 * best-first with an exact lower bound of the spherical distance to each node's box, so an address
 * visits only the few segments near its nearest point: the cost per address does not grow with the
 * number of vertices of a border (bench/invloeden.ts). A second Flatbush over the feature boxes finds
 * the polygons that may contain the address; the ray cast visits only the segments crossing the ray.
 *
 * Thresholds: see INVLOED_DREMPELS (one table; the distance used is the rounded whole metre that
 * is reported, so the text and the colour always agree).
 */
import Flatbush from 'flatbush';
import FlatQueue from 'flatqueue';
import type { Geometry, Position } from 'geojson';
import { KERN_INVLOED_TYPES } from '../begrippen.ts';

export type Indicator = 'rood' | 'oranje' | 'groen';

export interface InvloedDrempel {
  /** Noun phrase for the texts, e.g. 'Natura 2000-gebied'. */
  naam: string;
  /** Indicator when the address lies inside a polygon of this type (null: type has no polygons). */
  binnen: Indicator | null;
  /** Distance (whole metres) below which the indicator is rood; 0 = never by distance. */
  roodTotM: number;
  /** Distance (whole metres) below which the indicator is oranje. */
  oranjeTotM: number;
  /** Dutch: what the thresholds are based on. */
  basis: string;
}

/**
 * The thresholds, per type. Unknown types use `standaard`.
 *
 * hoogspanning: based on the RIVM/Rijksoverheid precautionary advice for overhead high-voltage
 * lines (2005, with the RIVM Netkaart and Handreiking): avoid new situations where children stay
 * long in the 'specifieke magneetveldzone', the area where the yearly average magnetic field can
 * exceed 0.4 microtesla. That zone differs per line (voltage, pylons, load) and is usually far
 * narrower than the RIVM 'rekenafstand'/indicative zone. Without line-specific zone widths we use a
 * fixed proxy: < 50 m counts as (probably) inside the specific zone -> rood; < 250 m as within
 * the range where the RIVM advises computing the zone -> oranje. Product choice, not a legal norm.
 *
 * natura2000: no health norm; inside a Natura 2000 area (building and use restrictions, nitrogen
 * permits) -> rood, within 250 m ('externe werking' of the protected area can reach a plot nearby)
 * -> oranje. Product choice.
 */
export const INVLOED_DREMPELS: Readonly<Record<string, InvloedDrempel>> = {
  natura2000: {
    naam: 'Natura 2000-gebied',
    binnen: 'rood',
    roodTotM: 0,
    oranjeTotM: 250,
    basis: 'Binnen een Natura 2000-gebied gelden bouw- en gebruiksbeperkingen; tot 250 m kan de externe werking van het gebied meespelen (productkeuze).',
  },
  hoogspanning: {
    naam: 'bovengrondse hoogspanningslijn',
    binnen: null,
    roodTotM: 50,
    oranjeTotM: 250,
    basis:
      'RIVM-advies (voorzorgbeleid 2005): vermijd langdurig verblijf van kinderen in de specifieke magneetveldzone (jaargemiddeld > 0,4 microtesla). Die zone verschilt per lijn; 50 m is onze benadering ervan, 250 m de marge waarbinnen berekening van de zone aan te raden is.',
  },
  geluid: {
    naam: 'geluidscontour',
    binnen: 'rood',
    roodTotM: 0,
    oranjeTotM: 100,
    basis: 'Binnen de contour wordt de geluidsbelasting van de bron overschreden; tot 100 m ligt het adres vlak bij de grens (productkeuze).',
  },
  overstroming: {
    naam: 'overstromingsgebied',
    binnen: 'rood',
    roodTotM: 0,
    oranjeTotM: 100,
    basis: 'Binnen het gebied is overstroming bij het gekozen scenario mogelijk; tot 100 m ligt het adres vlak bij de grens (productkeuze).',
  },
};

const STANDAARD_DREMPEL: InvloedDrempel = {
  naam: 'invloedsgebied',
  binnen: 'rood',
  roodTotM: 0,
  oranjeTotM: 100,
  basis: 'Standaarddrempels voor een type zonder eigen tabelregel: binnen -> rood, tot 100 m -> oranje.',
};

export function drempelVoor(type: string): InvloedDrempel {
  return INVLOED_DREMPELS[type] ?? { ...STANDAARD_DREMPEL, naam: `${type}-gebied` };
}

export { KERN_INVLOED_TYPES };

export const AARDSTRAAL_M = 6_371_008.8;

export interface InvloedFeature {
  id: string;
  type: string;
  naam?: string | null;
  geometrie: Geometry;
  bron?: string;
}

export interface AdresPunt {
  id: string;
  lat: number | null;
  lon: number | null;
}

export interface AdresInvloedRij {
  adres_id: string;
  type: string;
  indicator: Indicator;
  afstand_m: number | null;
  omschrijving: string;
  bron: string;
}

export interface Beoordeling {
  type: string;
  indicator: Indicator;
  /** Whole metres to the nearest object, 0 inside a polygon. */
  afstandM: number;
  binnen: boolean;
  featureId: string;
  naam: string | null;
  omschrijving: string;
  bron: string;
}

interface Segmenten {
  n: number;
  /** lon/lat of both ends: [ax, ay, bx, by] per segment */
  ll: Float64Array;
  /** unit vectors a, b and unit normal n of the great circle (0,0,0 when degenerate): 9 per segment */
  v: Float64Array;
  /** polygon part per segment (for containment) */
  deel: Int32Array;
}

interface Voorbereid {
  f: InvloedFeature;
  vlak: boolean;
  delen: number;
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  s: Segmenten;
  /** The feature's segments in its type's arrays: [van, tot). */
  van: number;
  tot: number;
}

const RAD = Math.PI / 180;

function eenheid(lon: number, lat: number, uit: Float64Array, o: number): void {
  const la = lat * RAD;
  const lo = lon * RAD;
  const c = Math.cos(la);
  uit[o] = c * Math.cos(lo);
  uit[o + 1] = c * Math.sin(lo);
  uit[o + 2] = Math.sin(la);
}

function bereid(f: InvloedFeature): Voorbereid {
  const g = f.geometrie;
  // Collect segments as [lon1, lat1, lon2, lat2, deel].
  const ruw: number[] = [];
  let delen = 0;
  let vlak = false;
  const lijn = (ps: Position[], deel: number) => {
    if (ps.length === 1) ruw.push(ps[0][0], ps[0][1], ps[0][0], ps[0][1], deel);
    for (let i = 0; i + 1 < ps.length; i++) ruw.push(ps[i][0], ps[i][1], ps[i + 1][0], ps[i + 1][1], deel);
  };
  switch (g.type) {
    case 'Point':
      lijn([g.coordinates], 0);
      break;
    case 'MultiPoint':
      for (const p of g.coordinates) lijn([p], 0);
      break;
    case 'LineString':
      lijn(g.coordinates, 0);
      break;
    case 'MultiLineString':
      for (const l of g.coordinates) lijn(l, 0);
      break;
    case 'Polygon':
      vlak = true;
      delen = 1;
      for (const r of g.coordinates) lijn(r, 0);
      break;
    case 'MultiPolygon':
      vlak = true;
      delen = g.coordinates.length;
      g.coordinates.forEach((p, d) => {
        for (const r of p) lijn(r, d);
      });
      break;
    default:
      throw new Error(`geometrie ${g.type} wordt niet ondersteund voor invloeden (feature ${f.id})`);
  }
  const n = ruw.length / 5;
  if (n === 0) throw new Error(`feature ${f.id} heeft geen coördinaten`);
  const ll = new Float64Array(4 * n);
  const v = new Float64Array(9 * n);
  const deel = new Int32Array(n);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let k = 0; k < n; k++) {
    const ax = ruw[5 * k];
    const ay = ruw[5 * k + 1];
    const bx = ruw[5 * k + 2];
    const by = ruw[5 * k + 3];
    ll[4 * k] = ax;
    ll[4 * k + 1] = ay;
    ll[4 * k + 2] = bx;
    ll[4 * k + 3] = by;
    deel[k] = ruw[5 * k + 4];
    eenheid(ax, ay, v, 9 * k);
    eenheid(bx, by, v, 9 * k + 3);
    const a0 = v[9 * k], a1 = v[9 * k + 1], a2 = v[9 * k + 2];
    const b0 = v[9 * k + 3], b1 = v[9 * k + 4], b2 = v[9 * k + 5];
    const n0 = a1 * b2 - a2 * b1;
    const n1 = a2 * b0 - a0 * b2;
    const n2 = a0 * b1 - a1 * b0;
    const len = Math.hypot(n0, n1, n2);
    if (len > 1e-15) {
      v[9 * k + 6] = n0 / len;
      v[9 * k + 7] = n1 / len;
      v[9 * k + 8] = n2 / len;
    }
    minX = Math.min(minX, ax, bx);
    minY = Math.min(minY, ay, by);
    maxX = Math.max(maxX, ax, bx);
    maxY = Math.max(maxY, ay, by);
  }
  return { f, vlak, delen, minX, minY, maxX, maxY, s: { n, ll, v, deel }, van: 0, tot: n };
}

/** Angle (radians) between unit vector p and segment k of s (a great-circle arc). */
function hoekTotSegment(s: Segmenten, k: number, px: number, py: number, pz: number): number {
  const v = s.v;
  const o = 9 * k;
  const ax = v[o], ay = v[o + 1], az = v[o + 2];
  const bx = v[o + 3], by = v[o + 4], bz = v[o + 5];
  const nx = v[o + 6], ny = v[o + 7], nz = v[o + 8];
  if (nx !== 0 || ny !== 0 || nz !== 0) {
    const apn = (ay * pz - az * py) * nx + (az * px - ax * pz) * ny + (ax * py - ay * px) * nz;
    const pbn = (py * bz - pz * by) * nx + (pz * bx - px * bz) * ny + (px * by - py * bx) * nz;
    if (apn >= 0 && pbn >= 0) {
      const d = px * nx + py * ny + pz * nz;
      return Math.abs(Math.asin(Math.max(-1, Math.min(1, d))));
    }
  }
  return Math.min(hoek(px, py, pz, ax, ay, az), hoek(px, py, pz, bx, by, bz));
}

function hoek(px: number, py: number, pz: number, qx: number, qy: number, qz: number): number {
  const cx = py * qz - pz * qy;
  const cy = pz * qx - px * qz;
  const cz = px * qy - py * qx;
  return Math.atan2(Math.hypot(cx, cy, cz), px * qx + py * qy + pz * qz);
}

/** Central angle between two lon/lat points (degrees in, radians out). */
function boog(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s1 = Math.sin(((lat2 - lat1) * RAD) / 2);
  const s2 = Math.sin(((lon2 - lon1) * RAD) / 2);
  return 2 * Math.asin(Math.min(1, Math.sqrt(s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2)));
}

/**
 * Lower bound (radians) of the angle from (lon, lat) to any point of the lon/lat box. Exact on the
 * sphere: inside the box's longitudes the nearest point lies on the same meridian; outside, on the
 * nearer meridian edge (at the foot of the perpendicular, or the corner it is clamped to).
 */
function hoekTotKader(lon: number, lat: number, cosLat: number, tanLat: number, minX: number, minY: number, maxX: number, maxY: number): number {
  if (lon >= minX && lon <= maxX) {
    if (lat < minY) return (minY - lat) * RAD;
    if (lat > maxY) return (lat - maxY) * RAD;
    return 0;
  }
  const rand = lon < minX ? minX : maxX;
  const dl = Math.abs(lon - rand) * RAD;
  if (dl >= Math.PI / 2) return 0;
  const voet = Math.atan(tanLat / Math.cos(dl)) / RAD;
  if (voet >= minY && voet <= maxY) return Math.asin(Math.min(1, cosLat * Math.sin(dl)));
  return boog(lon, lat, rand, voet < minY ? minY : maxY);
}

/**
 * All segments of one influence type in one Flatbush (boxes padded in latitude by the great-circle
 * bulge, so they contain the arc), with the feature each belongs to.
 */
interface TypeSegmenten extends Segmenten {
  feature: Int32Array;
  index: Flatbush;
  rij: FlatQueue<number>;
}

function voegSamen(features: Voorbereid[]): TypeSegmenten {
  let n = 0;
  for (const v of features) n += v.s.n;
  const ll = new Float64Array(4 * n);
  const vv = new Float64Array(9 * n);
  const deel = new Int32Array(n);
  const feature = new Int32Array(n);
  const index = new Flatbush(n);
  let o = 0;
  features.forEach((v, i) => {
    ll.set(v.s.ll, 4 * o);
    vv.set(v.s.v, 9 * o);
    deel.set(v.s.deel, o);
    feature.fill(i, o, o + v.s.n);
    v.van = o;
    v.tot = o + v.s.n;
    o += v.s.n;
    v.s = { n: 0, ll: new Float64Array(0), v: new Float64Array(0), deel: new Int32Array(0) };
  });
  for (let k = 0; k < n; k++) {
    const ax = ll[4 * k], ay = ll[4 * k + 1], bx = ll[4 * k + 2], by = ll[4 * k + 3];
    const dl = Math.abs(bx - ax) * RAD;
    // A great circle between two points of the same latitude rises at most dl²/8 (radians) above it.
    const bolling = (dl * dl) / 8 / RAD;
    index.add(Math.min(ax, bx), Math.min(ay, by) - bolling, Math.max(ax, bx), Math.max(ay, by) + bolling);
  }
  index.finish();
  return { n, ll, v: vv, deel, feature, index, rij: new FlatQueue<number>() };
}

/** Flatbush's end of the level that holds node position `pos` (its own upperBound). */
function niveauEinde(pos: number, grenzen: number[]): number {
  let i = 0;
  let j = grenzen.length - 1;
  while (i < j) {
    const m = (i + j) >> 1;
    if (grenzen[m] > pos) j = m;
    else i = m + 1;
  }
  return grenzen[i];
}

/**
 * The nearest segment to the point: best-first over the Flatbush tree with the exact spherical
 * box bound, so only the nodes and segments nearer than the answer are visited — a handful near the
 * nearest point, however many vertices the border has. Ties go to the lower feature number (the
 * features are sorted by id).
 */
function dichtsteSegment(t: TypeSegmenten, lon: number, lat: number, p: Float64Array): { k: number; hoek: number } {
  const { index, rij } = t;
  const boxes = index._boxes;
  const indices = index._indices;
  const grenzen = index._levelBounds;
  const knoop4 = index.nodeSize * 4;
  const items4 = index.numItems * 4;
  const cosLat = Math.cos(lat * RAD);
  const tanLat = Math.tan(lat * RAD);
  const [px, py, pz] = [p[0], p[1], p[2]];
  let best = Infinity;
  let bestK = -1;
  rij.clear();
  rij.push(boxes.length - 4, 0);
  while (rij.length) {
    if ((rij.peekValue() as number) > best) break;
    const knoop = rij.pop() as number;
    const blad = knoop < items4;
    const eind = Math.min(knoop + knoop4, niveauEinde(knoop, grenzen));
    for (let pos = knoop; pos < eind; pos += 4) {
      const ondergrens = hoekTotKader(lon, lat, cosLat, tanLat, boxes[pos], boxes[pos + 1], boxes[pos + 2], boxes[pos + 3]);
      if (ondergrens > best) continue;
      const kind = indices[pos >> 2];
      if (!blad) {
        rij.push(kind, ondergrens);
        continue;
      }
      const h = hoekTotSegment(t, kind, px, py, pz);
      if (h < best || (h === best && t.feature[kind] < t.feature[bestK])) {
        best = h;
        bestK = kind;
      }
    }
  }
  rij.clear();
  return { k: bestK, hoek: best };
}

/** Even-odd ray cast to the east, per polygon part; inside any part -> true. */
function bevat(f: Voorbereid, s: Segmenten, lon: number, lat: number, index: Flatbush | null): boolean {
  if (!f.vlak || lon < f.minX || lon > f.maxX || lat < f.minY || lat > f.maxY) return false;
  const pariteit = new Uint8Array(f.delen);
  const test = (k: number) => {
    const ax = s.ll[4 * k], ay = s.ll[4 * k + 1], bx = s.ll[4 * k + 2], by = s.ll[4 * k + 3];
    if (ay > lat !== by > lat && lon < ((bx - ax) * (lat - ay)) / (by - ay) + ax) pariteit[s.deel[k]] ^= 1;
  };
  if (index && f.tot - f.van > 32) {
    for (const k of index.search(lon, lat, f.maxX, lat, (k) => k >= f.van && k < f.tot)) test(k);
  } else for (let k = f.van; k < f.tot; k++) test(k);
  for (let d = 0; d < f.delen; d++) if (pariteit[d]) return true;
  return false;
}

export interface Dichtstbij {
  feature: InvloedFeature;
  /** Metres, unrounded; 0 inside a polygon. */
  afstand: number;
  binnen: boolean;
}

const nl = new Intl.NumberFormat('nl-NL', { maximumFractionDigits: 0 });

function metNaam(naam: string | null | undefined): string {
  return naam ? ` ‘${naam}’` : '';
}

export function omschrijf(type: string, indicator: Indicator, afstandM: number, binnen: boolean, naam: string | null | undefined): string {
  const d = drempelVoor(type);
  const m = `${nl.format(afstandM)} m`;
  if (type === 'hoogspanning') {
    if (indicator === 'rood') return `Bovengrondse hoogspanningslijn${metNaam(naam)} op ${m}: binnen ${d.roodTotM} m, onze benadering van de specifieke magneetveldzone uit het RIVM-advies.`;
    if (indicator === 'oranje') return `Bovengrondse hoogspanningslijn${metNaam(naam)} op ${m}: binnen ${d.oranjeTotM} m, waar het RIVM aanraadt de magneetveldzone te laten berekenen.`;
    return `De dichtstbijzijnde bovengrondse hoogspanningslijn${metNaam(naam)} ligt op ${m}, verder dan ${d.oranjeTotM} m.`;
  }
  if (binnen) return `Het adres ligt binnen ${d.naam}${metNaam(naam)}.`;
  if (indicator === 'groen') return `Het dichtstbijzijnde ${d.naam}${metNaam(naam)} ligt op ${m}, verder dan ${d.oranjeTotM} m.`;
  const grens = indicator === 'rood' && d.roodTotM > 0 ? d.roodTotM : d.oranjeTotM;
  return `Het adres ligt op ${m} van ${d.naam}${metNaam(naam)} (binnen ${grens} m).`;
}

export function bepaalIndicator(type: string, afstandM: number, binnen: boolean): Indicator {
  const d = drempelVoor(type);
  if (binnen && d.binnen) return d.binnen;
  if (afstandM < d.roodTotM) return 'rood';
  if (afstandM < d.oranjeTotM) return 'oranje';
  return 'groen';
}

/** Raise when a change of code changes the distances (the thresholds and texts are covered below). */
const REKENWIJZE = 1;

/**
 * What decides a type's rows besides its objects: the distance computation's version, the thresholds,
 * and the colours and sentences the code makes of them. Part of the fingerprint in invloed_stand, so a
 * deploy that changes any of them recomputes that type. Texts and colours are taken from their output
 * for every branch, not from the source text: reformatting the code recomputes nothing.
 */
export function rekenregelsVan(type: string): string {
  const d = drempelVoor(type);
  const afstanden = [0, d.roodTotM - 1, d.roodTotM, d.oranjeTotM - 1, d.oranjeTotM, d.oranjeTotM + 1234];
  const uitkomsten: string[] = [];
  for (const binnen of [true, false]) {
    for (const m of afstanden) uitkomsten.push(bepaalIndicator(type, m, binnen));
    for (const i of ['rood', 'oranje', 'groen'] as const) uitkomsten.push(omschrijf(type, i, 1234, binnen, 'N'), omschrijf(type, i, 1234, binnen, null));
  }
  return JSON.stringify([REKENWIJZE, d, uitkomsten]);
}

export class InvloedIndex {
  private readonly perType = new Map<string, { features: Voorbereid[]; index: Flatbush; segmenten: TypeSegmenten }>();

  constructor(features: readonly InvloedFeature[]) {
    const groepen = new Map<string, Voorbereid[]>();
    for (const f of features) {
      let l = groepen.get(f.type);
      if (!l) groepen.set(f.type, (l = []));
      l.push(bereid(f));
    }
    for (const [type, lijst] of groepen) {
      lijst.sort((a, b) => (a.f.id < b.f.id ? -1 : a.f.id > b.f.id ? 1 : 0));
      const index = new Flatbush(lijst.length);
      for (const v of lijst) index.add(v.minX, v.minY, v.maxX, v.maxY);
      index.finish();
      this.perType.set(type, { features: lijst, index, segmenten: voegSamen(lijst) });
    }
  }

  get types(): string[] {
    return [...this.perType.keys()].sort();
  }

  /** The nearest feature of a type, or null when the type has no features. */
  dichtstbij(type: string, lon: number, lat: number): Dichtstbij | null {
    const t = this.perType.get(type);
    if (!t) return null;
    for (const i of t.index.search(lon, lat, lon, lat)) {
      const v = t.features[i];
      if (v.vlak && bevat(v, t.segmenten, lon, lat, t.segmenten.index)) return { feature: v.f, afstand: 0, binnen: true };
    }
    const p = new Float64Array(3);
    eenheid(lon, lat, p, 0);
    const { k, hoek } = dichtsteSegment(t.segmenten, lon, lat, p);
    const beste = t.features[t.segmenten.feature[k]];
    const afstand = hoek * AARDSTRAAL_M;
    const binnen = beste.vlak && afstand < 0.5;
    return { feature: beste.f, afstand: binnen ? 0 : afstand, binnen };
  }

  beoordeel(type: string, lon: number, lat: number): Beoordeling | null {
    const d = this.dichtstbij(type, lon, lat);
    if (!d) return null;
    const afstandM = Math.round(d.afstand);
    const indicator = bepaalIndicator(type, afstandM, d.binnen);
    return {
      type,
      indicator,
      afstandM,
      binnen: d.binnen,
      featureId: d.feature.id,
      naam: d.feature.naam ?? null,
      omschrijving: omschrijf(type, indicator, afstandM, d.binnen, d.feature.naam),
      bron: d.feature.bron ?? 'invloed_object',
    };
  }
}

export interface InvloedOpties {
  /** Types to compute; default every type that has features. Types without features give no rows. */
  types?: readonly string[];
}

export function computeInvloeden(features: readonly InvloedFeature[], addresses: readonly AdresPunt[], opts: InvloedOpties = {}): AdresInvloedRij[] {
  const index = new InvloedIndex(features);
  const types = (opts.types ?? index.types).filter((t) => index.types.includes(t));
  const uit: AdresInvloedRij[] = [];
  for (const a of addresses) {
    if (a.lat === null || a.lon === null || !Number.isFinite(a.lat) || !Number.isFinite(a.lon)) continue;
    for (const type of types) {
      const b = index.beoordeel(type, a.lon, a.lat);
      if (!b) continue;
      uit.push({ adres_id: a.id, type, indicator: b.indicator, afstand_m: b.afstandM, omschrijving: b.omschrijving, bron: b.bron });
    }
  }
  return uit;
}

/** Distance in metres from a point to one feature without any index (0 inside); for tests and checks. */
export function afstandTotFeature(f: InvloedFeature, lon: number, lat: number): number {
  const v = bereid(f);
  if (bevat(v, v.s, lon, lat, null)) return 0;
  const p = new Float64Array(3);
  eenheid(lon, lat, p, 0);
  let best = Infinity;
  for (let k = 0; k < v.s.n; k++) best = Math.min(best, hoekTotSegment(v.s, k, p[0], p[1], p[2]));
  return best * AARDSTRAAL_M;
}
