/** The `na` cursor of a page: the last row of the previous page (its time and id), base64url. */
import { UUID_RE } from '../db/client.ts';
import { InsightFout } from './errors.ts';

export interface Cursor {
  t: Date;
  id: string;
}

/** `bron`: where the caller got it. A cursor made up by hand is a 400, never a database error. */
export function leesCursor(c: string, bron = 'meta.volgende'): Cursor {
  const [t, id] = Buffer.from(c, 'base64url').toString('utf8').split('|');
  const d = new Date(t ?? '');
  const jaar = d.getUTCFullYear();
  if (!(jaar >= 1970 && jaar <= 9999) || !UUID_RE.test(id ?? '')) {
    throw new InsightFout('ongeldige_invoer', `Ongeldige invoer: na: onbekende cursor; gebruik ${bron} van de vorige pagina.`);
  }
  return { t: d, id };
}

export function schrijfCursor(c: Cursor | null): string | null {
  return c ? Buffer.from(`${c.t.toISOString()}|${c.id}`).toString('base64url') : null;
}
