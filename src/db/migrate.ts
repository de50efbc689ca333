/**
 * Migrations in Prisma's folder format (prisma/migrations/<timestamp>_<name>/migration.sql), applied
 * in-process with Prisma's schema engine compiled to WebAssembly. No engine binary is downloaded, so
 * this works offline; the same folder also works with `prisma migrate deploy` where the CLI can run.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const schemaPath = path.join(root, 'prisma/schema.prisma');
export const migrationsDir = path.join(root, 'prisma/migrations');
/** One file per SQL function, its definition of today: the rule is read there, not replayed from migrations. */
export const functiesDir = path.join(root, 'prisma/sql');
const lockfileName = 'migration_lock.toml';
const filters = { externalTables: [], externalEnums: [] };

function readMigrationsList() {
  const lockPath = path.join(migrationsDir, lockfileName);
  const dirs = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir: migrationsDir,
    lockfile: { path: lockfileName, content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8') } },
    })),
    shadowDbInitScript: '',
  };
}

async function engineFor(factory: SqlMigrationAwareDriverAdapterFactory) {
  // Loaded only when a migration must run: a database that is up to date never needs the engine.
  const { SchemaEngine } = await import('@prisma/schema-engine-wasm');
  const schema = readFileSync(schemaPath, 'utf8');
  const engine = await SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
  return { engine, schema };
}

export interface FunctieBron {
  naam: string;
  /** `CREATE OR REPLACE FUNCTION ...` exactly as PostgreSQL prints it (pg_get_functiondef), without the comment above it. */
  definitie: string;
}

/** The SQL functions' source files (prisma/sql/<naam>.sql): a comment saying why, then the definition. */
export function functieBronnen(): FunctieBron[] {
  return readdirSync(functiesDir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => {
      const regels = readFileSync(path.join(functiesDir, f), 'utf8').split('\n');
      const begin = regels.findIndex((r) => !r.startsWith('--'));
      return { naam: f.slice(0, -'.sql'.length), definitie: regels.slice(begin).join('\n').trim().replace(/;$/, '').trimEnd() };
    });
}

/** Every function of the public schema with its definition, as the sources are compared with it. */
export const FUNCTIE_DEFINITIES_SQL = `SELECT p.proname AS naam, pg_get_functiondef(p.oid) AS definitie
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1, 2`;

/**
 * The migration script for the sources that differ from a database's functions (a new function, or a
 * new body). A changed signature makes a second function next to the old one: drop the old one in the
 * same migration by hand (the check in test/sql-functies.test.ts finds it otherwise).
 */
export function functieMigratie(inDatabase: { naam: string; definitie: string }[]): string {
  const nu = new Map(inDatabase.map((f) => [f.naam, f.definitie.trim()]));
  return functieBronnen()
    .filter((b) => nu.get(b.naam) !== b.definitie)
    .map((b) => `${b.definitie};\n`)
    .join('\n');
}

/** Names of the committed migration folders, in order. */
export function migrationNames(): string[] {
  return readMigrationsList().migrationDirectories.map((d) => d.path);
}

/** Apply every migration not yet applied; returns the names applied now (empty when up to date). */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const { engine } = await engineFor(factory);
  try {
    const out = await engine.applyMigrations({ migrationsList: readMigrationsList(), filters });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * Developer command: write a new migration folder with the difference between the committed migrations
 * and prisma/schema.prisma plus the SQL functions of prisma/sql whose definition changed. The migrations are replayed into a scratch in-memory PGlite, which is then
 * diffed against the schema. Returns the folder name, or null when nothing changed.
 */
export async function createMigration(name: string, now = new Date()): Promise<string | null> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  const scratch = new PGlite();
  const factory = new PrismaPGlite(scratch);
  const { engine, schema } = await engineFor(factory);
  try {
    await engine.applyMigrations({ migrationsList: readMigrationsList(), filters });
    const diff = await engine.diff({
      from: { tag: 'schemaDatasource', files: [{ path: 'schema.prisma', content: schema }], configDir: root },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
      script: true,
      exitCode: null,
      filters,
    });
    // The engine prints the script through its own stdout field.
    const schemaScript = (diff as unknown as { stdout?: string }).stdout ?? '';
    const functies = functieMigratie((await scratch.query<{ naam: string; definitie: string }>(FUNCTIE_DEFINITIES_SQL)).rows);
    const script = [/^--\s*This is an empty migration/m.test(schemaScript) ? '' : schemaScript.trim(), functies].filter((d) => d.trim()).join('\n\n');
    if (!script.trim()) return null;
    const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
    const folder = `${stamp}_${name.replace(/[^a-z0-9_]/gi, '_')}`;
    mkdirSync(path.join(migrationsDir, folder), { recursive: true });
    writeFileSync(path.join(migrationsDir, folder, 'migration.sql'), script);
    if (!existsSync(path.join(migrationsDir, lockfileName))) {
      writeFileSync(path.join(migrationsDir, lockfileName), '# Please do not edit this file manually\nprovider = "postgresql"\n');
    }
    return folder;
  } finally {
    engine.free();
    await scratch.close();
  }
}
