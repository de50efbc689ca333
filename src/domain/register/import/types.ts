import type { Database } from '../../../db/client.ts';
import type { AdresSleutel } from '../parsers/gedeeld.ts';
import type { Bron } from './bron.ts';
import type { UpsertTelling } from './schrijver.ts';
import type { TabelNaam } from './tabellen.ts';

export interface RijRecord {
  ok: true;
  tabel: TabelNaam;
  rij: Record<string, unknown>;
  regel?: number;
  regelIsRecordnummer?: boolean;
  /** Written and counted per table, not again as "gelezen" (the pand of an NLExtract address line). */
  bijproduct?: boolean;
  adres?: AdresSleutel;
}

export interface FoutRecord {
  ok: false;
  regel: number;
  reden: string;
}

export type ImportRecord = RijRecord | FoutRecord;

export interface LeesContext {
  db: Database;
  fase(tekst: string): void;
  overgeslagen(reden: string, aantal?: number): void;
  extra: Record<string, unknown>;
}

export interface ImportSoort {
  naam: string;
  omschrijving: string;
  verwacht: string;
  tabellen: readonly TabelNaam[];
  bestandNodig: boolean;
  controleer?(bron: Bron): Promise<void>;
  /** One by one or in arrays (cheaper for millions of rows). */
  lees(bron: Bron | null, ctx: LeesContext): AsyncIterable<ImportRecord | ImportRecord[]>;
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  voorbereid?(items: RijRecord[], db: Database): Promise<(RijRecord | FoutRecord)[]>;
  na?(db: Database, opts: { stil: boolean }): Promise<Record<string, unknown>>;
  parallel?: number;
}

/** A BAG import kind: reads one source and writes addresses, panden and (after it) house types. */
export function bagSoort(s: Pick<ImportSoort, 'naam' | 'omschrijving' | 'verwacht' | 'controleer' | 'lees' | 'na'>): ImportSoort {
  return { ...s, tabellen: ['adres', 'pand', 'woningtype'], bestandNodig: true };
}

export class VerkeerdFormaatFout extends Error {
  constructor(bericht: string) {
    super(bericht);
    this.name = 'VerkeerdFormaatFout';
  }
}

export interface ImportSamenvatting {
  soort: string;
  bestand: string | null;
  sha256: string | null;
  importRunId: string;
  gelezen: number;
  ingevoegd: number;
  bijgewerkt: number;
  ongewijzigd: number;
  afgewezen: number;
  redenen: { regel: number; reden: string }[];
  redenenWeggelaten: number;
  overgeslagen: Record<string, number>;
  tabellen: Partial<Record<TabelNaam, UpsertTelling>>;
  duurSeconden: number;
  rijenPerSeconde: number;
  [extra: string]: unknown;
}
