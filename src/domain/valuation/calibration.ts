/**
 * Band calibration: the 80 % interval (min, max) comes from how wrong the model actually was on
 * recent sales it had not seen, not from a fixed +-x %.
 *
 * 1. An uncertainty score per valuation: exp of a small linear model of log|error| on the
 *    valuation's own diagnostics (dispersion of the comparables, their distance, n_eff and the
 *    size of their adjustments), fitted on the calibration residuals.
 * 2. The calibration valuations are cut into buckets of that score; per bucket the split-conformal
 *    10 % and 90 % quantiles of the log error are reported per bucket (rank ceil((n+1) q), the
 *    usual finite-sample correction).
 * 3. The band itself is normalised conformal (Mondrian by group): per group of valuations (the
 *    confidence label) the conformal 10 % and 90 % quantiles of log error / score, times the
 *    valuation's own score. Each quantile then rests on every case of its group instead of one
 *    bucket's (a bucket of 150 cases moves a 10 % quantile by +-2.5 coverage points), the width still
 *    follows the score, and each label covers what it claims, not just the total. A group with fewer
 *    than MIN_GROEP cases uses the pooled quantiles.
 */
import type { RawEstimate } from './comparables.ts';
import { afwijking } from './confidence.ts';
import { solveSpd } from './linalg.ts';

/** One calibration valuation: the raw estimate and what the dwelling really sold for. */
export interface CalibrationCase {
  estimate: RawEstimate;
  /** log(sale price) - log(estimate) */
  logFout: number;
  /** Sale day (day number); weights the band quantiles towards the most recent cases. */
  dag?: number;
}

export interface CalibrationBucket {
  /** Median score of the bucket: the interpolation node. */
  score: number;
  /** Upper score bound of the bucket (for reports). */
  totScore: number;
  n: number;
  /** Conformal log-error quantiles: band = estimate * exp([laag, hoog]). */
  laag: number;
  hoog: number;
  /** Share within 10 % and within 20 % in this bucket. */
  pe10: number;
  pe20: number;
}

/** Normalised conformal quantiles: band = score * [laag, hoog] (log scale). */
export interface BandQuantiles {
  n: number;
  laag: number;
  hoog: number;
}

/** Fewest cases for a group's own band quantiles (a 10 % quantile then rests on >= 15 cases per tail). */
const MIN_GROEP = 150;

export interface Calibration {
  /** Pooled and per-group normalised band quantiles (absent: band from the bucket quantiles). */
  band?: { alle: BandQuantiles; groepen: Record<string, BandQuantiles> };
  /** Coefficients of the log-scale model (intercept first); empty = score is the dispersion itself. */
  schaal: number[];
  buckets: CalibrationBucket[];
  /** Target coverage of the band. */
  dekking: number;
  /** Number of calibration valuations. */
  n: number;
}

const FEATURES = 5;
/** With WOZ-anchored valuations among the cases, a sixth feature: the weight the WOZ estimate got. */
const FEATURES_WOZ = 6;

function features(e: RawEstimate, out: Float64Array, p: number): void {
  out[0] = 1;
  out[1] = Math.log(e.spreiding + 0.01);
  out[2] = Math.log(e.afstand + 100);
  out[3] = Math.log(Math.max(1, e.nEff));
  out[4] = e.correctie;
  if (p === FEATURES_WOZ) out[5] = e.wozGewicht ?? 0;
}

/** Uncertainty score of a valuation under `cal` (larger = less certain; roughly a typical |log error|). */
export function uncertaintyScore(cal: Pick<Calibration, 'schaal'>, e: RawEstimate): number {
  const p = cal.schaal.length;
  if (p !== FEATURES && p !== FEATURES_WOZ) return e.spreiding;
  const x = new Float64Array(p);
  features(e, x, p);
  let s = 0;
  for (let j = 0; j < p; j++) s += cal.schaal[j] * x[j];
  return Math.exp(s);
}

/** Value at conformal rank ceil((n + 1) q) of sorted values (clamped to the ends). */
export function conformalQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  const rank = q >= 0.5 ? Math.ceil((n + 1) * q) : Math.floor((n + 1) * q);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))];
}

function fitScale(cases: readonly CalibrationCase[]): number[] {
  const p = cases.some((c) => (c.estimate.wozGewicht ?? 0) > 0) ? FEATURES_WOZ : FEATURES;
  const xtx = new Float64Array(p * p);
  const xty = new Float64Array(p);
  const x = new Float64Array(p);
  for (const c of cases) {
    features(c.estimate, x, p);
    const y = Math.log(Math.abs(c.logFout) + 0.01);
    for (let i = 0; i < p; i++) {
      xty[i] += x[i] * y;
      for (let j = 0; j < p; j++) xtx[i * p + j] += x[i] * x[j];
    }
  }
  return Array.from(solveSpd(xtx, xty, p));
}

/**
 * Fit the band calibration on `cases`. With fewer than `minCases` the scale model is skipped (the
 * score is then the raw dispersion); the buckets need at least `perBucket` cases each.
 */
