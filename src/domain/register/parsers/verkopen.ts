/**
 * Sales (transactions) in our own documented CSV format (docs/import-formaten.md), streamed:
 *
 *   postcode;huisnummer;toevoeging;transactiedatum;koopsom[;oppervlakte;perceel;bouwjaar;woningtype;energielabel;lat;lon]
 *
 * ';' or ',' (detected from the header), header row required, column order free, names
 * case-insensitive; the optional columns may be left out of the header or left empty per row.
 * `toevoeging` holds huisletter and/or toevoeging combined ('A', '2', 'A-2'). transactiedatum is
 * Y-m-d, koopsom whole euros, oppervlakte/perceel whole m2, lat/lon WGS84 decimal degrees with a
 * '.' (with ',' as delimiter a decimal comma would split the field).
 *
 * The row id is derived from postcode, huisnummer, toevoeging, transactiedatum and koopsom, so
 * importing the same file twice updates instead of duplicating. adres_id stays null in `rij`; the
 * framework may fill it from `adres` (a sale whose address is unknown is still a usable comparable
 * when it has lat/lon).
 */
import { createHash } from 'node:crypto';
import {
  type AdresSleutel,
  type ParseFout,
  type ParseOkMetAdres,
  type VerkoopRij,
  datumKolom,
  kolomIndex,
  leesCsv,
  leesDatumIso,
  leesGeheelGetal,
  leesGetal,
  leesHuisnummer,
  geldigePostcode,
  schoneToevoeging,
  veld,
} from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';
import { WONINGTYPEN } from '../../begrippen.ts';

export type { VerkoopRij } from './gedeeld.ts';

export type VerkoopResultaat = ParseOkMetAdres<'verkoop', VerkoopRij> | ParseFout;

export interface VerkoopOpties {
  /** bron column; default 'verkopen-import'. */
  bron?: string;
}

export const VERKOPEN_KOPREGEL = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom';
export const VERKOPEN_OPTIONELE_KOLOMMEN = ['oppervlakte', 'perceel', 'bouwjaar', 'woningtype', 'energielabel', 'lat', 'lon'] as const;


const WONINGTYPE_ALIAS: Record<string, string> = {
  'vrijstaande woning': 'vrijstaand',
  '2-onder-1-kap': 'twee-onder-een-kap',
  'twee onder een kap': 'twee-onder-een-kap',
  '2-onder-1-kapwoning': 'twee-onder-een-kap',
  hoek: 'hoekwoning',
  tussen: 'tussenwoning',
  rijwoning: 'tussenwoning',
  flat: 'appartement',
};

const KLASSE = /^(A\+{0,5}|[B-G])$/;

const VERWACHT = `verkopenbestand (CSV met kopregel ${VERKOPEN_KOPREGEL} en eventueel ${VERKOPEN_OPTIONELE_KOLOMMEN.join(';')}, zie docs/import-formaten.md)`;

/** Deterministic id of a sale: the same sale in a later file gets the same id. */
export function verkoopId(postcode: string, huisnummer: number, toevoeging: string | null, transactiedatum: Date, koopsom: number): string {
  const h = createHash('sha256').update(`${postcode}|${huisnummer}|${toevoeging ?? ''}|${datumKolom(transactiedatum)}|${koopsom}`).digest('hex');
  return `vk-${h.slice(0, 24)}`;
}

