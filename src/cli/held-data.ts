/** Data held in the database, for `insight backtest` without a file. */
import { loadConfig } from '../config/env.ts';
import { laadPrijsindex, laadVerkopen } from '../domain/valuation/gegevens.ts';
import type { PriceIndexPoint, SaleRecord } from '../domain/valuation/index.ts';
import { withDatabase } from './db.ts';

/** The real register's sales, as the live model learns from them; on a register with only the demo town, the demo's. */
export function loadHeldSales(): Promise<SaleRecord[]> {
  return withDatabase(loadConfig(), async (db) => {
    const register = await laadVerkopen(db.prisma, 'register');
    return register.length ? register : laadVerkopen(db.prisma, 'demo');
  });
}

export async function loadPriceIndex(): Promise<PriceIndexPoint[]> {
  return (await withDatabase(loadConfig(), (db) => laadPrijsindex(db.prisma))).punten;
}
