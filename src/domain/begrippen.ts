/** The domain vocabulary, defined once; every other module imports from here. */

/** In a fixed order: the valuation model codes them 1..6. */
export const WONINGTYPEN = ['vrijstaand', 'twee-onder-een-kap', 'hoekwoning', 'tussenwoning', 'appartement', 'overig'] as const;
export type Woningtype = (typeof WONINGTYPEN)[number];

export const ENERGIELABELS = ['A++++', 'A+++', 'A++', 'A+', 'A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;
export type Energielabel = (typeof ENERGIELABELS)[number];

export const INVLOED_TYPES = ['natura2000', 'hoogspanning', 'geluid', 'overstroming'] as const;
export type InvloedType = (typeof INVLOED_TYPES)[number];
/** Answered when a caller names no types. */
export const KERN_INVLOED_TYPES = ['natura2000', 'hoogspanning'] as const;

export const POSTCODE_RE = /^[1-9][0-9]{3}[A-Z]{2}$/;
/** As a client may send it (and the OpenAPI pattern publishes it): at most one space. */
export const POSTCODE_INVOER_RE = /^[1-9][0-9]{3} ?[A-Za-z]{2}$/;
export const HUISNUMMER_RE = /^[1-9][0-9]{0,4}$/;
/** From 1900 on (no Dutch sales or index series go further back); 31 April is refused by a separate check. */
export const DATUM_INVOER_RE = /^(19[0-9]{2}|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;
export const TOEVOEGING_MAX = 6;

/** Says nothing about validity. */
export function normaliseerPostcode(v: string): string {
  return v.replace(/\s+/g, '').toUpperCase();
}

export function geldigePostcode(v: string | null): string | null {
  if (!v) return null;
  const p = normaliseerPostcode(v);
  return POSTCODE_RE.test(p) ? p : null;
}

/** `a-2` -> `A2`. */
export function toevoegingVergelijkvorm(v: string | null | undefined): string {
  return (v ?? '').toUpperCase().replace(/[^0-9A-Z]/g, '');
}

/** Huisletter and toevoeging together: 'A-2', 'a 2' -> 'A2'. */
export function toevoegingSleutel(huisletter: string | null | undefined, toevoeging: string | null | undefined): string {
  return toevoegingVergelijkvorm(`${huisletter ?? ''}${toevoeging ?? ''}`);
}

export function schoneToevoeging(v: string | null): string | null {
  if (v === null) return null;
  const t = v.trim().toUpperCase();
  return t === '' ? null : t;
}

export function isoMetOffset(d: Date): string {
  return d.toISOString().replace(/Z$/, '+00:00');
}

const amsterdam = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam', year: 'numeric', month: '2-digit', day: '2-digit' });

/** Amsterdam's offset changes only on whole hours, so one minute has one formatted date. */
let laatsteMinuut = Number.NaN;
let laatsteDatum = '';

export function datumAmsterdam(d: Date): string {
  const minuut = Math.floor(d.getTime() / 60_000);
  if (minuut !== laatsteMinuut) {
    laatsteDatum = amsterdam.format(d);
    laatsteMinuut = minuut;
  }
  return laatsteDatum;
}

/** The last second of a calendar day (`JJJJ-MM-DD`) in Amsterdam: 22:59:59Z in winter, 21:59:59Z in summer. */
export function eindeDagAmsterdam(datum: string): Date {
  const [j, m, d] = datum.split('-').map(Number);
  for (const uur of [2, 1]) {
    const t = new Date(Date.UTC(j, m - 1, d, 23 - uur, 59, 59));
    if (amsterdam.format(t) === datum && amsterdam.format(new Date(t.getTime() + 1000)) !== datum) return t;
  }
  throw new Error(`eindeDagAmsterdam: geen datum: ${datum}`);
}

const amsterdamTijd = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Amsterdam',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Amsterdam's local time with its offset and milliseconds: `2026-11-27T19:13:23.581+01:00`. */
export function isoAmsterdam(d: Date): string {
  const p = Object.fromEntries(amsterdamTijd.formatToParts(d).map((x) => [x.type, x.value]));
  const ms = d.getTime() - Math.floor(d.getTime() / 1000) * 1000;
  const lokaal = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second, ms);
  const minuten = Math.round((lokaal - d.getTime()) / 60_000);
  const hh = String(Math.floor(Math.abs(minuten) / 60)).padStart(2, '0');
  const mm = String(Math.abs(minuten) % 60).padStart(2, '0');
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${String(ms).padStart(3, '0')}${minuten < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** A Date column is stored at 00:00 UTC. */
export function datumKolom(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function datumUtc(j: number, m: number, d: number): Date | null {
  if (!Number.isInteger(j) || !Number.isInteger(m) || !Number.isInteger(d)) return null;
  if (j < 1800 || j > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(j, m - 1, d));
  return t.getUTCFullYear() === j && t.getUTCMonth() === m - 1 && t.getUTCDate() === d ? t : null;
}

/** `jjjj-mm-dd` that exists (no 30 February), or null. */
export function leesDatumIso(v: string | null): Date | null {
  if (!v) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  return m ? datumUtc(+m[1], +m[2], +m[3]) : null;
}

/** At most `max` characters, the last an ellipsis; control characters as U+FFFD (jsonb refuses a NUL). */
export function afgekort(s: string, max: number): string {
  const kort = s.length > max ? `${s.slice(0, max - 1).replace(/[\ud800-\udbff]$/, '')}…` : s;
  return kort.replace(/\p{Cc}/gu, '\ufffd');
}

/** A raw value in a message, a string quoted: one long field must not make a long message. */
export function citeer(v: unknown): string {
  if (typeof v === 'string') return `"${afgekort(v, 60)}"`;
  return afgekort(typeof v === 'object' && v !== null ? (JSON.stringify(v) ?? String(v)) : String(v), 60);
}
