/**
 * The backtest over several datasets, each on one time split (or several consecutive ones) three ways:
 * the model on every column the file has, on the plain columns only (no attribute or WOZ columns), and
 * the reference learner (the project's GBDT on the plain columns, no comparables): the model's lead.
 */
import type { BuildOptions } from '../model.ts';
import { dayNumber } from '../dates.ts';
import type { SaleRecord } from '../types.ts';
import { defaultFrom, runBacktest } from './engine.ts';
import type { BacktestOptions, BacktestResult } from './engine.ts';
import { apePerVerkoop, mdapeInterval, voorsprongInterval, type Interval } from './bootstrap.ts';
import { computeMetrics, type BacktestMetrics } from './metrics.ts';

export type Variant = 'model' | 'kaal' | 'referentie';

export const VARIANT_OMSCHRIJVING: Record<Variant, string> = {
  model: 'model, alle kolommen',
  kaal: 'model, zonder optionele kolommen',
  referentie: 'referentieleerder (GBDT, kale kolommen)',
};

export interface DatasetRun {
  dataset: string;
  variant: Variant;
  /** 0 = the newest test period; k = the newest `fractie` of the file cut where period k − 1 starts. */
  periode: number;
  /** The optional columns the variant saw ('kenmerken', 'woz'). */
  kolommen: string[];
  result: BacktestResult;
  /** 95 % bootstrap intervals (bootstrap.ts): of the MdAPE, and of the lead over the reference learner. */
  onzekerheid: { mdape: Interval; voorsprong: (Interval & { gepaard: number }) | null };
}

/** A dataset's variant over all its test periods: every test sale of every period in one pool. */
export interface GepooldeRun {
  dataset: string;
  variant: Variant;
  kolommen: string[];
  perioden: number;
  metrics: BacktestMetrics;
  onzekerheid: DatasetRun['onzekerheid'];
}

/** The sales without their optional columns (attributes, WOZ). */
export function plainSales(sales: readonly SaleRecord[]): SaleRecord[] {
  return sales.map(({ kenmerken: _k, woz: _w, ...rest }) => rest);
}

/** Which optional columns any of `sales` carries. */
export function optionalColumns(sales: readonly SaleRecord[]): string[] {
  const out: string[] = [];
  if (sales.some((s) => s.kenmerken)) out.push('kenmerken');
  if (sales.some((s) => s.woz)) out.push('woz');
  return out;
}

/** Run every variant of every dataset on `perioden` consecutive test periods (the same splits for each variant). */
export function runDatasets(datasets: readonly { naam: string; verkopen: readonly SaleRecord[] }[], opts: Omit<BacktestOptions, 'from'> = {}, onRun?: (run: DatasetRun) => void, perioden = 1): DatasetRun[] {
  const runs: DatasetRun[] = [];
  for (const d of datasets) {
    let verkopen = d.verkopen;
    for (let periode = 0; periode < perioden; periode++) {
      const from = defaultFrom(verkopen, opts.fractie);
      runs.push(...runPeriode(d.naam, verkopen, from, periode, opts, onRun));
      verkopen = verkopen.filter((s) => dayNumber(s.datum) < dayNumber(from));
    }
  }
  return runs;
}

function runPeriode(naam: string, verkopen: readonly SaleRecord[], from: string, periode: number, opts: Omit<BacktestOptions, 'from'>, onRun?: (run: DatasetRun) => void): DatasetRun[] {
  const kolommen = optionalColumns(verkopen);
  const kaal = kolommen.length ? plainSales(verkopen) : verkopen;
  const variants: [Variant, readonly SaleRecord[], BuildOptions['stage']][] = [['model', verkopen, undefined]];
  if (kolommen.length) variants.push(['kaal', kaal, undefined]);
  variants.push(['referentie', kaal, 'leerder']);
  const eigen: { run: DatasetRun; apes: Map<string, number> }[] = [];
  for (const [variant, sales, stage] of variants) {
    const result = runBacktest(sales, { ...opts, from, model: { ...opts.model, ...(stage ? { stage } : {}) } });
    const apes = apePerVerkoop(result.predictions);
    const run: DatasetRun = { dataset: naam, variant, periode, kolommen: variant === 'model' ? kolommen : [], result, onzekerheid: { mdape: mdapeInterval(apes), voorsprong: null } };
    eigen.push({ run, apes });
    onRun?.(run);
  }
  const ref = eigen.find((e) => e.run.variant === 'referentie')!.apes;
  for (const { run, apes } of eigen) if (run.variant !== 'referentie') run.onzekerheid.voorsprong = voorsprongInterval(apes, ref);
  return eigen.map((e) => e.run);
}

/** Per dataset and variant, the test sales of all periods pooled: metrics, MdAPE interval, paired lead over the reference. */
export function poolPerioden(runs: readonly DatasetRun[]): GepooldeRun[] {
  const groepen = new Map<string, DatasetRun[]>();
  for (const r of runs) {
    const sleutel = `${r.dataset}|${r.variant}`;
    groepen.set(sleutel, [...(groepen.get(sleutel) ?? []), r]);
  }
  const apes = (rs: readonly DatasetRun[]) => new Map(rs.flatMap((r) => [...apePerVerkoop(r.result.predictions)].map(([id, a]) => [`${r.periode}/${id}`, a] as const)));
  const uit: GepooldeRun[] = [];
  for (const rs of groepen.values()) {
    const { dataset, variant } = rs[0];
    const ref = variant === 'referentie' ? null : groepen.get(`${dataset}|referentie`);
    const eigen = apes(rs);
    uit.push({
      dataset,
      variant,
      kolommen: [...new Set(rs.flatMap((r) => r.kolommen))],
      perioden: rs.length,
      metrics: computeMetrics(rs.flatMap((r) => r.result.predictions)),
      onzekerheid: { mdape: mdapeInterval(eigen), voorsprong: ref ? voorsprongInterval(eigen, apes(ref)) : null },
    });
  }
  return uit;
}
