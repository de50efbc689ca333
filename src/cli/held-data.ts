/** For `insight backtest` without a file. */
import { loadConfig } from '../config/env.ts';
import { laadPrijsindex, laadVerkopen } from '../domain/valuation/gegevens.ts';
import type { PriceIndexPoint, SaleRecord } from '../domain/valuation/index.ts';
import { withDatabase } from './db.ts';

export function verkopenUitDatabase(): Promise<SaleRecord[]> {
  return withDatabase(loadConfig(), (db) => laadVerkopen(db.prisma));
}

export async function prijsindexUitDatabase(): Promise<PriceIndexPoint[]> {
  return (await withDatabase(loadConfig(), (db) => laadPrijsindex(db.prisma))).punten;
}
