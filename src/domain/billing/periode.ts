/** Periods of calendar days in Europe/Amsterdam, as the web app's filters and charts use them. */
import type { Db } from '../../db/client.ts';
import { datumAmsterdam } from '../begrippen.ts';

export const MAX_PERIODE_DAGEN = 366;

export interface Grenzen {
  /** First instant of `van` and first instant after `tot`, in Amsterdam time. */
  begin: Date;
  eind: Date;
}

/** Amsterdam midnights as instants; PostgreSQL's time zone rules handle the DST changes. */
export async function grenzen(db: Db, van: string, tot: string): Promise<Grenzen> {
  const [r] = await db.$queryRaw<{ begin: Date; eind: Date }[]>`
    SELECT (${van}::date::timestamp AT TIME ZONE 'Europe/Amsterdam') AS begin,
           ((${tot}::date + 1)::timestamp AT TIME ZONE 'Europe/Amsterdam') AS eind`;
  return { begin: new Date(r.begin), eind: new Date(r.eind) };
}

/** The first day of the month of `now`, in Amsterdam. */
export function maandBegin(now: Date): string {
  return `${datumAmsterdam(now).slice(0, 8)}01`;
}
