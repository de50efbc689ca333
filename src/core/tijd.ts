/** Date and time formats of the contract: timestamps ISO 8601 with a numeric offset, dates Y-m-d in Europe/Amsterdam. */

export function isoMetOffset(d: Date): string {
  return d.toISOString().replace(/Z$/, '+00:00');
}

const amsterdam = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar date in Europe/Amsterdam, as Y-m-d. */
export function datumAmsterdam(d: Date): string {
  return amsterdam.format(d);
}

/** A Date column (no time) as Y-m-d. */
export function datumKolom(d: Date): string {
  return d.toISOString().slice(0, 10);
}
