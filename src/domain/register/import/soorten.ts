/**
 * The registry of import kinds: kind -> { omschrijving, tabellen, controleer, lees, ... }.
 *
 * Built in: bag-xml, bag-csv, bag-gpkg, woningtype-afleiden and invloeden-afleiden (adres_invloed
 * from invloed_object; also run after an `invloeden` import). The kinds energielabels, prijsindex,
 * woz, verkopen and invloeden are registered when their parser module exists in
 * src/domain/register/parsers/<soort>.ts. Such a module exports an async generator function
 * `parse<Naam>(input: NodeJS.ReadableStream, opts?)` yielding
 *   { ok: true, tabel, rij [, adres] } | { ok: false, regel, reden }
 * Rows with `adres` get their adres_id resolved here (resolveAdresIds from parsers/gedeeld.ts); a row
 * whose table needs adres_id (woz_waarde, energielabel) is refused when the address is unknown or
 * ambiguous, a verkoop keeps adres_id null. A module may export `<TABEL>_UPSERT_VOORWAARDE` (SQL) to
 * decide which of two rows with the same key wins (energy labels: the newest registration).
 * Rows without `regel` are reported by record number. A parser's header check (on its first record)
 * also runs in `controleer`, so a file of another kind is refused before anything is recorded.
 */
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Database } from '../../../db/client.ts';
import { bagCsv } from './bag-csv.ts';
import { bagGpkg } from './bag-gpkg.ts';
import { bagXml } from './bag-xml.ts';
import { bestanden, beschrijfKop, type Bron } from './bron.ts';
import { TABELLEN, type TabelNaam, isTabelNaam } from './tabellen.ts';
import { type FoutRecord, type ImportRecord, type ImportSoort, type RijRecord, VerkeerdFormaatFout } from './types.ts';
import { invloedenAfleiden, leidAdresInvloedenAf } from './invloeden-na.ts';
import { woningtypeAfleiden } from './woningtype-soort.ts';

interface ExterneSoort {
  naam: string;
  module: string;
  tabellen: TabelNaam[];
  omschrijving: string;
  verwacht: string;
}

const EXTERN: ExterneSoort[] = [
  {
    naam: 'energielabels',
    module: 'energielabels.ts',
    tabellen: ['energielabel'],
    omschrijving: 'EP-Online energielabels (open-data CSV)',
    verwacht: 'een EP-Online-energielabelbestand (CSV, los of gezipt)',
  },
  {
    naam: 'prijsindex',
    module: 'prijsindex.ts',
    tabellen: ['prijsindex'],
    omschrijving: 'CBS prijsindex bestaande koopwoningen (StatLine CSV)',
    verwacht: 'een CBS StatLine-CSV van de prijsindex bestaande koopwoningen',
  },
  { naam: 'woz', module: 'woz.ts', tabellen: ['woz_waarde'], omschrijving: 'WOZ-waarden (CSV)', verwacht: 'een WOZ-bestand (CSV)' },
  { naam: 'verkopen', module: 'verkopen.ts', tabellen: ['verkoop'], omschrijving: 'verkooptransacties (CSV)', verwacht: 'een verkopenbestand (CSV)' },
  {
    naam: 'invloeden',
    module: 'invloeden.ts',
    tabellen: ['invloed_object', 'adres_invloed'],
    omschrijving: 'omgevingsinvloeden (Natura 2000, hoogspanning, ...)',
    verwacht: 'een bestand met invloedobjecten',
  },
];

const parsersMap = new URL('../parsers/', import.meta.url);

type ParseFn = (input: NodeJS.ReadableStream, opts?: unknown) => AsyncIterable<ImportRecord>;

function vindParser(mod: Record<string, unknown>, naam: string): ParseFn | null {
  const kandidaten = Object.entries(mod).filter(([k, v]) => typeof v === 'function' && /^parse/i.test(k));
  const asyncGen = kandidaten.filter(([, v]) => (v as { constructor?: { name?: string } }).constructor?.name === 'AsyncGeneratorFunction');
  const lijst = asyncGen.length ? asyncGen : kandidaten;
  const voorkeur = lijst.find(([k]) => k.toLowerCase() === `parse${naam}`.toLowerCase()) ?? lijst[0];
  if (voorkeur) return voorkeur[1] as ParseFn;
  return typeof mod.default === 'function' ? (mod.default as ParseFn) : null;
}

type Resolver = (
  prisma: Database['prisma'],
  sleutels: NonNullable<RijRecord['adres']>[],
) => Promise<({ adresId: string } | { adresId: null; reden: 'onbekend' | 'meerduidig' })[]>;

function adresTekst(a: NonNullable<RijRecord['adres']>): string {
  const extra = [a.huisletter, a.toevoeging].filter(Boolean).join(a.gecombineerd ? '' : '-');
  return `${a.postcode} ${a.huisnummer}${extra ? ` ${extra}` : ''}`;
}

