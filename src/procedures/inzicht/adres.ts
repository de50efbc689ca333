import { z } from 'zod';
import { adresKenmerken } from '../../domain/register/opvragen.ts';
import { maakLookup } from './maak-lookup.ts';

const code = z.object({ code: z.string(), naam: z.string().nullable() }).nullable();

/** POST /api/v1/inzicht/adres: BAG characteristics of the address. 1 credit. */
export const adres = maakLookup({
  voorziening: 'adres',
  pad: '/inzicht/adres',
  schemaId: 'AdresKenmerken',
  samenvatting: 'Adres- en BAG-kenmerken',
  beschrijving: 'Kenmerken uit de Basisregistratie Adressen en Gebouwen. Kost {prijs}. Onbekende velden zijn null.',
  extraInvoer: {},
  mcp: {
    tool: 'property_address',
    titel: 'Adres- en BAG-kenmerken',
    beschrijving: 'Kenmerken uit de BAG voor één adres: oppervlakte, bouwjaar, gebruiksdoelen, status, buurt, coördinaten. Kost {prijs}.',
  },
  data: z.object({
    bag_nummeraanduiding_id: z.string(),
    bag_verblijfsobject_id: z.string().nullable(),
    bag_pand_id: z.string().nullable(),
    objecttype: z.string().describe('verblijfsobject, ligplaats of standplaats'),
    gebruiksdoelen: z.array(z.string()),
    oppervlakte: z.int().nullable().describe('Gebruiksoppervlakte in m²'),
    bouwjaar: z.int().nullable(),
    status: z.string().nullable(),
    straat: z.string(),
    woonplaats: z.string(),
    gemeente: z.string().nullable(),
    buurt: code,
    wijk: code,
    coordinaten: z.object({ lat: z.number(), lon: z.number() }).nullable().describe('WGS84-punt, geen geometrie'),
  }),
  async vind(_ctx, a) {
    const r = adresKenmerken(a);
    return { status: 200, data: r.kenmerken, bron: r.bron, gefactureerd: true };
  },
});
