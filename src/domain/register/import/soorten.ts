/**
 * The registry of import kinds (`insight import <soort>`), written out: every kind is a module that
 * exports its ImportSoort, imported here by name, so the compiler and a reader see every link.
 *
 * Built in: bag-xml, bag-csv, bag-gpkg, woningtype-afleiden and invloeden-afleiden (adres_invloed from
 * invloed_object; also run after an `invloeden` import). The file kinds energielabels, prijsindex,
 * woz, verkopen and invloeden are the parsers in ../parsers/, each made a kind by bestand-soort.ts.
 */
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
