import type { Config } from '../config/env.ts';
import type { Database } from '../db/client.ts';
import { openMigratedDatabase } from '../runtime.ts';

/** Migrated first, so every command works on a fresh data directory. */
export function openCliDatabase(config: Config): Promise<Database> {
  return openMigratedDatabase(config);
}

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

/** The API's snake_case, nested too; keys that are not identifiers (reasons, table names) stay as they are. */
export function snakeCase(waarde: unknown): unknown {
  if (Array.isArray(waarde)) return waarde.map(snakeCase);
  if (waarde === null || typeof waarde !== 'object' || waarde instanceof Date) return waarde;
  return Object.fromEntries(
    Object.entries(waarde).map(([k, v]) => [/^[a-z][a-zA-Z0-9]*$/.test(k) ? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : k, snakeCase(v)]),
  );
}
