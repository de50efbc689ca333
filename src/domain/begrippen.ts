/**
 * The domain vocabulary, defined once: house types, energy-label classes, influence types, how a
 * postcode and an addition are written and compared, and the date formats of the contract. Every
 * other module (API schemas, parsers, the valuation model, the demo generator) imports from here.
 */

/** The house types the service knows, in a fixed order (the valuation model codes them 1..6). */
export const WONINGTYPEN = ['vrijstaand', 'twee-onder-een-kap', 'hoekwoning', 'tussenwoning', 'appartement', 'overig'] as const;
export type Woningtype = (typeof WONINGTYPEN)[number];

export const ENERGIELABELS = ['A++++', 'A+++', 'A++', 'A+', 'A', 'B', 'C', 'D', 'E', 'F', 'G'] as const;
export type Energielabel = (typeof ENERGIELABELS)[number];

/** Influence types the service knows; data is held per type where imported. */
export const INVLOED_TYPES = ['natura2000', 'hoogspanning', 'geluid', 'overstroming'] as const;
export type InvloedType = (typeof INVLOED_TYPES)[number];
/** The core set answered when a caller names no types. */
export const KERN_INVLOED_TYPES = ['natura2000', 'hoogspanning'] as const;

/** A Dutch postcode as stored: four digits (the first not 0) and two capitals, `1234AB`. */
export const POSTCODE_RE = /^[1-9][0-9]{3}[A-Z]{2}$/;
/**
 * A postcode as a client may send it (and as the OpenAPI pattern publishes it): `1234AB`, `1234 ab`,
 * at most one space, nothing around it. Stored and compared in POSTCODE_RE form.
 */
export const POSTCODE_INVOER_RE = /^[1-9][0-9]{3} ?[A-Za-z]{2}$/;
export const HUISNUMMER_RE = /^[1-9][0-9]{0,4}$/;
/**
 * A date as the API accepts it (peildatum): JJJJ-MM-DD with a real month and day number, from
 * 1900-01-01 on (no Dutch sales or index series go further back); an impossible day such as 31 April
 * is refused by a check the pattern cannot express.
 */
export const DATUM_INVOER_RE = /^(19[0-9]{2}|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;
export const TOEVOEGING_MAX = 6;

/** `1234 ab` -> `1234AB` (spaces out, capitals); says nothing about validity. */
export function normaliseerPostcode(v: string): string {
  return v.replace(/\s+/g, '').toUpperCase();
}

/** A postcode from a source file in stored form, or null when it is not a Dutch postcode. */
export function geldigePostcode(v: string | null): string | null {
  if (!v) return null;
  const p = normaliseerPostcode(v);
  return POSTCODE_RE.test(p) ? p : null;
}

/** The comparable form of an addition: upper case, letters and digits only (`a-2` -> `A2`). */
export function toevoegingVergelijkvorm(v: string | null | undefined): string {
  return (v ?? '').toUpperCase().replace(/[^0-9A-Z]/g, '');
}

/** The comparison key of a BAG address's addition: huisletter and toevoeging together ('A-2', 'a 2' -> 'A2'). */
export function toevoegingSleutel(huisletter: string | null | undefined, toevoeging: string | null | undefined): string {
  return toevoegingVergelijkvorm(`${huisletter ?? ''}${toevoeging ?? ''}`);
}

/** A huisletter or toevoeging from a source file as stored: trimmed, upper case, null when empty. */
export function schoneToevoeging(v: string | null): string | null {
  if (v === null) return null;
  const t = v.trim().toUpperCase();
  return t === '' ? null : t;
}

/** A timestamp as the contract writes it: ISO 8601 with a numeric offset. */
export function isoMetOffset(d: Date): string {
  return d.toISOString().replace(/Z$/, '+00:00');
}

const amsterdam = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The last minute formatted (Amsterdam's offset only changes on whole hours, so a minute has one date). */
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

/** A Date column (no time, stored at 00:00 UTC) as Y-m-d. */
export function datumKolom(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Date at 00:00 UTC, or null when the parts do not form a real calendar date. */
export function datumUtc(j: number, m: number, d: number): Date | null {
  if (!Number.isInteger(j) || !Number.isInteger(m) || !Number.isInteger(d)) return null;
  if (j < 1800 || j > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(j, m - 1, d));
  return t.getUTCFullYear() === j && t.getUTCMonth() === m - 1 && t.getUTCDate() === d ? t : null;
}
