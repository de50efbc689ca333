/**
 * Confidence labels (`betrouwbaarheid`), defined by measured accuracy, never by feel.
 *
 * The calibration valuations (recent sales the fitted model had not seen; see calibration.ts) are
 * sorted by their uncertainty score. Two thresholds on that score split them into three groups:
 *
 *   hoog    the lowest-score group whose sale prices, as a group, were at least 90 % of the time
 *           within 10 % of the estimate — judged on a one-sided lower confidence bound (Wilson, z = 1) over at
 *           least 50 valuations, so a lucky handful cannot earn the label. If no such group exists
 *           (data too noisy), the model never says 'hoog'.
 *   laag    valuations whose score lies where calibration valuations of similar score (a moving
 *           window of 10 % of them, at least 50) were fewer than 75 % of the time within 20 %.
 *           A local rate rather than a group rate: the group rate of a tail hovers around its bar
 *           and makes the threshold jump between refits; the local rate rises steadily with the score.
 *   normaal everything in between.
 *
 * A model without calibration (too few sales) only says 'laag': it has measured nothing to stand on.
 * The backtest reports the realised accuracy per label, so the promise is checked every run.
 */
import type { Betrouwbaarheid } from './types.ts';

export const HOOG_BINNEN = 0.1;

/**
 * How far a sale price lies from its estimate, |price / estimate − 1|, from log(price) − log(estimate):
 * the direction `kans_binnen_10_procent` promises (the price within 10 % of `marktwaarde`), used by
 * every share within 10 or 20 % the calibration measures, so what is fitted is what is promised.
 */
export function afwijking(logFout: number): number {
  return Math.abs(Math.expm1(logFout));
}
export const HOOG_AANDEEL = 0.9;
export const LAAG_BINNEN = 0.2;
export const LAAG_AANDEEL = 0.75;
const MIN_GROEP = 50;
const Z = 1;

export interface LabelThresholds {
  /** Scores <= hoog get 'hoog' (-Infinity: never). */
  hoog: number;
  /** Scores > laag get 'laag' (+Infinity: never). */
  laag: number;
}

/** Wilson score lower bound of a proportion. */
export function wilsonLower(successes: number, n: number, z = Z): number {
  if (n === 0) return 0;
  const p = successes / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/** Thresholds from calibration valuations: their scores and deviations (see afwijking). */
export function fitLabelThresholds(cases: readonly { score: number; fout: number }[]): LabelThresholds {
  const s = [...cases].sort((a, b) => a.score - b.score);
  let hoog = -Infinity;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i].fout <= HOOG_BINNEN) ok++;
    const n = i + 1;
    // Only cut between distinct scores, so the threshold means the same for new valuations.
    if (n >= MIN_GROEP && (i + 1 === s.length || s[i + 1].score > s[i].score) && wilsonLower(ok, n) >= HOOG_AANDEEL) hoog = s[i].score;
  }
  // Scan moving windows from the uncertain end; the first window that is good enough marks the
  // threshold, everything scored above its centre is 'laag'.
  const w = Math.min(s.length, Math.max(MIN_GROEP, Math.round(s.length / 10)));
  let laag = Infinity;
  if (s.length >= MIN_GROEP) {
    let good = 0;
    for (let i = s.length - w; i < s.length; i++) if (s[i].fout <= LAAG_BINNEN) good++;
    for (let start = s.length - w; ; start--) {
      if (good / w >= LAAG_AANDEEL) break;
      laag = s[start + (w >> 1)].score;
      if (start === 0) {
        laag = -Infinity;
        break;
      }
      if (s[start + w - 1].fout <= LAAG_BINNEN) good--;
      if (s[start - 1].fout <= LAAG_BINNEN) good++;
    }
  }
  return { hoog, laag: Math.max(laag, hoog) };
}

/** Label of a valuation with uncertainty score `score`. */
export function labelFor(t: LabelThresholds | null, score: number): Betrouwbaarheid {
  if (!t) return 'laag';
  if (score <= t.hoog) return 'hoog';
  if (score > t.laag) return 'laag';
  return 'normaal';
}

/**
 * P(within 10 %) as a non-increasing function of the band's width (log max − log min): the
 * calibration valuations cut into equal-count bins of width, each bin's share within 10 %, made
 * monotone by pooling adjacent violators (isotonic regression), linear between bin centres and flat
 * beyond. The width carries everything the band knows about the valuation's uncertainty, so the
 * probability follows the band and is never higher for a wider one.
 */
