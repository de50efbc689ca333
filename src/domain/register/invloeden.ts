/**
 * Distance per address and influence type to the nearest object (0 inside a polygon) and an indicator.
 * Great-circle distances on turf's sphere (radius 6 371 008.8 m), so results agree with turf to well under
 * a metre; even-odd containment as turf's booleanPointInPolygon, a point within 0.5 m of a border inside.
 * Per type a Flatbush over every segment, searched best-first with an exact spherical lower bound, so the
 * cost per address does not grow with the vertices of a border.
 */
import Flatbush from 'flatbush';
import FlatQueue from 'flatqueue';
import type { Geometry, Position } from 'geojson';
import { KERN_INVLOED_TYPES } from '../begrippen.ts';

export type Indicator = 'rood' | 'oranje' | 'groen';

export interface InvloedDrempel {
  /** E.g. 'Natura 2000-gebied'. */
  naam: string;
  /** Null: the type has no polygons. */
  binnen: Indicator | null;
  /** 0 = never by distance. */
  roodTotM: number;
  oranjeTotM: number;
  basis: string;
}

/**
 * Product choices, not legal norms. hoogspanning: a fixed proxy for the RIVM 'specifieke magneetveldzone'
 * (0.4 µT yearly average) without line-specific widths: < 50 m rood, < 250 m (where RIVM advises computing
 * the zone) oranje. natura2000: inside rood, within 250 m ('externe werking') oranje.
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
  afstandM: number;
  binnen: boolean;
  featureId: string;
  naam: string | null;
  omschrijving: string;
  bron: string;
}

interface Segmenten {
  n: number;
  /** [ax, ay, bx, by] per segment. */
  ll: Float64Array;
  /** Unit vectors a, b and the great circle's normal n: 9 per segment. */
  v: Float64Array;
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
  /** [van, tot) in its type's arrays. */
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

function boog(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s1 = Math.sin(((lat2 - lat1) * RAD) / 2);
  const s2 = Math.sin(((lon2 - lon1) * RAD) / 2);
  return 2 * Math.asin(Math.min(1, Math.sqrt(s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2)));
}

/** Exact on the sphere: the nearest point lies on the same meridian, or on the nearer meridian edge. */
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

/** Boxes padded in latitude by the great-circle bulge, so they contain the arc. */
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
    const bolling = (dl * dl) / 8 / RAD;
    index.add(Math.min(ax, bx), Math.min(ay, by) - bolling, Math.max(ax, bx), Math.max(ay, by) + bolling);
  }
  index.finish();
  return { n, ll, v: vv, deel, feature, index, rij: new FlatQueue<number>() };
}

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

/** Best-first with the exact box bound: only nodes nearer than the answer are visited. Ties: lower feature. */
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
  afstand: number;
  binnen: boolean;
}

const nl = new Intl.NumberFormat('nl-NL', { maximumFractionDigits: 0 });
const nl1 = new Intl.NumberFormat('nl-NL', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** Whole metres; tenths where those would reach the threshold the sentence names (49,6 m, binnen 50 m). */
function meters(afstand: number, grens: number, binnenGrens: boolean): string {
  const heel = Math.round(afstand);
  if (binnenGrens ? heel < grens : heel > grens) return `${nl.format(heel)} m`;
  const t = Math.round(afstand * 10) / 10;
  if (binnenGrens ? t < grens : t > grens) return `${nl1.format(t)} m`;
  return `${nl1.format((binnenGrens ? Math.floor : Math.ceil)(afstand * 10) / 10)} m`;
}

function metNaam(naam: string | null | undefined): string {
  return naam ? ` ‘${naam}’` : '';
}

export function omschrijf(type: string, indicator: Indicator, onafgerond: number, binnen: boolean, naam: string | null | undefined): string {
  const d = drempelVoor(type);
  const grens = indicator === 'rood' && d.roodTotM > 0 ? d.roodTotM : d.oranjeTotM;
  const m = meters(onafgerond, grens, indicator !== 'groen');
  if (type === 'hoogspanning') {
    if (indicator === 'rood') return `Bovengrondse hoogspanningslijn${metNaam(naam)} op ${m}: binnen ${d.roodTotM} m, onze benadering van de specifieke magneetveldzone uit het RIVM-advies.`;
    if (indicator === 'oranje') return `Bovengrondse hoogspanningslijn${metNaam(naam)} op ${m}: binnen ${d.oranjeTotM} m, waar het RIVM aanraadt de magneetveldzone te laten berekenen.`;
    return `De dichtstbijzijnde bovengrondse hoogspanningslijn${metNaam(naam)} ligt op ${m}, verder dan ${d.oranjeTotM} m.`;
  }
  if (binnen) return `Het adres ligt binnen ${d.naam}${metNaam(naam)}.`;
  if (indicator === 'groen') return `Het dichtstbijzijnde ${d.naam}${metNaam(naam)} ligt op ${m}, verder dan ${d.oranjeTotM} m.`;
  return `Het adres ligt op ${m} van ${d.naam}${metNaam(naam)} (binnen ${grens} m).`;
}

export function bepaalIndicator(type: string, afstandM: number, binnen: boolean): Indicator {
  const d = drempelVoor(type);
  if (binnen && d.binnen) return d.binnen;
  if (afstandM < d.roodTotM) return 'rood';
  if (afstandM < d.oranjeTotM) return 'oranje';
  return 'groen';
}

/** Raise when a change of code changes the distances or the colours from them (2: thresholds on unrounded metres). */
const REKENWIJZE = 2;

/**
 * Part of the fingerprint in invloed_stand, so a deploy that changes the computation, thresholds, colours
 * or sentences recomputes that type. Taken from their output, so reformatting the code recomputes nothing.
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
    const indicator = bepaalIndicator(type, d.afstand, d.binnen);
    return {
      type,
      indicator,
      afstandM: Math.round(d.afstand),
      binnen: d.binnen,
      featureId: d.feature.id,
      naam: d.feature.naam ?? null,
      omschrijving: omschrijf(type, indicator, d.afstand, d.binnen, d.feature.naam),
      bron: d.feature.bron ?? 'invloed_object',
    };
  }
}

export interface InvloedOpties {
  /** Default every type that has features. */
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

/** Without any index: for tests and checks. */
export function afstandTotFeature(f: InvloedFeature, lon: number, lat: number): number {
  const v = bereid(f);
  if (bevat(v, v.s, lon, lat, null)) return 0;
  const p = new Float64Array(3);
  eenheid(lon, lat, p, 0);
  let best = Infinity;
  for (let k = 0; k < v.s.n; k++) best = Math.min(best, hoekTotSegment(v.s, k, p[0], p[1], p[2]));
  return best * AARDSTRAAL_M;
}
