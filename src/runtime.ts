/**
 * Opening the service's resources from a validated config: the database (migrated) and the services
 * object the core needs. Shared by the server and the operator CLI.
 */
import type { Logger } from 'pino';
import type { Config } from './config/env.ts';
import type { Services } from './core/context.ts';
import { openDatabase, type Database } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { maakModelHouder } from './domain/marktwaarde/houder.ts';

export async function openMigratedDatabase(config: Config, log?: Logger): Promise<Database> {
  const db = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const applied = await applyMigrations(db.migratieAdapterFactory);
    if (applied.length) log?.info({ applied }, 'migraties toegepast');
    return db;
  } catch (e) {
    await db.close();
    throw e;
  }
}

export function createServices(config: Config, db: Database, log: Logger): Services {
  return { db: db.prisma, config, now: () => new Date(), log, waardemodel: maakModelHouder(db.prisma, log) };
}
