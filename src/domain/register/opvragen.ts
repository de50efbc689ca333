/**
 * One function per lookup; what is not held is null or empty, nothing is estimated here. DATE columns are
 * read as text, so no time zone comes between the register and the answer.
 */
import { rijenPerId } from '../../db/bundel.ts';
import { registerRijen, type Db } from '../../db/client.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { datumKolom } from '../begrippen.ts';

export function adresKenmerken(a: Adres) {
  return {
    kenmerken: {
      bag_nummeraanduiding_id: a.id,
      bag_verblijfsobject_id: a.objectType === 'verblijfsobject' ? a.objectId : null,
      bag_pand_id: a.pandId,
      objecttype: a.objectType,
      gebruiksdoelen: a.gebruiksdoelen,
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

const wozRijen = rijenPerId<{ peildatum: string; waarde: number; bron: string }>(
  `SELECT k.id, to_char(w.peildatum, 'YYYY-MM-DD') AS peildatum, w.waarde, w.bron FROM jsonb_array_elements_text($1::jsonb) AS k(id)
   CROSS JOIN LATERAL (SELECT peildatum, waarde, bron FROM woz_waarde WHERE adres_id = k.id OFFSET 0) w ORDER BY k.id, w.peildatum DESC`,
  { lees: registerRijen },
);

export async function wozWaarden(db: Db, adresId: string) {
  const rows = await wozRijen(db, adresId);
  return {
    waarden: rows.map((r) => ({ peildatum: r.peildatum, waarde: r.waarde })),
    bron: rows.length ? { naam: rows[0].bron, datum: rows[0].peildatum } : null,
  };
}

const labelRijen = rijenPerId<{ label: string | null; registratiedatum: string | null; geldig_tot: string | null; opnametype: string | null; energie_index: number | null; bron: string }>(
  `SELECT k.id, e.label, to_char(e.registratiedatum, 'YYYY-MM-DD') AS registratiedatum, to_char(e.geldig_tot, 'YYYY-MM-DD') AS geldig_tot,
          e.opnametype, e.energie_index, e.bron
   FROM jsonb_array_elements_text($1::jsonb) AS k(id) CROSS JOIN LATERAL (SELECT * FROM energielabel WHERE adres_id = k.id OFFSET 0) e`,
  { lees: registerRijen },
);

export async function energielabel(db: Db, adresId: string) {
  const [r] = await labelRijen(db, adresId);
  return {
    label: r ? { label: r.label, registratiedatum: r.registratiedatum, geldig_tot: r.geldig_tot, opnametype: r.opnametype, energie_index: r.energie_index } : null,
    bron: r ? { naam: r.bron, datum: r.registratiedatum } : null,
  };
}

const woningtypeRijen = rijenPerId<{ woningtype: string; afgeleid_uit: string; bron: string }>(
  `SELECT k.id, w.woningtype, w.afgeleid_uit, w.bron
   FROM jsonb_array_elements_text($1::jsonb) AS k(id) CROSS JOIN LATERAL (SELECT * FROM woningtype WHERE adres_id = k.id OFFSET 0) w`,
  { lees: registerRijen },
);

export async function woningtype(db: Db, adresId: string) {
  const [r] = await woningtypeRijen(db, adresId);
  return { woningtype: r ? { woningtype: r.woningtype, afgeleid_uit: r.afgeleid_uit } : null, bron: r ? { naam: r.bron, datum: null } : null };
}

export async function invloeden<T extends string>(db: Db, adresId: string, types: readonly T[]) {
  const rows = await registerRijen<{ type: string; indicator: string; afstandM: number | null; omschrijving: string; bron: string }>(
    db,
    'SELECT type, indicator, afstand_m AS "afstandM", omschrijving, bron FROM adres_invloed WHERE adres_id = $1 AND type = ANY($2::text[])',
    [adresId, [...types]],
  );
  const perType = new Map(rows.map((r) => [r.type, r]));
  return {
    invloeden: types.map((type) => {
      const r = perType.get(type);
      return r
        ? { type, indicator: r.indicator as 'rood' | 'oranje' | 'groen', afstand_m: r.afstandM, omschrijving: r.omschrijving }
        : { type, indicator: null, afstand_m: null, omschrijving: 'Voor dit type zijn voor dit adres geen gegevens beschikbaar.' };
    }),
    gehouden: rows.length,
    bron: rows.length ? { naam: rows[0].bron, datum: null } : null,
  };
}
