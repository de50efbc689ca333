/**
 * The generic sales CSV: one sale per row, header row with these columns (order free, extra columns
 * ignored, `;` or `,` separated, UTF-8 with or without BOM, empty cell = unknown):
 *
 *   id, datum (Y-m-d), prijs (euros), oppervlakte (m2), perceel (m2), bouwjaar, woningtype,
 *   energielabel, lat, lon, object_id (optional: dwelling id shared by repeat sales)
 *
 * Required per row: id, datum, prijs, lat, lon. It is the exchange format of the backtest (and of
 * scripts/kc-to-generic.ts), so the same file can be replayed against any model version.
 */
import { parse } from 'csv-parse/sync';
import { dayNumber } from '../dates.ts';
import type { SaleRecord } from '../types.ts';

export const SALES_CSV_COLUMNS = ['id', 'datum', 'prijs', 'oppervlakte', 'perceel', 'bouwjaar', 'woningtype', 'energielabel', 'lat', 'lon', 'object_id'] as const;

const REQUIRED = ['id', 'datum', 'prijs', 'lat', 'lon'] as const;

function num(v: string | undefined): number | null {
  if (v === undefined) return null;
  const s = v.trim();
  if (s === '') return null;
  // Dutch exports write decimal commas; a value never has both separators in this format.
  const n = Number(s.includes(',') && !s.includes('.') ? s.replace(',', '.') : s);
  return Number.isFinite(n) ? n : null;
}

function str(v: string | undefined): string | null {
  const s = v?.trim();
  return s ? s : null;
}

/** Parse the generic sales CSV text. Throws with the line number on a malformed required value. */
export function parseSalesCsv(text: string): SaleRecord[] {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const firstLine = body.slice(0, body.indexOf('\n') >>> 0);
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows = parse(body, { columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), delimiter, skip_empty_lines: true, trim: false, relax_column_count: true }) as Record<string, string>[];
  if (rows.length === 0) return [];
  const missing = REQUIRED.filter((c) => !(c in rows[0]));
  if (missing.length) throw new Error(`Verkopen-CSV mist kolom(men): ${missing.join(', ')}.`);
  return rows.map((r, i) => {
    const line = i + 2;
    const prijs = num(r.prijs);
    const lat = num(r.lat);
    const lon = num(r.lon);
    const datum = str(r.datum);
    if (!r.id?.trim() || datum === null || prijs === null || lat === null || lon === null) throw new Error(`Verkopen-CSV regel ${line}: id, datum, prijs, lat en lon zijn verplicht.`);
    dayNumber(datum);
    return {
      id: r.id.trim(),
      datum,
      prijs,
      oppervlakte: num(r.oppervlakte),
      perceel: num(r.perceel),
      bouwjaar: num(r.bouwjaar),
      woningtype: str(r.woningtype),
      energielabel: str(r.energielabel),
      lat,
      lon,
      objectId: str(r.object_id),
    };
  });
}

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Write sales in the generic CSV format (comma separated, header row, LF line ends). */
export function formatSalesCsv(sales: readonly SaleRecord[]): string {
  const lines = [SALES_CSV_COLUMNS.join(',')];
  for (const s of sales) {
    lines.push([s.id, s.datum, s.prijs, s.oppervlakte, s.perceel, s.bouwjaar, s.woningtype, s.energielabel, s.lat, s.lon, s.objectId].map(cell).join(','));
  }
  return lines.join('\n') + '\n';
}

export { cell as csvCell };
