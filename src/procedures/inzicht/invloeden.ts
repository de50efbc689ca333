import { z } from 'zod';
import { invloedKandidaten, invloeden as leesInvloeden } from '../../domain/register/opvragen.ts';
import { INVLOED_TYPES, KERN_INVLOED_TYPES } from '../../domain/begrippen.ts';
import { maakLookup } from './maak-lookup.ts';


/** POST /api/v1/inzicht/invloeden: traffic-light indicators per influence type. 16 credits; nothing held is free. */
export const invloeden = maakLookup({
  voorziening: 'invloeden',
  pad: '/inzicht/invloeden',
  schemaId: 'Invloeden',
  samenvatting: 'Omgevingsinvloeden (stoplicht)',
  beschrijving:
    'Per type een indicator rood/oranje/groen met de afstand in meters tot het dichtstbijzijnde object (0 = erin). ' +
    'Zonder `types` de kernset natura2000 en hoogspanning. Kost {prijs}; als voor geen enkel gevraagd type gegevens zijn, niets. ' +
    'Extra limiet: 30 verzoeken per minuut per sleutel.',
  extraInvoer: {
    types: z
      .array(z.enum(INVLOED_TYPES, { error: `onbekend type; kies uit ${INVLOED_TYPES.join(', ')}` }))
      .min(1, 'geef minstens één type, of laat types weg voor de kernset')
      .max(INVLOED_TYPES.length)
      .optional()
      .describe(`Gevraagde typen: ${INVLOED_TYPES.join(', ')}. Standaard: ${KERN_INVLOED_TYPES.join(', ')}.`),
  },
  mcp: {
    tool: 'influences',
    titel: 'Omgevingsinvloeden',
    beschrijving:
      `Stoplicht-indicatoren (rood/oranje/groen, afstand in meters) voor één adres, per type: ${INVLOED_TYPES.join(', ')}. ` +
      `Zonder types de kernset ${KERN_INVLOED_TYPES.join(' en ')}. Kost {prijs}. De eerste aanroep kan enkele seconden duren.`,
  },
  extraEmmer: 'invloeden',
  extraFouten: { 429: 'Te veel verzoeken (algemeen 60/min, invloeden 30/min); zie Retry-After.' },
  data: z.object({
    invloeden: z.array(
      z.object({
        type: z.enum(INVLOED_TYPES),
        indicator: z.enum(['rood', 'oranje', 'groen']).nullable(),
        afstand_m: z.int().nullable(),
        omschrijving: z.string(),
      }),
    ),
  }),
  kandidaten: invloedKandidaten,
  async vind(_ctx, a, input) {
    const types = [...new Set(input.types ?? KERN_INVLOED_TYPES)];
    const r = leesInvloeden(a, types);
    return { status: 200, data: { invloeden: r.invloeden }, bron: r.bron, gefactureerd: r.gehouden > 0 };
  },
});
