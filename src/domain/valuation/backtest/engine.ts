/**
 * Backtest: value past sales exactly as the live endpoint would have on their transfer date, with
 * a model that could only have known what came before.
 *
 * Honesty rules (each one a way backtests usually flatter a model):
 * - one model is built from the sales strictly before `from` only: index, attribute effects, band
 *   calibration and label thresholds are all refitted on that past (buildModel calibrates on the
 *   most recent slice *of that past*);
 * - a published price index is cut to the months that were out at `from` (publication lag of one
 *   month: for a `from` in April, figures up to February);
 * - every sale on/after `from` is valued through the public `waardeer` with its own date as
 *   peildatum, and with all sales of the same dwelling (`objectId`) excluded as "own sales";
 * - refusals count against the hit rate, they are not dropped silently.
 */
import { dateOfDay, dayNumber, monthNumber } from '../dates.ts';
import { buildModel } from '../model.ts';
import type { BuildOptions, ModelDetails } from '../model.ts';
import { STAGE_MODES } from '../learner.ts';
import type { StageMode } from '../learner.ts';
import type { ModelInfo, SaleRecord, Subject } from '../types.ts';
import { computeMetrics } from './metrics.ts';
import type { AccuracyMetrics, BacktestMetrics, BacktestPrediction } from './metrics.ts';

export interface BacktestOptions {
  /** First date (Y-m-d) predicted; default: the date from which the most recent `fractie` of sales run. */
  from?: string;
  /** Share of the most recent sales predicted when `from` is absent (default 0.1). */
  fractie?: number;
  /** Model options (price index, tuning) as for the live model. */
  model?: BuildOptions;
  onProgress?: (done: number, total: number) => void;
}

export interface BacktestResult {
  from: string;
  /** Sales the model was built from (before `from`). */
  training: number;
  /** Sales predicted (on/after `from`), excluding those without a living area. */
  test: number;
  /** Test sales skipped because they have no living area (the endpoint needs one). */
  zonderOppervlakte: number;
  model: ModelInfo;
  details: ModelDetails;
  predictions: BacktestPrediction[];
  metrics: BacktestMetrics;
  /** Wall-clock times in ms: model build and all valuations. */
  duur: { bouw: number; waarderen: number };
}

/** Default split date: the most recent `fractie` of sales (by date) lie on/after it. */
export function defaultFrom(sales: readonly SaleRecord[], fractie = 0.1): string {
  if (sales.length === 0) throw new Error('Geen verkopen om te backtesten.');
  const days = Int32Array.from(sales, (s) => dayNumber(s.datum)).sort();
  return dateOfDay(days[Math.min(days.length - 1, Math.floor(days.length * (1 - fractie)))]);
}

/** Run the backtest; see the module comment for what makes it honest. */
export function runBacktest(sales: readonly SaleRecord[], opts: BacktestOptions = {}): BacktestResult {
  const from = opts.from ?? defaultFrom(sales, opts.fractie);
  const fromDay = dayNumber(from);
  const training: SaleRecord[] = [];
  const test: SaleRecord[] = [];
  for (const s of sales) (dayNumber(s.datum) < fromDay ? training : test).push(s);
  if (training.length === 0) throw new Error(`Geen verkopen vóór ${from}: niets om het model op te bouwen.`);
  test.sort((a, b) => (a.datum < b.datum ? -1 : a.datum > b.datum ? 1 : 0));

  const lastPublished = monthNumber(from) - 1;
  const modelOpts: BuildOptions = {
    ...opts.model,
    priceIndex: opts.model?.priceIndex?.filter((p) => monthNumber(p.periode) < lastPublished),
  };
  const t0 = performance.now();
  const model = buildModel(training, modelOpts);
  const t1 = performance.now();

  const salesOfObject = new Map<string, string[]>();
  for (const s of sales) {
    if (!s.objectId) continue;
    const list = salesOfObject.get(s.objectId);
    if (list) list.push(s.id);
    else salesOfObject.set(s.objectId, [s.id]);
  }

  const predictions: BacktestPrediction[] = [];
  let zonderOppervlakte = 0;
  for (let i = 0; i < test.length; i++) {
    const s = test[i];
    if (!(s.oppervlakte && s.oppervlakte > 0)) {
      zonderOppervlakte++;
      continue;
    }
    const subject: Subject = {
      lat: s.lat,
      lon: s.lon,
      oppervlakte: s.oppervlakte,
      perceel: s.perceel,
      bouwjaar: s.bouwjaar,
      woningtype: s.woningtype,
      energielabel: s.energielabel,
      kenmerken: s.kenmerken,
      woz: s.woz ? [s.woz] : null,
      uitsluiten: s.objectId ? salesOfObject.get(s.objectId) : [s.id],
    };
    predictions.push({ id: s.id, datum: s.datum, prijs: s.prijs, woningtype: s.woningtype, uitkomst: model.waardeer(subject, s.datum) });
    if (opts.onProgress && (i % 500 === 0 || i === test.length - 1)) opts.onProgress(i + 1, test.length);
  }
  const t2 = performance.now();
  return {
    from,
    training: training.length,
    test: predictions.length,
    zonderOppervlakte,
    model: model.info,
    details: model.details,
    predictions,
    metrics: computeMetrics(predictions),
    duur: { bouw: Math.round(t1 - t0), waarderen: Math.round(t2 - t1) },
  };
}

/** One row of the ablation table: the same backtest with one part of the model switched off. */
export interface AblationRow {
  mode: StageMode;
  /** Dutch description for the report. */
  omschrijving: string;
  hitRate: number;
  overall: AccuracyMetrics;
  /** Combination weight and number of trees of the run. */
  gewicht: number;
  bomen: number;
}

const OMSCHRIJVING: Record<StageMode, string> = {
  vergelijking: 'vergelijkbare verkopen alleen',
  'vergelijking+locatie': 'vergelijkbare verkopen + locatiestap',
  leerder: 'leerder (GBDT) alleen, zonder vergelijkingsschatting',
  'gecombineerd-zonder-locatie': 'gecombineerd, zonder locatiestap',
  gecombineerd: 'gecombineerd (standaard)',
};

/**
 * Run the backtest once per second-stage mode (same split, same data). `done` is a finished run of
 * the same split whose mode is not run again.
 */
export function runAblation(sales: readonly SaleRecord[], opts: BacktestOptions = {}, done?: BacktestResult, modes: readonly StageMode[] = STAGE_MODES): AblationRow[] {
  const from = done?.from ?? opts.from ?? defaultFrom(sales, opts.fractie);
  return modes.map((mode) => {
    const r = done && done.details.stap2.mode === mode ? done : runBacktest(sales, { ...opts, from, model: { ...opts.model, stage: mode } });
    return { mode, omschrijving: OMSCHRIJVING[mode], hitRate: r.metrics.hitRate, overall: r.metrics.overall, gewicht: r.details.stap2.gewicht, bomen: r.details.stap2.bomen };
  });
}
