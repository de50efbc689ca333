import type { Config } from '../config/env.ts';
import type { Database } from '../db/client.ts';
import { openMigratedDatabase } from '../runtime.ts';

/** The CLI's database: migrated first, so every command works on a fresh data directory. */
export function openCliDatabase(config: Config): Promise<Database> {
  return openMigratedDatabase(config);
}

/** Run fn with an open database and always close it. */
export async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openCliDatabase(config);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export function print(json: boolean, data: unknown, text: string) {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}
