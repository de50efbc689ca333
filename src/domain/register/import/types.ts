/**
 * The contract between the import runner and the kinds of import (`insight import <soort> <bestand>`).
 *
 * A kind's `lees` is an async generator of records:
 *   { ok: true, tabel, rij }           a row for `tabel`, keyed by column (@map) name
 *   { ok: false, regel, reden }        a source record that is refused (line number, Dutch reason)
 * The parsers in src/domain/register/parsers/<soort>.ts yield exactly this (plus, optionally,
 * `adres` for rows whose adres_id the framework must look up); each module exports its kind (import/bestand-soort.ts).
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
  /** Source line, for the report if the row is refused later (optional). */
  regel?: number;
  /** Set by the runner when the parser gave no line: `regel` is then the record number. */
  regelIsRecordnummer?: boolean;
  /**
   * A row derived from a record that is already counted (the pand of an address line in the
   * NLExtract CSV): written and counted per table, but not counted again as "gelezen".
   */
  bijproduct?: boolean;
  /** Address to resolve into rij.adres_id (parsers of energy labels, WOZ, sales). */
  adres?: AdresSleutel;
}

export interface FoutRecord {
  ok: false;
  /** 1-based line (or, where a format has no lines, the record number). */
  regel: number;
  reden: string;
}

export type ImportRecord = RijRecord | FoutRecord;

export interface LeesContext {
  db: Database;
  /** Label of the current phase for the progress output ("lezen", "adressen koppelen", ...). */
  fase(tekst: string): void;
  /** Count source objects that are skipped on purpose (history, withdrawn), by reason. */
  overgeslagen(reden: string, aantal?: number): void;
  /** Extra facts for the summary (e.g. the extract date). */
  extra: Record<string, unknown>;
}

export interface ImportSoort {
  naam: string;
  omschrijving: string;
  /** What the input must be, in Dutch; used in errors and help. */
  verwacht: string;
  tabellen: readonly TabelNaam[];
  /** False for kinds that take no file (woningtype-afleiden). */
  bestandNodig: boolean;
  /**
   * Fast check of the input before anything is written: throws `VerkeerdFormaatFout` with a Dutch
   * message naming the expected format when the file is of another kind.
   */
  controleer?(bron: Bron): Promise<void>;
  /** The records; a kind may yield them one by one or in arrays (cheaper for millions of rows). */
  lees(bron: Bron | null, ctx: LeesContext): AsyncIterable<ImportRecord | ImportRecord[]>;
  /** Extra upsert condition per table (see UpsertOpties.voorwaarde). */
  voorwaarden?: Partial<Record<TabelNaam, string>>;
  /** Before a chunk of rows is written (e.g. resolve addresses); may turn rows into refusals. */
  voorbereid?(items: RijRecord[], db: Database): Promise<(RijRecord | FoutRecord)[]>;
  /** After all rows are written (e.g. derive house types); the result goes into the summary. */
  na?(db: Database, opts: { stil: boolean }): Promise<Record<string, unknown>>;
  /** Transactions in flight (default: 2 on PostgreSQL, 1 on PGlite). */
  parallel?: number;
}

/** The input is not of the kind asked for. The message says what was expected. */
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
  /** Source records read (rows of a CSV, objects of an extract, features of a GeoPackage). */
  gelezen: number;
  /** Rows written, summed over the tables (see `tabellen`). */
  ingevoegd: number;
  bijgewerkt: number;
  ongewijzigd: number;
  /** Source records refused (malformed, incomplete, or refused by the database). */
  afgewezen: number;
  /** The first refusals (line, reason); `redenenWeggelaten` counts the rest. */
  redenen: { regel: number; reden: string }[];
  redenenWeggelaten: number;
  /** Source objects skipped on purpose, by reason (historic voorkomens, withdrawn objects, ...). */
  overgeslagen: Record<string, number>;
  tabellen: Partial<Record<TabelNaam, UpsertTelling>>;
  duurSeconden: number;
  rijenPerSeconde: number;
  [extra: string]: unknown;
}
