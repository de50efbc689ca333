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

/** Runs once every row is written, only when reading and writing succeeded; `sluit` runs in any case. */
export interface NaSchrijven {
  voer(db: Database): Promise<Record<string, unknown>>;
  sluit(): void;
}

export interface LeesContext {
  db: Database;
  fase(tekst: string): void;
  overgeslagen(reden: string, aantal?: number): void;
  naSchrijven(stap: NaSchrijven): void;
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

/** A bron ending in its extract date ("BAG 2.0 Extract 2024-01-01"): an older one never overwrites a newer one. */
const BRON_DATUM = (t: string) => `substring(${t}.bron from '\\d{4}-\\d{2}-\\d{2}$')`;
export const BAG_VOORWAARDEN: Partial<Record<TabelNaam, string>> = {
  adres: 'adres.bron_datum IS NULL OR excluded.bron_datum IS NULL OR excluded.bron_datum >= adres.bron_datum',
  pand: `${BRON_DATUM('pand')} IS NULL OR ${BRON_DATUM('excluded')} IS NULL OR ${BRON_DATUM('excluded')} >= ${BRON_DATUM('pand')}`,
};

/** Amsterdam writes 1005 for "unknown"; a year outside 1000 .. `tot` + 5 is no year either. */
export function bouwjaarOfNull(j: number | null, tot: number): number | null {
  return j !== null && Number.isInteger(j) && j >= 1000 && j <= tot + 5 && j !== 1005 ? j : null;
}

/** A BAG import kind: reads one source and writes addresses, panden and (after it) house types. */
export function bagSoort(s: Pick<ImportSoort, 'naam' | 'omschrijving' | 'verwacht' | 'controleer' | 'lees' | 'na'>): ImportSoort {
  return { ...s, tabellen: ['adres', 'pand', 'woningtype'], bestandNodig: true, voorwaarden: BAG_VOORWAARDEN };
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
