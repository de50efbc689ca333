/** `insight <command> --json` as a child process on a database of its own (PGlite data directory or a PostgreSQL test database), migrated. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, dialect, type TestDatabase } from './db.ts';

export interface CliDatabase {
  /** Runs the command with --json and parses its output; rejects with { stderr } on a non-zero exit. */
  insight(...args: string[]): Promise<any>;
  /** What openDatabase needs to look at the same database. */
  databaseUrl(): string;
  dataDir(): string;
}

export function useCliDatabase(naam: string): CliDatabase {
  const run = promisify(execFile);
  const main = path.resolve('src/cli/main.ts');
  let dir = '';
  let pg: TestDatabase | null = null;
  let env: NodeJS.ProcessEnv = {};
  const insight = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args, '--json'], { env, cwd: dir })).stdout.trim());
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), `insight-${naam}-`));
    if (dialect === 'postgres') pg = await createTestDatabase();
    env = { ...process.env, DATA_DIR: path.join(dir, 'data'), DATABASE_URL: pg?.url ?? '', LOG_LEVEL: 'silent' };
    await insight('migrate');
  });
  afterAll(async () => {
    await pg?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { insight, databaseUrl: () => pg?.url ?? '', dataDir: () => path.join(dir, 'data') };
}
