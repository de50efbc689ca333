/**
 * The per-request part of the model: find comparables around the subject, bring each to the subject
 * and the peildatum, weigh them and take the weighted median. Nothing is fitted here; everything it
 * uses was precomputed by buildModel.
 */
import { attributeAdjustment, yearEffect } from './adjustments.ts';
import type { AdjustmentCaps, AttributeEffects, SubjectAttributes } from './adjustments.ts';
import { addMonths, monthPosition } from './dates.ts';
import { logIndexAt } from './price-index.ts';
import type { LogIndex } from './price-index.ts';
import { rowsWithin } from './spatial-index.ts';
import type { SpatialIndex } from './spatial-index.ts';
import type { SalesTable } from './sales-table.ts';
import { KENMERKEN } from './types.ts';
import { effectiveCount, kthSmallest, similarityWeight, weightedMad, weightedMedian } from './weights.ts';
import type { WeightParams } from './weights.ts';

/** Search, filter and refusal settings. */
export interface SearchParams {
  /** Oldest usable sale, in months before the peildatum. */
  vensterMaanden: number;
  /** Search radii in metres, tried in order until enough comparables pass the filters. */
  ringen: number[];
  /** Stop widening the search once this many comparables pass the filters. */
  doelAantal: number;
  /** At most this many comparables (the most similar) enter the median. */
  maxAantal: number;
  /** Hard filter: largest |log(area ratio)| (log 1.5 ~ 0.405). */
  maxOppervlakteLog: number;
  /** Hard filter: largest build-year difference when both are known. */
  maxBouwjaarVerschil: number;
  /** Refuse below this many comparables or this effective count. */
  minAantal: number;
  minNEff: number;
  /** Refuse above this dispersion (weighted MAD of adjusted log prices). */
  maxSpreiding: number;
}

export const DEFAULT_SEARCH: SearchParams = {
  vensterMaanden: 60,
  ringen: [250, 500, 1000, 2000, 4000, 8000],
  doelAantal: 30,
  maxAantal: 40,
  maxOppervlakteLog: Math.log(1.6),
  maxBouwjaarVerschil: 40,
  minAantal: 5,
  minNEff: 5,
  maxSpreiding: 0.4,
};

/** Everything buildModel precomputes that the comparable search reads. */
export interface ComparableCore {
  table: SalesTable;
  spatial: SpatialIndex;
  effects: AttributeEffects[];
  caps: AdjustmentCaps;
  search: SearchParams;
  weights: WeightParams;
  /** Time curves; curve[curveOfRow[r]] applies to row r. */
  curves: LogIndex[];
  curveOfRow: Uint16Array;
  /** Log index level of each row's own sale date on its curve. */
  saleLogIndex: Float64Array;
  /** Region lookup for a subject position (returns a curve number). */
  curveAt: (x: number, y: number) => number;
  /**
   * Per row the time-indexed sales ratio: log price minus log WOZ, each deflated by the index at its
   * own date (NaN: the sale has no WOZ); null when no held sale has one.
   */
  wozRatio: Float64Array | null;
}

/** What the comparable search needs of a subject, already projected and coded. */
export interface CodedSubject extends SubjectAttributes {
  x: number;
  y: number;
  segment: number;
  /** Sale ids never to use. */
  exclude: ReadonlySet<string> | null;
  /** Interned dwelling id whose sales are never used (-1: none). */
  excludeObject: number;
  /** The subject's log WOZ value deflated by the index at its WOZ peildatum (NaN: none usable). */
  wozDeflated: number;
}

/** Raw outcome of the search, before the band and label. */
export interface RawEstimate {
  /** log of the point estimate; NaN when there were no comparables at all. */
  logWaarde: number;
  nComps: number;
  nEff: number;
  spreiding: number;
  /** Weighted mean distance of the comparables in metres (diagnostic, used by calibration features). */
  afstand: number;
  /** Weighted mean |attribute adjustment| (log). */
  correctie: number;
  /** Radius of the last ring searched. */
  straal: number;
  /** Sales of the segment within `straal` and the window, own dwelling aside; of those, with a similar area. */
  inBereik?: number;
  naOppervlakte?: number;
  /**
   * Weighted mean of each further attribute (KENMERKEN order) over the comparables that have it
   * (NaN: none has); null when the held sales carry no such attributes.
   */
  kenmerken?: Float64Array | null;
  /**
   * Sales-ratio estimate (log): the subject's deflated WOZ times the weighted median time-indexed
   * ratio of the comparables' prices to their own WOZ, at the peildatum; NaN when the subject or too
   * few comparables have a WOZ value. `wozNEff` is the effective count of those comparables,
   * `wozSpreiding` the weighted MAD of their ratios.
   */
  woz?: number;
  wozNEff?: number;
  wozSpreiding?: number;
  /** Weight the sales-ratio estimate got in `logWaarde` (0: comparables alone). */
  wozGewicht?: number;
}

