/**
 * Band calibration: the 80 % interval (min, max) comes from how wrong the model actually was on
 * recent sales it had not seen, not from a fixed +-x %.
 *
 * 1. An uncertainty score per valuation: exp of a small linear model of log|error| on the
 *    valuation's own diagnostics (dispersion of the comparables, their distance, n_eff and the
 *    size of their adjustments), fitted on the calibration residuals.
 * 2. The calibration valuations are cut into buckets of that score; per bucket the split-conformal
 *    10 % and 90 % quantiles of the log error give the band (rank ceil((n+1) q), the usual
 *    finite-sample correction). Between bucket centres the quantiles are interpolated, so the band
 *    widens smoothly with the score instead of jumping.
 */
import type { RawEstimate } from './comparables.ts';
import { solveSpd } from './linalg.ts';

/** One calibration valuation: the raw estimate and what the dwelling really sold for. */
export interface CalibrationCase {
  estimate: RawEstimate;
  /** log(sale price) - log(estimate) */
  logFout: number;
}

export interface CalibrationBucket {
  /** Median score of the bucket (interpolation node). */
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

export interface Calibration {
  /** Coefficients of the log-scale model (intercept first); empty = score is the dispersion itself. */
  schaal: number[];
  buckets: CalibrationBucket[];
  /** Target coverage of the band. */
  dekking: number;
  /** Number of calibration valuations. */
  n: number;
}

const FEATURES = 5;

function features(e: RawEstimate, out: Float64Array): void {
  out[0] = 1;
  out[1] = Math.log(e.spreiding + 0.01);
  out[2] = Math.log(e.afstand + 100);
  out[3] = Math.log(Math.max(1, e.nEff));
  out[4] = e.correctie;
}

/** Uncertainty score of a valuation under `cal` (larger = less certain; roughly a typical |log error|). */
export function uncertaintyScore(cal: Pick<Calibration, 'schaal'>, e: RawEstimate): number {
  if (cal.schaal.length !== FEATURES) return e.spreiding;
  const x = new Float64Array(FEATURES);
  features(e, x);
  let s = 0;
  for (let j = 0; j < FEATURES; j++) s += cal.schaal[j] * x[j];
  return Math.exp(s);
}

/** Value at conformal rank ceil((n + 1) q) of sorted values (clamped to the ends). */
export function conformalQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  const rank = q >= 0.5 ? Math.ceil((n + 1) * q) : Math.floor((n + 1) * q);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))];
}

function fitScale(cases: readonly CalibrationCase[]): number[] {
  const xtx = new Float64Array(FEATURES * FEATURES);
  const xty = new Float64Array(FEATURES);
  const x = new Float64Array(FEATURES);
  for (const c of cases) {
    features(c.estimate, x);
    const y = Math.log(Math.abs(c.logFout) + 0.01);
    for (let i = 0; i < FEATURES; i++) {
      xty[i] += x[i] * y;
      for (let j = 0; j < FEATURES; j++) xtx[i * FEATURES + j] += x[i] * x[j];
    }
  }
  return Array.from(solveSpd(xtx, xty, FEATURES));
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
    const within = (lim: number) => part.filter((p) => Math.abs(Math.exp(-p.f) - 1) <= lim).length / part.length;
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

/** Log-error quantiles [laag, hoog] for a score: interpolated between bucket centres, flat beyond. */
export function bandFor(cal: Calibration, score: number): [number, number] {
  const b = cal.buckets;
  if (score <= b[0].score) return [b[0].laag, b[0].hoog];
  const last = b[b.length - 1];
  if (score >= last.score) return [last.laag, last.hoog];
  let i = 0;
  while (score > b[i + 1].score) i++;
  const f = (score - b[i].score) / (b[i + 1].score - b[i].score || 1);
  return [b[i].laag + f * (b[i + 1].laag - b[i].laag), b[i].hoog + f * (b[i + 1].hoog - b[i].hoog)];
}
