/** Written out, so the compiler and a reader see every link. */
import { energielabelsSoort } from '../parsers/energielabels.ts';
import { invloedenSoort } from '../parsers/invloeden.ts';
import { prijsindexSoort } from '../parsers/prijsindex.ts';
import { verkopenSoort } from '../parsers/verkopen.ts';
import { wozSoort } from '../parsers/woz.ts';
import { bagCsv } from './bag-csv.ts';
import { bagGpkg } from './bag-gpkg.ts';
import { bagXml } from './bag-xml.ts';
import { invloedenAfleiden } from './invloeden-na.ts';
import type { ImportSoort } from './types.ts';
import { woningtypeAfleiden } from './woningtype-soort.ts';

const SOORTEN: ReadonlyMap<string, ImportSoort> = new Map(
  [bagXml, bagCsv, bagGpkg, woningtypeAfleiden, invloedenAfleiden, energielabelsSoort, prijsindexSoort, wozSoort, verkopenSoort, invloedenSoort].map((s) => [s.naam, s]),
);

export function soortenOverzicht(): { naam: string; omschrijving: string }[] {
  return [...SOORTEN.values()].map((s) => ({ naam: s.naam, omschrijving: s.omschrijving }));
}

export function laadSoorten(): Promise<ReadonlyMap<string, ImportSoort>> {
  return Promise.resolve(SOORTEN);
}
