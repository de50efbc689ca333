/** Periods of calendar days in Europe/Amsterdam, as the web app's filters and charts use them. */
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { datumAmsterdam } from '../../domain/begrippen.ts';

export const MAX_PERIODE_DAGEN = 366;
const DAG = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'verwacht een datum als JJJJ-MM-DD').refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'geen bestaande datum');

/** van and tot are inclusive calendar days; at most 366 days. */
export const periodeSchema = z
  .strictObject({ van: DAG, tot: DAG })
  .refine((p) => p.van <= p.tot, { message: 'van moet op of voor tot liggen', path: ['van'] })
  .refine((p) => (Date.parse(p.tot) - Date.parse(p.van)) / 86_400_000 < MAX_PERIODE_DAGEN, { message: `hoogstens ${MAX_PERIODE_DAGEN} dagen`, path: ['tot'] });

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
