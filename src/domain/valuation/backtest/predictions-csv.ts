/**
 * Per-sale output of a backtest as CSV, for analysis outside the report (one row per predicted sale,
 * refusals included with their reason).
 */
import { csvCell } from './sales-csv.ts';
import type { BacktestPrediction } from './metrics.ts';

export const PREDICTION_COLUMNS = ['id', 'datum', 'prijs', 'woningtype', 'soort', 'marktwaarde', 'min', 'max', 'betrouwbaarheid', 'n_comps', 'n_eff', 'spreiding', 'fout_pct', 'in_band', 'reden'] as const;

/** CSV text (comma separated, header row, LF line ends). `fout_pct` = 100 * (marktwaarde / prijs - 1). */
export function formatPredictionsCsv(rows: readonly BacktestPrediction[]): string {
  const lines = [PREDICTION_COLUMNS.join(',')];
  for (const r of rows) {
    const u = r.uitkomst;
    const cells =
      u.soort === 'waarde'
        ? [r.id, r.datum, r.prijs, r.woningtype, u.soort, u.marktwaarde, u.min, u.max, u.betrouwbaarheid, u.nComps, u.nEff, u.spreiding, (100 * (u.marktwaarde / r.prijs - 1)).toFixed(2), r.prijs >= u.min && r.prijs <= u.max ? 1 : 0, null]
        : [r.id, r.datum, r.prijs, r.woningtype, u.soort, null, null, null, null, u.nComps, u.nEff, null, null, null, u.reden];
    lines.push(cells.map(csvCell).join(','));
  }
  return lines.join('\n') + '\n';
}
