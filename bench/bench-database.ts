/** A database of its own for a bench run: a new PostgreSQL database beside `admin`, or a PGlite data directory; `weg` removes it. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export async function benchDatabase(soort: 'postgres' | 'pglite', admin: string, prefix: string): Promise<{ url: string; dataDir: string; weg: () => Promise<void> }> {
  if (soort === 'pglite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), `${prefix}-pglite-`));
    return { url: '', dataDir, weg: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const naam = `${prefix.replaceAll('-', '_')}_${randomBytes(4).toString('hex')}`;
  const sql = async (q: string) => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await sql(`CREATE DATABASE ${naam}`);
  const u = new URL(admin);
  u.pathname = `/${naam}`;
  return { url: u.toString(), dataDir: '', weg: () => sql(`DROP DATABASE IF EXISTS ${naam} WITH (FORCE)`) };
}
