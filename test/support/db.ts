/**
 * A fresh, migrated database per test file: an in-memory PGlite by default, or — when
 * TEST_DATABASE_URL points at a PostgreSQL server — a new database created on that server for this
 * file alone (dropped again in close()). Tests never share rows, so they can run in parallel.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? '';
export const dialect = testDatabaseUrl ? 'postgres' : 'pglite';

export interface TestDatabase extends Database {
  /** postgresql:// URL of this file's own database ('' on PGlite). */
  url: string;
}

export async function createTestDatabase(opts: { onQuery?: (sql: string, params?: string) => void } = {}): Promise<TestDatabase> {
  if (!testDatabaseUrl) {
    const db = await openDatabase({ databaseUrl: '', dataDir: '', memory: true, onQuery: opts.onQuery });
    await applyMigrations(db.migratieAdapterFactory);
    return { ...db, url: '' };
  }
  const name = `insight_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '', onQuery: opts.onQuery });
  await applyMigrations(db.migratieAdapterFactory);
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      const a = new pg.Client({ connectionString: testDatabaseUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/**
 * The one set-up of a database test: a fresh migrated database for the enclosing describe block (or
 * file), made in beforeAll and closed in afterAll. The handle forwards to it, so tests write
 * `db.prisma` and pass `db` on as before.
 */
export function useTestDatabase(opts: { onQuery?: (sql: string, params?: string) => void } = {}): TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(opts);
  });
  afterAll(async () => {
    await db?.close();
  });
  const echt = (): TestDatabase => {
    if (!db) throw new Error('useTestDatabase: de database bestaat alleen binnen tests en hooks.');
    return db;
  };
  // Forwards reads, `in` and spreading ({ ...db }), so the handle behaves as the database itself.
  return new Proxy({} as TestDatabase, {
    get(_doel, naam) {
      const v: unknown = Reflect.get(echt(), naam);
      return typeof v === 'function' ? v.bind(echt()) : v;
    },
    has: (_doel, naam) => Reflect.has(echt(), naam),
    ownKeys: () => Reflect.ownKeys(echt()),
    getOwnPropertyDescriptor(_doel, naam) {
      const d = Reflect.getOwnPropertyDescriptor(echt(), naam);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
}
