/**
 * The second stage on top of the comparables: a location step and a gradient-boosted learner.
 *
 * - Location step: every held sale r gets a residual, log(price) - comparables estimate at its own
 *   sale date (so from sales strictly before it, never its own dwelling). A subject's location
 *   statistic is the kernel-weighted, shrunk mean residual of the held sales around it that sold
 *   before the peildatum: positive where sales keep beating their comparables (a pricier street than
 *   its ring), negative where they fall short.
 * - Learner: a GBDT (gbdt.ts) predicts the comparables' remaining log error from the dwelling's
 *   attributes, its position, the comparables' estimate with its dispersion, n_eff, distance and
 *   adjustments, and the location statistic. It is trained out-of-time (on the older sales of the
 *   calibration split, each valued at its own date) and early-stopped on the latest part of those.
 * - Combination: final = comparables + w * learner correction, w fitted on the later held-out slice
 *   (sales the learner never saw) by least absolute log error over a grid; the model's default
 *   stage then chooses w again on its rolling time folds (model.ts, kiesCorrectieGewicht).
 *
 * Nothing here runs per request except `locationStat`, the feature vector and the tree walk.
 */
import type { CodedSubject, ComparableCore, RawEstimate } from './comparables.ts';
import { monthPosition } from './dates.ts';
import { fitGbdt, predictGbdt } from './gbdt.ts';
import type { Gbdt, Matrix } from './gbdt.ts';
import { logIndexAt } from './price-index.ts';
import type { SalesTable } from './sales-table.ts';
import { rowsWithin } from './spatial-index.ts';
import { KENMERKEN } from './types.ts';
import { kthSmallest } from './weights.ts';

/** Which parts of the second stage are used (all but the default exist for the ablation table). */
export type StageMode = 'vergelijking' | 'vergelijking+locatie' | 'leerder' | 'gecombineerd' | 'gecombineerd-zonder-locatie';
export const STAGE_MODES: readonly StageMode[] = ['vergelijking', 'vergelijking+locatie', 'leerder', 'gecombineerd-zonder-locatie', 'gecombineerd'];

export interface Stage {
  mode: StageMode;
  gbdt: Gbdt | null;
  /** Weight of the learner's correction (or of the location statistic in 'vergelijking+locatie'). */
  w: number;
}

/**
 * Location-step settings, fixed in code: rings until 20 neighbouring residuals are found (the same
 * order of evidence as the comparables' target of 30), a Gaussian kernel whose bandwidth is the
 * distance to the 10th neighbour (dense streets get a tight kernel), sale age weighted down with a
 * 5-year e-fold (the comparables' window), and shrinkage towards 0 by one sale's weight.
 */
const LOC_RINGS = [250, 500, 1000, 2000, 4000];
const LOC_TARGET = 20;
const LOC_K = 10;
const LOC_MIN_BANDWIDTH = 50;
const LOC_AGE_MONTHS = 60;
const LOC_PRIOR = 1;

export interface LocationScratch {
  rows: number[];
  d: Float64Array;
  v: Float64Array;
  a: Float64Array;
  tmp: Float64Array;
}

export function locationScratch(): LocationScratch {
  return { rows: [], d: new Float64Array(4096), v: new Float64Array(4096), a: new Float64Array(4096), tmp: new Float64Array(4096) };
}

/**
 * Shrunk kernel mean of the residuals `res` (NaN = none) of held sales near `s` sold before
 * `peilDay`, never the subject's own dwelling. Writes [mean, sum of weights] into out.
 */
export function locationStat(core: ComparableCore, res: Float64Array, s: CodedSubject, peilDay: number, sc: LocationScratch, out: Float64Array, offset: number): void {
  const t = core.table;
  let k = 0;
  for (const radius of LOC_RINGS) {
    k = 0;
    for (let seg = 0; seg < core.spatial.segments.length; seg++) {
      const found = rowsWithin(core.spatial, seg, s.x, s.y, radius, sc.rows);
      for (let i = 0; i < found; i++) {
        const r = sc.rows[i];
        const v = res[r];
        if (v !== v || t.day[r] >= peilDay) continue;
        if (s.excludeObject >= 0 && t.object[r] === s.excludeObject) continue;
        if (s.exclude !== null && s.exclude.has(t.ids[r])) continue;
        if (k >= sc.d.length) {
          const grow = (a: Float64Array) => {
            const b = new Float64Array(a.length * 2);
            b.set(a);
            return b;
          };
          sc.d = grow(sc.d);
          sc.v = grow(sc.v);
          sc.a = grow(sc.a);
          sc.tmp = new Float64Array(sc.d.length);
        }
        const dx = t.x[r] - s.x;
        const dy = t.y[r] - s.y;
        sc.d[k] = Math.sqrt(dx * dx + dy * dy);
        sc.v[k] = v;
        sc.a[k] = (peilDay - t.day[r]) / 30.4375;
        k++;
      }
    }
    if (k >= LOC_TARGET) break;
  }
  if (k === 0) {
    out[offset] = NaN;
    out[offset + 1] = 0;
    return;
  }
  sc.tmp.set(sc.d.subarray(0, k));
  const h = Math.max(LOC_MIN_BANDWIDTH, kthSmallest(sc.tmp, k, Math.min(LOC_K, k) - 1));
  let sw = 0;
  let swv = 0;
  for (let i = 0; i < k; i++) {
    const z = sc.d[i] / h;
    const w = Math.exp(-0.5 * z * z - sc.a[i] / LOC_AGE_MONTHS);
    sw += w;
    swv += w * sc.v[i];
  }
  out[offset] = swv / (sw + LOC_PRIOR);
  out[offset + 1] = sw;
}

