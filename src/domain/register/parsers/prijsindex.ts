/** CBS StatLine price index CSV (83906NED, 85773NED, 85792NED), monthly rows only (docs/import-formaten.md). */
import { type ParseFout, type ParseOk, type PrijsindexRij, citeer, csvNaKopregel, datumUtc, kolomIndex, leesGetal, veld } from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';

export type { PrijsindexRij } from './gedeeld.ts';

export type PrijsindexResultaat = ParseOk<'prijsindex', PrijsindexRij> | ParseFout;

export interface PrijsindexOpties {
  /** Default: recognised from the header. */
  tabel?: string;
  bron?: string;
}

const VERWACHT =
  'CBS StatLine-CSV van de prijsindex bestaande koopwoningen (tabel 83906NED, 85773NED of 85792NED; kopregel "ID";"Perioden";"Prijsindex..._1")';

export function tabelUitBestandsnaam(naam: string): string | null {
  const m = /(\d{5}NED)/i.exec(naam);
  return m ? m[1].toUpperCase() : null;
}

export async function* parsePrijsindex(input: NodeJS.ReadableStream, opts: PrijsindexOpties = {}): AsyncGenerator<PrijsindexResultaat> {
  const leesKop = (velden: string[]) => {
    const k = kolomIndex(velden);
    const iPeriode = k.get('perioden');
    const iRegio = k.get('regios');
    const namen = [...k.keys()];
    const maat = namen.find((n) => n.startsWith('prijsindexbestaandekoopwoningen')) ?? namen.find((n) => n.startsWith('prijsindexverkoopprijzen'));
    if (iPeriode === undefined || !maat) {
      throw new Error(`Dit is geen ${VERWACHT}. Gevonden kopregel: "${velden.slice(0, 6).join(';').slice(0, 200)}".`);
    }
    let tabel = opts.tabel ?? '';
    if (!tabel) {
      if (maat.startsWith('prijsindexbestaandekoopwoningen')) tabel = '83906NED';
      else tabel = iRegio !== undefined ? '85792NED' : '85773NED';
    }
    return { iPeriode, iRegio, iIndex: k.get(maat), tabel, bron: opts.bron ?? `CBS StatLine ${tabel}` };
  };

  for await (const item of csvNaKopregel(input, { scheiding: ';', verwacht: VERWACHT }, leesKop)) {
    if (!item.ok) {
      yield item;
      continue;
    }
    const { velden: v, kop } = item;
    const { iPeriode, iRegio, iIndex, tabel, bron } = kop;
    const periodeRuw = veld(v, iPeriode);
    if (!periodeRuw) {
      yield { ok: false, regel: item.regel, reden: 'periode ontbreekt' };
      continue;
    }
    const m = /^(\d{4})(MM|KW|JJ)(\d{2})$/.exec(periodeRuw);
    if (!m) {
      yield { ok: false, regel: item.regel, reden: `onbekende periode ${citeer(periodeRuw)} (verwacht jjjjMMmm)` };
      continue;
    }
    if (m[2] !== 'MM') continue; // yearly and quarterly figures: not used
    const periode = datumUtc(+m[1], +m[3], 1);
    if (!periode) {
      yield { ok: false, regel: item.regel, reden: `ongeldige maand in periode ${citeer(periodeRuw)}` };
      continue;
    }
    let regio = 'NL';
    if (iRegio !== undefined) {
      const r = veld(v, iRegio);
      if (!r) {
        yield { ok: false, regel: item.regel, reden: 'regio (RegioS) ontbreekt' };
        continue;
      }
      regio = r.toUpperCase() === 'NL01' ? 'NL' : r;
    }
    const idxRuw = veld(v, iIndex);
    const index = leesGetal(idxRuw);
    if (index === null || index <= 0) {
      yield { ok: false, regel: item.regel, reden: idxRuw && idxRuw !== '.' ? `ongeldige indexwaarde ${citeer(idxRuw)}` : `geen indexwaarde voor ${periodeRuw}` };
      continue;
    }
    yield { ok: true, tabel: 'prijsindex', rij: { tabel, regio, periode, index, bron } };
  }
}

export const prijsindexSoort = bestandSoort({
  naam: 'prijsindex', omschrijving: 'CBS prijsindex bestaande koopwoningen (StatLine CSV)', verwacht: 'een CBS StatLine-CSV van de prijsindex bestaande koopwoningen', tabellen: ['prijsindex'], parse: (input) => parsePrijsindex(input),
});
