/**
 * Sales files for the backtest: the same CSV that `insight import verkopen` reads (header and rules
 * in docs/import-formaten.md), through the same parser (src/domain/register/parsers/verkopen.ts),
 * with the backtest's optional extra columns `id` and `object_id`. Lines the parser refuses are
 * skipped and reported, as the import does.
 */
import { Readable } from 'node:stream';
import { parseVerkopenVoorBacktest } from '../../register/parsers/verkopen.ts';
import { saleRecord } from '../sale-record.ts';
import { KENMERKEN } from '../types.ts';
import type { SaleRecord } from '../types.ts';

export const SALES_CSV_COLUMNS = ['id', 'object_id', 'postcode', 'huisnummer', 'toevoeging', 'transactiedatum', 'koopsom', 'oppervlakte', 'perceel', 'bouwjaar', 'woningtype', 'energielabel', 'lat', 'lon'] as const;

/** The optional WOZ columns (written when any sale has a WOZ value). */
export const WOZ_COLUMNS = ['woz', 'woz_peildatum'] as const;

export interface SalesCsv {
  verkopen: SaleRecord[];
  /** Refused lines: line number (header = 1) and reason. */
  geweigerd: { regel: number; reden: string }[];
}

/** Read a sales file (text or stream) for the backtest. Throws on a missing header column. */
export async function parseSalesCsv(input: string | NodeJS.ReadableStream): Promise<SalesCsv> {
  const stream = typeof input === 'string' ? Readable.from([Buffer.from(input, 'utf8')]) : input;
  const verkopen: SaleRecord[] = [];
  const geweigerd: SalesCsv['geweigerd'] = [];
  for await (const r of parseVerkopenVoorBacktest(stream)) {
    if (!r.ok) {
      geweigerd.push({ regel: r.regel, reden: r.reden });
      continue;
    }
    const v = r.verkoop;
    verkopen.push(saleRecord(v, v.objectId, v));
  }
  return { verkopen, geweigerd };
}

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Write sales in the documented format (comma separated, header row, LF line ends; no address
 * columns filled). The attribute columns (KENMERKEN) are written when any sale has one.
 */
export function formatSalesCsv(sales: readonly SaleRecord[]): string {
  const extra = sales.some((s) => s.kenmerken) ? KENMERKEN : [];
  const woz = sales.some((s) => s.woz) ? WOZ_COLUMNS : [];
  const lines = [[...SALES_CSV_COLUMNS, ...extra, ...woz].join(',')];
  for (const s of sales) {
    const k = extra.map((naam) => s.kenmerken?.[naam] ?? null);
    const w = woz.length ? [s.woz?.waarde, s.woz?.peildatum] : [];
    lines.push([s.id, s.objectId, null, null, null, s.datum, s.prijs, s.oppervlakte, s.perceel, s.bouwjaar, s.woningtype, s.energielabel, s.lat, s.lon, ...k, ...w].map(cell).join(','));
  }
  return lines.join('\n') + '\n';
}

export { cell as csvCell };
