/**
 * Assembly of the market-value model: buildModel precomputes everything (columns, spatial index,
 * price index, attribute effects, band calibration, label thresholds); waardeer only searches,
 * adjusts and weighs comparables.
 */
import { bandFor, fitCalibration, uncertaintyScore } from './calibration.ts';
import type { Calibration, CalibrationCase } from './calibration.ts';
import { estimate, subjectAttributes } from './comparables.ts';
import type { CodedSubject, RawEstimate, Scratch, SearchParams } from './comparables.ts';
import { fitLabelThresholds, labelFor } from './confidence.ts';
import type { LabelThresholds } from './confidence.ts';
import { DEFAULT_CORE_OPTIONS, fitCore, scratchFor } from './core.ts';
import type { CoreOptions, FittedCore } from './core.ts';
import { dateOfDay, dayNumber, monthNumber } from './dates.ts';
import { indexPoints } from './price-index.ts';
import { buildSalesTable, labelCode, segmentOf, woningtypeCode } from './sales-table.ts';
import type { SalesTable } from './sales-table.ts';
import type { ModelInfo, PriceIndexPoint, SaleRecord, Subject, ValuationModel, Waardering, Weigering } from './types.ts';

/** Model version reported in `meta`; bump when the method (not the data) changes. */
export const MODEL_VERSIE = 'vergelijkingsmodel-1.0';

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
    excludeObject: subj.objectId ? (t.objectNummers.get(subj.objectId) ?? -1) : -1,
  };
}

/**
 * Calibrate on the most recent slice of the sales: fit a core on the older part only (index cut
 * at the slice too), value each slice sale at its own date exactly as the endpoint would, and
 * learn band and labels from the errors.
 */
function calibrate(t: SalesTable, options: CoreOptions, opts: BuildOptions): { cal: Calibration; labels: LabelThresholds; slice: ModelDetails['kalibratieVerkopen'] } | null {
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
  const sample = slice.length <= max ? slice : slice.filter((r) => (Math.imul(r + 7, 2246822519) >>> 0) / 4294967296 < max / slice.length);
  // A published index is cut to what was out before the slice started (see runBacktest).
  const cutMonth = monthNumber(dateOfDay(cutoff)) - 1;
  const index = opts.priceIndex?.filter((p) => monthNumber(p.periode) < cutMonth);
  const inner = fitCore(t, Int32Array.from(older), options, index, opts.indexBron);
  const sc = scratchFor(inner);
  const cases: CalibrationCase[] = [];
  let refused = 0;
  for (const r of sample) {
    if (t.logOpp[r] !== t.logOpp[r]) continue;
    const e = estimate(inner, codeSubject(inner, null, t, r), t.day[r], sc);
    if (refusal(e, options.search)) {
      refused++;
      continue;
    }
    cases.push({ estimate: e, logFout: t.logPrijs[r] - e.logWaarde });
  }
  if (cases.length < minCases) return null;
  const cal = fitCalibration(cases);
  const labels = fitLabelThresholds(cases.map((c) => ({ score: uncertaintyScore(cal, c.estimate), fout: Math.abs(Math.exp(-c.logFout) - 1) })));
  return { cal, labels, slice: { van: dateOfDay(cutoff), tot: dateOfDay(t.newestDay), gewaardeerd: cases.length, geweigerd: refused } };
}

/**
 * Build the market-value model from the held sales. Deterministic: the same sales and options give
 * the same model. Throws only on malformed dates; sales without price or position are skipped.
 */
export function buildModel(sales: SaleRecord[], opts: BuildOptions = {}): FittedModel {
  const options = mergeOptions(opts.core);
  const table = buildSalesTable(sales);
  const all = new Int32Array(table.n);
  for (let r = 0; r < table.n; r++) all[r] = r;
  const core = fitCore(table, all, options, opts.priceIndex, opts.indexBron);
  const calibrated = calibrate(table, options, opts);
  const cal = calibrated?.cal ?? null;
  const labels = calibrated?.labels ?? null;
  const sc: Scratch = scratchFor(core);

  const info: ModelInfo = {
    versie: MODEL_VERSIE,
    verkopen: table.n,
    nieuwsteVerkoop: table.n ? dateOfDay(table.newestDay) : null,
    indexBron: core.index.bron,
    gekalibreerdOp: calibrated?.slice?.van ?? null,
  };

  function waardeer(subject: Subject, peildatum: string): Waardering | Weigering {
    const peilDay = dayNumber(peildatum);
    const e = estimate(core, codeSubject(core, subject, table), peilDay, sc);
    const reden = refusal(e, options.search);
    if (reden) return { soort: 'te_weinig', reden, nComps: e.nComps, nEff: Math.round(e.nEff * 10) / 10 };
    let lo: number;
    let hi: number;
    let score: number;
    if (cal) {
      score = uncertaintyScore(cal, e);
      [lo, hi] = bandFor(cal, score);
    } else {
      // Uncalibrated (tiny data): the comparables' own spread, widened for the unknown; label 'laag'.
      score = Infinity;
      lo = -2 * e.spreiding - 0.05;
      hi = 2 * e.spreiding + 0.05;
    }
    const marktwaarde = Math.round(Math.exp(e.logWaarde));
    return {
      soort: 'waarde',
      marktwaarde,
      min: Math.min(marktwaarde, Math.round(Math.exp(e.logWaarde + lo))),
      max: Math.max(marktwaarde, Math.round(Math.exp(e.logWaarde + hi))),
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
      kalibratie: cal,
      labels,
      kalibratieVerkopen: calibrated?.slice ?? null,
      oppervlakteBeta: core.effects.map((e) => e.opp),
      index: indexPoints(core.index.national),
      hedonisch: core.fit,
    },
  };
}
