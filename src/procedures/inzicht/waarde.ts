import { z } from 'zod';
import { InsightFout } from '../../core/errors.ts';
import { DATUM_INVOER_RE, datumAmsterdam } from '../../domain/begrippen.ts';
import { MAX_WOONOPPERVLAKTE, MIN_WOONOPPERVLAKTE, waardeerAdres, waarderingsKandidaten } from '../../domain/valuation/adres-waarde.ts';
import { WaardemodelNietGereed } from '../../domain/valuation/houder.ts';
import { maakLookup } from './maak-lookup.ts';
import { DEMO_BRON, deelVan } from '../../domain/register/demo/opzet.ts';

function geldigeDatum(v: string): boolean {
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

const peildatumSchema = z
  .string({ error: 'verwacht een datum als tekst, JJJJ-MM-DD' })
  .regex(DATUM_INVOER_RE, 'verwacht een datum als JJJJ-MM-DD, niet vóór 1900-01-01')
  .refine(geldigeDatum, 'geen bestaande datum')
  .optional()
  .describe(
    'Peildatum JJJJ-MM-DD, van 1900-01-01 tot en met vandaag; standaard vandaag (Europe/Amsterdam). Vergelijkbare verkopen van vóór die datum; ' +
      'index, correcties en kalibratie zijn geschat op alle verkopen, dus een waarde op een datum in het verleden kan na een import van latere verkopen licht verschuiven.',
  );

/** 422 (charged) when the comparable sales are too thin: never a number then. */
export const waarde = maakLookup({
  voorziening: 'waarde',
  pad: '/inzicht/waarde',
  schemaId: 'Marktwaarde',
  samenvatting: 'Marktwaarde (indicatief, geen taxatie)',
  beschrijving:
    'Geschatte marktwaarde in hele euro met een bandbreedte (min, max: een 80%-interval, gekalibreerd op gemeten fouten) en een betrouwbaarheidslabel ' +
    '(hoog: kans_binnen_10_procent is minstens 0,90 en bij vergelijkbare waarderingen lag de verkoopprijs gemeten in minstens 90 % van de gevallen binnen 10 % van de waarde; laag: bij vergelijkbare waarderingen lag de verkoopprijs in minder dan 75 % van de gevallen binnen 20 %; normaal: daartussen). Zonder kalibratie (te weinig verkopen om fouten te meten): betrouwbaarheid laag, een bandbreedte van minstens −20 % tot +25 % en kans_binnen_10_procent hoogstens 0,43. Vergelijkbare verkopen vóór de peildatum, geïndexeerd naar de peildatum. ' +
    'Kost {prijs}. Te weinig vergelijkbare verkopen: 422 zonder getal, wel in rekening gebracht. Gratis 422: het adres is geen woning (geen woonfunctie in de BAG) of bestond op de peildatum nog niet, de woonoppervlakte of ligging ervan is onbekend, of de peildatum ligt niet na de oudste verkoop in de gegevens.',
  extraInvoer: {
    peildatum: peildatumSchema,
    // A pipe, not a bare z.int(): trpc-to-openapi would switch coerce on for a bare number field.
    woonoppervlakte: z
      .int({ error: 'verwacht een geheel getal (m²)' })
      .min(MIN_WOONOPPERVLAKTE, `minimaal ${MIN_WOONOPPERVLAKTE} m²`)
      .max(MAX_WOONOPPERVLAKTE, `maximaal ${MAX_WOONOPPERVLAKTE} m²`)
      .transform((v) => v)
      .optional()
      .describe('Woonoppervlakte in m², 20 tot en met 2000; vervangt de oppervlakte uit de BAG.'),
  },
  mcp: {
    tool: 'property_value',
    titel: 'Marktwaarde',
    beschrijving:
      'Geschatte marktwaarde (hele euro) met bandbreedte min/max (80%-interval) en betrouwbaarheid (hoog/normaal/laag) voor één Nederlands adres. ' +
      'Indicatief, geen taxatie. Kost {prijs}; te weinig vergelijkbare verkopen geeft een fout zonder getal (wel in rekening gebracht); een adres dat geen woning is, of zonder bekende woonoppervlakte, een gratis fout.',
  },
  extraFouten: { 422: 'Te weinig vergelijkbare verkopen voor een waarde (in rekening gebracht); of, gratis: het adres is geen woning (geen woonfunctie in de BAG) of bestond op de peildatum nog niet, de woonoppervlakte of ligging ervan is onbekend, of de peildatum ligt niet na de oudste verkoop in de gegevens.' },
  data: z.object({
    marktwaarde: z.int().describe('Geschatte marktwaarde, hele euro'),
    min: z.int().describe('Ondergrens van de bandbreedte, euro'),
    max: z.int().describe('Bovengrens van de bandbreedte, euro'),
    betrouwbaarheid: z.enum(['hoog', 'normaal', 'laag']),
    kans_binnen_10_procent: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'Kans (0–1) dat de verkoopprijs binnen 10% van de marktwaarde ligt, gekalibreerd op gemeten fouten; betrouwbaarheid is hoog alleen bij 0,90 of meer. ' +
          'Zonder kalibratie (te weinig verkopen) een aanname uit de spreiding van de vergelijkbare verkopen, nooit meer dan betrouwbaarheid laag toelaat: hoogstens 0,43.',
      ),
    peildatum: z.string().describe('Y-m-d'),
    valuta: z.literal('EUR'),
  }),
  valideer(ctx, input) {
    const vandaag = datumAmsterdam(ctx.services.now());
    if (input.peildatum && input.peildatum > vandaag) {
      throw new InsightFout('ongeldige_invoer', `Ongeldige invoer: peildatum: ${input.peildatum} ligt in de toekomst (vandaag is ${vandaag}).`);
    }
  },
  kandidaten: waarderingsKandidaten,
  async vind(ctx, a, input) {
    const peildatum = input.peildatum ?? datumAmsterdam(ctx.services.now());
    const model = await ctx.services.waardemodel.model(deelVan(a.bron)).catch((e: unknown) => {
      // Before the first model after a start: 503, not charged.
      throw e instanceof WaardemodelNietGereed ? new InsightFout('niet_beschikbaar', e.message, { headers: { 'Retry-After': '15' } }) : e;
    });
    const w = waardeerAdres(model, a, peildatum, input.woonoppervlakte);
    if (w.soort === 'onvoldoende_gegevens') return { status: 422, fout: w.reden, gefactureerd: false };
    const extraMeta = { model_versie: w.info.versie, data_vintage: w.info.nieuwsteVerkoop, index_bron: w.info.indexBron };
    if (w.soort === 'te_weinig') return { status: 422, fout: w.reden, extraMeta };
    return {
      status: 200,
      data: { marktwaarde: w.marktwaarde, min: w.min, max: w.max, betrouwbaarheid: w.betrouwbaarheid, kans_binnen_10_procent: w.kansBinnen10, peildatum, valuta: 'EUR' as const },
      bron: { naam: `${a.bron === DEMO_BRON ? `${DEMO_BRON}: ` : ''}verkopen (${w.info.verkopen})`, datum: w.info.nieuwsteVerkoop },
      gefactureerd: true,
      extraMeta,
    };
  },
});
