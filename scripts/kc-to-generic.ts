/**
 * Convert the King County house-sales file (Kaggle "House Sales in King County, USA", CC0:
 * https://www.kaggle.com/datasets/harlfoxem/housesalesprediction; see test/fixtures/SOURCES.md) to
 * the sales CSV of `insight import verkopen` / `insight backtest` (docs/import-formaten.md).
 *
 *   node scripts/kc-to-generic.ts <kc_house_data.csv> [out.csv]
 *
 * Mapping (the columns a Dutch register also holds, plus KC's further attributes in the optional
 * attribute columns of the format; `--zonder-kenmerken` leaves those out, to measure the model on
 * the information a Dutch register has):
 * - id: `<kc id>-<yyyymmdd>` (the KC id is per dwelling, repeat sales share it) -> object_id = KC id
 * - datum: `date` (YYYYMMDDT000000) -> Y-m-d; prijs: `price` (USD, used as is)
 * - oppervlakte: `sqft_living` -> m2; perceel: `sqft_lot` -> m2; bouwjaar: `yr_built`
 * - woningtype: KC has no type column and is almost all detached houses. A dwelling on a lot under
 *   1,500 sqft (~140 m2), or under 2,500 sqft with a footprint (sqft_above / floors) over 35 % of
 *   the lot, is an attached townhouse -> 'tussenwoning'; everything else 'vrijstaand'.
 * - energielabel: none (empty); lat/lon: `lat`/`long` (WGS84)
 * - kwaliteit: `grade` (1-13); staat: `condition` (1-5); uitzicht: `view` (0-4); aan_water:
 *   `waterfront` (0/1); renovatiejaar: `yr_renovated` (0 = never); slaapkamers: `bedrooms`;
 *   badkamers: `bathrooms`; bouwlagen: `floors`
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { formatSalesCsv } from '../src/domain/valuation/backtest/sales-csv.ts';
import type { SaleRecord } from '../src/domain/valuation/types.ts';

const SQFT_TO_M2 = 0.09290304;

const args = process.argv.slice(2);
const zonderKenmerken = args.includes('--zonder-kenmerken');
const [input, uit] = args.filter((a) => a !== '--zonder-kenmerken');
if (!input) {
  console.error('Gebruik: node scripts/kc-to-generic.ts <kc_house_data.csv> [uit.csv] [--zonder-kenmerken] (bestand: zie test/fixtures/SOURCES.md)');
  process.exit(2);
}
const output = uit ?? 'kc-sales.csv';

const rows = parse(readFileSync(input, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
const sales: SaleRecord[] = rows.map((r) => {
  const d = r.date.slice(0, 8);
  const lot = Number(r.sqft_lot);
  const floors = Number(r.floors) || 1;
  const footprint = Number(r.sqft_above) / floors;
  const attached = lot < 1500 || (lot < 2500 && footprint / lot > 0.35);
  return {
    id: `${r.id}-${d}`,
    datum: `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`,
    prijs: Math.round(Number(r.price)),
    oppervlakte: Math.round(Number(r.sqft_living) * SQFT_TO_M2 * 10) / 10,
    perceel: lot > 0 ? Math.round(lot * SQFT_TO_M2) : null,
    bouwjaar: Number(r.yr_built) || null,
    woningtype: attached ? 'tussenwoning' : 'vrijstaand',
    energielabel: null,
    lat: Number(r.lat),
    lon: Number(r.long),
    objectId: r.id,
    kenmerken: zonderKenmerken
      ? null
      : {
          kwaliteit: Number(r.grade),
          staat: Number(r.condition),
          uitzicht: Number(r.view),
          aan_water: Number(r.waterfront),
          renovatiejaar: Number(r.yr_renovated) || null,
          slaapkamers: Number(r.bedrooms),
          badkamers: Number(r.bathrooms),
          bouwlagen: Number(r.floors),
        },
  };
});
const ids = new Set(sales.map((s) => s.id));
if (ids.size !== sales.length) throw new Error(`${sales.length - ids.size} dubbele verkoop-id's`);
writeFileSync(output, formatSalesCsv(sales));
console.log(`${sales.length} verkopen -> ${output} (${sales.filter((s) => s.woningtype === 'tussenwoning').length} tussenwoning)`);
