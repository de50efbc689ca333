/**
 * Which WOZ value counts as known at a date. A WOZ value for peildatum 1 January Y is set by the
 * municipality during Y (from sales around the peildatum, possibly the dwelling's own) and sent out
 * early in Y + 1; a value with a peildatum less than a year before a sale may have seen that sale.
 * So a sale (or a valuation) is given the newest value whose peildatum lies at least a year earlier.
 * This is the one rule: the live data (gegevens.ts, adres-waarde.ts), the model's sales table and
 * subject, and so the backtest's files, all go through `wozBekend`.
 */
import type { WozWaarde } from './types.ts';

/** Whether a WOZ value with `peildatum` counts as known at `datum` (both Y-m-d): at least a year before it. */
export function wozBekend(peildatum: string, datum: string): boolean {
  return peildatum <= `${Number(datum.slice(0, 4)) - 1}${datum.slice(4)}`;
}

/** The newest WOZ value of `series` known at `datum` (Y-m-d, see wozBekend); null: none. */
export function wozBekendOp(series: readonly WozWaarde[] | null | undefined, datum: string): WozWaarde | null {
  let best: WozWaarde | null = null;
  for (const w of series ?? []) if (w.waarde > 0 && wozBekend(w.peildatum, datum) && (!best || w.peildatum > best.peildatum)) best = w;
  return best;
}
