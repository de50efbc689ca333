/**
 * The one mapping of a sale row to the model's SaleRecord, for the demo's sales and a backtest file's
 * rows alike (the held sales come from the database in gegevens.ts).
 */
import type { Kenmerken, SaleRecord, WozWaarde } from './types.ts';

/** What the model reads of a sale row (the register's VerkoopRij, a backtest file's row). */
export interface VerkoopVoorModel {
  id: string;
  transactiedatum: Date;
  koopsom: number;
  oppervlakte: number | null;
  perceel: number | null;
  bouwjaar: number | null;
  woningtype: string | null;
  energielabel: string | null;
  lat: number | null;
  lon: number | null;
}

/** The row as a SaleRecord; a row without position is skipped by the model (see buildSalesTable). */
export function saleRecord(v: VerkoopVoorModel, objectId: string | null, extra: { kenmerken?: Kenmerken | null; woz?: WozWaarde | null } = {}): SaleRecord {
  return {
    id: v.id,
    objectId,
    datum: v.transactiedatum.toISOString().slice(0, 10),
    prijs: v.koopsom,
    oppervlakte: v.oppervlakte,
    perceel: v.perceel,
    bouwjaar: v.bouwjaar,
    woningtype: v.woningtype,
    energielabel: v.energielabel,
    lat: v.lat ?? Number.NaN,
    lon: v.lon ?? Number.NaN,
    ...(extra.kenmerken ? { kenmerken: extra.kenmerken } : {}),
    ...(extra.woz ? { woz: extra.woz } : {}),
  };
}