export async function* parseVerkopen(input: NodeJS.ReadableStream, opts: VerkoopOpties = {}): AsyncGenerator<VerkoopResultaat> {
  const bron = opts.bron ?? 'verkopen-import';
  let k: Map<string, number> | null = null;
  for await (const item of leesCsv(input, { scheiding: 'auto', verwacht: VERWACHT })) {
    if (!k) {
      if (item.soort === 'fout') throw new Error(`Dit is geen ${VERWACHT}: de kopregel is onleesbaar.`);
      const kop = kolomIndex(item.velden);
      const ontbreekt = ['postcode', 'huisnummer', 'transactiedatum', 'koopsom'].filter((n) => !kop.has(n));
      if (ontbreekt.length) {
        throw new Error(
          `Dit is geen ${VERWACHT}. Kolom(men) ${ontbreekt.join(', ')} ontbreken in de kopregel "${item.velden.join(';').slice(0, 200)}".`,
        );
      }
      k = kop;
      continue;
    }
    if (item.soort === 'fout') {
      yield { ok: false, regel: item.regel, reden: item.reden };
      continue;
    }
    const v = item.velden;
    const get = (naam: string) => veld(v, k!.get(naam));
    const fout = (reden: string): ParseFout => ({ ok: false, regel: item.regel, reden });

    const pcRuw = get('postcode');
    const postcode = geldigePostcode(pcRuw);
    if (!postcode) {
      yield fout(pcRuw ? `ongeldige postcode "${pcRuw}"` : 'postcode ontbreekt');
      continue;
    }
    const hnRuw = get('huisnummer');
    const huisnummer = leesHuisnummer(hnRuw);
    if (huisnummer === null) {
      yield fout(hnRuw ? `ongeldig huisnummer "${hnRuw}" (alleen cijfers; letter of toevoeging in kolom toevoeging)` : 'huisnummer ontbreekt');
      continue;
    }
    const toevoeging = schoneToevoeging(get('toevoeging'));
    const tdRuw = get('transactiedatum');
    const transactiedatum = leesDatumIso(tdRuw);
    if (!transactiedatum) {
      yield fout(tdRuw ? `ongeldige transactiedatum "${tdRuw}" (verwacht jjjj-mm-dd)` : 'transactiedatum ontbreekt');
      continue;
    }
    const ksRuw = get('koopsom');
    const koopsom = leesGeheelGetal(ksRuw);
    if (koopsom === null || koopsom < 1) {
      yield fout(ksRuw ? `ongeldige koopsom "${ksRuw}" (geheel aantal euro's, alleen cijfers)` : 'koopsom ontbreekt');
      continue;
    }

    const geheel = (naam: string, min: number, max: number): number | null | ParseFout => {
      const r = get(naam);
      if (r === null) return null;
      const n = leesGeheelGetal(r);
      const bijv = naam === 'oppervlakte' ? 'ongeldige' : 'ongeldig';
      return n === null || n < min || n > max ? fout(`${bijv} ${naam} "${r}" (geheel getal ${min}–${max})`) : n;
    };
    const oppervlakte = geheel('oppervlakte', 1, 100_000);
    if (oppervlakte !== null && typeof oppervlakte === 'object') {
      yield oppervlakte;
      continue;
    }
    const perceel = geheel('perceel', 0, 10_000_000);
    if (perceel !== null && typeof perceel === 'object') {
      yield perceel;
      continue;
    }
    const bouwjaar = geheel('bouwjaar', 1000, 2100);
    if (bouwjaar !== null && typeof bouwjaar === 'object') {
      yield bouwjaar;
      continue;
    }
    const wtRuw = get('woningtype');
    let woningtype: string | null = null;
    if (wtRuw) {
      const w = wtRuw.toLowerCase();
      woningtype = (WONINGTYPEN as readonly string[]).includes(w) ? w : (WONINGTYPE_ALIAS[w] ?? null);
      if (!woningtype) {
        yield fout(`onbekend woningtype "${wtRuw}" (verwacht ${WONINGTYPEN.join(', ')})`);
        continue;
      }
    }
    const elRuw = get('energielabel');
    const energielabel = elRuw ? elRuw.replace(/\s+/g, '').toUpperCase() : null;
    if (energielabel && !KLASSE.test(energielabel)) {
      yield fout(`onbekend energielabel "${elRuw}" (A+++++ t/m G)`);
      continue;
    }
    const latRuw = get('lat');
    const lonRuw = get('lon');
    const lat = leesGetal(latRuw);
    const lon = leesGetal(lonRuw);
    if ((latRuw && lat === null) || (lonRuw && lon === null)) {
      yield fout(`ongeldige coördinaten lat "${latRuw ?? ''}" lon "${lonRuw ?? ''}" (decimale graden met een punt)`);
      continue;
    }
    if ((lat === null) !== (lon === null)) {
      yield fout('lat en lon horen samen: geef beide of geen van beide');
      continue;
    }
    if (lat !== null && lon !== null && !(lat >= 50.7 && lat <= 53.7 && lon >= 3.2 && lon <= 7.3)) {
      const verwisseld = lon >= 50.7 && lon <= 53.7 && lat >= 3.2 && lat <= 7.3;
      yield fout(`coördinaten (${lat}, ${lon}) liggen niet in Nederland${verwisseld ? ' — lat en lon verwisseld?' : ''}`);
      continue;
    }
    const adres: AdresSleutel = { postcode, huisnummer, huisletter: null, toevoeging, gecombineerd: true, verblijfsobjectId: null };
    yield {
      ok: true,
      tabel: 'verkoop',
      rij: {
        id: verkoopId(postcode, huisnummer, toevoeging, transactiedatum, koopsom),
        adres_id: null,
        postcode,
        huisnummer,
        toevoeging,
        transactiedatum,
        koopsom,
        oppervlakte,
        perceel,
        bouwjaar,
        woningtype,
        energielabel,
        lat,
        lon,
        bron,
      },
      adres,
    };
  }
  if (!k) throw new Error(`Het bestand heeft geen kopregel: dit is geen ${VERWACHT}.`);
}

/** `insight import verkopen`: this parser as an import kind (registered in import/soorten.ts). */
export const verkopenSoort = bestandSoort({
  naam: 'verkopen', omschrijving: 'verkooptransacties (CSV)', verwacht: 'een verkopenbestand (CSV)', tabellen: ['verkoop'], parse: (input) => parseVerkopen(input),
});
