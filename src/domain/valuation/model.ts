/**
 * Assembly of the market-value model: buildModel precomputes everything (columns, spatial index,
 * price index, attribute effects, band calibration, label thresholds); waardeer only searches,
 * adjusts and weighs comparables.
 */
import { bandFor, fitBandGroups, fitCalibration, uncertaintyScore } from './calibration.ts';
import type { Calibration, CalibrationCase } from './calibration.ts';
import { estimate, subjectAttributes } from './comparables.ts';
import type { CodedSubject, RawEstimate, Scratch, SearchParams } from './comparables.ts';
import { afwijking, fitKansCurve, fitLabelThresholds, HOOG_BINNEN, kansFor, kansOngekalibreerd, labelFor, labelMetKans, SIGMA_LAAG, Z80 } from './confidence.ts';
import type { KansCurve, LabelThresholds } from './confidence.ts';
import { coreFromState, coreToState, DEFAULT_CORE_OPTIONS, fitCore, scratchFor } from './core.ts';
import type { CoreOptions, CoreState, FittedCore } from './core.ts';
import { dateOfDay, dayNumber, monthNumber, monthPosition } from './dates.ts';
import { ATTRIBUTE_FEATURES, FEATURES, featureCount, fitStage, refitStage, locationScratch, locationStat, peilLevel, stageEstimate, stageFeatures, stageMonotoon, wozOffset } from './learner.ts';
import type { Stage, StageMode, StageRow } from './learner.ts';
import { predictGbdt } from './gbdt.ts';
import { indexPoints, logIndexAt } from './price-index.ts';
import { bekendBouwjaar, buildSalesTable, labelCode, SEGMENT_APARTMENT, SEGMENT_HOUSE, segmentOf, woningtypeCode, writeKenmerken } from './sales-table.ts';
import type { SalesTable } from './sales-table.ts';
import { KENMERKEN } from './types.ts';
import { wozBekendOp } from './woz.ts';
import type { ModelInfo, PriceIndexPoint, SaleRecord, Subject, ValuationModel, Waardering, Weigering } from './types.ts';

/** Model version reported in `meta`; bump when the method (not the data) changes. */
export const MODEL_VERSIE = 'vergelijkingsmodel-3.2';

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
  stap2: { mode: StageMode; bomen: number; gewicht: number; leerVerkopen: number; leerderMenging: number[]; tweedePerSegment: boolean[]; leerderBomen: number };
  /** Weight of the WOZ sales-ratio estimate beside the comparables, per segment (houses, apartments). */
  wozGewicht: number[];
  /** P(within 10 %) against band width, as calibrated (null: uncalibrated). */
  kans: KansCurve | null;
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
  const waar = `binnen ${(s.ringen[s.ringen.length - 1] / 1000).toLocaleString('nl-NL')} km in de ${s.vensterMaanden} maanden voor de peildatum`;
  if (e.nComps < s.minAantal) {
    const n = e.inBereik ?? 0;
    if (n < s.minAantal) return `Te weinig vergelijkbare verkopen ${waar} (${e.nComps}, minimaal ${s.minAantal} nodig).`;
    const waarin = (e.naOppervlakte ?? n) < s.minAantal ? 'woonoppervlakte' : 'bouwjaar en kenmerken';
    return `Te weinig vergelijkbare verkopen ${waar}: er zijn ${n} verkopen, maar ${e.nComps} daarvan ${e.nComps === 1 ? 'lijkt' : 'lijken'} in ${waarin} genoeg op deze woning (minimaal ${s.minAantal} nodig).`;
  }
  if (e.nEff < s.minNEff) return `Te weinig vergelijkbare verkopen ${waar} (effectief ${fmt(e.nEff, 1)}, minimaal ${s.minNEff} nodig).`;
  if (!(e.spreiding <= s.maxSpreiding)) return `De vergelijkbare verkopen in de buurt lopen te ver uiteen voor een betrouwbare waarde (spreiding ${Math.round(e.spreiding * 100)}%).`;
  return null;
}

