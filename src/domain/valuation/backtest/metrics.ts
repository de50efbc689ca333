/**
 * Accuracy metrics of a backtest, in the terms valuers and assessors use:
 *
 * - APE: |estimate / price - 1|; MdAPE and mean APE over valued sales.
 * - PE5/PE10/PE20: share of valued sales within 5/10/20 % of the price.
 * - Median ratio: median of estimate / price (1 = no bias; < 1 = valued too low).
 * - COD (IAAO coefficient of dispersion): 100 * mean |ratio - median ratio| / median ratio.
 * - PRD (IAAO price-related differential): mean ratio / (sum estimates / sum prices); > 1 means
 *   cheap dwellings are valued relatively high (regressive), < 1 the reverse.
 * - Hit rate: valued / (valued + refused).
 * - Band coverage: share of valued sales whose price lies within [min, max] (target 80 %).
 */
import { afwijking, HOOG_BINNEN } from '../confidence.ts';
import type { Betrouwbaarheid, Waardering, Weigering } from '../types.ts';

/** One predicted sale of the backtest. */
export interface BacktestPrediction {
  id: string;
  datum: string;
  prijs: number;
  woningtype: string | null;
  uitkomst: Waardering | Weigering;
}

export interface AccuracyMetrics {
  /** Valued sales in the group. */
  n: number;
  mdape: number;
  meanApe: number;
  pe5: number;
  pe10: number;
  pe20: number;
  medianRatio: number;
  cod: number;
  prd: number;
  /** Share of prices inside the band. */
  dekking: number;
  /** Median relative band width, (max - min) / estimate. */
  bandBreedte: number;
}

export interface GroupMetrics extends AccuracyMetrics {
  /** Sales in the group, valued or refused. */
  totaal: number;
  hitRate: number;
}

export interface BacktestMetrics {
  totaal: number;
  gewaardeerd: number;
  geweigerd: number;
  hitRate: number;
  overall: AccuracyMetrics;
  perLabel: Record<Betrouwbaarheid, AccuracyMetrics & { aandeel: number }>;
  perSegment: Record<string, GroupMetrics>;
  /** Deciles of the sale price (1 = cheapest tenth of the predicted sales). */
  perDeciel: (GroupMetrics & { deciel: number; vanPrijs: number; totPrijs: number })[];
  /**
   * Deciles of the estimate (1 = lowest tenth of the valued sales' marktwaarde): what a band can
   * promise given what it knows. Deciles of the sale price select on the error itself (the
   * cheapest tenth holds the sales that fell short of their estimate), so no honest band covers
   * 80 % in its outer deciles; both are reported.
   */
  perSchattingDeciel: (AccuracyMetrics & { deciel: number; vanWaarde: number; totWaarde: number })[];
  /**
   * Reliability of `kans_binnen_10_procent`: the valued sales in deciles of their predicted
   * probability, each with its mean prediction and the share that really was within 10 %.
   */
  perKansDeciel: KansDeciel[];
}

export interface KansDeciel {
  deciel: number;
  n: number;
  /** Mean predicted probability within 10 %. */
  voorspeld: number;
  /** Observed share within 10 %. */
  waargenomen: number;
  /** Half-width of the 95 % range the observed share of n sales has around a right `voorspeld`. */
  marge: number;
}

/** Deciles of the predicted probability within 10 % against the observed share (see BacktestMetrics.perKansDeciel). */
export function kansDecielen(valued: readonly (BacktestPrediction & { uitkomst: Waardering })[]): KansDeciel[] {
  const sorted = [...valued].sort((a, b) => a.uitkomst.kansBinnen10 - b.uitkomst.kansBinnen10);
  const out: KansDeciel[] = [];
  for (let d = 0; d < 10 && sorted.length; d++) {
    const sub = sorted.slice(Math.floor((d * sorted.length) / 10), Math.floor(((d + 1) * sorted.length) / 10));
    if (sub.length === 0) continue;
    // The field's direction: the price within 10 % of the estimate (see afwijking).
    const binnen = sub.filter((r) => afwijking(Math.log(r.prijs / r.uitkomst.marktwaarde)) <= HOOG_BINNEN + 1e-9).length;
    const voorspeld = sub.reduce((a, r) => a + r.uitkomst.kansBinnen10, 0) / sub.length;
    out.push({ deciel: d + 1, n: sub.length, voorspeld, waargenomen: binnen / sub.length, marge: 1.96 * Math.sqrt((voorspeld * (1 - voorspeld)) / sub.length) });
  }
  return out;
}

