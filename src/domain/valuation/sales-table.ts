/**
 * Column store of the held sales. A million SaleRecord objects cost ~300 MB and scatter over the
 * heap; typed columns cost ~60 MB and keep the per-request loop cache-friendly.
 */
import { WONINGTYPEN } from '../begrippen.ts';
import { dayNumber } from './dates.ts';
import { KENMERKEN } from './types.ts';
import type { SaleRecord } from './types.ts';
import { wozBekend } from './woz.ts';

/** Market segments that never serve as each other's comparables. */
export const SEGMENT_HOUSE = 0;
export const SEGMENT_APARTMENT = 1;

/** House types in a fixed order (the vocabulary's); code 0 is "unknown". */
export const WONINGTYPES = WONINGTYPEN;

/** Energy-label classes in a fixed order (A+ and better pooled: too rare to estimate apart); 0 = unknown. */
export const LABEL_CLASSES = ['A+', 'A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;

/** Code 1..6 of a house type, 0 when unknown or not one of the documented values. */
export function woningtypeCode(t: string | null | undefined): number {
  if (!t) return 0;
  const i = (WONINGTYPES as readonly string[]).indexOf(t.trim().toLowerCase());
  return i + 1;
}

/** Segment of a house type: apartments form their own market; everything else (also unknown) is a house. */
export function segmentOf(typeCode: number): number {
  return typeCode === 5 ? SEGMENT_APARTMENT : SEGMENT_HOUSE;
}

/** Build years before this are unknown: BAG writes 1005 for "unknown", and no Dutch dwelling predates it. */
export const MIN_BOUWJAAR = 1200;

export function bekendBouwjaar(v: number | null | undefined): number {
  return v != null && v >= MIN_BOUWJAAR ? v : NaN;
}

/** Code 1..8 of an energy label ('A+++' .. 'G'), 0 when unknown. */
export function labelCode(label: string | null | undefined): number {
  if (!label) return 0;
  const s = label.trim().toUpperCase();
  if (/^A\+{1,4}$/.test(s)) return 1;
  const i = (LABEL_CLASSES as readonly string[]).indexOf(s);
  return i < 0 ? 0 : i + 1;
}

/** Local equirectangular projection to metres: accurate to < 1 % over a country the size of NL. */
export interface Projection {
  kx: number;
  ky: number;
}

export function projectionFor(lat0: number): Projection {
  return { kx: 111_320 * Math.cos((lat0 * Math.PI) / 180), ky: 110_574 };
}

export interface SalesTable {
  n: number;
  ids: string[];
  /** Interned dwelling id per sale, -1 when the record has none. */
  object: Int32Array;
  /** Dwelling id -> its interned number (for Subject.uitsluitenWoning). */
  objectIndex: Map<string, number>;
  day: Int32Array;
  prijs: Float64Array;
  logPrijs: Float64Array;
  /** log living area; NaN when unknown. */
  logOpp: Float64Array;
  /** log plot area; NaN when unknown or zero. */
  logPerceel: Float64Array;
  /** Build year; NaN when unknown. */
  bouwjaar: Float64Array;
  type: Uint8Array;
  label: Uint8Array;
  segment: Uint8Array;
  x: Float64Array;
  y: Float64Array;
  /**
   * The further attributes (KENMERKEN), row-major n x KENMERKEN.length, NaN = unknown; null when no
   * sale has any (a register's sales: no memory spent on them).
   */
  kenmerken: Float32Array | null;
  /**
   * log WOZ value in force at each sale (NaN: none, or not dated strictly before the sale) and its
   * peildatum as a day number; null when no sale has one (no memory spent then).
   */
  wozLog: Float64Array | null;
  wozDay: Int32Array | null;
  projection: Projection;
  newestDay: number;
}

function positiveLog(v: number | null | undefined): number {
  return v != null && Number.isFinite(v) && v > 0 ? Math.log(v) : NaN;
}

/**
 * Validate and columnise sales. Records without a usable price, date or position are skipped (a
 * register always holds a few), so `n` may be smaller than `sales.length`.
 */
export function buildSalesTable(sales: readonly SaleRecord[], projection?: Projection): SalesTable {
  const keep: number[] = [];
  let latSum = 0;
  for (let i = 0; i < sales.length; i++) {
    const s = sales[i];
    if (!(s.prijs > 0) || !Number.isFinite(s.lat) || !Number.isFinite(s.lon) || !s.datum) continue;
    keep.push(i);
    latSum += s.lat;
  }
  const n = keep.length;
  const proj = projection ?? projectionFor(n ? latSum / n : 52);
  const t: SalesTable = {
    n,
    ids: new Array<string>(n),
    object: new Int32Array(n),
    objectIndex: new Map(),
    day: new Int32Array(n),
    prijs: new Float64Array(n),
    logPrijs: new Float64Array(n),
    logOpp: new Float64Array(n),
    logPerceel: new Float64Array(n),
    bouwjaar: new Float64Array(n),
    type: new Uint8Array(n),
    label: new Uint8Array(n),
    segment: new Uint8Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
    kenmerken: keep.some((i) => sales[i].kenmerken) ? new Float32Array(n * KENMERKEN.length).fill(NaN) : null,
    wozLog: null,
    wozDay: null,
    projection: proj,
    newestDay: -Infinity,
  };
  const objects = t.objectIndex;
  for (let j = 0; j < n; j++) {
    const s = sales[keep[j]];
    t.ids[j] = s.id;
    if (s.objectId) {
      let o = objects.get(s.objectId);
      if (o === undefined) objects.set(s.objectId, (o = objects.size));
      t.object[j] = o;
    } else t.object[j] = -1;
    t.day[j] = dayNumber(s.datum);
    if (t.day[j] > t.newestDay) t.newestDay = t.day[j];
    t.prijs[j] = s.prijs;
    t.logPrijs[j] = Math.log(s.prijs);
    t.logOpp[j] = positiveLog(s.oppervlakte);
    t.logPerceel[j] = positiveLog(s.perceel);
    t.bouwjaar[j] = bekendBouwjaar(s.bouwjaar);
    t.type[j] = woningtypeCode(s.woningtype);
    t.label[j] = labelCode(s.energielabel);
    t.segment[j] = segmentOf(t.type[j]);
    t.x[j] = s.lon * proj.kx;
    t.y[j] = s.lat * proj.ky;
    if (t.kenmerken && s.kenmerken) writeKenmerken(s.kenmerken, t.kenmerken, j * KENMERKEN.length);
    const woz = s.woz;
    if (woz && woz.waarde > 0 && wozBekend(woz.peildatum, s.datum)) {
      t.wozLog ??= new Float64Array(n).fill(NaN);
      t.wozDay ??= new Int32Array(n);
      t.wozLog[j] = Math.log(woz.waarde);
      t.wozDay[j] = dayNumber(woz.peildatum);
    }
  }
  return t;
}

/** Write the known attributes of `k` into out[o .. o + KENMERKEN.length) (unknown ones untouched). */
export function writeKenmerken(k: NonNullable<SaleRecord['kenmerken']>, out: Float32Array | Float64Array, o: number): void {
  for (let i = 0; i < KENMERKEN.length; i++) {
    const v = k[KENMERKEN[i]];
    if (v != null && Number.isFinite(v)) out[o + i] = v;
  }
}
