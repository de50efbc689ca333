/**
 * The backtest over several datasets at once, each on the same time split three ways: the model on
 * every column the file has, the model on the plain columns only (without the optional attribute and
 * WOZ columns, when the file has any), and a reference learner — the project's own GBDT on the plain
 * columns (position, area, plot, build year, type, label, sale date through the index), no
 * comparables — so every dataset shows how far ahead of a plain learner the model is.
 */
import type { BuildOptions } from '../model.ts';
import type { SaleRecord } from '../types.ts';
import { defaultFrom, runBacktest } from './engine.ts';
import type { BacktestOptions, BacktestResult } from './engine.ts';

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
    for (const [variant, sales, stage] of variants) {
      const result = runBacktest(sales, { ...opts, from, model: { ...opts.model, ...(stage ? { stage } : {}) } });
      const run: DatasetRun = { dataset: d.naam, variant, kolommen: variant === 'model' ? kolommen : [], result };
      runs.push(run);
      onRun?.(run);
    }
  }
  return runs;
}
