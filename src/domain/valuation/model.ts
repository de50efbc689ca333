/**
 * Assembly of the market-value model: buildModel precomputes everything (columns, spatial index,
 * price index, attribute effects, band calibration, label thresholds); waardeer only searches,
 * adjusts and weighs comparables.
 */
import { bandFor, fitBandGroups, fitCalibration, uncertaintyScore } from './calibration.ts';
import type { Calibration, CalibrationCase } from './calibration.ts';
import { estimate, subjectAttributes } from './comparables.ts';
import type { CodedSubject, RawEstimate, Scratch, SearchParams } from './comparables.ts';
import { fitLabelThresholds, labelFor } from './confidence.ts';
import type { LabelThresholds } from './confidence.ts';
import { coreFromState, coreToState, DEFAULT_CORE_OPTIONS, fitCore, scratchFor } from './core.ts';
import type { CoreOptions, CoreState, FittedCore } from './core.ts';
import { dateOfDay, dayNumber, monthNumber } from './dates.ts';
import { featureCount, fitStage, refitStage, locationScratch, locationStat, peilLevel, stageEstimate, stageFeatures } from './learner.ts';
import type { Stage, StageMode, StageRow } from './learner.ts';
import { indexPoints } from './price-index.ts';
import { buildSalesTable, labelCode, segmentOf, woningtypeCode, writeKenmerken } from './sales-table.ts';
import type { SalesTable } from './sales-table.ts';
import { KENMERKEN } from './types.ts';
import type { ModelInfo, PriceIndexPoint, SaleRecord, Subject, ValuationModel, Waardering, Weigering } from './types.ts';

/** Model version reported in `meta`; bump when the method (not the data) changes. */
export const MODEL_VERSIE = 'vergelijkingsmodel-2.0';

/**
 * The out-of-time pass values at most this many older held sales (a deterministic sample beyond):
 * it bounds the build of a model with a million sales (each ~0.15 ms plus its location statistic)
 * while leaving the learner more rows than it needs (early stopping ends it long before it runs out
 * of data). The location statistic then rests on the residuals of this sample plus the slice.
 */
const MAX_LEERVERKOPEN = 40_000;

export interface BuildOptions {
  /** Published monthly index (CBS PBK); without it the index is estimated from the sales. */
  priceIndex?: PriceIndexPoint[];
  /** Name of the published index, reported as `info.indexBron`. */
  indexBron?: string;
  /** Share of the most recent sales held out to calibrate band and labels (default 0.1). */
  kalibratieFractie?: number;
  /** At most this many calibration valuations (a deterministic sample beyond; default 4000). */
  maxKalibratie?: number;
  /** Fewest calibration valuations for a calibrated band (default 200). */
  minKalibratie?: number;
  /** Second stage (default 'gecombineerd'); the other modes exist for the backtest's ablation. */
  stage?: StageMode;
  /** Tuning of the precomputation (defaults in DEFAULT_CORE_OPTIONS). */
  core?: Partial<Omit<CoreOptions, 'search' | 'weights' | 'caps'>> & {
    search?: Partial<CoreOptions['search']>;
    weights?: Partial<CoreOptions['weights']>;
    caps?: Partial<CoreOptions['caps']>;
  };
}

/** What buildModel measured while calibrating (for reports; not part of the endpoint contract). */
export interface ModelDetails {
  kalibratie: Calibration | null;
  labels: LabelThresholds | null;
  /** Calibration slice: first and last sale date, valuations made and refused. */
  kalibratieVerkopen: { van: string; tot: string; gewaardeerd: number; geweigerd: number } | null;
  /** Size elasticity per segment (0 = houses, 1 = apartments). */
  oppervlakteBeta: number[];
  index: PriceIndexPoint[];
  hedonisch: FittedCore['fit'];
  /** Second stage: mode, learner size and combination weight. */
  stap2: { mode: StageMode; bomen: number; gewicht: number; leerVerkopen: number };
}

export interface FittedModel extends ValuationModel {
  details: ModelDetails;
}

function mergeOptions(o: BuildOptions['core']): CoreOptions {
  const d = DEFAULT_CORE_OPTIONS;
  return {
    ...d,
    ...o,
    search: { ...d.search, ...o?.search },
    weights: { ...d.weights, ...o?.weights },
    caps: { ...d.caps, ...o?.caps },
  };
}

function fmt(v: number, digits: number): string {
  return v.toFixed(digits).replace('.', ',');
}

