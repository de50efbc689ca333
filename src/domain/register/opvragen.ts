/**
 * Reading the register data the service holds, one function per lookup. What is not held is null
 * or an empty list; nothing is estimated here.
 */
import type { Db } from '../../db/client.ts';
import type { Adres } from '../../generated/prisma/client.ts';
import { datumKolom } from '../begrippen.ts';

/** The BAG characteristics of an address row already resolved by the lookup. */
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

export async function wozWaarden(db: Db, adresId: string) {
  const rows = await db.wozWaarde.findMany({ where: { adresId }, orderBy: { peildatum: 'desc' } });
  return {
    waarden: rows.map((r) => ({ peildatum: datumKolom(r.peildatum), waarde: r.waarde })),
    bron: rows.length ? { naam: rows[0].bron, datum: datumKolom(rows[0].peildatum) } : null,
  };
}

export async function energielabel(db: Db, adresId: string) {
  const r = await db.energielabel.findUnique({ where: { adresId } });
  return {
    label: r
      ? {
          label: r.label,
          registratiedatum: r.registratiedatum ? datumKolom(r.registratiedatum) : null,
          geldig_tot: r.geldigTot ? datumKolom(r.geldigTot) : null,
          opnametype: r.opnametype,
          energie_index: r.energieIndex,
        }
      : null,
    bron: r ? { naam: r.bron, datum: r.registratiedatum ? datumKolom(r.registratiedatum) : null } : null,
  };
}

export async function woningtype(db: Db, adresId: string) {
  const r = await db.woningtype.findUnique({ where: { adresId } });
  return { woningtype: r ? { woningtype: r.woningtype, afgeleid_uit: r.afgeleidUit } : null, bron: r ? { naam: r.bron, datum: null } : null };
}

export async function invloeden<T extends string>(db: Db, adresId: string, types: readonly T[]) {
  const rows = await db.adresInvloed.findMany({ where: { adresId, type: { in: [...types] } } });
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
