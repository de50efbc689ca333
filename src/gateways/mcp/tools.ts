/**
 * The MCP tools: a registry that maps flat tool arguments onto the same tRPC procedures REST uses.
 * Tool names are English (contract 4.3); the data they return is the REST answer, in Dutch.
 */
import { z } from 'zod';
import { appRouter } from '../../core/router.ts';
import { createCallerFactory } from '../../core/trpc.ts';
import { INVLOED_TYPES, KERN_TYPES } from '../../procedures/inzicht/invloeden.ts';

export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

/** Flat address arguments. Types are loose on purpose: the procedure validates, with the REST messages. */
const adresArgs = {
  postcode: z.string().describe('Nederlandse postcode, 1234AB of 1234 ab'),
  huisnummer: z.union([z.string(), z.number()]).describe('Huisnummer, 1 tot en met 99999'),
  toevoeging: z.string().nullable().optional().describe('Huisletter en/of toevoeging: A, 2, A-2'),
};

type AdresArgs = { postcode: string; huisnummer: string | number; toevoeging?: string | null };

function adres(a: AdresArgs) {
  return {
    postcode: a.postcode,
    huisnummer: typeof a.huisnummer === 'number' ? String(a.huisnummer) : a.huisnummer,
    ...(a.toevoeging !== undefined ? { toevoeging: a.toevoeging } : {}),
  };
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputShape: z.ZodRawShape;
  call(caller: Caller, args: Record<string, unknown>): Promise<unknown>;
}

export const MCP_TOOLS: McpTool[] = [
  {
    name: 'property_value',
    title: 'Marktwaarde',
    description:
      'Geschatte marktwaarde (hele euro) met bandbreedte min/max (80%-interval) en betrouwbaarheid (hoog/normaal/laag) voor één Nederlands adres. ' +
      'Indicatief, geen taxatie. Kost € 0,90; te weinig vergelijkbare verkopen geeft een fout zonder getal (wel in rekening gebracht).',
    inputShape: {
      ...adresArgs,
      peildatum: z.string().optional().describe('Peildatum JJJJ-MM-DD; standaard vandaag'),
      woonoppervlakte: z.number().optional().describe('Woonoppervlakte in m², 20 tot en met 2000'),
    },
    call: (c, a) =>
      c.inzicht.waarde({
        adres: adres(a as AdresArgs),
        ...(a.peildatum !== undefined ? { peildatum: a.peildatum as string } : {}),
        ...(a.woonoppervlakte !== undefined ? { woonoppervlakte: a.woonoppervlakte as number } : {}),
      }),
  },
  {
    name: 'property_address',
    title: 'Adres- en BAG-kenmerken',
    description: 'Kenmerken uit de BAG voor één adres: oppervlakte, bouwjaar, gebruiksdoelen, status, buurt, coördinaten. Kost € 0,05.',
    inputShape: adresArgs,
    call: (c, a) => c.inzicht.adres({ adres: adres(a as AdresArgs) }),
  },
  {
    name: 'woz',
    title: 'WOZ-waarden',
    description: 'De WOZ-waarden van één adres per peildatum, nieuwste eerst. Kost € 0,05; een lege reeks is gratis.',
    inputShape: adresArgs,
    call: (c, a) => c.inzicht.woz({ adres: adres(a as AdresArgs) }),
  },
  {
    name: 'influences',
    title: 'Omgevingsinvloeden',
    description:
      `Stoplicht-indicatoren (rood/oranje/groen, afstand in meters) voor één adres, per type: ${INVLOED_TYPES.join(', ')}. ` +
      `Zonder types de kernset ${KERN_TYPES.join(' en ')}. Kost € 0,80. De eerste aanroep kan enkele seconden duren.`,
    inputShape: { ...adresArgs, types: z.array(z.string()).optional().describe(`Typen: ${INVLOED_TYPES.join(', ')}`) },
    call: (c, a) => c.inzicht.invloeden({ adres: adres(a as AdresArgs), ...(a.types !== undefined ? { types: a.types as never } : {}) }),
  },
];
