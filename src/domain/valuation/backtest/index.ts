/**
 * Backtest of the market-value model: engine, metrics, CSV in/out and the HTML report.
 */
export { defaultFrom, runAblation, runBacktest } from './engine.ts';
export type { AblationRow, BacktestOptions, BacktestResult } from './engine.ts';
export { accuracy, computeMetrics, kansDecielen } from './metrics.ts';
export type { AccuracyMetrics, BacktestMetrics, BacktestPrediction, GroupMetrics, KansDeciel } from './metrics.ts';
export { formatSalesCsv, parseSalesCsv, SALES_CSV_COLUMNS } from './sales-csv.ts';
export { formatPredictionsCsv } from './predictions-csv.ts';
export { renderReport } from './report.ts';
export { optionalColumns, plainSales, poolPerioden, runDatasets, VARIANT_OMSCHRIJVING } from './datasets.ts';
export type { DatasetRun, GepooldeRun, Variant } from './datasets.ts';