async function maakExterneSoort(def: ExterneSoort): Promise<ImportSoort | null> {
  const url = new URL(def.module, parsersMap);
  if (!existsSync(url)) return null;
  const mod = (await import(url.href)) as Record<string, unknown>;
  const parse = vindParser(mod, def.naam);
  if (!parse) return null;
  let resolver: Resolver | null = typeof mod.resolveAdresIds === 'function' ? (mod.resolveAdresIds as Resolver) : null;
  if (!resolver && existsSync(new URL('gedeeld.ts', parsersMap))) {
    const g = (await import(new URL('gedeeld.ts', parsersMap).href)) as Record<string, unknown>;
    if (typeof g.resolveAdresIds === 'function') resolver = g.resolveAdresIds as Resolver;
  }
  const voorwaarden: Partial<Record<TabelNaam, string>> = {};
  for (const [k, v] of Object.entries(mod)) {
    const m = /^([A-Z_]+)_UPSERT_VOORWAARDE$/.exec(k);
    const tabel = m?.[1].toLowerCase();
    if (m && typeof v === 'string' && isTabelNaam(tabel)) voorwaarden[tabel] = v;
  }
  return {
    naam: def.naam,
    omschrijving: def.omschrijving,
    verwacht: def.verwacht,
    tabellen: def.tabellen,
    bestandNodig: true,
    voorwaarden,
    // The invloeden parser writes the objects; the rows per address are derived from them here.
    ...(def.naam === 'invloeden' ? { na: async (db: Database) => ({ adresInvloed: await leidAdresInvloedenAf(db) }) } : {}),
    async controleer(bron: Bron) {
      if (bron.soort === 'bestand') {
        const b = beschrijfKop(bron.kop);
        if (b.soort === 'sqlite' || b.soort === 'binair' || b.soort === 'gzip' || b.soort === 'leeg') {
          throw new VerkeerdFormaatFout(`Dit is ${b.tekst}. Verwacht: ${def.verwacht}.`);
        }
      }
      // The parsers check the header on their first record: read up to there, so that a file of
      // another kind is refused before anything is recorded or written.
      const voor = bron.gelezenBytes;
      try {
        for await (const b of bestanden(bron, { filter: (i) => i.isZip || !/(^|\/)(\.|__MACOSX)/.test(i.naam) })) {
          const stroom = (await b.open()) as Readable;
          const it = parse(stroom)[Symbol.asyncIterator]();
          try {
            await it.next();
          } catch (e) {
            throw new VerkeerdFormaatFout(e instanceof Error ? e.message : String(e));
          } finally {
            await it.return?.(undefined);
            stroom.destroy();
          }
          break;
        }
      } finally {
        bron.gelezenBytes = voor;
      }
    },
    async *lees(bron) {
      // One file: the parser reads it. A zip or folder: each file in it (not hidden ones).
      const meer = bron!.soort !== 'bestand';
      for await (const b of bestanden(bron!, { filter: (i) => i.isZip || !/(^|\/)(\.|__MACOSX)/.test(i.naam) })) {
        for await (const r of parse((await b.open()) as Readable)) {
          yield r.ok || !meer ? r : { ...r, reden: `${b.naam}: ${r.reden}` };
        }
      }
    },
    async voorbereid(items, db) {
      const metAdres = items.filter((i) => i.adres && (i.rij.adres_id === null || i.rij.adres_id === undefined));
      if (metAdres.length === 0) return items;
      if (!resolver) throw new Error('Adressen kunnen niet worden opgezocht: parsers/gedeeld.ts (resolveAdresIds) ontbreekt.');
      const uitkomst = await resolver(db.prisma, metAdres.map((i) => i.adres!));
      const perItem = new Map(metAdres.map((it, i) => [it, uitkomst[i]]));
      return items.map((it): RijRecord | FoutRecord => {
        const u = perItem.get(it);
        if (!u) return it;
        if (u.adresId !== null) return { ...it, rij: { ...it.rij, adres_id: u.adresId } };
        const nodig = TABELLEN[it.tabel].kolommen.find((c) => c.naam === 'adres_id')?.verplicht ?? false;
        if (!nodig) return it;
        const waar = it.regelIsRecordnummer ? ` (record ${it.regel})` : '';
        return {
          ok: false,
          regel: it.regel ?? 0,
          reden:
            u.reden === 'meerduidig'
              ? `adres ${adresTekst(it.adres!)} is meerduidig (meer dan één BAG-adres past)${waar}`
              : `adres ${adresTekst(it.adres!)} niet gevonden in de adrestabel (importeer eerst de BAG)${waar}`,
        };
      });
    },
  };
}

const INGEBOUWD: ImportSoort[] = [bagXml, bagCsv, bagGpkg, woningtypeAfleiden, invloedenAfleiden];

/** Every kind with its description, synchronously (for --help); external ones marked when absent. */
export function soortenOverzicht(): { naam: string; omschrijving: string; beschikbaar: boolean }[] {
  return [
    ...INGEBOUWD.map((s) => ({ naam: s.naam, omschrijving: s.omschrijving, beschikbaar: true })),
    ...EXTERN.map((d) => ({ naam: d.naam, omschrijving: d.omschrijving, beschikbaar: existsSync(new URL(d.module, parsersMap)) && !laadFouten.has(d.naam) })),
  ];
}

let cache: Promise<Map<string, ImportSoort>> | null = null;

/** External kinds whose parser module exists but failed to load (kind -> error). */
export const laadFouten = new Map<string, string>();

/** All kinds available now (the external ones only when their parser module exists). */
export function laadSoorten(): Promise<Map<string, ImportSoort>> {
  cache ??= (async () => {
    const m = new Map<string, ImportSoort>();
    for (const s of INGEBOUWD) m.set(s.naam, s);
    for (const def of EXTERN) {
      try {
        const s = await maakExterneSoort(def);
        if (s) m.set(s.naam, s);
      } catch (e) {
        // A parser module that does not load must not take the BAG importers down with it.
        laadFouten.set(def.naam, e instanceof Error ? e.message : String(e));
      }
    }
    return m;
  })();
  cache.catch(() => {
    cache = null;
  });
  return cache;
}
