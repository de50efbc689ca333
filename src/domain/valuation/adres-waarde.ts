/**
 * The market value of one held address: its row read together with its energy label and house type
 * (one statement), then valued by the process's fitted model. The address's own held sales are
 * never comparables; the model finds them by the address id it indexed the sales by, without a query.
 */
import { gebundeldeKandidaten, type AdresRij } from '../register/adressen.ts';
import type { Betrouwbaarheid, ModelInfo, ValuationModel } from './index.ts';
import { wozBekendOp } from './woz.ts';

/** An address candidate with what a valuation reads of it. */
export interface WaarderingsAdres extends AdresRij {
  objectType: string;
  gebruiksdoelen: string[] | null;
  status: string | null;
  oppervlakte: number | null;
  bouwjaar: number | null;
  lat: number | null;
  lon: number | null;
  energielabel: string | null;
  woningtype: string | null;
  /** Where the address row came from (the synthetic demo says so in `meta.bron`). */
  bron: string;
  /** The address's held WOZ series, [peildatum Y-m-d, waarde] pairs (null: none). */
  woz: [string, number][] | null;
}

/** Every address at a postcode and number with label and house type, ordered like `adresKandidaten`, read in batches. */
export const waarderingsKandidaten = gebundeldeKandidaten<WaarderingsAdres>({
  objectType: 'a.object_type',
  gebruiksdoelen: 'a.gebruiksdoelen',
  status: 'a.status',
  oppervlakte: 'a.oppervlakte',
  bouwjaar: 'a.bouwjaar',
  lat: 'a.lat',
  lon: 'a.lon',
  bron: 'a.bron',
  energielabel: '(SELECT e.label FROM energielabel e WHERE e.adres_id = a.id)',
  woningtype: '(SELECT w.woningtype FROM woningtype w WHERE w.adres_id = a.id)',
  woz: "(SELECT json_agg(json_build_array(to_char(z.peildatum, 'YYYY-MM-DD'), z.waarde)) FROM woz_waarde z WHERE z.adres_id = a.id)",
});

export type AdresWaarde =
  | { soort: 'waarde'; marktwaarde: number; min: number; max: number; betrouwbaarheid: Betrouwbaarheid; kansBinnen10: number; info: ModelInfo }
  /** The model refuses: too few or too scattered comparables. */
  | { soort: 'te_weinig'; reden: string; info: ModelInfo }
  /** No valuation of a home applies (not a home, not built then, area or location unknown, no sales then); not the model's refusal. */
  | { soort: 'onvoldoende_gegevens'; reden: string };

/** The bounds of the `woonoppervlakte` a caller may send; a smaller held area is a BAG placeholder (often 1 m²). */
export const MIN_WOONOPPERVLAKTE = 20;
export const MAX_WOONOPPERVLAKTE = 2000;

/** BAG statuses of an object that does not (yet, or any longer) exist. */
const BESTAAT_NIET = new Set(['verblijfsobject gevormd', 'niet gerealiseerd verblijfsobject', 'verblijfsobject ingetrokken', 'verblijfsobject ten onrechte opgevoerd', 'plaats ingetrokken']);

/** Why no home's market value applies to `a` at `peildatum` (Dutch, for the free 422), or null. */
export function geenWoningwaarde(a: WaarderingsAdres, peildatum: string, woonoppervlakte: number | undefined, oudsteVerkoop: string | null): string | null {
  const doelen = (a.gebruiksdoelen ?? []).map((d) => d.trim().toLowerCase());
  if (!doelen.includes('woonfunctie')) {
    const wat = doelen.length ? `als gebruiksdoel ${doelen.join(', ')}` : a.objectType === 'ligplaats' ? 'een ligplaats' : a.objectType === 'standplaats' ? 'een standplaats' : 'geen gebruiksdoel';
    return `Dit adres is geen woning: de BAG vermeldt ${wat}, geen woonfunctie. Een marktwaarde als woning is er niet voor te bepalen.`;
  }
  const status = a.status?.trim() ?? '';
  if (BESTAAT_NIET.has(status.toLowerCase())) {
    const wat = status.toLowerCase() === 'verblijfsobject gevormd' ? 'is volgens de BAG nog niet gebouwd' : 'bestaat volgens de BAG niet of niet meer';
    return `Deze woning ${wat} (status '${status}'); een marktwaarde is er niet voor te bepalen.`;
  }
  if (a.bouwjaar != null && a.bouwjaar > Number(peildatum.slice(0, 4))) {
    return `Deze woning is volgens de BAG gebouwd in ${a.bouwjaar}, na de peildatum ${peildatum}: op die datum bestond ze nog niet.`;
  }
  const oppervlakte = woonoppervlakte ?? a.oppervlakte;
  if (oppervlakte == null || oppervlakte < MIN_WOONOPPERVLAKTE) {
    const bag = oppervlakte == null ? '' : ` (de BAG vermeldt ${oppervlakte} m², een plaatshouder voor onbekend)`;
    return `De woonoppervlakte van dit adres is onbekend${bag}; geef woonoppervlakte mee (${MIN_WOONOPPERVLAKTE} tot en met ${MAX_WOONOPPERVLAKTE} m²).`;
  }
  if (a.lat == null || a.lon == null) return 'De ligging van dit adres is onbekend; een waarde is niet te bepalen.';
  // Comparables are sold strictly before the peildatum: on or before the oldest held sale there are none.
  if (oudsteVerkoop && peildatum <= oudsteVerkoop) {
    return `Voor peildatum ${peildatum} zijn geen verkopen bekend: de oudste verkoop in de gegevens is van ${oudsteVerkoop}. Kies een peildatum na die datum.`;
  }
  return null;
}

/** Value the address at `peildatum` (Y-m-d); `woonoppervlakte` replaces the BAG area when given. */
export function waardeerAdres(model: ValuationModel, a: WaarderingsAdres, peildatum: string, woonoppervlakte?: number): AdresWaarde {
  const reden = geenWoningwaarde(a, peildatum, woonoppervlakte, model.info.oudsteVerkoop);
  if (reden) return { soort: 'onvoldoende_gegevens', reden };
  // Only the WOZ value known at the peildatum (see woz.ts), as the sales' own WOZ values were chosen.
  const woz = wozBekendOp(a.woz?.map(([p, waarde]) => ({ peildatum: p, waarde })), peildatum);
  const w = model.waardeer(
    { lat: a.lat!, lon: a.lon!, oppervlakte: (woonoppervlakte ?? a.oppervlakte)!, bouwjaar: a.bouwjaar, woningtype: a.woningtype, energielabel: a.energielabel, uitsluitenWoning: a.id, woz: woz ? [woz] : null },
    peildatum,
  );
  if (w.soort === 'te_weinig') return { soort: 'te_weinig', reden: w.reden, info: model.info };
  return { soort: 'waarde', marktwaarde: w.marktwaarde, min: w.min, max: w.max, betrouwbaarheid: w.betrouwbaarheid, kansBinnen10: w.kansBinnen10, info: model.info };
}
