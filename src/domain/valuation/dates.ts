/**
 * Calendar arithmetic on plain day and month numbers. Sales are compared millions of times per
 * second, so dates live as integers (days since 1970-01-01, UTC) instead of Date objects.
 */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_RE = /^(\d{4})-(\d{2})/;
const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of a Y-m-d date; throws on anything else. */
export function dayNumber(datum: string): number {
  const m = DATE_RE.exec(datum);
  if (!m) throw new Error(`Ongeldige datum '${datum}' (verwacht JJJJ-MM-DD).`);
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const t = Date.UTC(y, mo - 1, d);
  // Date.UTC silently rolls 2015-02-30 over into March: reject it instead.
  const back = new Date(t);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) throw new Error(`Ongeldige datum '${datum}'.`);
  return Math.round(t / MS_PER_DAY);
}

/** Y-m-d of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Month number (year * 12 + month - 1) of 'YYYY-MM' or 'YYYY-MM-DD'. */
export function monthNumber(periode: string): number {
  const m = MONTH_RE.exec(periode);
  if (!m) throw new Error(`Ongeldige periode '${periode}' (verwacht JJJJ-MM).`);
  const mo = Number(m[2]);
  if (mo < 1 || mo > 12) throw new Error(`Ongeldige periode '${periode}'.`);
  return Number(m[1]) * 12 + mo - 1;
}

/** 'YYYY-MM' of a month number. */
export function periodOfMonth(month: number): string {
  const y = Math.floor(month / 12);
  return `${y}-${String(month - y * 12 + 1).padStart(2, '0')}`;
}

/** Month number of a day number. */
export function monthOfDay(day: number): number {
  const d = new Date(day * MS_PER_DAY);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/**
 * Position of a day on a continuous month axis where month m's midpoint is exactly m, so a
 * monthly index can be interpolated linearly between midpoints (no step at month boundaries).
 */
export function monthPosition(day: number): number {
  const d = new Date(day * MS_PER_DAY);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const daysInMonth = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
  return y * 12 + mo + (d.getUTCDate() - 0.5) / daysInMonth - 0.5;
}

/** Day number `months` calendar months before `day` (same day of month, clamped). */
export function addMonths(day: number, months: number): number {
  const d = new Date(day * MS_PER_DAY);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const dim = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), dim));
  return Math.round(target.getTime() / MS_PER_DAY);
}
