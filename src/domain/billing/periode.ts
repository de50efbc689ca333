/** Periods of calendar days in Europe/Amsterdam, as the web app's filters and charts use them. */
import type { Db } from '../../db/client.ts';
import { datumAmsterdam } from '../begrippen.ts';

export const MAX_PERIODE_DAGEN = 366;

export interface Grenzen {
  begin: Date;
  eind: Date;
}

/** PostgreSQL's time zone rules handle the DST changes. */
export async function grenzen(db: Db, van: string, tot: string): Promise<Grenzen> {
  const [r] = await db.$queryRaw<{ begin: Date; eind: Date }[]>`
    SELECT (${van}::date::timestamp AT TIME ZONE 'Europe/Amsterdam') AS begin,
           ((${tot}::date + 1)::timestamp AT TIME ZONE 'Europe/Amsterdam') AS eind`;
  return { begin: new Date(r.begin), eind: new Date(r.eind) };
}

export function maandBegin(now: Date): string {
  return `${datumAmsterdam(now).slice(0, 8)}01`;
}

/** From this offset a page (newest first) starts at the end of the day it begins in, found from day totals. */
export const DIEPE_PAGINA = 1_000;

/** The day a page at `skip` (newest first) begins in and the rows of the days after it; null past the end. `dagen`: oldest first. */
export function beginVanPagina(dagen: readonly (readonly [string, number])[], skip: number): { dag: string; nieuwer: number } | null {
  let nieuwer = 0;
  for (let i = dagen.length - 1; i >= 0; i--) {
    const [dag, n] = dagen[i];
    if (nieuwer + n > skip) return { dag, nieuwer };
    nieuwer += n;
  }
  return null;
}
