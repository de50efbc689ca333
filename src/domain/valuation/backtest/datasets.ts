/**
 * The backtest over several datasets, each on one time split three ways: the model on every column the
 * file has, on the plain columns only (no attribute or WOZ columns), and the reference learner (the
 * project's GBDT on the plain columns, no comparables), so every dataset shows the model's lead.
 */
import type { BuildOptions } from '../model.ts';
import type { SaleRecord } from '../types.ts';
import { defaultFrom, runBacktest } from './engine.ts';
import type { BacktestOptions, BacktestResult } from './engine.ts';
import { apePerVerkoop, mdapeInterval, voorsprongInterval, type Interval } from './bootstrap.ts';

export type Variant = 'model' | 'kaal' | 'referentie';

export const VARIANT_OMSCHRIJVING: Record<Variant, string> = {
  model: 'model, alle kolommen',
  kaal: 'model, zonder optionele kolommen',
  referentie: 'referentieleerder (GBDT, kale kolommen)',
};

export interface DatasetRun {
  dataset: string;
  variant: Variant;
  /** The optional columns the variant saw ('kenmerken', 'woz'). */
  kolommen: string[];
  result: BacktestResult;
  /** 95 % bootstrap intervals (bootstrap.ts): of the MdAPE, and of the lead over the reference learner. */
  onzekerheid: { mdape: Interval; voorsprong: (Interval & { gepaard: number }) | null };
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

/** Run every variant of every dataset (same split per dataset). */
export function runDatasets(datasets: readonly { naam: string; verkopen: readonly SaleRecord[] }[], opts: Omit<BacktestOptions, 'from'> = {}, onRun?: (run: DatasetRun) => void): DatasetRun[] {
  const runs: DatasetRun[] = [];
  for (const d of datasets) {
    const from = defaultFrom(d.verkopen, opts.fractie);
    const kolommen = optionalColumns(d.verkopen);
    const kaal = kolommen.length ? plainSales(d.verkopen) : d.verkopen;
    const variants: [Variant, readonly SaleRecord[], BuildOptions['stage']][] = [['model', d.verkopen, undefined]];
    if (kolommen.length) variants.push(['kaal', kaal, undefined]);
    variants.push(['referentie', kaal, 'leerder']);
    const eigen: { run: DatasetRun; apes: Map<string, number> }[] = [];
    for (const [variant, sales, stage] of variants) {
      const result = runBacktest(sales, { ...opts, from, model: { ...opts.model, ...(stage ? { stage } : {}) } });
      const apes = apePerVerkoop(result.predictions);
      const run: DatasetRun = { dataset: d.naam, variant, kolommen: variant === 'model' ? kolommen : [], result, onzekerheid: { mdape: mdapeInterval(apes), voorsprong: null } };
      eigen.push({ run, apes });
      onRun?.(run);
    }
    const ref = eigen.find((e) => e.run.variant === 'referentie')!.apes;
    for (const { run, apes } of eigen) if (run.variant !== 'referentie') run.onzekerheid.voorsprong = voorsprongInterval(apes, ref);
    runs.push(...eigen.map((e) => e.run));
  }
  return runs;
}
