/**
 * Precomputation of one fitted comparable model over a subset of the held sales: hedonic effects,
 * price index (published or estimated, with regional curves), spatial index. buildModel fits it
 * twice: once on all sales (the live model) and once on the older part only (to calibrate the band
 * and the confidence labels on the most recent sales, as the live model will be used).
 */
import KDBush from 'kdbush';
import { DEFAULT_CAPS } from './adjustments.ts';
import type { AdjustmentCaps, AttributeEffects } from './adjustments.ts';
import { DEFAULT_SEARCH, Scratch } from './comparables.ts';
import type { ComparableCore, SearchParams } from './comparables.ts';
import { monthPosition } from './dates.ts';
import { fitHedonic } from './hedonic.ts';
import { nationalIndexFromFit, regionalCurves } from './index-estimation.ts';
import { logIndexAt, logIndexFromPoints, regionKey } from './price-index.ts';
import type { LogIndex, PriceIndexModel } from './price-index.ts';
import type { SalesTable } from './sales-table.ts';
import { buildSpatialIndex } from './spatial-index.ts';
import type { PriceIndexPoint } from './types.ts';
import { DEFAULT_WEIGHTS } from './weights.ts';
import type { WeightParams } from './weights.ts';

/** Tuning of the precomputation; every field has a default (see DEFAULT_CORE_OPTIONS). */
export interface CoreOptions {
  /** Neighbourhood fixed-effect cell edge (m) of the hedonic fit. */
  buurtCel: number;
  /** Regional index cell edge (m); 0 = national curve only. */
  regioCel: number;
  minRegioVerkopen: number;
  regioKrimp: number;
  /** Smoothing of the estimated national index. */
  indexGladheid: number;
  /** The hedonic fit uses at most this many sales (a deterministic sample beyond that). */
  maxFitVerkopen: number;
  /** Fewest sales for a segment's own effects. */
  minSegmentVerkopen: number;
  caps: AdjustmentCaps;
  search: SearchParams;
  weights: WeightParams;
}

export const DEFAULT_CORE_OPTIONS: CoreOptions = {
  buurtCel: 1000,
  regioCel: 20_000,
  minRegioVerkopen: 2000,
  regioKrimp: 200,
  indexGladheid: 0.3,
  maxFitVerkopen: 250_000,
  minSegmentVerkopen: 300,
  caps: DEFAULT_CAPS,
  search: DEFAULT_SEARCH,
  weights: DEFAULT_WEIGHTS,
};

export interface FittedCore extends ComparableCore {
  index: PriceIndexModel;
  /** Region key -> curve number (curveAt's lookup), kept so the core can be rebuilt from plain data. */
  curveOfRegion: Map<number, number>;
  /** Hedonic iterations and residual sigma, reported for diagnostics. */
  fit: { iterations: number; sigma: number; rows: number };
}

/** Clamp estimated effects to plausible ranges: a data glitch must not produce absurd corrections. */
function sane(e: AttributeEffects): AttributeEffects {
  const c = (v: number, lo: number, hi: number) => (Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : (lo + hi) / 2);
  return {
    opp: c(e.opp, 0.2, 1.1),
    perceel: c(e.perceel, 0, 0.35),
    year: e.year.map((v) => (Number.isFinite(v) ? v : 0)),
    type: e.type.map((v) => c(v, -0.3, 0.3)),
    label: e.label.map((v) => c(v, -0.3, 0.3)),
    kenmerk: e.kenmerk.map((v) => (Number.isFinite(v) ? v : 0)),
  };
}

/** Deterministic subsample (multiplicative hash), so refits on the same data give the same model. */
function sampleRows(rows: Int32Array, max: number): Int32Array {
  if (rows.length <= max) return rows;
  const rate = max / rows.length;
  const out: number[] = [];
  for (const r of rows) if (((Math.imul(r + 1, 2654435761) >>> 0) / 4294967296) < rate) out.push(r);
  return Int32Array.from(out);
}

/**
 * Fit a core on `rows` of the table. `priceIndex` (already cut to what was published at the time)
 * replaces the estimated national curve when it has at least two points.
 */
