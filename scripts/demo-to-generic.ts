/**
 * Write the sales of the synthetic demo dataset (src/domain/register/demo, seed 1) as the sales CSV
 * of `insight backtest` (docs/import-formaten.md), with each sale's WOZ value known at the sale in
 * the `woz` and `woz_peildatum` columns (`insight backtest demo` reads the same sales directly).
 *
 *   node scripts/demo-to-generic.ts [out.csv]
 */
import { writeFileSync } from 'node:fs';
import { demoVerkopen } from '../src/domain/register/demo/verkopen.ts';
import { formatSalesCsv } from '../src/domain/valuation/backtest/sales-csv.ts';

const output = process.argv[2] ?? 'demo-sales.csv';
const sales = await demoVerkopen(1);
writeFileSync(output, formatSalesCsv(sales));
console.log(`${sales.length} verkopen -> ${output} (${sales.filter((s) => s.woz).length} met WOZ-waarde)`);