/** The refusal rule, shared by the live path and calibration so both see the same population. */
function refusal(e: RawEstimate, s: SearchParams): string | null {
  if (e.nComps < s.minAantal) return `Te weinig vergelijkbare verkopen in de buurt (${e.nComps}, minimaal ${s.minAantal} nodig).`;
  if (e.nEff < s.minNEff) return `Te weinig vergelijkbare verkopen in de buurt (effectief ${fmt(e.nEff, 1)}, minimaal ${s.minNEff} nodig).`;
  if (!(e.spreiding <= s.maxSpreiding)) return `De vergelijkbare verkopen in de buurt lopen te ver uiteen voor een betrouwbare waarde (spreiding ${Math.round(e.spreiding * 100)}%).`;
  return null;
}

function codeSubject(core: FittedCore, s: Subject | null, t: SalesTable, row = -1): CodedSubject {
  if (row >= 0) {
    const seg = t.segment[row];
    return {
      ...subjectAttributes(core.effects[seg], t.logOpp[row], t.logPerceel[row], t.bouwjaar[row], t.type[row], t.label[row]),
      x: t.x[row],
      y: t.y[row],
      segment: seg,
      exclude: null,
      excludeObject: t.object[row],
      kenmerken: t.kenmerken ? t.kenmerken.subarray(row * KENMERKEN.length, (row + 1) * KENMERKEN.length) : null,
    };
  }
  const subj = s!;
  if (!(subj.oppervlakte > 0)) throw new Error('Woonoppervlakte van het object ontbreekt of is ongeldig.');
  if (!Number.isFinite(subj.lat) || !Number.isFinite(subj.lon)) throw new Error('Coördinaten van het object ontbreken.');
  const type = woningtypeCode(subj.woningtype);
  const seg = segmentOf(type);
  const perceel = subj.perceel != null && subj.perceel > 0 ? Math.log(subj.perceel) : NaN;
  const bouwjaar = subj.bouwjaar != null && subj.bouwjaar > 1000 ? subj.bouwjaar : NaN;
  return {
    ...subjectAttributes(core.effects[seg], Math.log(subj.oppervlakte), perceel, bouwjaar, type, labelCode(subj.energielabel)),
    x: subj.lon * t.projection.kx,
    y: subj.lat * t.projection.ky,
    segment: seg,
    exclude: subj.uitsluiten?.length ? new Set(subj.uitsluiten) : null,
    excludeObject: subj.uitsluitenWoning ? (t.objectIndex.get(subj.uitsluitenWoning) ?? -1) : -1,
    kenmerken: t.kenmerken ? subjectKenmerken(subj) : null,
  };
}

/** A subject's further attributes in KENMERKEN order (NaN = unknown). */
function subjectKenmerken(subj: Subject): Float64Array {
  const out = new Float64Array(KENMERKEN.length).fill(NaN);
  if (subj.kenmerken) writeKenmerken(subj.kenmerken, out, 0);
  return out;
}

/** Deterministic sample of at most `max` rows (multiplicative hash). */
function sample(rows: readonly number[], max: number, salt: number): number[] {
  if (rows.length <= max) return [...rows];
  return rows.filter((r) => (Math.imul(r + salt, 2246822519) >>> 0) / 4294967296 < max / rows.length);
}

/**
 * Value `rows` of the table with `core`, each at its own sale date (so from sales strictly before
 * it, never its own dwelling), and record their residuals in `res`. Refused rows get none.
 */
function valueRows(core: FittedCore, t: SalesTable, rows: readonly number[], options: CoreOptions, res: Float64Array): { row: number; e: RawEstimate; refused: boolean }[] {
  const sc = scratchFor(core);
  const out: { row: number; e: RawEstimate; refused: boolean }[] = [];
  for (const r of rows) {
    if (t.logOpp[r] !== t.logOpp[r]) continue;
    const e = estimate(core, codeSubject(core, null, t, r), t.day[r], sc);
    const refused = refusal(e, options.search) !== null;
    if (!refused) res[r] = t.logPrijs[r] - e.logWaarde;
    out.push({ row: r, e, refused });
  }
  return out;
}

/** Learner rows (features, location statistic) of valued rows; needs `res` complete first. */
function stageRows(core: FittedCore, t: SalesTable, valued: readonly { row: number; e: RawEstimate }[], mode: StageMode, res: Float64Array): StageRow[] {
  const ls = locationScratch();
  return valued.map(({ row, e }) => {
    const s = codeSubject(core, null, t, row);
    const loc = new Float64Array(2);
    locationStat(core, res, s, t.day[row], ls, loc, 0);
    const level = peilLevel(core, s, t.day[row]);
    const features = new Float64Array(featureCount(t));
    stageFeatures(mode, s, e, level, loc, 0, features, 0);
    return { row, day: t.day[row], e, level, logPrijs: t.logPrijs[row], features, loc };
  });
}

/**
 * Calibrate on the most recent slice of the sales: fit a core on the older part only (index cut
 * at the slice too), value older sales at their own dates to train the second stage out-of-time,
 * value each slice sale at its own date exactly as the endpoint would, fit the combination on the
 * slice and learn band and labels from the final errors there.
 */
