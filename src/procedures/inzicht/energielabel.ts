import { z } from 'zod';
import { energielabel as leesLabel, registerKandidaten } from '../../domain/register/opvragen.ts';
import { ENERGIELABELS, type Energielabel } from '../../domain/begrippen.ts';
import { maakLookup } from './maak-lookup.ts';


/** POST /api/v1/inzicht/energielabel: the registered energy label (REST only). 1 credit; no label is free. */
export const energielabel = maakLookup({
  voorziening: 'energielabel',
  pad: '/inzicht/energielabel',
  schemaId: 'Energielabel',
  samenvatting: 'Energielabel',
  beschrijving: 'Het geregistreerde energielabel (EP-Online). Kost {prijs}; zonder label zijn de velden null en wordt niets in rekening gebracht.',
  extraInvoer: {},
  data: z.object({
    label: z.enum(ENERGIELABELS).nullable(),
    registratiedatum: z.string().nullable(),
    geldig_tot: z.string().nullable(),
    opnametype: z.string().nullable(),
    energie_index: z.number().nullable(),
  }),
  kandidaten: registerKandidaten,
  async vind(_ctx, a) {
    const r = leesLabel(a);
    const l = r.label;
    const data = {
      label: (l?.label ?? null) as Energielabel | null,
      registratiedatum: l?.registratiedatum ?? null,
      geldig_tot: l?.geldig_tot ?? null,
      opnametype: l?.opnametype ?? null,
      energie_index: l?.energie_index ?? null,
    };
    return { status: 200, data, bron: r.bron, gefactureerd: data.label !== null };
  },
});