export function median(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  return n % 2 ? sorted[n >> 1] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/** Metrics over the valued predictions in `rows` (refusals are ignored here). */
export function accuracy(rows: readonly BacktestPrediction[]): AccuracyMetrics {
  const valued = rows.filter((r): r is BacktestPrediction & { uitkomst: Waardering } => r.uitkomst.soort === 'waarde');
  const n = valued.length;
  if (n === 0) return { n: 0, mdape: NaN, meanApe: NaN, pe5: NaN, pe10: NaN, pe20: NaN, medianRatio: NaN, cod: NaN, prd: NaN, dekking: NaN, bandBreedte: NaN };
  const ratios = valued.map((r) => r.uitkomst.marktwaarde / r.prijs);
  const apes = ratios.map((q) => Math.abs(q - 1)).sort((a, b) => a - b);
  const sortedRatios = [...ratios].sort((a, b) => a - b);
  const medRatio = median(sortedRatios);
  // A hair of tolerance: 95 / 100 must count as within 5 % despite floating point.
  const share = (lim: number) => apes.filter((a) => a <= lim + 1e-9).length / n;
  let sumEst = 0;
  let sumPrice = 0;
  let sumRatio = 0;
  let sumDev = 0;
  let inBand = 0;
  const widths: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = valued[i];
    sumEst += r.uitkomst.marktwaarde;
    sumPrice += r.prijs;
    sumRatio += ratios[i];
    sumDev += Math.abs(ratios[i] - medRatio);
    if (r.prijs >= r.uitkomst.min && r.prijs <= r.uitkomst.max) inBand++;
    widths.push((r.uitkomst.max - r.uitkomst.min) / r.uitkomst.marktwaarde);
  }
  return {
    n,
    mdape: median(apes),
    meanApe: apes.reduce((a, b) => a + b, 0) / n,
    pe5: share(0.05),
    pe10: share(0.1),
    pe20: share(0.2),
    medianRatio: medRatio,
    cod: (100 * sumDev) / n / medRatio,
    prd: sumRatio / n / (sumEst / sumPrice),
    dekking: inBand / n,
    bandBreedte: median(widths.sort((a, b) => a - b)),
  };
}

function group(rows: readonly BacktestPrediction[]): GroupMetrics {
  const a = accuracy(rows);
  return { ...a, totaal: rows.length, hitRate: rows.length ? a.n / rows.length : NaN };
}

/** All metrics of a backtest run. */
export function computeMetrics(rows: readonly BacktestPrediction[]): BacktestMetrics {
  const valued = rows.filter((r) => r.uitkomst.soort === 'waarde');
  const perLabel = {} as BacktestMetrics['perLabel'];
  for (const label of ['hoog', 'normaal', 'laag'] as const) {
    const sub = valued.filter((r) => r.uitkomst.soort === 'waarde' && r.uitkomst.betrouwbaarheid === label);
    perLabel[label] = { ...accuracy(sub), aandeel: valued.length ? sub.length / valued.length : 0 };
  }
  const perSegment: Record<string, GroupMetrics> = {};
  const bySegment = new Map<string, BacktestPrediction[]>();
  for (const r of rows) {
    const k = r.woningtype ?? 'onbekend';
    if (!bySegment.has(k)) bySegment.set(k, []);
    bySegment.get(k)!.push(r);
  }
  for (const [k, sub] of [...bySegment].sort((a, b) => b[1].length - a[1].length)) perSegment[k] = group(sub);
  const byPrice = [...rows].sort((a, b) => a.prijs - b.prijs);
  const perDeciel: BacktestMetrics['perDeciel'] = [];
  for (let d = 0; d < 10 && byPrice.length; d++) {
    const sub = byPrice.slice(Math.floor((d * byPrice.length) / 10), Math.floor(((d + 1) * byPrice.length) / 10));
    if (sub.length === 0) continue;
    perDeciel.push({ deciel: d + 1, vanPrijs: sub[0].prijs, totPrijs: sub[sub.length - 1].prijs, ...group(sub) });
  }
  const byEstimate = [...valued].sort((a, b) => (a.uitkomst as Waardering).marktwaarde - (b.uitkomst as Waardering).marktwaarde);
  const perSchattingDeciel: BacktestMetrics['perSchattingDeciel'] = [];
  for (let d = 0; d < 10 && byEstimate.length; d++) {
    const sub = byEstimate.slice(Math.floor((d * byEstimate.length) / 10), Math.floor(((d + 1) * byEstimate.length) / 10));
    if (sub.length === 0) continue;
    perSchattingDeciel.push({ deciel: d + 1, vanWaarde: (sub[0].uitkomst as Waardering).marktwaarde, totWaarde: (sub[sub.length - 1].uitkomst as Waardering).marktwaarde, ...accuracy(sub) });
  }
  return {
    totaal: rows.length,
    gewaardeerd: valued.length,
    geweigerd: rows.length - valued.length,
    hitRate: rows.length ? valued.length / rows.length : NaN,
    overall: accuracy(rows),
    perLabel,
    perSegment,
    perDeciel,
    perSchattingDeciel,
    perKansDeciel: kansDecielen(valued as (BacktestPrediction & { uitkomst: Waardering })[]),
  };
}
