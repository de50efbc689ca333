import { z } from 'zod';
import { woningtype as leesType, registerKandidaten } from '../../domain/register/opvragen.ts';
import { WONINGTYPEN, type Woningtype } from '../../domain/begrippen.ts';
import { maakLookup } from './maak-lookup.ts';


/** POST /api/v1/inzicht/woningtype: the house type and how it was derived (REST only). 1 credit; unknown is free. */
export const woningtype = maakLookup({
  voorziening: 'woningtype',
  pad: '/inzicht/woningtype',
  schemaId: 'Woningtype',
  samenvatting: 'Woningtype',
  beschrijving: 'Het woningtype, afgeleid uit de BAG of geïmporteerd; `afgeleid_uit` zegt hoe. Kost {prijs}; onbekend (null) wordt niet in rekening gebracht.',
  extraInvoer: {},
  data: z.object({
    woningtype: z.enum(WONINGTYPEN).nullable(),
    afgeleid_uit: z.string().nullable(),
  }),
  kandidaten: registerKandidaten,
  async vind(_ctx, a) {
    const r = leesType(a);
    const data = {
      woningtype: (r.woningtype?.woningtype ?? null) as Woningtype | null,
      afgeleid_uit: r.woningtype?.afgeleid_uit ?? null,
    };
    return { status: 200, data, bron: r.bron, gefactureerd: data.woningtype !== null };
  },
});