export interface KansCurve {
  /** Bin centres (median width per bin), increasing. */
  breedte: number[];
  /** Share within 10 % per bin, non-increasing. */
  kans: number[];
}

/** Fewest calibration valuations per bin of the probability curve (a share then has ±~5 points noise). */
const KANS_PER_BIN = 60;
const KANS_MAX_BINS = 12;

export function fitKansCurve(cases: readonly { breedte: number; binnen: boolean }[]): KansCurve | null {
  if (cases.length < KANS_PER_BIN) return null;
  const s = [...cases].sort((a, b) => a.breedte - b.breedte);
  const k = Math.max(1, Math.min(KANS_MAX_BINS, Math.floor(s.length / KANS_PER_BIN)));
  const blocks: { x: number; p: number; n: number }[] = [];
  for (let b = 0; b < k; b++) {
    const part = s.slice(Math.floor((b * s.length) / k), Math.floor(((b + 1) * s.length) / k));
    blocks.push({ x: part[part.length >> 1].breedte, p: part.filter((c) => c.binnen).length / part.length, n: part.length });
  }
  // Pool adjacent violators: a later (wider) bin may not beat an earlier one.
  const pooled: { xs: number[]; p: number; n: number }[] = [];
  for (const b of blocks) {
    pooled.push({ xs: [b.x], p: b.p, n: b.n });
    while (pooled.length > 1 && pooled[pooled.length - 1].p > pooled[pooled.length - 2].p) {
      const last = pooled.pop()!;
      const prev = pooled[pooled.length - 1];
      prev.p = (prev.p * prev.n + last.p * last.n) / (prev.n + last.n);
      prev.n += last.n;
      prev.xs.push(...last.xs);
    }
  }
  const breedte: number[] = [];
  const kans: number[] = [];
  for (const g of pooled) {
    for (const x of g.xs) {
      breedte.push(x);
      kans.push(g.p);
    }
  }
  return { breedte, kans };
}

/** P(within 10 %) of a valuation whose band has log width `breedte`. */
export function kansFor(curve: KansCurve, breedte: number): number {
  const { breedte: x, kans: p } = curve;
  if (breedte <= x[0]) return p[0];
  const last = x.length - 1;
  if (breedte >= x[last]) return p[last];
  let i = 0;
  while (breedte > x[i + 1]) i++;
  const f = (breedte - x[i]) / (x[i + 1] - x[i] || 1);
  return p[i] + f * (p[i + 1] - p[i]);
}

/** z of the two-sided 80 % interval of a normal distribution. */
export const Z80 = 1.2816;

/** P(|price / estimate − 1| <= binnen) for a normal log error with spread `sigma`. */
function kansNormaal(sigma: number, binnen: number): number {
  const phi = (x: number) => 0.5 * (1 + erf(x / Math.SQRT2));
  return phi(Math.log1p(binnen) / sigma) - phi(Math.log1p(-binnen) / sigma);
}

/** The smallest log-error spread at which a normal error is under 75 % of the time within 20 %: what 'laag' says. */
export const SIGMA_LAAG = (() => {
  let lo = 0.01;
  let hi = 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (kansNormaal(mid, LAAG_BINNEN) >= LAAG_AANDEEL) lo = mid;
    else hi = mid;
  }
  return hi;
})();

/**
 * Without calibration: the chance that a normal log error with the spread the (uncalibrated) 80 %
 * band implies stays within 10 %, that spread at least SIGMA_LAAG: such a valuation is labelled
 * 'laag', so its probability may not claim more (at most ~0.43).
 */
export function kansOngekalibreerd(breedte: number): number {
  const sigma = Math.max(breedte / 2 / Z80, SIGMA_LAAG);
  return kansNormaal(sigma, HOOG_BINNEN);
}

/** Error function (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/**
 * The label of a valuation: 'hoog' only where its probability within 10 % is at least HOOG_AANDEEL and
 * its score lies in the group whose measured share passed the Wilson bound: the probability is a point
 * estimate over a bin of calibration valuations, and a bin that reached 0.90 by luck must not earn it.
 */
export function labelMetKans(t: LabelThresholds | null, score: number, kans: number): Betrouwbaarheid {
  if (!t) return 'laag';
  const l = labelFor(t, score);
  if (l === 'hoog') return kans >= HOOG_AANDEEL ? 'hoog' : 'normaal';
  return l;
}
