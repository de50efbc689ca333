/**
 * Sales (docs/import-formaten.md). The id is derived from the sale, so a re-import updates. A sale at an
 * unknown address is still a usable comparable with lat/lon. `insight backtest` reads the same file with
 * its own optional columns and laxer rules for foreign data.
 */
import { createHash } from 'node:crypto';
import {
  type AdresSleutel,
  type ParseFout,
  type ParseOkMetAdres,
  type VerkoopRij,
  citeer,
  datumKolom,
  HUISNUMMER_ZONDER_TOEVOEGING,
  csvNaKopregel,
  eisKolommen,
  kolomIndex,
  leesDatumIso,
  leesGeheelGetal,
  leesGetal,
  leesPostcodeHuisnummer,
  schoneToevoeging,
  veld,
} from './gedeeld.ts';
import { bestandSoort } from '../import/bestand-soort.ts';
import { WONINGTYPEN } from '../../begrippen.ts';
import { KENMERKEN } from '../../valuation/types.ts';
import type { Kenmerk, Kenmerken, WozWaarde } from '../../valuation/types.ts';

export type { VerkoopRij } from './gedeeld.ts';

export type VerkoopResultaat = ParseOkMetAdres<'verkoop', VerkoopRij> | ParseFout;

export interface VerkoopOpties {
  bron?: string;
}

export const VERKOPEN_KOPREGEL = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom';
export const VERKOPEN_OPTIONELE_KOLOMMEN = ['oppervlakte', 'perceel', 'bouwjaar', 'woningtype', 'energielabel', 'lat', 'lon', 'woz', 'woz_peildatum'] as const;

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
const KOOPSOM_MAX = 2_147_483_647; // the import's bound (an int column), for the backtest too

const VERWACHT = `verkopenbestand (CSV met kopregel ${VERKOPEN_KOPREGEL} en eventueel ${VERKOPEN_OPTIONELE_KOLOMMEN.join(';')}, zie docs/import-formaten.md)`;

export function verkoopId(postcode: string, huisnummer: number, toevoeging: string | null, transactiedatum: Date, koopsom: number): string {
  const h = createHash('sha256').update(`${postcode}|${huisnummer}|${toevoeging ?? ''}|${datumKolom(transactiedatum)}|${koopsom}`).digest('hex');
  return `vk-${h.slice(0, 24)}`;
}

/** The former backtest format. */
const ALIAS: Record<string, string> = { datum: 'transactiedatum', prijs: 'koopsom' };

export interface VerkoopVelden extends Omit<VerkoopRij, 'id' | 'adres_id' | 'bron'> {
  saleId: string | null;
  objectId: string | null;
  /** Backtest only. */
  kenmerken: Kenmerken | null;
  /** Dated strictly before the sale. */
  woz: WozWaarde | null;
}

/** `renovatiejaar` 0 means "never renovated" (unknown). */
const KENMERK_MAX: Record<Kenmerk, number> = { kwaliteit: 1000, staat: 1000, uitzicht: 1000, aan_water: 1, renovatiejaar: 2100, slaapkamers: 100, badkamers: 100, bouwlagen: 200 };

function leesKenmerken(get: (naam: string) => string | null): Kenmerken | null | string {
  let uit: Kenmerken | null = null;
  for (const naam of KENMERKEN) {
    const r = get(naam);
    if (r === null) continue;
    const ja = naam === 'aan_water' ? ({ ja: 1, nee: 0 } as Record<string, number>)[r.toLowerCase()] : undefined;
    const n = ja ?? leesGetal(r);
    if (n === null || !(n >= 0 && n <= KENMERK_MAX[naam]) || (naam === 'renovatiejaar' && n > 0 && n < 1000)) {
      return `ongeldige ${naam} ${citeer(r)} (getal 0–${KENMERK_MAX[naam]}${naam === 'renovatiejaar' ? ', 0 = nooit' : ''})`;
    }
    if (naam === 'renovatiejaar' && n === 0) continue;
    (uit ??= {})[naam] = n;
  }
  return uit;
}

