/**
 * Lines without a double quote are split directly (several times faster than csv-parse); a quoted record
 * goes through csv-parse. An unclosed quote is reported for its line and parsing resumes on the next.
 */
import type { Readable } from 'node:stream';
import { parse as parseSync } from 'csv-parse/sync';
import { MAX_REGEL_TEKENS } from '../parsers/gedeeld.ts';
import { StrikteDecoder } from './utf8.ts';

export type CsvItem = { velden: string[]; regel: number; fout?: undefined } | { fout: string; regel: number; velden?: undefined };

const MAX_REGELS_PER_RECORD = 200;

function telQuotes(s: string): number {
  let n = 0;
  for (let i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) n++;
  return n;
}

export async function* leesCsvRecords(input: Readable, scheiding: string): AsyncGenerator<CsvItem[]> {
  const decoder = new StrikteDecoder();
  let rest = '';
  let regel = 0;
  let eerste = true;
  let open: { regels: string[]; regel: number; quotes: number } | null = null;
  let overslaan = false;
  const uit: CsvItem[] = [];
  const teLang = () => uit.push({ fout: `regel langer dan ${MAX_REGEL_TEKENS.toLocaleString('nl-NL')} tekens`, regel: ++regel });

  const quoted = (tekst: string, nr: number) => {
    try {
      const recs = parseSync(tekst, { delimiter: scheiding, relax_column_count: true, relax_quotes: true }) as string[][];
      for (const r of recs) uit.push({ velden: r, regel: nr });
    } catch (e) {
      uit.push({ fout: `onleesbare CSV-regel (${(e as { code?: string }).code ?? (e as Error).message})`, regel: nr });
    }
  };

  const regelIn = (lijn: string, nr: number): void => {
    if (open) {
      open.regels.push(lijn);
      open.quotes += telQuotes(lijn);
      if (open.quotes % 2 === 0) {
        const o = open;
        open = null;
        quoted(o.regels.join('\n'), o.regel);
      } else if (open.regels.length >= MAX_REGELS_PER_RECORD) {
        const o = open;
        open = null;
        uit.push({ fout: 'aanhalingsteken (") wordt niet gesloten', regel: o.regel });
        for (let i = 1; i < o.regels.length; i++) regelIn(o.regels[i], o.regel + i);
      }
      return;
    }
    if (lijn === '') return;
    if (lijn.indexOf('"') < 0) {
      uit.push({ velden: lijn.split(scheiding), regel: nr });
      return;
    }
    const q = telQuotes(lijn);
    if (q % 2 === 0) quoted(lijn, nr);
    else open = { regels: [lijn], regel: nr, quotes: q };
  };

  const verwerk = (tekst: string, klaar: boolean) => {
    let start = 0;
    for (;;) {
      const nl = tekst.indexOf('\n', start);
      if (nl < 0) break;
      if (nl - start > MAX_REGEL_TEKENS) {
        start = nl + 1;
        teLang();
        continue;
      }
      let lijn = tekst.slice(start, nl);
      start = nl + 1;
      if (lijn.charCodeAt(lijn.length - 1) === 13) lijn = lijn.slice(0, -1);
      regelIn(lijn, ++regel);
    }
    rest = tekst.slice(start);
    if (rest.length > MAX_REGEL_TEKENS && !klaar) {
      teLang();
      rest = '';
      overslaan = true;
    }
    if (klaar) {
      if (rest !== '') regelIn(rest.charCodeAt(rest.length - 1) === 13 ? rest.slice(0, -1) : rest, ++regel);
      rest = '';
      while (open) {
        const o: { regels: string[]; regel: number } = open;
        open = null;
        uit.push({ fout: 'aanhalingsteken (") wordt niet gesloten', regel: o.regel });
        for (let i = 1; i < o.regels.length; i++) regelIn(o.regels[i], o.regel + i);
      }
    }
  };

  for await (const chunk of input) {
    let tekst = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array);
    if (overslaan) {
      const nl = tekst.indexOf('\n');
      if (nl < 0) continue;
      tekst = tekst.slice(nl + 1);
      overslaan = false;
    }
    if (eerste) {
      if (tekst.charCodeAt(0) === 0xfeff) tekst = tekst.slice(1);
      eerste = false;
    }
    verwerk(rest + tekst, false);
    if (uit.length) yield uit.splice(0, uit.length);
  }
  verwerk(rest + decoder.decode(), true);
  if (uit.length) yield uit.splice(0, uit.length);
}

export function eersteRegel(kop: Buffer): string {
  let t = kop.toString('utf8');
  if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
  const nl = t.search(/\r?\n/);
  return nl >= 0 ? t.slice(0, nl) : t;
}
