/** Municipality names by CBS code and date (bronnen/BRONNEN.md): the national extract's Leveringsdocument names none. */
import { readFileSync } from 'node:fs';

interface Periode {
  naam: string;
  begin: string;
  eind: string;
}

let tabel: Map<string, Periode[]> | null = null;

function lees(): Map<string, Periode[]> {
  const m = new Map<string, Periode[]>();
  const regels = readFileSync(new URL('./bronnen/cbs-gemeentelijke-indeling.csv', import.meta.url), 'utf8').trim().split('\n');
  for (const r of regels.slice(1)) {
    const [, , code, naam, begin, eind] = r.split(';');
    const l = m.get(code) ?? [];
    l.push({ naam, begin, eind: eind || '9999-12-31' });
    m.set(code, l);
  }
  return m;
}

/** The name the municipality with this four-digit code had on `datum`; null for a code the table lacks. */
export function gemeenteNaam(code: string, datum: string): string | null {
  tabel ??= lees();
  return tabel.get(code)?.find((p) => p.begin <= datum && datum < p.eind)?.naam ?? null;
}
