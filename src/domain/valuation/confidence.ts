/**
 * Confidence labels (`betrouwbaarheid`), defined by measured accuracy, never by feel.
 *
 * The calibration valuations (recent sales the fitted model had not seen; see calibration.ts) are
 * sorted by their uncertainty score. Two thresholds on that score split them into three groups:
 *
 *   hoog    the lowest-score group that, as a group, was at least 90 % of the time within 10 %
 *           of the sale price — judged on a one-sided lower confidence bound (Wilson, z = 1) over at
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

/** Thresholds from calibration valuations: their scores and relative errors (|estimate / price - 1|). */
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