/** Both or neither; a WOZ value dated on or after the sale could have been set from this very sale. */
function leesWoz(get: (naam: string) => string | null, transactiedatum: Date): WozWaarde | null | string {
  const wRuw = get('woz');
  const pRuw = get('woz_peildatum');
  if (wRuw === null && pRuw === null) return null;
  if (wRuw === null || pRuw === null) return 'woz en woz_peildatum horen samen: geef beide of geen van beide';
  const waarde = leesGeheelGetal(wRuw);
  if (waarde === null || waarde < 1 || waarde > 1_000_000_000) return `ongeldige woz ${citeer(wRuw)} (geheel aantal euro's)`;
  const peildatum = leesDatumIso(pRuw);
  if (!peildatum) return `ongeldige woz_peildatum ${citeer(pRuw)} (verwacht jjjj-mm-dd)`;
  if (peildatum >= transactiedatum) return `woz_peildatum ${datumKolom(peildatum)} ligt niet vóór de transactiedatum ${datumKolom(transactiedatum)}`;
  return { waarde, peildatum: datumKolom(peildatum) };
}

type Modus = 'import' | 'backtest';

function leesKop(velden: readonly string[], modus: Modus): Map<string, number> {
  const kop = kolomIndex(velden);
  for (const [oud, nieuw] of Object.entries(ALIAS)) if (kop.has(oud) && !kop.has(nieuw)) kop.set(nieuw, kop.get(oud)!);
  eisKolommen(kop, velden, modus === 'import' ? ['postcode', 'huisnummer', 'transactiedatum', 'koopsom'] : ['transactiedatum', 'koopsom', 'lat', 'lon'], VERWACHT);
  return kop;
}

