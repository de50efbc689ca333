import type { Database } from '../../../db/client.ts';
import { leidWoningtypenAf, legeStatistiek, woningtypeRijen } from '../woningtype.ts';
import { invloedenNaBag } from './invloeden-na.ts';
import type { ImportRecord, ImportSoort } from './types.ts';

export async function woningtypeNa(db: Database): Promise<Record<string, unknown>> {
  return { woningtype: await leidWoningtypenAf(db), ...(await invloedenNaBag(db)) };
}

export const woningtypeAfleiden: ImportSoort = {
  naam: 'woningtype-afleiden',
  omschrijving: 'woningtype afleiden uit de BAG (appartement, vrijstaand, twee-onder-een-kap, hoekwoning, tussenwoning, overig) voor adressen zonder geïmporteerd woningtype',
  verwacht: 'geen bestand',
  tabellen: ['woningtype'],
  bestandNodig: false,
  async *lees(_bron, ctx): AsyncGenerator<ImportRecord> {
    const stat = legeStatistiek();
    ctx.fase('afleiden');
    for await (const rij of woningtypeRijen(ctx.db, stat)) {
      yield { ok: true, tabel: 'woningtype', rij: { ...rij } };
    }
    ctx.extra.woningtype = stat;
  },
};
