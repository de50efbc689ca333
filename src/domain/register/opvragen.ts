/**
 * One function per lookup; what is not held is null or empty, nothing is estimated here. DATE columns are
 * read as text, so no time zone comes between the register and the answer.
 */
import type { Adres } from '../../generated/prisma/client.ts';
import { datumKolom } from '../begrippen.ts';
import { gebundeldeKandidaten, type AdresRij } from './adressen.ts';

export function adresKenmerken(a: Adres) {
  return {
    kenmerken: {
      bag_nummeraanduiding_id: a.id,
      bag_verblijfsobject_id: a.objectType === 'verblijfsobject' ? a.objectId : null,
      bag_pand_id: a.pandId,
      objecttype: a.objectType,
      // A ligplaats or standplaats has none in the BAG (NULL in the register): an empty list, not a missing field.
      gebruiksdoelen: a.gebruiksdoelen ?? [],
      oppervlakte: a.oppervlakte,
      bouwjaar: a.bouwjaar,
      status: a.status,
      straat: a.straat,
      woonplaats: a.woonplaats,
      gemeente: a.gemeente,
      buurt: a.buurtCode ? { code: a.buurtCode, naam: a.buurtNaam } : null,
      wijk: a.wijkCode ? { code: a.wijkCode, naam: a.wijkNaam } : null,
      coordinaten: a.lat != null && a.lon != null ? { lat: a.lat, lon: a.lon } : null,
    },
    bron: { naam: a.bron, datum: a.bronDatum ? datumKolom(a.bronDatum) : null },
  };
}

/** An address with what the woz, energielabel and woningtype lookups answer, read in the statement that finds it. */
export interface RegisterAdres extends AdresRij {
  woz: { peildatum: string; waarde: number; bron: string }[] | null;
  label: { label: string | null; registratiedatum: string | null; geldig_tot: string | null; opnametype: string | null; energie_index: number | null; bron: string } | null;
  woningtype: { woningtype: string; afgeleid_uit: string; bron: string } | null;
}

export const registerKandidaten = gebundeldeKandidaten<RegisterAdres>({
  woz: `(SELECT json_agg(json_build_object('peildatum', to_char(z.peildatum, 'YYYY-MM-DD'), 'waarde', z.waarde, 'bron', z.bron) ORDER BY z.peildatum DESC)
           FROM woz_waarde z WHERE z.adres_id = a.id)`,
  label: `(SELECT json_build_object('label', e.label, 'registratiedatum', to_char(e.registratiedatum, 'YYYY-MM-DD'), 'geldig_tot', to_char(e.geldig_tot, 'YYYY-MM-DD'),
                                  'opnametype', e.opnametype, 'energie_index', e.energie_index, 'bron', e.bron)
           FROM energielabel e WHERE e.adres_id = a.id)`,
  woningtype: `(SELECT json_build_object('woningtype', w.woningtype, 'afgeleid_uit', w.afgeleid_uit, 'bron', w.bron) FROM woningtype w WHERE w.adres_id = a.id)`,
});

export function wozWaarden(a: RegisterAdres) {
  const rijen = a.woz ?? [];
  return {
    waarden: rijen.map((r) => ({ peildatum: r.peildatum, waarde: r.waarde })),
    bron: rijen.length ? { naam: rijen[0].bron, datum: rijen[0].peildatum } : null,
  };
}

export function energielabel(a: RegisterAdres) {
  const r = a.label;
  return {
    label: r ? { label: r.label, registratiedatum: r.registratiedatum, geldig_tot: r.geldig_tot, opnametype: r.opnametype, energie_index: r.energie_index } : null,
    bron: r ? { naam: r.bron, datum: r.registratiedatum } : null,
  };
}

export function woningtype(a: RegisterAdres) {
  const r = a.woningtype;
  return { woningtype: r ? { woningtype: r.woningtype, afgeleid_uit: r.afgeleid_uit } : null, bron: r ? { naam: r.bron, datum: null } : null };
}

export interface InvloedAdres extends AdresRij {
  invloeden: { type: string; indicator: string; afstand_m: number | null; omschrijving: string; bron: string }[] | null;
}

/** An address with its held influence indicators (every type; the lookup picks), read in the statement that finds it. */
export const invloedKandidaten = gebundeldeKandidaten<InvloedAdres>({
  invloeden: `(SELECT json_agg(json_build_object('type', i.type, 'indicator', i.indicator, 'afstand_m', i.afstand_m, 'omschrijving', i.omschrijving, 'bron', i.bron) ORDER BY i.type)
                 FROM adres_invloed i WHERE i.adres_id = a.id)`,
});

export function invloeden<T extends string>(a: InvloedAdres, types: readonly T[]) {
  const rows = (a.invloeden ?? []).filter((r) => (types as readonly string[]).includes(r.type));
  const perType = new Map(rows.map((r) => [r.type, r]));
  return {
    invloeden: types.map((type) => {
      const r = perType.get(type);
      return r
        ? { type, indicator: r.indicator as 'rood' | 'oranje' | 'groen', afstand_m: r.afstand_m, omschrijving: r.omschrijving }
        : { type, indicator: null, afstand_m: null, omschrijving: 'Voor dit type zijn voor dit adres geen gegevens beschikbaar.' };
    }),
    gehouden: rows.length,
    bron: rows.length ? { naam: rows[0].bron, datum: null } : null,
  };
}
