/**
 * Hedonic regression of log price on the dwelling's attributes with neighbourhood fixed effects
 * and (optionally) month effects:
 *
 *   log p_i = a_cell(i) + d_month(i) + x_i' b_segment(i) + e_i
 *
 * The neighbourhood effects absorb location, so b measures what living area, plot, build year, type
 * and label are worth *within* a neighbourhood — exactly the differences a comparable has to bridge.
 * The month effects are the raw time-dummy price index. Solved by backfitting (alternating
 * projections) so memory and time grow linearly with the number of sales and months.
 */
import { YEAR_BASIS, defaultEffects, yearBasis } from './adjustments.ts';
import type { AttributeEffects } from './adjustments.ts';
import { monthOfDay } from './dates.ts';
import { solveSpd } from './linalg.ts';
import { LABEL_CLASSES, SEGMENT_APARTMENT, WONINGTYPES } from './sales-table.ts';
import type { SalesTable } from './sales-table.ts';
import { KENMERKEN } from './types.ts';

const TYPE_CODES = WONINGTYPES.length + 1;
const LABEL_CODES = LABEL_CLASSES.length + 1;
/** Columns: log area, log plot, plot missing, build-year basis, year missing, type dummies, label dummies. */
const COL_OPP = 0;
const COL_PERCEEL = 1;
const COL_PERCEEL_MISSING = 2;
const COL_YEAR = 3;
const COL_YEAR_MISSING = COL_YEAR + YEAR_BASIS;
const COL_TYPE = COL_YEAR_MISSING + 1;
const COL_LABEL = COL_TYPE + TYPE_CODES;
/** Further attributes (when the sales carry them): KENMERKEN values, then their missing flags. */
const COL_KENMERK = COL_LABEL + LABEL_CODES;
const K = KENMERKEN.length;
/** Number of columns of a table's design. */
function columns(t: SalesTable): number {
  return t.kenmerken ? COL_KENMERK + 2 * K : COL_KENMERK;
}

/** Settings of one hedonic fit (see fitHedonic). */
export interface HedonicOptions {
  /** Edge of the square neighbourhood cells in metres. */
  cellSize: number;
  /** Estimate month effects (no published index); otherwise `timeOffset` is subtracted per row. */
  estimateMonths: boolean;
  /** Per-table-row log index to hold fixed when months are not estimated. */
  timeOffset?: Float64Array;
  /** Fewest sales a segment needs to get its own effects. */
  minSegmentSales: number;
  maxIterations: number;
}

/** Result of fitHedonic: what the comparables need (effects) and what the index needs (months, residuals). */
export interface HedonicFit {
  /** Effects per segment (index = segment number). */
  effects: AttributeEffects[];
  /** Raw month effects and their sales counts, month `firstMonth + i` at index i (when estimated). */
  firstMonth: number;
  monthEffect: Float64Array;
  monthCount: Float64Array;
  /** Residual per fitted row, aligned with `rows`. */
  rows: Int32Array;
  residual: Float64Array;
  /** Residual standard deviation (log). */
  sigma: number;
  iterations: number;
}

function design(t: SalesTable, r: number, out: Float64Array, o: number, P: number): void {
  out.fill(0, o, o + P);
  out[o + COL_OPP] = t.logOpp[r];
  const lp = t.logPerceel[r];
  if (lp === lp) out[o + COL_PERCEEL] = lp;
  else out[o + COL_PERCEEL_MISSING] = 1;
  const by = t.bouwjaar[r];
  if (by === by) yearBasis(by, out, o + COL_YEAR);
  else out[o + COL_YEAR_MISSING] = 1;
  out[o + COL_TYPE + t.type[r]] = 1;
  out[o + COL_LABEL + t.label[r]] = 1;
  const kt = t.kenmerken;
  if (kt) {
    for (let j = 0; j < K; j++) {
      const v = kt[r * K + j];
      if (v === v) out[o + COL_KENMERK + j] = v;
      else out[o + COL_KENMERK + K + j] = 1;
    }
  }
}