/** Scratch buffers reused across requests (valuation is synchronous, so one set per model suffices). */
export class Scratch {
  found: number[] = [];
  row: Int32Array;
  value: Float64Array;
  dist: Float64Array;
  dOpp: Float64Array;
  dYear: Float64Array;
  age: Float64Array;
  adj: Float64Array;
  w: Float64Array;
  tmp: Float64Array;
  order: number[] = [];
  inBereik = 0;
  naOppervlakte = 0;
  peilStamp: Int32Array;
  peilValue: Float64Array;
  request = 0;
  constructor(capacity: number, curves: number) {
    this.row = new Int32Array(capacity);
    this.value = new Float64Array(capacity);
    this.dist = new Float64Array(capacity);
    this.dOpp = new Float64Array(capacity);
    this.dYear = new Float64Array(capacity);
    this.age = new Float64Array(capacity);
    this.adj = new Float64Array(capacity);
    this.w = new Float64Array(capacity);
    this.tmp = new Float64Array(capacity);
    this.peilStamp = new Int32Array(curves);
    this.peilValue = new Float64Array(curves);
  }
  ensure(n: number): void {
    if (n <= this.row.length) return;
    const cap = Math.max(n, this.row.length * 2);
    this.row = new Int32Array(cap);
    for (const k of ['value', 'dist', 'dOpp', 'dYear', 'age', 'adj', 'w', 'tmp'] as const) this[k] = new Float64Array(cap);
  }
}

/** Subject attributes coded for the adjustment loop. */
export function subjectAttributes(e: AttributeEffects, logOpp: number, logPerceel: number, bouwjaar: number, type: number, label: number): SubjectAttributes {
  return { logOpp, logPerceel, bouwjaar, yearEffect: bouwjaar === bouwjaar ? yearEffect(e, bouwjaar) : NaN, type, label };
}

const DAYS_PER_MONTH = 30.4375;

/**
 * Collect the comparables that pass the hard filters within `radius`: sold strictly before the
 * peildatum and inside the time window, not the subject's own sale, same segment, similar size
 * and age, and not needing more than the capped total adjustment.
 */
function collect(core: ComparableCore, s: CodedSubject, peilDay: number, minDay: number, radius: number, sc: Scratch): number {
  const t = core.table;
  const e = core.effects[s.segment];
  const search = core.search;
  const found = rowsWithin(core.spatial, s.segment, s.x, s.y, radius, sc.found);
  sc.ensure(found);
  const peilPos = monthPosition(peilDay);
  let k = 0;
  sc.inBereik = 0;
  sc.naOppervlakte = 0;
  for (let i = 0; i < found; i++) {
    const r = sc.found[i];
    const day = t.day[r];
    if (day >= peilDay || day < minDay) continue;
    if (s.excludeObject >= 0 && t.object[r] === s.excludeObject) continue;
    if (s.exclude !== null && s.exclude.has(t.ids[r])) continue;
    sc.inBereik++;
    const lo = t.logOpp[r];
    if (lo !== lo) continue;
    const dOpp = s.logOpp - lo;
    if (dOpp > search.maxOppervlakteLog || dOpp < -search.maxOppervlakteLog) continue;
    sc.naOppervlakte++;
    const by = t.bouwjaar[r];
    const dYear = s.bouwjaar - by;
    if (dYear > search.maxBouwjaarVerschil || dYear < -search.maxBouwjaarVerschil) continue;
    const adj = attributeAdjustment(e, core.caps, s, lo, t.logPerceel[r], by, t.type[r], t.label[r], t.kenmerken, r * KENMERKEN.length);
    if (adj > core.caps.totaal || adj < -core.caps.totaal) continue;
    const c = core.curveOfRow[r];
    if (sc.peilStamp[c] !== sc.request) {
      sc.peilStamp[c] = sc.request;
      sc.peilValue[c] = logIndexAt(core.curves[c], peilPos);
    }
    const dx = t.x[r] - s.x;
    const dy = t.y[r] - s.y;
    sc.row[k] = r;
    sc.value[k] = t.logPrijs[r] + (sc.peilValue[c] - core.saleLogIndex[r]) + adj;
    sc.dist[k] = Math.sqrt(dx * dx + dy * dy);
    sc.dOpp[k] = dOpp;
    sc.dYear[k] = dYear;
    sc.age[k] = (peilDay - day) / DAYS_PER_MONTH;
    sc.adj[k] = adj;
    k++;
  }
  return k;
}

