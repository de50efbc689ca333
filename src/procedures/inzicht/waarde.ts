import { z } from 'zod';
import { InsightFout } from '../../core/errors.ts';
import { datumAmsterdam } from '../../core/tijd.ts';
import type { Subject } from '../../domain/valuation/index.ts';
import { maakLookup } from './maak-lookup.ts';
import { DEMO_BRON } from '../../domain/register/demo/opzet.ts';

const DATUM_RE = /^\d{4}-\d{2}-\d{2}$/;

function geldigeDatum(v: string): boolean {
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

/**
 * POST /api/v1/inzicht/waarde: the estimated market value with an 80 % band and a confidence label.
 * 18 credits; 422 (charged) when the comparable sales are too thin — never a number then.
 */
export const waarde = maakLookup({
  voorziening: 'waarde',
  pad: '/inzicht/waarde',
  schemaId: 'Marktwaarde',
  samenvatting: 'Marktwaarde (indicatief, geen taxatie)',
  beschrijving:
    'Geschatte marktwaarde in hele euro met een bandbreedte (min, max: een 80%-interval, gekalibreerd op gemeten fouten) en een betrouwbaarheidslabel ' +
    '(hoog, normaal, laag; de definitie staat in de README). Vergelijkbare verkopen vóór de peildatum, geïndexeerd naar de peildatum. ' +
    'Kost 18 credits (€ 0,90). Te weinig vergelijkbare verkopen: 422 zonder getal, wel in rekening gebracht.',
  extraInvoer: {
    peildatum: z
      .string({ error: 'verwacht een datum als tekst, JJJJ-MM-DD' })
      .regex(DATUM_RE, 'verwacht een datum als JJJJ-MM-DD')
      .refine(geldigeDatum, 'geen bestaande datum')
      .optional()
      .describe('Peildatum JJJJ-MM-DD; standaard vandaag (Europe/Amsterdam). Niet in de toekomst.'),
    // A pipe, not a bare z.int(): trpc-to-openapi would switch coerce on for a bare number field.
    woonoppervlakte: z
      .int({ error: 'verwacht een geheel getal (m²)' })
      .min(20, 'minimaal 20 m²')
      .max(2000, 'maximaal 2000 m²')
      .transform((v) => v)
      .optional()
      .describe('Woonoppervlakte in m², 20 tot en met 2000; vervangt de oppervlakte uit de BAG.'),
  },
  extraFouten: { 422: 'Te weinig vergelijkbare verkopen voor een waarde (in rekening gebracht), of onvoldoende gegevens over het adres.' },
  data: z.object({
    marktwaarde: z.int().describe('Geschatte marktwaarde, hele euro'),
    min: z.int().describe('Ondergrens van de bandbreedte, euro'),
    max: z.int().describe('Bovengrens van de bandbreedte, euro'),
    betrouwbaarheid: z.enum(['hoog', 'normaal', 'laag']),
    peildatum: z.string().describe('Y-m-d'),
    valuta: z.literal('EUR'),
  }),
  valideer(ctx, input) {
    const vandaag = datumAmsterdam(ctx.services.now());
    if (input.peildatum && input.peildatum > vandaag) {
      throw new InsightFout('ongeldige_invoer', `Ongeldige invoer: peildatum: ${input.peildatum} ligt in de toekomst (vandaag is ${vandaag}).`);
    }
  },
  async vind(ctx, a, input) {
    const { db, now, waardemodel } = ctx.services;
    const peildatum = input.peildatum ?? datumAmsterdam(now());
    const [label, type, eigen] = await Promise.all([
      db.energielabel.findUnique({ where: { adresId: a.id }, select: { label: true } }),
      db.woningtype.findUnique({ where: { adresId: a.id }, select: { woningtype: true } }),
      db.verkoop.findMany({ where: { adresId: a.id }, select: { id: true } }),
    ]);
    const oppervlakte = input.woonoppervlakte ?? a.oppervlakte;
    if (a.lat == null || a.lon == null || !oppervlakte) {
      return {
        status: 422,
        fout: !oppervlakte
          ? 'De woonoppervlakte van dit adres is onbekend; geef woonoppervlakte mee (20 tot en met 2000 m²).'
          : 'De ligging van dit adres is onbekend; een waarde is niet te bepalen.',
        gefactureerd: false,
      };
    }
    const model = await waardemodel.model();
    const subject: Subject = {
      lat: a.lat,
      lon: a.lon,
      oppervlakte,
      bouwjaar: a.bouwjaar,
      woningtype: type?.woningtype ?? null,
      energielabel: label?.label ?? null,
      uitsluiten: eigen.map((e) => e.id),
    };
    const w = model.waardeer(subject, peildatum);
    const extraMeta = { model_versie: model.info.versie, data_vintage: model.info.nieuwsteVerkoop, index_bron: model.info.indexBron };
    if (w.soort === 'te_weinig') return { status: 422, fout: w.reden, extraMeta };
    return {
      status: 200,
      data: { marktwaarde: w.marktwaarde, min: w.min, max: w.max, betrouwbaarheid: w.betrouwbaarheid, peildatum, valuta: 'EUR' as const },
      // An address of the synthetic demo is valued from the demo's synthetic sales: say so (README).
      bron: { naam: `${a.bron === DEMO_BRON ? `${DEMO_BRON}: ` : ''}verkopen (${model.info.verkopen})`, datum: model.info.nieuwsteVerkoop },
      gefactureerd: true,
      extraMeta,
    };
  },
});
