/**
 * Public types of the market-value model. The REST/MCP layer and the CLI code against exactly
 * these names; everything else in this folder is an implementation detail.
 */

/** One held sale (a land-registry purchase, or a row of the generic sales CSV). */
export interface SaleRecord {
  /** Unique per sale (not per dwelling: a dwelling sold twice has two records). */
  id: string;
  /** Transfer date, Y-m-d. */
  datum: string;
  /** Price in whole euros. */
  prijs: number;
  /** Living area in m2. */
  oppervlakte: number | null;
  /** Plot area in m2 (null or 0 for apartments). */
  perceel: number | null;
  bouwjaar: number | null;
  /** vrijstaand | twee-onder-een-kap | hoekwoning | tussenwoning | appartement | overig */
  woningtype: string | null;
  energielabel: string | null;
  lat: number;
  lon: number;
  /**
   * Optional identifier of the dwelling (e.g. the BAG verblijfsobject id). Sales sharing it are
   * the same dwelling: the backtest and the calibration exclude them as the subject's own sales,
   * exactly as the endpoint does with `Subject.uitsluiten`.
   */
  objectId?: string | null;
  /** Optional further attributes (see KENMERKEN); absent or null = unknown. */
  kenmerken?: Kenmerken | null;
  /**
   * The dwelling's WOZ value known at the sale: the newest with a peildatum at least a year before
   * it (woz.ts; a younger one is ignored). Absent or null = none held.
   */
  woz?: WozWaarde | null;
}

/** One WOZ value of a dwelling: a mass appraisal of its market value at `peildatum`. */
export interface WozWaarde {
  /** Whole euros. */
  waarde: number;
  /** Y-m-d (usually 1 January of the year before the tax year). */
  peildatum: string;
}

/**
 * Further dwelling attributes a sales file may carry (optional columns of the sales CSV,
 * docs/import-formaten.md). Ordinal ones are on the file's own scale, higher = better: the learner
 * is fitted per dataset, so only their order within one file matters. A Dutch register holds none
 * of them today; where a file has them, the learner uses them.
 */
export const KENMERKEN = ['kwaliteit', 'staat', 'uitzicht', 'aan_water', 'renovatiejaar', 'slaapkamers', 'badkamers', 'bouwlagen'] as const;
export type Kenmerk = (typeof KENMERKEN)[number];
export type Kenmerken = Partial<Record<Kenmerk, number | null>>;

/** One point of a monthly house-price index (e.g. CBS PBK, 2015=100). */
export interface PriceIndexPoint {
  /** 'YYYY-MM' */
  periode: string;
  index: number;
}

/** The dwelling to value. */
export interface Subject {
  lat: number;
  lon: number;
  /** Living area in m2. */
  oppervlakte: number;
  perceel?: number | null;
  bouwjaar?: number | null;
  woningtype?: string | null;
  energielabel?: string | null;
  /** sale ids never used as comparables (the subject's own sales) */
  uitsluiten?: string[];
  /**
   * Dwelling id (the `objectId` of the held sales, e.g. the address id): all sales of this dwelling
   * are never used as comparables (nor in its location statistic). Needs no per-request query.
   */
  uitsluitenWoning?: string | null;
  /** Further attributes (see KENMERKEN), when known. */
  kenmerken?: Kenmerken | null;
  /** The dwelling's held WOZ series (any order); only the newest known at the peildatum is used (woz.ts). */
  woz?: readonly WozWaarde[] | null;
}

export type Betrouwbaarheid = 'hoog' | 'normaal' | 'laag';

/** A value: all amounts are whole euros and `min <= marktwaarde <= max`. */
export interface Waardering {
  soort: 'waarde';
  marktwaarde: number;
  min: number;
  max: number;
  betrouwbaarheid: Betrouwbaarheid;
  /** Number of comparables that entered the weighted median. */
  nComps: number;
  /** Effective number of comparables, (sum w)^2 / sum w^2. */
  nEff: number;
  /** Weighted median absolute deviation of the comparables' adjusted log prices (0.10 ~ 10 %). */
  spreiding: number;
  /**
   * Probability (0–1) that the sale price lies within 10 % of `marktwaarde`, calibrated on held-out
   * valuations as the band is; `betrouwbaarheid` is 'hoog' only where it is >= 0.90.
   */
  kansBinnen10: number;
  /** Whether a WOZ sales-ratio estimate entered the value. */
  wozGebruikt: boolean;
}

/** Refusal: the evidence is too thin for a number (the endpoint answers 422). */
export interface Weigering {
  soort: 'te_weinig';
  /** Dutch, shown to the caller as the 422 message. */
  reden: string;
  nComps: number;
  nEff: number;
}

export interface ModelInfo {
  versie: string;
  /** Number of sales the model holds. */
  verkopen: number;
  /** Dates of the oldest and the most recent held sale (Y-m-d). */
  oudsteVerkoop: string | null;
  nieuwsteVerkoop: string | null;
  /** Where the time adjustment comes from (e.g. 'CBS 83906NED' or 'geschat uit verkopen'). */
  indexBron: string;
  /** First sale date of the calibration slice (Y-m-d); null when the model could not be calibrated. */
  gekalibreerdOp: string | null;
}

export interface ValuationModel {
  info: ModelInfo;
  /** Value `subject` at `peildatum` (Y-m-d) from comparables sold strictly before that date. */
  waardeer(subject: Subject, peildatum: string): Waardering | Weigering;
}
