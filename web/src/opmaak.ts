/** Dutch formatting of numbers, money and dates, and the period helpers of the filters. */
const getal = new Intl.NumberFormat('nl-NL');
const euro = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR' });
const datumTijd = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Amsterdam' });
const datum = new Intl.DateTimeFormat('nl-NL', { dateStyle: 'medium', timeZone: 'Europe/Amsterdam' });
const ymd = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam', year: 'numeric', month: '2-digit', day: '2-digit' });

export const fmtGetal = (n: number) => getal.format(n);
const WOORDEN = { credit: 'credits', opvraging: 'opvragingen' } as const;
/** A count with its noun, singular for 1: `1 credit`, `0 credits`, `1.250 opvragingen`. */
export const fmtAantal = (n: number, woord: keyof typeof WOORDEN) => `${fmtGetal(n)} ${Math.abs(n) === 1 ? woord : WOORDEN[woord]}`;
export const fmtEuro = (cent: number) => euro.format(cent / 100);
export const fmtDatumTijd = (iso: string | null) => (iso ? datumTijd.format(new Date(iso)) : '—');
export const fmtDatum = (iso: string | null) => (iso ? datum.format(new Date(iso)) : '—');
const maand = new Intl.DateTimeFormat('nl-NL', { month: 'long', year: 'numeric', timeZone: 'UTC' });
/** `2026-11` -> `november 2026`. */
export const fmtMaand = (jm: string) => maand.format(new Date(`${jm}-01T12:00:00Z`));

/** Today in Amsterdam as Y-m-d, and the first day of this month. */
export function vandaag(): string {
  return ymd.format(new Date());
}
export function maandBegin(): string {
  return `${vandaag().slice(0, 8)}01`;
}
/** n calendar days before today in Amsterdam (not n × 24 h: a day around a clock change is 23 or 25 h). */
export function dagenTerug(n: number): string {
  const [j, m, d] = vandaag().split('-').map(Number);
  return new Date(Date.UTC(j, m - 1, d - n)).toISOString().slice(0, 10);
}

/** Every day from van to tot (inclusive), as Y-m-d. */
export function dagenTussen(van: string, tot: string): string[] {
  const uit: string[] = [];
  for (let d = new Date(`${van}T12:00:00Z`); d.toISOString().slice(0, 10) <= tot; d = new Date(d.getTime() + 86_400_000)) {
    uit.push(d.toISOString().slice(0, 10));
  }
  return uit;
}

export const VOORZIENINGEN = ['adres', 'woz', 'energielabel', 'woningtype', 'invloeden', 'waarde'] as const;
