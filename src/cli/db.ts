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

/**
 * The CLI's JSON is in the API's snake_case: camelCase keys (`importRunId`) become `import_run_id`,
 * nested too. Keys that are not identifiers (reasons used as keys, table names) stay as they are.
 */
export function snakeCase(waarde: unknown): unknown {
  if (Array.isArray(waarde)) return waarde.map(snakeCase);
  if (waarde === null || typeof waarde !== 'object' || waarde instanceof Date) return waarde;
  return Object.fromEntries(
    Object.entries(waarde).map(([k, v]) => [/^[a-z][a-zA-Z0-9]*$/.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k, snakeCase(v)]),
  );
}
