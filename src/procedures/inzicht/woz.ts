import { z } from 'zod';
import { registerKandidaten, wozWaarden } from '../../domain/register/opvragen.ts';
import { maakLookup } from './maak-lookup.ts';

/** POST /api/v1/inzicht/woz: the WOZ series, newest first. 1 credit; an empty series is free. */
export const woz = maakLookup({
  voorziening: 'woz',
  pad: '/inzicht/woz',
  schemaId: 'Woz',
  samenvatting: 'WOZ-waarden',
  beschrijving: 'De WOZ-waarden per peildatum, nieuwste eerst. Kost {prijs}; een lege reeks wordt niet in rekening gebracht.',
  extraInvoer: {},
  mcp: {
    tool: 'woz',
    titel: 'WOZ-waarden',
    beschrijving: 'De WOZ-waarden van één adres per peildatum, nieuwste eerst. Kost {prijs}; een lege reeks is gratis.',
  },
  data: z.object({
    waarden: z.array(z.object({ peildatum: z.string().describe('Y-m-d'), waarde: z.int().describe('euro') })),
  }),
  kandidaten: registerKandidaten,
  async vind(_ctx, a) {
    const r = wozWaarden(a);
    return { status: 200, data: { waarden: r.waarden }, bron: r.bron, gefactureerd: r.waarden.length > 0 };
  },
});