/** Band and label calibration from slice valuations (estimate diagnostics and final log error). */
function bandAndLabels(cases: readonly CalibrationCase[]): { cal: Calibration; labels: LabelThresholds } {
  const scaled = fitCalibration(cases);
  const labels = fitLabelThresholds(cases.map((c) => ({ score: uncertaintyScore(scaled, c.estimate), fout: Math.abs(Math.exp(-c.logFout) - 1) })));
  return { cal: fitBandGroups(scaled, cases, (score) => labelFor(labels, score)), labels };
}

interface Calibrated {
  /** Band and labels of the final (second-stage) estimate. */
  cal: Calibration;
  labels: LabelThresholds;
  /** Band and labels of the comparables alone (valuations before the newest held sale). */
  vergelijking: { cal: Calibration; labels: LabelThresholds };
  slice: ModelDetails['kalibratieVerkopen'];
  stage: Stage;
  leerVerkopen: number;
  /** Residuals of the valued older and slice sales (NaN: not valued), for the location statistic. */
  res: Float64Array;
  /** Learner rows of the older and the slice sales, to refit the learner on both. */
  rows: StageRow[];
}

function calibrate(t: SalesTable, options: CoreOptions, opts: BuildOptions, mode: StageMode): Calibrated | null {
  const fraction = opts.kalibratieFractie ?? 0.1;
  const minCases = opts.minKalibratie ?? 200;
  const days = Int32Array.from(t.day).sort();
  if (t.n < minCases * 5) return null;
  const cutoff = days[Math.floor(t.n * (1 - fraction))];
  const older: number[] = [];
  const slice: number[] = [];
  for (let r = 0; r < t.n; r++) (t.day[r] < cutoff ? older : slice).push(r);
  if (slice.length < minCases || older.length < minCases) return null;
  const max = opts.maxKalibratie ?? 4000;
  const sliceSample = sample(slice, max, 7);
  // A published index is cut to what was out before the slice started (see runBacktest).
  const cutMonth = monthNumber(dateOfDay(cutoff)) - 1;
  const index = opts.priceIndex?.filter((p) => monthNumber(p.periode) < cutMonth);
  const inner = fitCore(t, Int32Array.from(older), options, index, opts.indexBron);
  const res = new Float64Array(t.n).fill(NaN);
  const learnValued = valueRows(inner, t, sample(older, MAX_LEERVERKOPEN, 11), options, res).filter((v) => !v.refused);
  const sliceValued = valueRows(inner, t, sliceSample, options, res);
  const refused = sliceValued.filter((v) => v.refused).length;
  const sliceOk = sliceValued.filter((v) => !v.refused);
  if (sliceOk.length < minCases) return null;
  const learnRows = stageRows(inner, t, learnValued, mode, res);
  const sliceRows = stageRows(inner, t, sliceOk, mode, res);
  const stage = fitStage(mode, learnRows, sliceRows);
  const cases: CalibrationCase[] = sliceRows.map((r) => ({ estimate: r.e, logFout: r.logPrijs - stageEstimate(stage, r.e, r.level, r.features, 0, r.loc, 0), dag: r.day }));
  const { cal, labels } = bandAndLabels(cases);
  const vergelijking = mode === 'vergelijking' ? { cal, labels } : bandAndLabels(sliceRows.map((r) => ({ estimate: r.e, logFout: r.logPrijs - r.e.logWaarde, dag: r.day })));
  return { cal, labels, vergelijking, stage, leerVerkopen: learnRows.length, res, rows: [...learnRows, ...sliceRows], slice: { van: dateOfDay(cutoff), tot: dateOfDay(t.newestDay), gewaardeerd: cases.length, geweigerd: refused } };
}

/**
 * A fitted model as plain data: typed arrays, plain objects and Maps only, so a worker thread can
 * fit it and hand it to the main thread (structured clone); modelFromState turns it into a model.
 */
export interface ModelState {
  options: CoreOptions;
  table: SalesTable;
  core: CoreState;
  calibrated: Calibrated | null;
  stage: Stage;
  /** Residual of each held sale under the live core (NaN: none), for the location statistic. */
  res: Float64Array;
}

