/** For `insight backtest` without a file. */
import { loadConfig } from '../config/env.ts';
import { laadPrijsindex, laadVerkopen } from '../domain/valuation/gegevens.ts';
import type { PriceIndexPoint, SaleRecord } from '../domain/valuation/index.ts';
import { withDatabase } from './db.ts';
import type { Database } from '../db/client.ts';
import { DEMO_BRON, type Deel } from '../domain/register/demo/opzet.ts';

/** The part whose sales are replayed: the real register's, as the live model learns from them; on a register with only the demo town, the demo's. */
function gekozenDeel(db: Database): Promise<Deel> {
  return db.prisma.verkoop.count({ where: { bron: { not: DEMO_BRON } } }).then((n) => (n > 0 ? 'register' : 'demo'));
}

export function verkopenUitDatabase(): Promise<SaleRecord[]> {
  return withDatabase(loadConfig(), async (db) => laadVerkopen(db.prisma, await gekozenDeel(db)));
}

export async function prijsindexUitDatabase(): Promise<PriceIndexPoint[]> {
  return (await withDatabase(loadConfig(), async (db) => laadPrijsindex(db.prisma, await gekozenDeel(db)))).punten;
}