/** The subject's deflated log WOZ (see CodedSubject.wozDeflated) from its log value and peildatum. */
function deflatedWoz(core: FittedCore, x: number, y: number, logWoz: number, wozDay: number): number {
  return logWoz - logIndexAt(core.curves[core.curveAt(x, y)], monthPosition(wozDay));
}

function codeSubject(core: FittedCore, s: Subject | null, t: SalesTable, row = -1, peildatum = ''): CodedSubject {
  if (row >= 0) {
    const seg = t.segment[row];
    const wozLog = t.wozLog ? t.wozLog[row] : NaN;
    return {
      ...subjectAttributes(core.effects[seg], t.logOpp[row], t.logPerceel[row], t.bouwjaar[row], t.type[row], t.label[row]),
      x: t.x[row],
      y: t.y[row],
      segment: seg,
      exclude: null,
      excludeObject: t.object[row],
      kenmerken: t.kenmerken ? t.kenmerken.subarray(row * KENMERKEN.length, (row + 1) * KENMERKEN.length) : null,
      wozDeflated: wozLog === wozLog ? deflatedWoz(core, t.x[row], t.y[row], wozLog, t.wozDay![row]) : NaN,
    };
  }
  const subj = s!;
  if (!(subj.oppervlakte > 0)) throw new Error('Woonoppervlakte van het object ontbreekt of is ongeldig.');
  if (!Number.isFinite(subj.lat) || !Number.isFinite(subj.lon)) throw new Error('Coördinaten van het object ontbreken.');
  const type = woningtypeCode(subj.woningtype);
  const seg = segmentOf(type);
  const perceel = subj.perceel != null && subj.perceel > 0 ? Math.log(subj.perceel) : NaN;
  const bouwjaar = bekendBouwjaar(subj.bouwjaar);
  const x = subj.lon * t.projection.kx;
  const y = subj.lat * t.projection.ky;
  const woz = core.wozRatio ? wozBekendOp(subj.woz, peildatum) : null;
  return {
    ...subjectAttributes(core.effects[seg], Math.log(subj.oppervlakte), perceel, bouwjaar, type, labelCode(subj.energielabel)),
    x,
    y,
    segment: seg,
    exclude: subj.uitsluiten?.length ? new Set(subj.uitsluiten) : null,
    excludeObject: subj.uitsluitenWoning ? (t.objectIndex.get(subj.uitsluitenWoning) ?? -1) : -1,
    kenmerken: t.kenmerken ? subjectKenmerken(subj) : null,
    wozDeflated: woz ? deflatedWoz(core, x, y, Math.log(woz.waarde), dayNumber(woz.peildatum)) : NaN,
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
 * The comparables estimate with the WOZ sales-ratio estimate beside it: their weighted mean in log,
 * with the segment's weight, where the subject and enough comparables have a WOZ value.
 */
function anchored(e: RawEstimate, segment: number, wozGewicht: readonly number[]): RawEstimate {
  const a = wozGewicht[segment] ?? 0;
  const w = e.woz ?? NaN;
  if (!(a > 0) || w !== w) return e;
  return { ...e, logWaarde: (1 - a) * e.logWaarde + a * w, wozGewicht: a };
}

/** Fewest valuations of a segment with a sales-ratio estimate to fit its WOZ weight. */
const MIN_WOZ_VALUATIONS = 100;

/**
 * Per segment, the weight of the sales-ratio estimate that leaves the least absolute log error on
 * `valued` (out-of-time valuations of older sales); 0 where too few have one, or where it does not help.
 */
function fitWozGewicht(t: SalesTable, valued: readonly { row: number; e: RawEstimate }[]): number[] {
  return [SEGMENT_HOUSE, SEGMENT_APARTMENT].map((seg) => {
    const rows = valued.filter((v) => t.segment[v.row] === seg && v.e.woz !== undefined && v.e.woz === v.e.woz);
    if (rows.length < MIN_WOZ_VALUATIONS) return 0;
    let best = Infinity;
    let bestA = 0;
    for (let a = 0; a <= 1 + 1e-9; a += 0.05) {
      let err = 0;
      for (const v of rows) err += Math.abs(t.logPrijs[v.row] - ((1 - a) * v.e.logWaarde + a * v.e.woz!));
      if (err < best - 1e-12) {
        best = err;
        bestA = a;
      }
    }
    return Math.round(bestA * 100) / 100;
  });
}

/**
 * Value `rows` of the table with `core`, each at its own sale date (so from sales strictly before
 * it, never its own dwelling). Refused rows are marked.
 */
function valueRows(core: FittedCore, t: SalesTable, rows: readonly number[], options: CoreOptions): { row: number; e: RawEstimate; refused: boolean }[] {
  const sc = scratchFor(core);
  const out: { row: number; e: RawEstimate; refused: boolean }[] = [];
  for (const r of rows) {
    if (t.logOpp[r] !== t.logOpp[r]) continue;
    const e = estimate(core, codeSubject(core, null, t, r), t.day[r], sc);
    out.push({ row: r, e, refused: refusal(e, options.search) !== null });
  }
  return out;
}

/** Learner rows (features, location statistic) of valued rows; needs `res` complete first. */
function stageRows(core: FittedCore, t: SalesTable, valued: readonly { row: number; e: RawEstimate }[], mode: StageMode, res: Float64Array): StageRow[] {
  const ls = locationScratch();
  const wozAt = t.wozLog ? wozOffset(t) : -1;
  return valued.map(({ row, e }) => {
    const s = codeSubject(core, null, t, row);
    const loc = new Float64Array(2);
    locationStat(core, res, s, t.day[row], ls, loc, 0);
    const level = peilLevel(core, s, t.day[row]);
    const features = new Float64Array(featureCount(t));
    stageFeatures(mode, s, e, level, loc, 0, features, 0, wozAt);
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
function bandAndLabels(cases: readonly CalibrationCase[], ouder: readonly CalibrationCase[] = []): BandLabels {
  const scaled = fitCalibration(cases);
  const labels = fitLabelThresholds(cases.map((c) => ({ score: uncertaintyScore(scaled, c.estimate), fout: afwijking(c.logFout) })));
  const cal = fitBandGroups(scaled, cases, (score) => labelFor(labels, score));
  const kans = fitKansCurve(
    [...cases, ...ouder].map((c) => {
      const score = uncertaintyScore(cal, c.estimate);
      const [lo, hi] = bandFor(cal, score, labelFor(labels, score));
      return { breedte: hi - lo, binnen: afwijking(c.logFout) <= HOOG_BINNEN + 1e-9 };
    }),
  );
  return { cal, labels, kans };
}

interface BandLabels {
  cal: Calibration;
  labels: LabelThresholds;
  /** P(within 10 %) against band width (null: too few cases). */
  kans: KansCurve | null;
}

interface Calibrated extends BandLabels {
  /** Band and labels of the comparables alone (valuations before the newest held sale). */
  vergelijking: BandLabels;
  /** Weight of the WOZ sales-ratio estimate per segment (see anchored). */
  wozGewicht: number[];
  menging: Menging;
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
  const learnRaw = valueRows(inner, t, sample(older, MAX_LEERVERKOPEN, 11), options).filter((v) => !v.refused);
  // The WOZ weight is fitted on the older valuations, out-of-time like the learner; the slice
  // (which judges the learner's weight, band and labels) never sees it fitted.
  const wozGewicht = fitWozGewicht(t, learnRaw);
  const res = new Float64Array(t.n).fill(NaN);
  const anchor = (v: { row: number; e: RawEstimate; refused: boolean }) => {
    const e = anchored(v.e, t.segment[v.row], wozGewicht);
    if (!v.refused) res[v.row] = t.logPrijs[v.row] - e.logWaarde;
    return { ...v, e };
  };
  const learnValued = learnRaw.map(anchor);
  const sliceValued = valueRows(inner, t, sliceSample, options).map(anchor);
  const refused = sliceValued.filter((v) => v.refused).length;
  const sliceOk = sliceValued.filter((v) => !v.refused);
  if (sliceOk.length < minCases) return null;
  const learnRows = stageRows(inner, t, learnValued, mode, res);
  const sliceRows = stageRows(inner, t, sliceOk, mode, res);
  const fitted = fitStage(mode, learnRows, sliceRows, mode === 'leerder' ? [] : stageMonotoon(t));
  const { menging, vouwen, w } = mode === 'gecombineerd' ? fitMenging(t, fitted, learnRows, sliceRows, t.kenmerken !== null) : { menging: GEEN_MENGING, vouwen: [], w: fitted.w };
  const stage: Stage = { ...fitted, w };
  const cases: CalibrationCase[] = sliceRows.map((r) => ({ estimate: r.e, logFout: r.logPrijs - mixedEstimate(stage, menging, r, t.kenmerken !== null, t.segment[r.row]), dag: r.day }));
  // The probability curve also rests on the folds before the slice (valued as the model built just
  // before each would have): a share within 10 % per bin of 60 slice cases has ±6 points of noise
  // of its own, and one period's luck is not the next one's.
  const final = bandAndLabels(cases, vouwen.filter((c) => c.dag! < cutoff));
  const vergelijking = mode === 'vergelijking' ? final : bandAndLabels(sliceRows.map((r) => ({ estimate: r.e, logFout: r.logPrijs - r.e.logWaarde, dag: r.day })));
  return { ...final, vergelijking, wozGewicht, stage, menging, leerVerkopen: learnRows.length, res, rows: [...learnRows, ...sliceRows], slice: { van: dateOfDay(cutoff), tot: dateOfDay(t.newestDay), gewaardeerd: cases.length, geweigerd: refused } };
}

/**
 * Per segment (houses, apartments): whether the second stage answers at all (else the comparables
 * with the WOZ anchor do), and the weight `v` of the learner alone (position and attributes, no
 * comparables: what a plain AVM is) mixed in: final = (1 - v) * combined + v * learner. Both are
 * chosen on rolling time folds (see kiesPerSegment), never on the period they are judged on.
 */
export interface Menging {
  leerder: Stage | null;
  v: number[];
  tweede: boolean[];
}
const GEEN_MENGING: Menging = { leerder: null, v: [0, 0], tweede: [true, true] };

/** The learner-only features of a row (the comparables' and the WOZ anchor's blanked, as mode 'leerder' does). */
function learnerRow(r: StageRow, kenmerken: boolean): StageRow {
  const features = Float64Array.from(r.features);
  const kenmerkTot = kenmerken ? FEATURES + KENMERKEN.length : FEATURES;
  for (let j = ATTRIBUTE_FEATURES; j < features.length; j++) if (!(j >= FEATURES && j < kenmerkTot)) features[j] = NaN;
  return { ...r, features };
}

/** Consecutive held-out periods, each this share of the valued rows, the newest last. */
const FOLDS = 5;
const FOLD_FRACTIE = 0.1;
/** A fold's learners are refitted on at most this many rows before it (the newest): bounds the build at a million sales. */
const MAX_FOLD_TRAIN = 20_000;
/** Fewest fold valuations of a segment for its learner to be trusted; fewer: comparables (+ WOZ). */
const MIN_FOLD_SEGMENT = 60;
/** Mix weights tried for the learner alone (0, 0.05, ... 1). */
const MIX_WEIGHTS = Array.from({ length: 21 }, (_, i) => i / 20);

/** One fold valuation: its segment and period, the truth and the three estimates (log). */
export interface FoldPrediction {
  seg: number;
  fold: number;
  y: number;
  /** Comparables (+ WOZ anchor). */
  c0: number;
  /** The second stage (comparables + learner correction). */
  c: number;
  /** The learner alone. */
  l: number;
}

/**
 * The mix weight of one segment from its fold valuations: among the weights that lose in no fold
 * against no mix, the best over all folds — then, by the one-standard-error rule, the smallest
 * weight whose extra absolute error over that best is within one standard error of the paired
 * differences. The best of 21 weights is chosen partly for its luck on these periods; how much luck
 * depends on how many rows there are and how much they disagree, which the standard error measures
 * (a fixed halving of the weight cut the gain on King County as much as the loss on the demo).
 */
export function kiesMengGewicht(p: readonly FoldPrediction[], folds: readonly (readonly FoldPrediction[])[]): number {
  const err = (part: readonly FoldPrediction[], v: number) => part.reduce((a, x) => a + Math.abs(x.y - ((1 - v) * x.c + v * x.l)), 0);
  const candidates = MIX_WEIGHTS.filter((v) => v === 0 || folds.every((f) => err(f, v) <= err(f, 0)));
  let best = 0;
  for (const v of candidates) if (err(p, v) < err(p, best) - 1e-12) best = v;
  for (const v of candidates) {
    if (v >= best) break;
    let sum = 0;
    let sq = 0;
    for (const x of p) {
      const d = Math.abs(x.y - ((1 - v) * x.c + v * x.l)) - Math.abs(x.y - ((1 - best) * x.c + best * x.l));
      sum += d;
      sq += d * d;
    }
    const n = p.length;
    const sd = Math.sqrt(Math.max(0, (sq - (sum * sum) / n) / (n - 1)));
    if (sum <= sd * Math.sqrt(n)) return v;
  }
  return best;
}

/**
 * Per segment (houses, apartments) from the fold valuations: the mix weight (kiesMengGewicht; 0
 * without a learner) and whether the second stage with that mix answers at all — only where it
 * beat the comparables (+ WOZ) over the folds and in most of them; elsewhere the comparables do.
 */
export function kiesUitFolds(preds: readonly FoldPrediction[], metLeerder: boolean): { v: number[]; tweede: boolean[] } {
  const v: number[] = [];
  const tweede: boolean[] = [];
  for (const seg of [SEGMENT_HOUSE, SEGMENT_APARTMENT]) {
    const p = preds.filter((x) => x.seg === seg);
    const folds = [...new Set(p.map((x) => x.fold))].map((k) => p.filter((x) => x.fold === k));
    const vs = metLeerder && p.length >= MIN_FOLD_SEGMENT ? kiesMengGewicht(p, folds) : 0;
    const err = (part: readonly FoldPrediction[], f: (x: FoldPrediction) => number) => part.reduce((a, x) => a + Math.abs(x.y - f(x)), 0);
    const mixed = (x: FoldPrediction) => (1 - vs) * x.c + vs * x.l;
    const wint = err(p, mixed) < err(p, (x) => x.c0) && folds.filter((f) => err(f, mixed) < err(f, (x) => x.c0)).length * 2 > folds.length;
    tweede.push(p.length >= MIN_FOLD_SEGMENT && wint);
    v.push(vs);
  }
  return { v, tweede };
}

/**
 * Rolling time folds: the newest FOLDS periods of the valued rows, each valued by the learners as
 * they would have been built just before it (refitted on the rows before it, with the tree count
 * and loss chosen out-of-time), decided per segment by kiesUitFolds. One slice's optimum overshot
 * on the next period; several refitted periods do not share its luck.
 */
function kiesPerSegment(t: SalesTable, stage: Stage, leerder: Stage | null, rows: readonly StageRow[], kenmerken: boolean): { menging: Menging; vouwen: CalibrationCase[]; w: number } {
  const sorted = [...rows].sort((a, b) => a.day - b.day);
  const size = Math.floor(sorted.length * FOLD_FRACTIE);
  const preds: FoldPrediction[] = [];
  const valued: StageRow[] = [];
  const correctie: number[] = [];
  for (let k = 0; k < FOLDS; k++) {
    const start = sorted.length - (FOLDS - k) * size;
    const train = sorted.slice(Math.max(0, start - MAX_FOLD_TRAIN), start);
    if (size < 1 || train.length < 200) continue;
    const s = refitStage(stage, train);
    const l = leerder ? refitStage(leerder, train.map((r) => learnerRow(r, kenmerken))) : null;
    for (const r of sorted.slice(start, start + size)) {
      const c = stageEstimate(s, r.e, r.level, r.features, 0, r.loc, 0);
      const lr = l ? stageEstimate(l, r.e, r.level, learnerRow(r, kenmerken).features, 0, r.loc, 0) : c;
      preds.push({ seg: t.segment[r.row], fold: k, y: r.logPrijs, c0: r.e.logWaarde, c, l: lr });
      correctie.push(s.gbdt ? predictGbdt(s.gbdt, r.features, 0) : 0);
      valued.push(r);
    }
  }
  // The weight of the stage's correction is chosen on the same folds: fitStage fitted it on the
  // slice alone, one period, whose optimum overshot the next period exactly as the mix's did.
  let w = stage.w;
  if (stage.gbdt && preds.length) {
    w = kiesCorrectieGewicht(preds, correctie);
    for (let i = 0; i < preds.length; i++) preds[i].c = preds[i].c0 + w * correctie[i];
  }
  const { v, tweede } = kiesUitFolds(preds, leerder !== null);
  // Each fold valuation's error under the choice, as the band's calibration cases.
  const vouwen = preds.map((x, i) => ({ estimate: valued[i].e, logFout: x.y - (tweede[x.seg] ? (1 - v[x.seg]) * x.c + v[x.seg] * x.l : x.c0), dag: valued[i].day }));
  return { menging: { leerder: v.some((x) => x > 0) ? leerder : null, v, tweede }, vouwen, w };
}

/** Weights tried for the second stage's correction (0, 0.05, ... 1.5), as fitStage tries on the slice. */
const CORRECTION_WEIGHTS = Array.from({ length: 31 }, (_, i) => i / 20);

/**
 * The weight w of the second stage's correction (stage = comparables + w · correction) with the least
 * absolute log error over the fold valuations of every segment (one stage serves both): `correctie`
 * is each fold valuation's unweighted correction, by the stage as refitted before its period.
 */
export function kiesCorrectieGewicht(preds: readonly FoldPrediction[], correctie: readonly number[]): number {
  let best = 0;
  let bestErr = Infinity;
  for (const w of CORRECTION_WEIGHTS) {
    let err = 0;
    for (let j = 0; j < preds.length; j++) err += Math.abs(preds[j].y - preds[j].c0 - w * correctie[j]);
    if (err < bestErr - 1e-12) {
      bestErr = err;
      best = w;
    }
  }
  return best;
}

function fitMenging(t: SalesTable, stage: Stage, learn: StageRow[], slice: readonly StageRow[], kenmerken: boolean): { menging: Menging; vouwen: CalibrationCase[]; w: number } {
  const leerder = fitStage('leerder', learn.map((r) => learnerRow(r, kenmerken)), slice.map((r) => learnerRow(r, kenmerken)));
  return kiesPerSegment(t, stage, leerder.gbdt ? leerder : null, [...learn, ...slice], kenmerken);
}

/** Final estimate (log) of a valued row under the stage and the per-segment choice. */
function mixedEstimate(stage: Stage, menging: Menging, r: StageRow, kenmerken: boolean, segment: number): number {
  if (!menging.tweede[segment]) return r.e.logWaarde;
  const c = stageEstimate(stage, r.e, r.level, r.features, 0, r.loc, 0);
  const v = menging.v[segment];
  if (!menging.leerder || !(v > 0)) return c;
  const l = learnerRow(r, kenmerken);
  return (1 - v) * c + v * stageEstimate(menging.leerder, r.e, r.level, l.features, 0, r.loc, 0);
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
  menging: Menging;
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
  let menging = calibrated?.menging ?? GEEN_MENGING;
  if (calibrated && menging.leerder) menging = { ...menging, leerder: refitStage(menging.leerder, calibrated.rows.map((r) => learnerRow(r, table.kenmerken !== null))) };
  const kept = calibrated ? { ...calibrated, rows: [], menging: GEEN_MENGING } : null;
  return { options, table, core: coreToState(core), calibrated: kept, stage, menging, res };
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
  const { options, table, calibrated, stage, menging, res } = state;
  const core = coreFromState(state.core, table, options.regioCel);
  const tweedeFit = calibrated ?? null;
  const vergelijkingFit = calibrated?.vergelijking ?? null;
  const wozGewicht = calibrated?.wozGewicht ?? [0, 0];
  const wozAt = table.wozLog ? wozOffset(table) : -1;
  const sc: Scratch = scratchFor(core);
  const ls = locationScratch();
  const loc = new Float64Array(2);
  const feats = new Float64Array(featureCount(table));

  const info: ModelInfo = {
    versie: MODEL_VERSIE,
    verkopen: table.n,
    oudsteVerkoop: table.n ? dateOfDay(table.day.reduce((a, d) => Math.min(a, d), Infinity)) : null,
    nieuwsteVerkoop: table.n ? dateOfDay(table.newestDay) : null,
    indexBron: core.index.bron,
    gekalibreerdOp: calibrated?.slice?.van ?? null,
  };

  function waardeer(subject: Subject, peildatum: string): Waardering | Weigering {
    const peilDay = dayNumber(peildatum);
    const coded = codeSubject(core, subject, table, -1, peildatum);
    const raw = estimate(core, coded, peilDay, sc);
    const reden = refusal(raw, options.search);
    if (reden) return { soort: 'te_weinig', reden, nComps: raw.nComps, nEff: Math.round(raw.nEff * 10) / 10 };
    const e = anchored(raw, coded.segment, wozGewicht);
    let logWaarde = e.logWaarde;
    // The second stage was trained on every held sale: it may only speak for a peildatum after the
    // newest of them. Before that (a valuation in the past) the comparables alone answer, with
    // their own band and labels. Index, effects and calibration are fitted on all (docs/waardemodel.md).
    const live = stage.mode !== 'vergelijking' && peilDay > table.newestDay;
    const fit = live ? tweedeFit : vergelijkingFit;
    const cal = fit?.cal ?? null;
    const labels = fit?.labels ?? null;
    if (live && menging.tweede[coded.segment]) {
      const level = peilLevel(core, coded, peilDay);
      if (stage.mode !== 'leerder') locationStat(core, res, coded, peilDay, ls, loc, 0);
      stageFeatures(stage.mode, coded, e, level, loc, 0, feats, 0, wozAt);
      logWaarde = stageEstimate(stage, e, level, feats, 0, loc, 0);
      const v = menging.v[coded.segment];
      if (menging.leerder && v > 0) {
        stageFeatures('leerder', coded, e, level, loc, 0, feats, 0, wozAt);
        logWaarde = (1 - v) * logWaarde + v * stageEstimate(menging.leerder, e, level, feats, 0, loc, 0);
      }
    }
    let lo: number;
    let hi: number;
    let score: number;
    if (cal) {
      score = uncertaintyScore(cal, e);
      [lo, hi] = bandFor(cal, score, labelFor(labels, score));
    } else {
      // Uncalibrated (tiny data): the comparables' own spread, widened for the unknown, at least what 'laag' implies.
      score = Infinity;
      hi = Math.max(2 * e.spreiding + 0.05, Z80 * SIGMA_LAAG);
      lo = -hi;
    }
    const marktwaarde = Math.round(Math.exp(logWaarde));
    const kans = Math.round((fit?.kans ? kansFor(fit.kans, hi - lo) : kansOngekalibreerd(hi - lo)) * 1000) / 1000;
    return {
      soort: 'waarde',
      marktwaarde,
      min: Math.min(marktwaarde, Math.round(Math.exp(logWaarde + lo))),
      max: Math.max(marktwaarde, Math.round(Math.exp(logWaarde + hi))),
      betrouwbaarheid: labelMetKans(labels, score, kans),
      nComps: e.nComps,
      nEff: Math.round(e.nEff * 10) / 10,
      spreiding: Math.round(e.spreiding * 1000) / 1000,
      kansBinnen10: kans,
      wozGebruikt: (e.wozGewicht ?? 0) > 0,
    };
  }

  return {
    info,
    waardeer,
    details: {
      kalibratie: tweedeFit?.cal ?? null,
      labels: tweedeFit?.labels ?? null,
      kalibratieVerkopen: calibrated?.slice ?? null,
      oppervlakteBeta: core.effects.map((e) => e.opp),
      index: indexPoints(core.index.national),
      hedonisch: core.fit,
      stap2: { mode: stage.mode, bomen: stage.gbdt?.trees.length ?? 0, gewicht: stage.w, leerVerkopen: calibrated?.leerVerkopen ?? 0, leerderMenging: menging.v, tweedePerSegment: menging.tweede, leerderBomen: menging.leerder?.gbdt?.trees.length ?? 0 },
      wozGewicht,
      kans: tweedeFit?.kans ?? null,
    },
  };
}