export const FEATURE_NAMES = [
  'log_oppervlakte',
  'log_perceel',
  'bouwjaar',
  'woningtype',
  'energielabel',
  'x',
  'y',
  'x_plus_y',
  'x_min_y',
  'vergelijking_gedefleerd',
  'vergelijking_per_m2',
  'spreiding',
  'log_n_eff',
  'afstand',
  'correctie',
  'straal',
  'locatie_residu',
  'locatie_gewicht',
] as const;
export const FEATURES = FEATURE_NAMES.length;

/**
 * Features of a model over `table`: the base ones, plus per further attribute (KENMERKEN) the
 * subject's value and its difference with the comparables' weighted mean, when the held sales carry
 * such attributes (a register's sales do not: no cost there).
 */
export function featureCount(table: SalesTable): number {
  return wozOffset(table) + (table.wozLog ? WOZ_FEATURES : 0);
}

/**
 * Where the WOZ features start in a feature vector of a model over `table` (when its sales carry
 * WOZ values): the sales-ratio estimate against the comparables' and per m2, the dispersion and
 * effective count of the comparables' ratios.
 */
export function wozOffset(table: SalesTable): number {
  return table.kenmerken ? FEATURES + 2 * KENMERKEN.length : FEATURES;
}
const WOZ_FEATURES = 4;
/** Features of the learner alone (attributes and position, no comparables). */
export const ATTRIBUTE_FEATURES = 9;

/** Log index level at the peildatum on the subject's regional curve. */
export function peilLevel(core: ComparableCore, s: CodedSubject, peilDay: number): number {
  return logIndexAt(core.curves[core.curveAt(s.x, s.y)], monthPosition(peilDay));
}

/**
 * Feature vector of a valuation. `loc` holds [mean residual, weight] from locationStat. Features a
 * mode does not use are NaN (a constant for the trees, so they never split on them).
 */
export function stageFeatures(mode: StageMode, s: CodedSubject, e: RawEstimate, level: number, loc: ArrayLike<number>, locOffset: number, out: Float64Array, o: number, wozAt = -1): void {
  out[o] = s.logOpp;
  out[o + 1] = s.logPerceel;
  out[o + 2] = s.bouwjaar;
  out[o + 3] = s.type || NaN;
  out[o + 4] = s.label || NaN;
  out[o + 5] = s.x;
  out[o + 6] = s.y;
  out[o + 7] = (s.x + s.y) / Math.SQRT2;
  out[o + 8] = (s.x - s.y) / Math.SQRT2;
  const sk = s.kenmerken;
  if (sk) {
    for (let j = 0; j < KENMERKEN.length; j++) {
      const v = sk[j];
      const m = e.kenmerken ? e.kenmerken[j] : NaN;
      out[o + FEATURES + j] = v;
      out[o + FEATURES + KENMERKEN.length + j] = mode === 'leerder' ? NaN : v - m;
    }
  }
  if (wozAt >= 0) {
    const w = e.woz ?? NaN;
    const use = mode !== 'leerder' && w === w;
    out[o + wozAt] = use ? w - e.logWaarde : NaN;
    out[o + wozAt + 1] = use ? w - level - s.logOpp : NaN;
    out[o + wozAt + 2] = use ? e.wozSpreiding! : NaN;
    out[o + wozAt + 3] = use ? Math.log(Math.max(1, e.wozNEff!)) : NaN;
  }
  if (mode === 'leerder') {
    for (let j = ATTRIBUTE_FEATURES; j < FEATURES; j++) out[o + j] = NaN;
    return;
  }
  out[o + 9] = e.logWaarde - level;
  out[o + 10] = e.logWaarde - level - s.logOpp;
  out[o + 11] = e.spreiding;
  out[o + 12] = Math.log(Math.max(1, e.nEff));
  out[o + 13] = e.afstand;
  out[o + 14] = e.correctie;
  out[o + 15] = e.straal;
  const useLoc = mode !== 'gecombineerd-zonder-locatie';
  out[o + 16] = useLoc ? loc[locOffset] : NaN;
  out[o + 17] = useLoc ? loc[locOffset + 1] : NaN;
}

/**
 * Point estimate (log) of a valuation under a stage: comparables `e.logWaarde` corrected by the
 * learner (or location statistic), or the learner alone.
 */