/** Find, adjust and weigh the comparables of `s` at `peilDay`; returns the raw estimate. */
export function estimate(core: ComparableCore, s: CodedSubject, peilDay: number, sc: Scratch): RawEstimate {
  const search = core.search;
  const minDay = addMonths(peilDay, -search.vensterMaanden);
  sc.request = (sc.request + 1) | 0;
  let k = 0;
  let radius = 0;
  for (const r of search.ringen) {
    radius = r;
    k = collect(core, s, peilDay, minDay, r, sc);
    if (k >= search.doelAantal) break;
  }
  const gevonden = { inBereik: sc.inBereik, naOppervlakte: sc.naOppervlakte };
  if (k === 0) return { logWaarde: NaN, nComps: 0, nEff: 0, spreiding: NaN, afstand: NaN, correctie: NaN, straal: radius, kenmerken: null, ...gevonden };

  // Adaptive distance bandwidth: dense cities get a tight kernel, villages a wide one.
  const kth = Math.min(core.weights.afstandK, k) - 1;
  for (let i = 0; i < k; i++) sc.tmp[i] = sc.dist[i];
  const dk = kthSmallest(sc.tmp, k, kth);
  const bandwidth = Math.max(core.weights.afstandMin, core.weights.afstandFactor * dk);
  for (let i = 0; i < k; i++) sc.w[i] = similarityWeight(core.weights, sc.dist[i], bandwidth, sc.dOpp[i], sc.dYear[i], sc.age[i], sc.adj[i]);

  // Keep the most similar maxAantal: far, faint comparables add noise to n_eff but not information.
  let m = k;
  if (k > search.maxAantal) {
    for (let i = 0; i < k; i++) sc.tmp[i] = -sc.w[i];
    const cut = -kthSmallest(sc.tmp, k, search.maxAantal - 1);
    m = 0;
    for (let i = 0; i < k && m < search.maxAantal; i++) {
      if (sc.w[i] >= cut) {
        sc.row[m] = sc.row[i];
        sc.value[m] = sc.value[i];
        sc.w[m] = sc.w[i];
        sc.dist[m] = sc.dist[i];
        sc.adj[m] = sc.adj[i];
        m++;
      }
    }
  }
  const logWaarde = weightedMedian(sc.value, sc.w, m, sc.order);
  const spreiding = weightedMad(sc.value, sc.w, logWaarde, m, sc.tmp, sc.order);
  let sw = 0;
  let sd = 0;
  let sa = 0;
  for (let i = 0; i < m; i++) {
    sw += sc.w[i];
    sd += sc.w[i] * sc.dist[i];
    sa += sc.w[i] * Math.abs(sc.adj[i]);
  }
  const out: RawEstimate = { logWaarde, nComps: m, nEff: effectiveCount(sc.w, m), spreiding, afstand: sd / sw, correctie: sa / sw, straal: radius, kenmerken: kenmerkMeans(core.table, sc, m), ...gevonden };
  if (core.wozRatio && s.wozDeflated === s.wozDeflated) salesRatio(core, core.wozRatio, s, peilDay, sc, m, out);
  return out;
}

/** Fewest effective comparables with a WOZ value for a sales-ratio estimate. */
const MIN_WOZ_NEFF = 3;

/** The sales-ratio estimate over the first m comparables in the scratch (see RawEstimate.woz). */
function salesRatio(core: ComparableCore, ratio: Float64Array, s: CodedSubject, peilDay: number, sc: Scratch, m: number, out: RawEstimate): void {
  let k = 0;
  for (let i = 0; i < m; i++) {
    const v = ratio[sc.row[i]];
    if (v !== v) continue;
    sc.value[k] = v;
    sc.w[k] = sc.w[i];
    k++;
  }
  const nEff = k ? effectiveCount(sc.w, k) : 0;
  if (nEff < MIN_WOZ_NEFF) return;
  const r = weightedMedian(sc.value, sc.w, k, sc.order);
  out.woz = s.wozDeflated + r + logIndexAt(core.curves[core.curveAt(s.x, s.y)], monthPosition(peilDay));
  out.wozNEff = nEff;
  out.wozSpreiding = weightedMad(sc.value, sc.w, r, k, sc.tmp, sc.order);
}

/** Weighted mean of each further attribute over the first m comparables in the scratch (null: none held). */
function kenmerkMeans(t: SalesTable, sc: Scratch, m: number): Float64Array | null {
  const kt = t.kenmerken;
  if (!kt) return null;
  const K = KENMERKEN.length;
  const out = new Float64Array(K);
  for (let j = 0; j < K; j++) {
    let sw = 0;
    let sv = 0;
    for (let i = 0; i < m; i++) {
      const v = kt[sc.row[i] * K + j];
      if (v !== v) continue;
      sw += sc.w[i];
      sv += sc.w[i] * v;
    }
    out[j] = sw > 0 ? sv / sw : NaN;
  }
  return out;
}
