/**
 * The contract between the import runner and the kinds of import: a kind's `lees` yields
 * `{ ok: true, tabel, rij }` (a row keyed by column name, optionally with an `adres` to resolve) or
 * `{ ok: false, regel, reden }` (a refused source record).
 */
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
  /** Set by the runner when the parser gave no line: `regel` is then the record number. */
  regelIsRecordnummer?: boolean;
  /**
   * A row derived from a record that is already counted (the pand of an address line in the
   * NLExtract CSV): written and counted per table, but not counted again as "gelezen".
   */
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
  /** Count source objects that are skipped on purpose (history, withdrawn), by reason. */
  overgeslagen(reden: string, aantal?: number): void;
  extra: Record<string, unknown>;
}

export interface ImportSoort {
  naam: string;
  omschrijving: string;
  verwacht: string;
  tabellen: readonly TabelNaam[];
  bestandNodig: boolean;
  /** Refuses a file of another kind (VerkeerdFormaatFout) before anything is written. */
  controleer?(bron: Bron): Promise<void>;
  /** The records; a kind may yield them one by one or in arrays (cheaper for millions of rows). */
  lees(bron: Bron | null, ctx: LeesContext): AsyncIterable<ImportRecord | ImportRecord[]>;
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  /** Before a chunk is written (resolve addresses); may turn rows into refusals. */
  voorbereid?(items: RijRecord[], db: Database): Promise<(RijRecord | FoutRecord)[]>;
  na?(db: Database, opts: { stil: boolean }): Promise<Record<string, unknown>>;
  parallel?: number;
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
  /** Source objects skipped on purpose, by reason (historic voorkomens, withdrawn objects, ...). */
  overgeslagen: Record<string, number>;
  tabellen: Partial<Record<TabelNaam, UpsertTelling>>;
  duurSeconden: number;
  rijenPerSeconde: number;
  [extra: string]: unknown;
}
