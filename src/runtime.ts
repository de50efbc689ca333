/** Shared by the server and the operator CLI. */
import type { Logger } from 'pino';
import type { Config } from './config/env.ts';
import type { Services } from './core/context.ts';
import { openDatabase, type Database } from './db/client.ts';
import { applyMigrations, migrationNames } from './db/migrate.ts';
import { maakModelHouder } from './domain/valuation/houder.ts';
import { herstelUitgesteldeIndexen } from './domain/register/import/indexen.ts';

/** `serving`: DB_QUERY_TIMEOUT_MS on every statement; the CLI's imports may rightly run for minutes. */
export async function openMigratedDatabase(config: Config, log?: Logger, opts: { serving?: boolean } = {}): Promise<Database> {
  const db = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    verbindTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: opts.serving ? config.DB_QUERY_TIMEOUT_MS : 0,
    // The CLI's imports and derivations read what they write: no replicas.
    ...(opts.serving
      ? { replicaUrls: config.DATABASE_REPLICA_URL, replicaMaxAchterstandMs: config.DATABASE_REPLICA_MAX_LAG_MS, replicaControleMs: config.DATABASE_REPLICA_CHECK_MS, log }
      : {}),
  });
  try {
    if (!(await isBij(db))) {
      const applied = await applyMigrations(db.migratieAdapterFactory);
      if (applied.length) log?.info({ applied }, 'migraties toegepast');
    }
    const gebouwd = await herstelUitgesteldeIndexen(db);
    if (gebouwd.length) log?.warn({ indexen: gebouwd }, 'uitgestelde indexen van een afgebroken import gebouwd');
    return db;
  } catch (e) {
    await db.close();
    throw e;
  }
}

/** When every committed migration is recorded as finished, the schema engine (seconds to start) is not needed. */
async function isBij(db: Database): Promise<boolean> {
  const [{ t }] = await db.prisma.$queryRaw<{ t: string | null }[]>`SELECT to_regclass('_prisma_migrations')::text AS t`;
  if (!t) return false;
  const rows = await db.prisma.$queryRaw<{ migration_name: string; ok: boolean }[]>`
    SELECT migration_name, (finished_at IS NOT NULL AND rolled_back_at IS NULL) AS ok FROM _prisma_migrations`;
  if (rows.some((r) => !r.ok)) return false;
  const klaar = new Set(rows.map((r) => r.migration_name));
  return migrationNames().every((n) => klaar.has(n));
}

export function createServices(config: Config, db: Database, log: Logger, opts: { wachtOpModel?: boolean } = {}): Services {
  return { db: db.prisma, config, now: () => new Date(), log, waardemodel: maakModelHouder(db.prisma, log, { wachtOpEerste: opts.wachtOpModel }) };
}
