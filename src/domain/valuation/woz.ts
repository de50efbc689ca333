/**
 * Which WOZ value counts as known at a date. A WOZ value for peildatum 1 January Y is set by the
 * municipality during Y (from sales around the peildatum, possibly the dwelling's own) and sent out
 * early in Y + 1; a value with a peildatum less than a year before a sale may have seen that sale.
 * So a sale (or a valuation) is given the newest value whose peildatum lies at least a year earlier.
 */
import type { WozWaarde } from './types.ts';

/** The newest WOZ value of `series` with a peildatum at least one year before `datum` (Y-m-d); null: none. */
export function wozBekendOp(series: readonly WozWaarde[] | null | undefined, datum: string): WozWaarde | null {
  const grens = `${Number(datum.slice(0, 4)) - 1}${datum.slice(4)}`;
  let best: WozWaarde | null = null;
  for (const w of series ?? []) if (w.waarde > 0 && w.peildatum <= grens && (!best || w.peildatum > best.peildatum)) best = w;
  return best;
}
