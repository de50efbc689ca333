import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from './support/db.ts';
import { startServer, startServersTegelijk, type ServerProces } from './support/server.ts';

/**
 * Several server processes on one PostgreSQL database (decisions section 11: "any number of server
 * processes and CLI runs share the database"). Every process migrates on start; that must not keep
 * other processes from starting.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('server processes sharing one PostgreSQL database', () => {
  const db = useTestDatabase();
  const gestart: ServerProces[] = [];
  afterAll(async () => {
    await Promise.all(gestart.map((s) => s.stop()));
  });

  /** The database URL with an application_name, so this process's sessions can be told apart. */
  function urlMetNaam(naam: string): string {
    const u = new URL(db.url);
    u.searchParams.set('application_name', naam);
    return u.toString();
  }

  async function adviesSloten(naam: string): Promise<{ pid: number; state: string; query: string }[]> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const r = await c.query(
        `SELECT a.pid, a.state, left(a.query, 80) AS query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1 AND a.datname = current_database()`,
        [naam],
      );
      return r.rows;
    } finally {
      await c.end();
    }
  }

  it('a ready server holds no advisory lock (the migration lock is released after migrating)', async () => {
    const naam = `insight-test-${process.pid}-a`;
    const s = await startServer(urlMetNaam(naam));
    gestart.push(s);
    // Session-level advisory locks held by an idle connection block every other process's migration.
    expect(await adviesSloten(naam)).toEqual([]);
  });

  it('two processes started at the same moment both come up', async () => {
    const { servers, fouten } = await startServersTegelijk(db.url, 2);
    gestart.push(...servers);
    expect(fouten).toEqual([]);
    expect(servers).toHaveLength(2);
  });
});