function leesRij(v: readonly string[], k: Map<string, number>, modus: Modus): VerkoopVelden | string {
  const get = (naam: string) => veld(v, k.get(naam));
  const backtest = modus === 'backtest';
  const pcRuw = get('postcode');
  const hnRuw = get('huisnummer');
  const zonderAdres = backtest && pcRuw === null && hnRuw === null;
  const nummer = zonderAdres ? { postcode: null, huisnummer: null } : leesPostcodeHuisnummer(pcRuw, hnRuw, HUISNUMMER_ZONDER_TOEVOEGING);
  if (typeof nummer === 'string') return nummer;
  const { postcode, huisnummer } = nummer;
  const toevoeging = schoneToevoeging(get('toevoeging'));
  const tdRuw = get('transactiedatum');
  const transactiedatum = leesDatumIso(tdRuw);
  if (!transactiedatum) return tdRuw ? `ongeldige transactiedatum ${citeer(tdRuw)} (verwacht jjjj-mm-dd)` : 'transactiedatum ontbreekt';
  const ksRuw = get('koopsom');
  const koopsomRuw = backtest ? leesGetal(ksRuw) : leesGeheelGetal(ksRuw);
  const koopsom = koopsomRuw === null ? null : Math.round(koopsomRuw);
  if (koopsom === null || koopsom < 1 || koopsom > KOOPSOM_MAX) return ksRuw ? `ongeldige koopsom ${citeer(ksRuw)} (${backtest ? 'getal 1–2147483647' : "geheel aantal euro's, alleen cijfers"})` : 'koopsom ontbreekt';
  const getal = (naam: string, min: number, max: number, decimalen: boolean): number | null | string => {
    const r = get(naam);
    if (r === null) return null;
    const n = decimalen ? leesGetal(r) : leesGeheelGetal(r);
    // Foreign backtest data write 0 for an unknown area.
    if (backtest && n === 0 && min > 0) return null;
    const bijv = naam === 'oppervlakte' ? 'ongeldige' : 'ongeldig';
    return n === null || n < min || n > max ? `${bijv} ${naam} ${citeer(r)} (${decimalen ? 'getal' : 'geheel getal'} ${min}–${max})` : n;
  };
  const oppervlakte = getal('oppervlakte', 1, 100_000, backtest);
  if (typeof oppervlakte === 'string') return oppervlakte;
  const perceel = getal('perceel', 0, 10_000_000, backtest);
  if (typeof perceel === 'string') return perceel;
  const bouwjaarRuw = getal('bouwjaar', 1000, 2100, backtest);
  if (typeof bouwjaarRuw === 'string') return bouwjaarRuw;
  const bouwjaar = bouwjaarRuw === null ? null : Math.round(bouwjaarRuw);
  const wtRuw = get('woningtype');
  let woningtype: string | null = null;
  if (wtRuw) {
    const w = wtRuw.toLowerCase();
    woningtype = (WONINGTYPEN as readonly string[]).includes(w) ? w : (WONINGTYPE_ALIAS[w] ?? null);
    if (!woningtype) return `onbekend woningtype ${citeer(wtRuw)} (verwacht ${WONINGTYPEN.join(', ')})`;
  }
  const elRuw = get('energielabel');
  const energielabel = elRuw ? elRuw.replace(/\s+/g, '').toUpperCase() : null;
  if (energielabel && !KLASSE.test(energielabel)) return `onbekend energielabel ${citeer(elRuw)} (A+++++ t/m G)`;
  const latRuw = get('lat');
  const lonRuw = get('lon');
  const lat = leesGetal(latRuw);
  const lon = leesGetal(lonRuw);
  if ((latRuw && lat === null) || (lonRuw && lon === null)) return `ongeldige coördinaten lat ${citeer(latRuw ?? '')} lon ${citeer(lonRuw ?? '')} (decimale graden met een punt)`;
  if ((lat === null) !== (lon === null)) return 'lat en lon horen samen: geef beide of geen van beide';
  if (backtest) {
    if (lat === null || lon === null || !(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) return 'lat en lon zijn nodig voor de backtest (decimale graden)';
  } else if (lat !== null && lon !== null && !(lat >= 50.7 && lat <= 53.7 && lon >= 3.2 && lon <= 7.3)) {
    const verwisseld = lon >= 50.7 && lon <= 53.7 && lat >= 3.2 && lat <= 7.3;
    return `coördinaten (${lat}, ${lon}) liggen niet in Nederland${verwisseld ? ' — lat en lon verwisseld?' : ''}`;
  }
  // The register has no place for them yet.
  const kenmerken = backtest ? leesKenmerken(get) : null;
  if (typeof kenmerken === 'string') return kenmerken;
  const woz = leesWoz(get, transactiedatum);
  if (typeof woz === 'string') return woz;
  return { postcode, huisnummer, toevoeging, transactiedatum, koopsom, oppervlakte, perceel, bouwjaar, woningtype, energielabel, lat, lon, saleId: get('id'), objectId: get('object_id'), kenmerken, woz };
}

export async function* parseVerkopen(input: NodeJS.ReadableStream, opts: VerkoopOpties = {}): AsyncGenerator<VerkoopResultaat> {
  const bron = opts.bron ?? 'verkopen-import';
  for await (const item of csvNaKopregel(input, { scheiding: 'auto', verwacht: VERWACHT }, (velden) => leesKop(velden, 'import'))) {
    if (!item.ok) {
      yield item;
      continue;
    }
    const r = leesRij(item.velden, item.kop, 'import');
    if (typeof r === 'string') {
      yield { ok: false, regel: item.regel, reden: r };
      continue;
    }
    const { saleId: _id, objectId: _object, kenmerken: _kenmerken, woz: _woz, ...velden } = r;
    const postcode = r.postcode!;
    const huisnummer = r.huisnummer!;
    const adres: AdresSleutel = { postcode, huisnummer, huisletter: null, toevoeging: r.toevoeging, gecombineerd: true, verblijfsobjectId: null };
    yield { ok: true, regel: item.regel, tabel: 'verkoop', rij: { id: verkoopId(postcode, huisnummer, r.toevoeging, r.transactiedatum, r.koopsom), adres_id: null, ...velden, bron }, adres };
  }
}

export type BacktestVerkoop = { ok: true; regel: number; verkoop: VerkoopVelden & { id: string } } | ParseFout;

/** Id: the `id` column, else the import's derived id, else `regel-<n>`. */
export async function* parseVerkopenVoorBacktest(input: NodeJS.ReadableStream): AsyncGenerator<BacktestVerkoop> {
  for await (const item of csvNaKopregel(input, { scheiding: 'auto', verwacht: VERWACHT }, (velden) => leesKop(velden, 'backtest'))) {
    if (!item.ok) {
      yield item;
      continue;
    }
    const r = leesRij(item.velden, item.kop, 'backtest');
    if (typeof r === 'string') {
      yield { ok: false, regel: item.regel, reden: r };
      continue;
    }
    const adres = r.postcode !== null && r.huisnummer !== null ? `${r.postcode}|${r.huisnummer}|${r.toevoeging ?? ''}` : null;
    const id = r.saleId ?? (adres ? verkoopId(r.postcode!, r.huisnummer!, r.toevoeging, r.transactiedatum, r.koopsom) : `regel-${item.regel}`);
    yield { ok: true, regel: item.regel, verkoop: { ...r, id, objectId: r.objectId ?? adres } };
  }
}

export const verkopenSoort = bestandSoort({
  naam: 'verkopen', omschrijving: 'verkooptransacties (CSV)', verwacht: 'een verkopenbestand (CSV)', tabellen: ['verkoop'], parse: (input) => parseVerkopen(input),
});
