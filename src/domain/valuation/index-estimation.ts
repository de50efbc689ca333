/**
 * Price index estimated from the held sales: the hedonic month effects (hedonic.ts), smoothed so a
 * thin month does not jerk every valuation, plus regional deviations where a region has the sales
 * to carry its own curve.
 */
import { monthOfDay } from './dates.ts';
import type { HedonicFit } from './hedonic.ts';
import { whittaker } from './linalg.ts';
import { regionKey } from './price-index.ts';
import type { LogIndex } from './price-index.ts';
import type { SalesTable } from './sales-table.ts';

export interface IndexEstimationOptions {
  /** Smoothing of the national curve, in units of the average monthly sales count. */
  smoothing: number;
  /** Region cell edge in metres; 0 disables regional curves. */
  regionSize: number;
  /** Fewest sales a region needs for its own curve. */
  minRegionSales: number;
  /** Shrinkage of regional deviations towards the national curve, as a pseudo sales count per month. */
  regionShrink: number;
}

/** Smoothed national log index from the raw hedonic month effects. */
export function nationalIndexFromFit(fit: HedonicFit, smoothing: number): LogIndex {
  const m = fit.monthEffect.length;
  if (m === 0) return { firstMonth: fit.firstMonth, values: new Float64Array(1) };
  let total = 0;
  for (let i = 0; i < m; i++) total += fit.monthCount[i];
  const avg = total / m || 1;
  // Weights proportional to sales counts make lambda meaningful across data sizes.
  const w = Array.from(fit.monthCount, (c) => c / avg);
  return { firstMonth: fit.firstMonth, values: whittaker(fit.monthEffect, w, smoothing) };
}

/**
 * Regional curves: per coarse region, the smoothed and shrunk mean hedonic residual per month, added
 * to `base` (the national curve, estimated or published). Regions with few sales stay national.
 */
export function regionalCurves(t: SalesTable, fit: HedonicFit, base: LogIndex, opts: IndexEstimationOptions): Map<number, LogIndex> {
  const out = new Map<number, LogIndex>();
  if (opts.regionSize <= 0 || fit.rows.length === 0) return out;
  const first = base.firstMonth;
  const len = base.values.length;
  const perRegion = new Map<number, { sum: Float64Array; n: Float64Array; total: number }>();
  for (let i = 0; i < fit.rows.length; i++) {
    const r = fit.rows[i];
    const key = regionKey(t.x[r], t.y[r], opts.regionSize);
    let g = perRegion.get(key);
    if (!g) perRegion.set(key, (g = { sum: new Float64Array(len), n: new Float64Array(len), total: 0 }));
    const m = Math.min(len - 1, Math.max(0, monthOfDay(t.day[r]) - first));
    g.sum[m] += fit.residual[i];
    g.n[m]++;
    g.total++;
  }
  for (const [key, g] of perRegion) {
    if (g.total < opts.minRegionSales) continue;
    const meanRes = Array.from(g.sum, (s, m) => (g.n[m] ? s / g.n[m] : 0));
    // The residuals carry a level absorbed by the neighbourhood effects only on average: remove it
    // so the deviation curve describes differences in *trend*, which is all a time adjustment uses.
    const w = Array.from(g.n, (c) => c / opts.regionShrink);
    const dev = whittaker(meanRes, w, opts.smoothing * (g.total / len / opts.regionShrink), 1);
    const values = new Float64Array(len);
    for (let m = 0; m < len; m++) values[m] = base.values[m] + dev[m];
    out.set(key, { firstMonth: first, values });
  }
  return out;
}
