/** Prisma-format migrations applied in-process with the schema engine compiled to WebAssembly (offline). */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const schemaPath = path.join(root, 'prisma/schema.prisma');
export const migrationsDir = path.join(root, 'prisma/migrations');
/** One file per SQL function, today's definition: the rule is read there, not replayed from migrations. */
export const functiesDir = path.join(root, 'prisma/sql');
const lockfileName = 'migration_lock.toml';
const filters = { externalTables: [], externalEnums: [] };

function readMigrationsList(map = migrationsDir) {
  const lockPath = path.join(map, lockfileName);
  const dirs = existsSync(map)
    ? readdirSync(map, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir: map,
    lockfile: { path: lockfileName, content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: readFileSync(path.join(map, name, 'migration.sql'), 'utf8') } },
    })),
    shadowDbInitScript: '',
  };
}

async function engineFor(factory: SqlMigrationAwareDriverAdapterFactory) {
  // Loaded only when a migration must run.
  const { SchemaEngine } = await import('@prisma/schema-engine-wasm');
  const schema = readFileSync(schemaPath, 'utf8');
  const engine = await SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, bindMigrationAwareSqlAdapterFactory(factory));
  return { engine, schema };
}

export interface FunctieBron {
  naam: string;
  /** As pg_get_functiondef prints it, without the comment above it. */
  definitie: string;
}

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

export const FUNCTIE_DEFINITIES_SQL = `SELECT p.proname AS naam, pg_get_functiondef(p.oid) AS definitie
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1, 2`;

/** A changed signature makes a second function beside the old one: drop the old one by hand in the same migration. */
export function functieMigratie(inDatabase: { naam: string; definitie: string }[]): string {
  const nu = new Map(inDatabase.map((f) => [f.naam, f.definitie.trim()]));
  return functieBronnen()
    .filter((b) => nu.get(b.naam) !== b.definitie)
    .map((b) => `${b.definitie};\n`)
    .join('\n');
}

export function migrationNames(): string[] {
  return readMigrationsList().migrationDirectories.map((d) => d.path);
}

/** Returns the names applied now (empty when up to date). `map`: another migrations folder (tests). */
export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory, map = migrationsDir): Promise<string[]> {
  const { engine } = await engineFor(factory);
  try {
    const out = await engine.applyMigrations({ migrationsList: readMigrationsList(map), filters });
    return out.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * Developer command: replays the migrations into a scratch PGlite, diffs it against schema.prisma and the
 * changed prisma/sql functions, and writes a new migration folder. Null when nothing changed.
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
