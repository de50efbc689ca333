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
  const b = new SalesTableBuilder(sales.length);
  for (const s of sales) b.add(s);
  return b.finish(projection);
}

/**
 * buildSalesTable one record at a time (gegevens.ts streams the held sales into it): columns for
 * `capacity` records, grown or cut to the kept count; x and y hold lon and lat until finish.
 */
export class SalesTableBuilder {
  private t: SalesTable;
  private cap: number;
  private latSum = 0;

  constructor(capacity: number) {
    this.cap = Math.max(1, capacity);
    this.t = {
      n: 0,
      ids: [],
      object: new Int32Array(this.cap),
      objectIndex: new Map(),
      day: new Int32Array(this.cap),
      prijs: new Float64Array(this.cap),
      logPrijs: new Float64Array(this.cap),
      logOpp: new Float64Array(this.cap),
      logPerceel: new Float64Array(this.cap),
      bouwjaar: new Float64Array(this.cap),
      type: new Uint8Array(this.cap),
      label: new Uint8Array(this.cap),
      segment: new Uint8Array(this.cap),
      x: new Float64Array(this.cap),
      y: new Float64Array(this.cap),
      kenmerken: null,
      wozLog: null,
      wozDay: null,
      projection: { kx: 0, ky: 0 },
      newestDay: -Infinity,
    };
  }

  add(s: SaleRecord): void {
    if (!(s.prijs > 0) || !Number.isFinite(s.lat) || !Number.isFinite(s.lon) || !s.datum) return;
    const t = this.t;
    if (t.n === this.cap) this.resize(this.cap * 2);
    const j = t.n++;
    this.latSum += s.lat;
    t.ids.push(s.id);
    if (s.objectId) {
      let o = t.objectIndex.get(s.objectId);
      if (o === undefined) t.objectIndex.set(s.objectId, (o = t.objectIndex.size));
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
    t.x[j] = s.lon;
    t.y[j] = s.lat;
    if (s.kenmerken) writeKenmerken(s.kenmerken, (t.kenmerken ??= new Float32Array(this.cap * KENMERKEN.length).fill(NaN)), j * KENMERKEN.length);
    const woz = s.woz;
    if (woz && woz.waarde > 0 && wozBekend(woz.peildatum, s.datum)) {
      t.wozLog ??= new Float64Array(this.cap).fill(NaN);
      t.wozDay ??= new Int32Array(this.cap);
      t.wozLog[j] = Math.log(woz.waarde);
      t.wozDay[j] = dayNumber(woz.peildatum);
    }
  }

  finish(projection?: Projection): SalesTable {
    const t = this.t;
    if (t.n !== this.cap) this.resize(t.n);
    const proj = projection ?? projectionFor(t.n ? this.latSum / t.n : 52);
    t.projection = proj;
    for (let j = 0; j < t.n; j++) {
      t.x[j] *= proj.kx;
      t.y[j] *= proj.ky;
    }
    return t;
  }

  private resize(cap: number): void {
    const t = this.t;
    const naar = <A extends Float64Array | Float32Array | Int32Array | Uint8Array>(a: A, per = 1, vul = 0): A => {
      const b = new (a.constructor as new (n: number) => A)(cap * per);
      b.set(a.subarray(0, Math.min(a.length, cap * per)));
      if (vul !== 0) b.fill(vul, t.n * per);
      return b;
    };
    for (const k of ['object', 'day', 'prijs', 'logPrijs', 'logOpp', 'logPerceel', 'bouwjaar', 'type', 'label', 'segment', 'x', 'y', 'wozDay'] as const) if (t[k]) (t as unknown as Record<string, unknown>)[k] = naar(t[k]);
    if (t.wozLog) t.wozLog = naar(t.wozLog, 1, NaN);
    if (t.kenmerken) t.kenmerken = naar(t.kenmerken, KENMERKEN.length, NaN);
    this.cap = cap;
  }
}

/** Write the known attributes of `k` into out[o .. o + KENMERKEN.length) (unknown ones untouched). */
export function writeKenmerken(k: NonNullable<SaleRecord['kenmerken']>, out: Float32Array | Float64Array, o: number): void {
  for (let i = 0; i < KENMERKEN.length; i++) {
    const v = k[KENMERKEN[i]];
    if (v != null && Number.isFinite(v)) out[o + i] = v;
  }
}
