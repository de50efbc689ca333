/**
 * A kind that reads files with one of ../parsers/. A row whose table needs an address is refused when it
 * is unknown or ambiguous; a verkoop keeps it null.
 */
import type { Readable } from 'node:stream';
import { resolveAdresIds } from '../parsers/gedeeld.ts';
import { bestanden, beschrijfKop, type Bron } from './bron.ts';
import { TABELLEN, type TabelNaam } from './tabellen.ts';
import { controleerUtf8 } from './utf8.ts';
import { type FoutRecord, type ImportRecord, type ImportSoort, type RijRecord, VerkeerdFormaatFout } from './types.ts';

export type ParserRecord = (Omit<RijRecord, 'rij'> & { rij: object }) | FoutRecord;

export interface BestandSoortDef {
  naam: string;
  omschrijving: string;
  verwacht: string;
  tabellen: TabelNaam[];
  parse: (input: NodeJS.ReadableStream) => AsyncIterable<ParserRecord>;
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  na?: ImportSoort['na'];
}

function adresTekst(a: NonNullable<RijRecord['adres']>): string {
  const extra = [a.huisletter, a.toevoeging].filter(Boolean).join(a.gecombineerd ? '' : '-');
  return `${a.postcode} ${a.huisnummer}${extra ? ` ${extra}` : ''}`;
}

export function bestandSoort(def: BestandSoortDef): ImportSoort {
  const { parse } = def;
  return {
    naam: def.naam,
    omschrijving: def.omschrijving,
    verwacht: def.verwacht,
    tabellen: def.tabellen,
    bestandNodig: true,
    voorwaarden: def.voorwaarden ?? {},
    ...(def.na ? { na: def.na } : {}),
    async controleer(bron: Bron) {
      if (bron.soort === 'bestand') {
        const b = beschrijfKop(bron.kop);
        if (b.soort === 'sqlite' || b.soort === 'binair' || b.soort === 'gzip' || b.soort === 'leeg') {
          throw new VerkeerdFormaatFout(`Dit is ${b.tekst}. Verwacht: ${def.verwacht}.`);
        }
      }
      // Every file up to the parser's header check (lees reads them all), so one of another kind is refused before anything is written.
      const voor = bron.gelezenBytes;
      try {
        for await (const b of bestanden(bron, { filter: (i) => i.isZip || !/(^|\/)(\.|__MACOSX)/.test(i.naam) })) {
          const stroom = (await b.open()) as Readable;
          const it = parse(stroom)[Symbol.asyncIterator]();
          try {
            await it.next();
          } catch (e) {
            const m = e instanceof Error ? e.message : String(e);
            throw new VerkeerdFormaatFout(bron.soort === 'bestand' ? m : `${b.naam}: ${m}`);
          } finally {
            await it.return?.(undefined);
            stroom.destroy();
          }
        }
      } finally {
        bron.gelezenBytes = voor;
      }
      await controleerUtf8(bron, (i) => !/(^|\/)(\.|__MACOSX)/.test(i.naam));
    },
    async *lees(bron) {
      const meer = bron!.soort !== 'bestand';
      for await (const b of bestanden(bron!, { filter: (i) => i.isZip || !/(^|\/)(\.|__MACOSX)/.test(i.naam) })) {
        for await (const r of parse((await b.open()) as Readable)) {
          yield (r.ok || !meer ? r : { ...r, reden: `${b.naam}: ${r.reden}` }) as ImportRecord;
        }
      }
    },
    async voorbereid(items, db) {
      const metAdres = items.filter((i) => i.adres && (i.rij.adres_id === null || i.rij.adres_id === undefined));
      if (metAdres.length === 0) return items;
      const uitkomst = await resolveAdresIds(db.prisma, metAdres.map((i) => i.adres!));
      const perItem = new Map(metAdres.map((it, i) => [it, uitkomst[i]]));
      return items.map((it): RijRecord | FoutRecord => {
        const u = perItem.get(it);
        if (!u) return it;
        if (u.adresId !== null) return { ...it, rij: { ...it.rij, adres_id: u.adresId } };
        const nodig = TABELLEN[it.tabel].kolommen.find((c) => c.naam === 'adres_id')?.verplicht ?? false;
        if (!nodig) return it;
        const waar = it.regelIsRecordnummer ? ` (record ${it.regel})` : '';
        const a = it.adres!;
        const opties = u.opties?.length ? `${u.opties.slice(0, 10).join(', ')}${u.opties.length > 10 ? ` en ${u.opties.length - 10} meer` : ''}` : '';
        const reden =
          u.reden === 'onbekend'
            ? opties
              ? `adres ${adresTekst(a)} niet gevonden; de BAG kent op ${a.postcode} ${a.huisnummer} alleen ${opties}`
              : `adres ${adresTekst(a)} niet gevonden in de adrestabel (importeer eerst de BAG)`
            : `adres ${adresTekst(a)} is meerduidig (${opties ? `in de BAG: ${opties}` : 'meer dan één BAG-adres past'})`;
        return { ok: false, regel: it.regel ?? 0, reden: `${reden}${waar}` };
      });
    },
  };
}