export function stageEstimate(stage: Stage, e: RawEstimate, level: number, features: Float64Array, o: number, loc: ArrayLike<number>, locOffset: number): number {
  switch (stage.mode) {
    case 'vergelijking':
      return e.logWaarde;
    case 'vergelijking+locatie': {
      const m = loc[locOffset];
      return m === m ? e.logWaarde + stage.w * m : e.logWaarde;
    }
    case 'leerder':
      return level + (stage.gbdt ? predictGbdt(stage.gbdt, features, o) : e.logWaarde - level);
    default:
      return e.logWaarde + (stage.gbdt ? stage.w * predictGbdt(stage.gbdt, features, o) : 0);
  }
}

/** One valued sale of the out-of-time passes: its features, comparables estimate and truth. */
export interface StageRow {
  row: number;
  day: number;
  e: RawEstimate;
  level: number;
  logPrijs: number;
  features: Float64Array;
  loc: Float64Array;
}

/** Learner target: what the learner predicts for a row (the comparables' error, or the deflated price). */
function target(mode: StageMode, r: StageRow): number {
  return mode === 'leerder' ? r.logPrijs - r.level : r.logPrijs - r.e.logWaarde;
}

function matrixOf(rows: readonly StageRow[]): Matrix {
  const f = rows.length ? rows[0].features.length : FEATURES;
  const x = new Float64Array(rows.length * f);
  rows.forEach((r, i) => x.set(r.features, i * f));
  return { rows: rows.length, features: f, x };
}

/**
 * Losses the learner is fitted with (Huber clipping quantiles; 1 = squared), one chosen per build
 * on held-back rows: sale prices have heavy tails (a sale to a relative, a wreck), and how heavy
 * differs per dataset.
 */
const HUBER_CANDIDATES = [1, 0.9, 0.7, 0.5];

/** Share of the (time-sorted) learning rows held back, the most recent, to stop the boosting. */
const EARLY_STOP_FRACTION = 0.15;

/** The second stage's correction does not fall as the subject's quality grade rises above its
 * comparables' (their adjustment is capped). The learner alone, the backtest's reference, stays plain. */
export function stageMonotoon(table: SalesTable): number[] {
  const m = new Array<number>(featureCount(table)).fill(0);
  if (table.kenmerken) m[FEATURES + KENMERKEN.length + KENMERKEN.indexOf('kwaliteit')] = 1;
  return m;
}

/**
 * Fit the stage: the learner on `learn` (valuations of older sales), the combination weight on
 * `slice` (valuations of later sales the learner never saw).
 */
export function fitStage(mode: StageMode, learn: StageRow[], slice: readonly StageRow[], monotone: readonly number[] = []): Stage {
  if (mode === 'vergelijking') return { mode, gbdt: null, w: 0 };
  let gbdt: Gbdt | null = null;
  if (mode !== 'vergelijking+locatie' && learn.length >= 200) {
    const sorted = [...learn].sort((a, b) => a.day - b.day);
    const cut = Math.floor(sorted.length * (1 - EARLY_STOP_FRACTION));
    const tr = sorted.slice(0, cut);
    const va = sorted.slice(cut);
    const xTr = matrixOf(tr);
    const yTr = Float64Array.from(tr, (r) => target(mode, r));
    const xVa = matrixOf(va);
    const yVa = Float64Array.from(va, (r) => target(mode, r));
    // The loss is chosen out-of-time too: squared or Huber at each clipping quantile, whichever
    // leaves the smallest median absolute error on the held-back newest learning rows.
    let bestErr = Infinity;
    const err = new Float64Array(va.length);
    for (const huberQuantile of HUBER_CANDIDATES) {
      const g = fitGbdt(xTr, yTr, { huberQuantile, monotone }, xVa, yVa);
      for (let i = 0; i < va.length; i++) err[i] = Math.abs(yVa[i] - predictGbdt(g, xVa.x, i * xVa.features));
      const e = err.sort()[va.length >> 1];
      if (e < bestErr - 1e-9) {
        bestErr = e;
        gbdt = g;
      }
    }
  }
  if (mode === 'leerder') return { mode, gbdt, w: 1 };
  let bestW = 0;
  let best = Infinity;
  for (let w = 0; w <= 1.5 + 1e-9; w += 0.05) {
    const stage: Stage = { mode, gbdt, w };
    let err = 0;
    for (const r of slice) err += Math.abs(r.logPrijs - stageEstimate(stage, r.e, r.level, r.features, 0, r.loc, 0));
    if (err < best - 1e-12) {
      best = err;
      bestW = w;
    }
  }
  return { mode, gbdt, w: Math.round(bestW * 100) / 100 };
}

/** Refit the learner of `stage` on `rows` (all held sales) with the tree count it earned out-of-time. */
export function refitStage(stage: Stage, rows: readonly StageRow[]): Stage {
  if (!stage.gbdt || stage.gbdt.trees.length === 0 || rows.length < 200) return stage;
  const gbdt = fitGbdt(matrixOf(rows), Float64Array.from(rows, (r) => target(stage.mode, r)), { maxTrees: stage.gbdt.trees.length, huberQuantile: stage.gbdt.huberQuantile, monotone: stage.gbdt.monotone });
  return { ...stage, gbdt };
}