export function fitCalibration(cases: readonly CalibrationCase[], opts: { dekking?: number; maxBuckets?: number; perBucket?: number; minScaleCases?: number } = {}): Calibration {
  const dekking = opts.dekking ?? 0.8;
  const perBucket = opts.perBucket ?? 150;
  const schaal = cases.length >= (opts.minScaleCases ?? 300) ? fitScale(cases) : [];
  const scored = cases.map((c) => ({ s: uncertaintyScore({ schaal }, c.estimate), f: c.logFout })).sort((a, b) => a.s - b.s);
  const k = Math.max(1, Math.min(opts.maxBuckets ?? 6, Math.floor(scored.length / perBucket)));
  const tail = (1 - dekking) / 2;
  const buckets: CalibrationBucket[] = [];
  for (let b = 0; b < k; b++) {
    const part = scored.slice(Math.floor((b * scored.length) / k), Math.floor(((b + 1) * scored.length) / k));
    const errs = part.map((p) => p.f).sort((u, v) => u - v);
    const within = (lim: number) => part.filter((p) => afwijking(p.f) <= lim + 1e-9).length / part.length;
    buckets.push({
      score: part[part.length >> 1].s,
      totScore: part[part.length - 1].s,
      n: part.length,
      // The estimate itself must lie inside its band, so the quantiles never cross zero.
      laag: Math.min(0, conformalQuantile(errs, tail)),
      hoog: Math.max(0, conformalQuantile(errs, 1 - tail)),
      pe10: within(0.1),
      pe20: within(0.2),
    });
  }
  return { schaal, buckets, dekking, n: cases.length };
}

/**
 * Weighted conformal quantile (Barber et al. 2023, non-exchangeable split conformal): the weighted
 * empirical distribution of the scores plus a point mass at +-infinity carrying the weight of one
 * new case, so with equal weights it is exactly the rank-ceil((n+1)q) rule.
 */
function weightedConformal(z: readonly { v: number; w: number }[], q: number): number {
  const sorted = [...z].sort((a, b) => a.v - b.v);
  const total = sorted.reduce((s, p) => s + p.w, 0);
  const wNew = total / Math.max(1, sorted.length);
  const all = total + wNew;
  if (q >= 0.5) {
    let acc = 0;
    for (const p of sorted) {
      acc += p.w;
      if (acc >= q * all - 1e-12) return p.v;
    }
    return sorted[sorted.length - 1].v;
  }
  let acc = wNew;
  for (const p of sorted) {
    acc += p.w;
    if (acc > q * all + 1e-12) return p.v;
  }
  return sorted[sorted.length - 1].v;
}

/**
 * The band is symmetric in log: the slice's errors lean the way the market moved during it, and the
 * next period's move may go the other way; a shift of the centre either way costs a symmetric band
 * the least (docs/backtest.md).
 */
function bandQuantiles(z: readonly { v: number; w: number }[], dekking: number): BandQuantiles {
  const q = Math.max(0, weightedConformal(z.map((p) => ({ v: Math.abs(p.v), w: p.w })), dekking));
  return { n: z.length, laag: -q, hoog: q };
}

/** Fit the normalised band quantiles of `cal`, pooled and per group (`groupOf` of a case's score). */
export function fitBandGroups(cal: Calibration, cases: readonly CalibrationCase[], groupOf: (score: number) => string): Calibration {
  const all: { v: number; w: number }[] = [];
  const byGroup = new Map<string, { v: number; w: number }[]>();
  // Recency weights: the market drifts, so the newest cases resemble the next valuations most. The
  // e-fold is a third of the slice's own span (1/e^3 ~ 5 % weight at its start); no dates: equal.
  let first = Infinity;
  let last = -Infinity;
  for (const c of cases) if (c.dag !== undefined) {
    first = Math.min(first, c.dag);
    last = Math.max(last, c.dag);
  }
  const efold = Math.max(1, (last - first) / 3);
  for (const c of cases) {
    const score = uncertaintyScore(cal, c.estimate);
    const z = { v: c.logFout / score, w: c.dag !== undefined && Number.isFinite(last) ? Math.exp(-(last - c.dag) / efold) : 1 };
    all.push(z);
    const g = groupOf(score);
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g)!.push(z);
  }
  const groepen: Record<string, BandQuantiles> = {};
  for (const [g, z] of byGroup) if (z.length >= MIN_GROEP) groepen[g] = bandQuantiles(z, cal.dekking);
  return { ...cal, band: { alle: bandQuantiles(all, cal.dekking), groepen } };
}

/**
 * Log-error quantiles [laag, hoog] for a score (and the valuation's group): normalised conformal
 * when fitted, else interpolated between bucket centres, flat beyond.
 */
export function bandFor(cal: Calibration, score: number, groep?: string): [number, number] {
  if (cal.band) {
    const q = (groep !== undefined ? cal.band.groepen[groep] : undefined) ?? cal.band.alle;
    return [score * q.laag, score * q.hoog];
  }
  const b = cal.buckets;
  if (score <= b[0].score) return [b[0].laag, b[0].hoog];
  const last = b[b.length - 1];
  if (score >= last.score) return [last.laag, last.hoog];
  let i = 0;
  while (score > b[i + 1].score) i++;
  const f = (score - b[i].score) / (b[i + 1].score - b[i].score || 1);
  return [b[i].laag + f * (b[i + 1].laag - b[i].laag), b[i].hoog + f * (b[i + 1].hoog - b[i].hoog)];
}