export function fitCore(table: SalesTable, rows: Int32Array, options: CoreOptions, priceIndex?: readonly PriceIndexPoint[], indexBron?: string): FittedCore {
  const published = priceIndex && priceIndex.length ? logIndexFromPoints(priceIndex) : null;
  let timeOffset: Float64Array | undefined;
  if (published) {
    timeOffset = new Float64Array(table.n);
    for (const r of rows) timeOffset[r] = logIndexAt(published, monthPosition(table.day[r]));
  }
  const fit = fitHedonic(table, sampleRows(rows, options.maxFitVerkopen), {
    cellSize: options.buurtCel,
    estimateMonths: !published,
    timeOffset,
    minSegmentSales: options.minSegmentVerkopen,
    maxIterations: 300,
  });
  const national: LogIndex = published ?? nationalIndexFromFit(fit, options.indexGladheid);
  const regional = regionalCurves(table, fit, national, {
    smoothing: options.indexGladheid,
    regionSize: options.regioCel,
    minRegionSales: options.minRegioVerkopen,
    regionShrink: options.regioKrimp,
  });
  const index: PriceIndexModel = {
    bron: published ? (indexBron ?? 'gepubliceerde prijsindex') : 'geschat uit verkopen (hedonische maandindex)',
    national,
    regional,
    regionSize: options.regioCel,
  };

  // Curve 0 is national; regional curves follow in map order.
  const curves: LogIndex[] = [national];
  const curveOfRegion = new Map<number, number>();
  for (const [key, curve] of regional) {
    curveOfRegion.set(key, curves.length);
    curves.push(curve);
  }
  const curveAt = (x: number, y: number) => (options.regioCel > 0 ? (curveOfRegion.get(regionKey(x, y, options.regioCel)) ?? 0) : 0);
  const curveOfRow = new Uint16Array(table.n);
  const saleLogIndex = new Float64Array(table.n);
  for (const r of rows) {
    const c = curveAt(table.x[r], table.y[r]);
    curveOfRow[r] = c;
    saleLogIndex[r] = logIndexAt(curves[c], monthPosition(table.day[r]));
  }
  let wozRatio: Float64Array | null = null;
  if (table.wozLog && table.wozDay) {
    wozRatio = new Float64Array(table.n).fill(NaN);
    for (const r of rows) {
      const w = table.wozLog[r];
      if (w === w) wozRatio[r] = table.logPrijs[r] - saleLogIndex[r] - (w - logIndexAt(curves[curveOfRow[r]], monthPosition(table.wozDay[r])));
    }
  }
  return {
    table,
    spatial: buildSpatialIndex(table, rows),
    effects: fit.effects.map(sane),
    caps: options.caps,
    search: options.search,
    weights: options.weights,
    curves,
    curveOfRow,
    saleLogIndex,
    curveAt,
    wozRatio,
    curveOfRegion,
    index,
    fit: { iterations: fit.iterations, sigma: fit.sigma, rows: fit.rows.length },
  };
}

/** A fitted core as plain data (for a worker thread to hand it over): no class instances, no closures. */
export type CoreState = Omit<FittedCore, 'spatial' | 'curveAt' | 'table'> & { spatial: { data: ArrayBufferLike; rows: Int32Array }[] };

export function coreToState(core: FittedCore): CoreState {
  const { spatial, curveAt: _curveAt, table: _table, ...rest } = core;
  return { ...rest, spatial: spatial.segments.map((s) => ({ data: s.tree.data, rows: s.rows })) };
}

export function coreFromState(state: CoreState, table: SalesTable, regioCel: number): FittedCore {
  const { spatial, ...rest } = state;
  const curveOfRegion = state.curveOfRegion;
  return {
    ...rest,
    table,
    spatial: { segments: spatial.map((s) => ({ tree: KDBush.from(s.data), rows: s.rows })) },
    curveAt: (x: number, y: number) => (regioCel > 0 ? (curveOfRegion.get(regionKey(x, y, regioCel)) ?? 0) : 0),
  };
}

/** Scratch space sized for a core. */
export function scratchFor(core: ComparableCore): Scratch {
  return new Scratch(1024, core.curves.length);
}