/** Fit everything the model needs from a sales table (the slow part; no closures in the result). */
export function fitModelState(table: SalesTable, opts: BuildOptions = {}): ModelState {
  const options = mergeOptions(opts.core);
  const all = new Int32Array(table.n);
  for (let r = 0; r < table.n; r++) all[r] = r;
  const core = fitCore(table, all, options, opts.priceIndex, opts.indexBron);
  const mode = opts.stage ?? 'gecombineerd';
  const calibrated = calibrate(table, options, opts, mode);
  let stage: Stage = calibrated?.stage ?? { mode: 'vergelijking', gbdt: null, w: 0 };
  // The live model keeps the residuals of the out-of-time pass (each sale valued at its own date
  // from the sales before it) for the location statistic, and refits the learner on the older and
  // the slice sales together, with the tree count and weight chosen out-of-time.
  const res = calibrated?.res ?? new Float64Array(table.n).fill(NaN);
  if (calibrated && stage.gbdt) stage = refitStage(stage, calibrated.rows);
  const kept = calibrated ? { ...calibrated, rows: [] } : null;
  return { options, table, core: coreToState(core), calibrated: kept, stage, res };
}

/**
 * Build the market-value model from the held sales. Deterministic: the same sales and options give
 * the same model. Throws only on malformed dates; sales without price or position are skipped.
 */
export function buildModel(sales: SaleRecord[], opts: BuildOptions = {}): FittedModel {
  return modelFromState(fitModelState(buildSalesTable(sales), opts));
}

/** The model of a fitted state (cheap: rebuilds the k-d trees' views and the closures). */
export function modelFromState(state: ModelState): FittedModel {
  const { options, table, calibrated, stage, res } = state;
  const core = coreFromState(state.core, table, options.regioCel);
  const calTweede = calibrated?.cal ?? null;
  const labelsTweede = calibrated?.labels ?? null;
  const calVergelijking = calibrated?.vergelijking.cal ?? null;
  const labelsVergelijking = calibrated?.vergelijking.labels ?? null;
  const sc: Scratch = scratchFor(core);
  const ls = locationScratch();
  const loc = new Float64Array(2);
  const feats = new Float64Array(featureCount(table));

  const info: ModelInfo = {
    versie: MODEL_VERSIE,
    verkopen: table.n,
    nieuwsteVerkoop: table.n ? dateOfDay(table.newestDay) : null,
    indexBron: core.index.bron,
    gekalibreerdOp: calibrated?.slice?.van ?? null,
  };

  function waardeer(subject: Subject, peildatum: string): Waardering | Weigering {
    const peilDay = dayNumber(peildatum);
    const coded = codeSubject(core, subject, table);
    const e = estimate(core, coded, peilDay, sc);
    const reden = refusal(e, options.search);
    if (reden) return { soort: 'te_weinig', reden, nComps: e.nComps, nEff: Math.round(e.nEff * 10) / 10 };
    let logWaarde = e.logWaarde;
    // The second stage was trained on every held sale: it may only speak for a peildatum after the
    // newest of them. Before that (a valuation in the past) the comparables alone answer, with
    // their own band and labels, so no sale on or after the peildatum is ever used.
    const tweede = stage.mode !== 'vergelijking' && peilDay > table.newestDay;
    const cal = tweede ? calTweede : calVergelijking;
    const labels = tweede ? labelsTweede : labelsVergelijking;
    if (tweede) {
      const level = peilLevel(core, coded, peilDay);
      if (stage.mode !== 'leerder') locationStat(core, res, coded, peilDay, ls, loc, 0);
      stageFeatures(stage.mode, coded, e, level, loc, 0, feats, 0);
      logWaarde = stageEstimate(stage, e, level, feats, 0, loc, 0);
    }
    let lo: number;
    let hi: number;
    let score: number;
    if (cal) {
      score = uncertaintyScore(cal, e);
      [lo, hi] = bandFor(cal, score, labelFor(labels, score));
    } else {
      // Uncalibrated (tiny data): the comparables' own spread, widened for the unknown; label 'laag'.
      score = Infinity;
      lo = -2 * e.spreiding - 0.05;
      hi = 2 * e.spreiding + 0.05;
    }
    const marktwaarde = Math.round(Math.exp(logWaarde));
    return {
      soort: 'waarde',
      marktwaarde,
      min: Math.min(marktwaarde, Math.round(Math.exp(logWaarde + lo))),
      max: Math.max(marktwaarde, Math.round(Math.exp(logWaarde + hi))),
      betrouwbaarheid: labelFor(labels, score),
      nComps: e.nComps,
      nEff: Math.round(e.nEff * 10) / 10,
      spreiding: Math.round(e.spreiding * 1000) / 1000,
    };
  }

  return {
    info,
    waardeer,
    details: {
      kalibratie: calTweede,
      labels: labelsTweede,
      kalibratieVerkopen: calibrated?.slice ?? null,
      oppervlakteBeta: core.effects.map((e) => e.opp),
      index: indexPoints(core.index.national),
      hedonisch: core.fit,
      stap2: { mode: stage.mode, bomen: stage.gbdt?.trees.length ?? 0, gewicht: stage.w, leerVerkopen: calibrated?.leerVerkopen ?? 0 },
    },
  };
}
