/**
 * Monthly log price index used for the time adjustment of comparables: either a published index
 * (CBS PBK) or one estimated from the held sales, optionally with smoothed regional deviations.
 */
import { monthNumber, monthPosition, periodOfMonth } from './dates.ts';
import type { PriceIndexPoint } from './types.ts';

/** Log price level per month, month `firstMonth + i` at `values[i]`. */
export interface LogIndex {
  firstMonth: number;
  values: Float64Array;
}

/**
 * Log level at a position on the month axis (see `monthPosition`): linear between month midpoints
 * and flat beyond the ends. Flat, not extrapolated: after the last known month the model assumes
 * no further price change rather than projecting a trend it cannot see.
 */
export function logIndexAt(idx: LogIndex, pos: number): number {
  const v = idx.values;
  const f = pos - idx.firstMonth;
  if (f <= 0) return v[0];
  const last = v.length - 1;
  if (f >= last) return v[last];
  const i = Math.floor(f);
  const frac = f - i;
  return v[i] * (1 - frac) + v[i + 1] * frac;
}

/**
 * Log index from published points, keeping only months before `beforeMonth` (so a backtest never
 * sees index figures from after its cut-off). Missing months are interpolated in log space.
 * Returns null when fewer than two usable points remain.
 */
export function logIndexFromPoints(points: readonly PriceIndexPoint[], beforeMonth = Infinity): LogIndex | null {
  const byMonth = new Map<number, number>();
  for (const p of points) {
    const m = monthNumber(p.periode);
    if (m < beforeMonth && p.index > 0 && Number.isFinite(p.index)) byMonth.set(m, Math.log(p.index));
  }
  if (byMonth.size < 2) return null;
  const months = [...byMonth.keys()].sort((a, b) => a - b);
  const first = months[0];
  const values = new Float64Array(months[months.length - 1] - first + 1);
  for (let k = 0; k + 1 < months.length; k++) {
    const m0 = months[k];
    const m1 = months[k + 1];
    const v0 = byMonth.get(m0)!;
    const v1 = byMonth.get(m1)!;
    for (let m = m0; m < m1; m++) values[m - first] = v0 + ((v1 - v0) * (m - m0)) / (m1 - m0);
  }
  values[values.length - 1] = byMonth.get(months[months.length - 1])!;
  return { firstMonth: first, values };
}

/** The time adjustment of the whole model: a national curve plus per-region curves where estimated. */
export interface PriceIndexModel {
  bron: string;
  national: LogIndex;
  /** Region cell edge in metres (regions are a coarse square grid over the projected plane). */
  regionSize: number;
  /** Combined curve (national + deviation) per region key; absent regions use the national one. */
  regional: Map<number, LogIndex>;
}

/** Key of the coarse region cell containing projected point (x, y). */
export function regionKey(x: number, y: number, size: number): number {
  // Cantor-free packing: offsets keep both cell numbers positive for any plausible planet coordinate.
  return (Math.floor(x / size) + 50_000) * 100_000 + (Math.floor(y / size) + 50_000);
}

/**
 * Log price change between a comparable's sale day and the peildatum, on the curve of the region
 * where the comparable sold.
 */
export function timeAdjustment(curve: LogIndex, saleDay: number, peilDay: number): number {
  return logIndexAt(curve, monthPosition(peilDay)) - logIndexAt(curve, monthPosition(saleDay));
}

/** Published-format points of a log index (for reports and debugging). */
export function indexPoints(idx: LogIndex, base = 100): PriceIndexPoint[] {
  const ref = idx.values[idx.values.length - 1];
  return Array.from(idx.values, (v, i) => ({ periode: periodOfMonth(idx.firstMonth + i), index: Math.round(base * Math.exp(v - ref) * 100) / 100 }));
}