/** Fit on `rows` of the table (rows without a living area are skipped: they cannot be comparables). */
export function fitHedonic(t: SalesTable, candidateRows: ArrayLike<number>, opts: HedonicOptions): HedonicFit {
  const rowList: number[] = [];
  for (let k = 0; k < candidateRows.length; k++) {
    const r = candidateRows[k];
    if (t.logOpp[r] === t.logOpp[r]) rowList.push(r);
  }
  const rows = Int32Array.from(rowList);
  const n = rows.length;
  const P = columns(t);
  const X = new Float64Array(n * P);
  const seg = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    design(t, rows[i], X, i * P, P);
    seg[i] = t.segment[rows[i]];
  }

  // Reference categories (the most common code per segment) are left out, and all columns are
  // centred per segment, so nothing is collinear with the neighbourhood effects.
  const segCount = [0, 0];
  const mean = [new Float64Array(P), new Float64Array(P)];
  for (let i = 0; i < n; i++) {
    segCount[seg[i]]++;
    for (let j = 0; j < P; j++) mean[seg[i]][j] += X[i * P + j];
  }
  const active = [new Uint8Array(P).fill(1), new Uint8Array(P).fill(1)];
  for (let s = 0; s < 2; s++) {
    for (let j = 0; j < P; j++) mean[s][j] /= Math.max(1, segCount[s]);
    for (const [start, len] of [[COL_TYPE, TYPE_CODES], [COL_LABEL, LABEL_CODES]]) {
      let ref = start;
      for (let j = start; j < start + len; j++) if (mean[s][j] > mean[s][ref]) ref = j;
      active[s][ref] = 0;
    }
    if (s === SEGMENT_APARTMENT) {
      // Apartment plots are land-registry noise (shared plots, null); never adjust on them.
      active[s][COL_PERCEEL] = 0;
      active[s][COL_PERCEEL_MISSING] = 0;
    }
  }
  for (let i = 0; i < n; i++) {
    const s = seg[i];
    for (let j = 0; j < P; j++) X[i * P + j] = active[s][j] ? X[i * P + j] - mean[s][j] : 0;
  }

  const cellIndex = new Map<number, number>();
  const cell = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    const key = ((Math.floor(t.x[r] / opts.cellSize) + 50_000) * 100_000 + (Math.floor(t.y[r] / opts.cellSize) + 50_000)) * 2 + seg[i];
    let c = cellIndex.get(key);
    if (c === undefined) cellIndex.set(key, (c = cellIndex.size));
    cell[i] = c;
  }
  const nCells = cellIndex.size;
  const cellN = new Float64Array(nCells);
  for (let i = 0; i < n; i++) cellN[cell[i]]++;

  let firstMonth = Infinity;
  let lastMonth = -Infinity;
  const month = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    month[i] = monthOfDay(t.day[rows[i]]);
    if (month[i] < firstMonth) firstMonth = month[i];
    if (month[i] > lastMonth) lastMonth = month[i];
  }
  const nMonths = n ? lastMonth - firstMonth + 1 : 0;
  const monthCount = new Float64Array(nMonths);
  for (let i = 0; i < n; i++) monthCount[(month[i] -= firstMonth)]++;

  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = t.logPrijs[rows[i]] - (opts.estimateMonths || !opts.timeOffset ? 0 : opts.timeOffset[rows[i]]);

  const xtx = [new Float64Array(P * P), new Float64Array(P * P)];
  for (let i = 0; i < n; i++) {
    const m = xtx[seg[i]];
    const o = i * P;
    for (let j = 0; j < P; j++) {
      const v = X[o + j];
      if (v === 0) continue;
      for (let k = 0; k <= j; k++) m[j * P + k] += v * X[o + k];
    }
  }
  for (const m of xtx) for (let j = 0; j < P; j++) for (let k = 0; k < j; k++) m[k * P + j] = m[j * P + k];

  const a = new Float64Array(nCells);
  const d = new Float64Array(nMonths);
  const xb = new Float64Array(n);
  let b: Float64Array[] = [new Float64Array(P), new Float64Array(P)];
  const sumC = new Float64Array(nCells);
  const sumM = new Float64Array(nMonths);
  let iterations = 0;
  for (; iterations < opts.maxIterations; iterations++) {
    sumC.fill(0);
    for (let i = 0; i < n; i++) sumC[cell[i]] += y[i] - xb[i] - d[month[i]];
    for (let c = 0; c < nCells; c++) a[c] = sumC[c] / cellN[c];
    if (opts.estimateMonths) {
      sumM.fill(0);
      for (let i = 0; i < n; i++) sumM[month[i]] += y[i] - xb[i] - a[cell[i]];
      for (let m = 0; m < nMonths; m++) d[m] = monthCount[m] ? sumM[m] / monthCount[m] : 0;
    }
    const rhs = [new Float64Array(P), new Float64Array(P)];
    for (let i = 0; i < n; i++) {
      const r = y[i] - a[cell[i]] - d[month[i]];
      const v = rhs[seg[i]];
      const o = i * P;
      for (let j = 0; j < P; j++) v[j] += X[o + j] * r;
    }
    const nb = [0, 1].map((s) => (segCount[s] ? solveSpd(xtx[s], rhs[s], P) : new Float64Array(P)));
    let change = 0;
    for (let s = 0; s < 2; s++) for (let j = 0; j < P; j++) change = Math.max(change, Math.abs(nb[s][j] - b[s][j]));
    b = nb;
    for (let i = 0; i < n; i++) {
      const bs = b[seg[i]];
      const o = i * P;
      let s = 0;
      for (let j = 0; j < P; j++) s += X[o + j] * bs[j];
      xb[i] = s;
    }
    if (change < 1e-6) break;
  }

  const residual = new Float64Array(n);
  let ss = 0;
  let dof = 0;
  for (let i = 0; i < n; i++) {
    residual[i] = y[i] - xb[i] - a[cell[i]] - d[month[i]];
    ss += residual[i] * residual[i];
    if (cellN[cell[i]] > 1) dof++;
  }

  const effects = [0, 1].map((s) => {
    if (segCount[s] < opts.minSegmentSales) return null;
    const bs = b[s];
    const e = defaultEffects(TYPE_CODES, LABEL_CODES);
    e.opp = bs[COL_OPP];
    e.perceel = bs[COL_PERCEEL];
    for (let k = 0; k < YEAR_BASIS; k++) e.year[k] = bs[COL_YEAR + k];
    for (let k = 0; k < TYPE_CODES; k++) e.type[k] = bs[COL_TYPE + k];
    for (let k = 0; k < LABEL_CODES; k++) e.label[k] = bs[COL_LABEL + k];
    if (t.kenmerken) e.kenmerk = bs.slice(COL_KENMERK, COL_KENMERK + K);
    return e;
  });
  const fallback = effects[0] ?? effects[1] ?? defaultEffects(TYPE_CODES, LABEL_CODES);
  return {
    effects: effects.map((e) => e ?? fallback),
    firstMonth: Number.isFinite(firstMonth) ? firstMonth : 0,
    monthEffect: d,
    monthCount,
    rows,
    residual,
    sigma: Math.sqrt(ss / Math.max(1, dof - nMonths - 2 * P)),
    iterations,
  };
}
