import {
  type AdresSleutel,
  type ParseFout,
  type ParseOkMetAdres,
  type WozRij,
  kolomIndex,
  leesCsv,
  leesDatumIso,
  leesGeheelGetal,
  leesHuisnummer,
  geldigePostcode,
  schoneToevoeging,
  veld,
} from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';

export type { WozRij } from './gedeeld.ts';

export type WozResultaat = ParseOkMetAdres<'woz_waarde', WozRij> | ParseFout;

export interface WozOpties {
  bron?: string;
}

export const WOZ_KOPREGEL = 'postcode;huisnummer;toevoeging;peildatum;waarde';

const VERWACHT = `WOZ-bestand (CSV met kopregel ${WOZ_KOPREGEL}, zie docs/import-formaten.md)`;

export async function* parseWoz(input: NodeJS.ReadableStream, opts: WozOpties = {}): AsyncGenerator<WozResultaat> {
  const bron = opts.bron ?? 'WOZ-import';
  let k: Map<string, number> | null = null;
  let gecombineerd = true;
  for await (const item of leesCsv(input, { scheiding: 'auto', verwacht: VERWACHT })) {
    if (!k) {
      if (item.soort === 'fout') throw new Error(`Dit is geen ${VERWACHT}: de kopregel is onleesbaar.`);
      const kop = kolomIndex(item.velden);
      const ontbreekt = ['postcode', 'huisnummer', 'peildatum', 'waarde'].filter((n) => !kop.has(n));
      if (ontbreekt.length) {
        throw new Error(
          `Dit is geen ${VERWACHT}. Kolom(men) ${ontbreekt.join(', ')} ontbreken in de kopregel "${item.velden.join(';').slice(0, 200)}".`,
        );
      }
      gecombineerd = !kop.has('huisletter');
      k = kop;
      continue;
    }
    if (item.soort === 'fout') {
      yield { ok: false, regel: item.regel, reden: item.reden };
      continue;
    }
    const v = item.velden;
    const fout = (reden: string): ParseFout => ({ ok: false, regel: item.regel, reden });
    const pcRuw = veld(v, k.get('postcode'));
    const postcode = geldigePostcode(pcRuw);
    if (!postcode) {
      yield fout(pcRuw ? `ongeldige postcode "${pcRuw}"` : 'postcode ontbreekt');
      continue;
    }
    const hnRuw = veld(v, k.get('huisnummer'));
    const huisnummer = leesHuisnummer(hnRuw);
    if (huisnummer === null) {
      yield fout(hnRuw ? `ongeldig huisnummer "${hnRuw}" (alleen cijfers; letter of toevoeging in kolom toevoeging)` : 'huisnummer ontbreekt');
      continue;
    }
    const pdRuw = veld(v, k.get('peildatum'));
    const peildatum = leesDatumIso(pdRuw);
    if (!peildatum) {
      yield fout(pdRuw ? `ongeldige peildatum "${pdRuw}" (verwacht jjjj-mm-dd)` : 'peildatum ontbreekt');
      continue;
    }
    const wRuw = veld(v, k.get('waarde'));
    const waarde = leesGeheelGetal(wRuw);
    if (waarde === null || waarde < 1) {
      yield fout(wRuw ? `ongeldige waarde "${wRuw}" (geheel aantal euro's, alleen cijfers)` : 'waarde ontbreekt');
      continue;
    }
    const adres: AdresSleutel = {
      postcode,
      huisnummer,
      huisletter: gecombineerd ? null : schoneToevoeging(veld(v, k.get('huisletter'))),
      toevoeging: schoneToevoeging(veld(v, k.get('toevoeging'))),
      gecombineerd,
      verblijfsobjectId: null,
    };
    yield { ok: true, regel: item.regel, tabel: 'woz_waarde', rij: { adres_id: null, peildatum, waarde, bron }, adres };
  }
  if (!k) throw new Error(`Het bestand heeft geen kopregel: dit is geen ${VERWACHT}.`);
}

export const wozSoort = bestandSoort({
  naam: 'woz', omschrijving: 'WOZ-waarden (CSV)', verwacht: 'een WOZ-bestand (CSV)', tabellen: ['woz_waarde'], parse: (input) => parseWoz(input),
});
