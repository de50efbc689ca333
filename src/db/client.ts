/**
 * The one database module. PostgreSQL dialect everywhere: an embedded PGlite (default, persisted in
 * DATA_DIR/pgdata) or a PostgreSQL server when DATABASE_URL is set. Both go through Prisma driver
 * adapters, so the rest of the code sees one PrismaClient.
 *
 * PGlite allows one process at a time: the process that opens it takes DATA_DIR/insight.lock. A second
 * process (the operator CLI while the server runs) is refused with a message that says what to do;
 * it never opens the data directory twice, so it cannot corrupt it.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { Logger } from 'pino';
import { PrismaClient } from '../generated/prisma/client.ts';
import { Replicas } from './replicas.ts';
import { waarnemers } from './waarnemers.ts';

export type Db = PrismaClient;

/**
 * Options for every short interactive transaction on the request path. Prisma's defaults (wait 2 s
 * for a connection, 5 s to finish) turn a burst of concurrent requests into 500s; these let them queue.
 */
export const TX_OPTS = { maxWait: 15_000, timeout: 15_000 } as const;

/**
 * PostgreSQL: the pg pool behind a PrismaClient, for sqlRijen (and the statement counter of
 * OpenOptions.onQuery), and the replicas registerRijen may read from instead.
 */
const directePools = new WeakMap<PrismaClient, { pool: pg.Pool; onQuery?: (sql: string) => void; replicas?: Replicas }>();

/**
 * The rows of one parameterised statement ($1, $2, ...) on the request's hot path (rate limit, charge,
 * idempotency claim, balance). On PostgreSQL it goes straight to the pg pool Prisma shares, which saves
 * Prisma's per-query work (a large part of the CPU per request); on PGlite it goes through Prisma.
 * int8 columns come back as string or bigint depending on the path: convert with Number().
 */
export async function sqlRijen<T>(db: Db, tekst: string, waarden: unknown[]): Promise<T[]> {
  const direct = directePools.get(db);
  if (direct) {
    direct.onQuery?.(tekst);
    return (await direct.pool.query({ name: statementNaam(tekst), text: tekst, values: waarden })).rows as T[];
  }
  return db.$queryRawUnsafe<T[]>(tekst, ...waarden);
}

/** Where each register read went (`replica`, or `primair`: no replica configured or usable, or its read failed), for /metrics. */
export const registerLezingen = waarnemers<'replica' | 'primair'>();

/**
 * sqlRijen for a register read (addresses, WOZ, labels, house types, influences): from a usable replica
 * when DATABASE_REPLICA_URL names any (src/db/replicas.ts), else from the primary. A read that fails on
 * the replica is read again from the primary, so a replica that disappears costs time, not an answer.
 * Keys, balances, charges, rate limits, idempotency, usage and webhooks never come here: sqlRijen.
 */
export async function registerRijen<T>(db: Db, tekst: string, waarden: unknown[], opties: { compleet?: (rijen: T[]) => boolean } = {}): Promise<T[]> {
  const direct = directePools.get(db);
  const replica = direct?.replicas?.kies();
  if (direct?.replicas && replica) {
    try {
      direct.onQuery?.(tekst);
      const rijen = (await replica.pool.query({ name: statementNaam(tekst), text: tekst, values: waarden })).rows as T[];
      registerLezingen.meld(db, 'replica');
      // A replica within its lag bound can still miss a row the primary committed a moment ago: where a
      // missing row would become an answer (a 404, which an Idempotency-Key then keeps), ask the primary.
      if (opties.compleet && !opties.compleet(rijen)) {
        registerLezingen.meld(db, 'primair');
        return sqlRijen<T>(db, tekst, waarden);
      }
      return rijen;
    } catch (e) {
      direct.replicas.meldFout(replica, e);
    }
  }
  registerLezingen.meld(db, 'primair');
  return sqlRijen<T>(db, tekst, waarden);
}

/** The replicas behind a client (for /metrics); undefined without DATABASE_REPLICA_URL or on PGlite. */
export function replicasVan(db: PrismaClient): Replicas | undefined {
  return directePools.get(db)?.replicas;
}

/** A few fixed statements: each is parsed once per connection (a named prepared statement), not per call. */
const statementNamen = new Map<string, string>();
function statementNaam(tekst: string): string {
  let naam = statementNamen.get(tekst);
  if (!naam) statementNamen.set(tekst, (naam = `heet_pad_${statementNamen.size + 1}`));
  return naam;
}

/** The wait for each pooled connection (seconds), per client (PostgreSQL; never on PGlite), for /metrics. */
export const poolWachttijden = waarnemers<number>();

/**
 * A pg pool that measures how long each checkout waited (a free connection at once, a new one being
 * opened, or queueing behind a full pool): Prisma and sqlRijen both take their connections through
 * connect(), pool.query() included.
 */
class GemetenPool extends pg.Pool {
  meet?: (seconden: number) => void;
  // biome-ignore lint/suspicious/noExplicitAny: pg's connect() has a callback and a promise form; this passes both on.
  override connect(terug?: any): any {
    const t0 = performance.now();
    const klaar = () => this.meet?.((performance.now() - t0) / 1000);
    if (typeof terug === 'function') {
      return super.connect((err, client, release) => {
        klaar();
        terug(err, client, release);
      });
    }
    return super.connect().finally(klaar);
  }
}

/** The PostgreSQL pool behind a client (for /metrics); undefined on PGlite. */
export function poolVan(db: PrismaClient): { totalCount: number; idleCount: number; waitingCount: number } | undefined {
  return directePools.get(db)?.pool;
}

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgres';
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /**
   * The factory the schema engine migrates through. On PostgreSQL a separate one-connection pool that
   * closes as soon as it is idle: the engine takes a session-level advisory lock it never releases, so
   * on a pooled connection that lock would outlive the migration and stall other processes' starts.
   */
  migratieAdapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Human-readable location, for logs (never contains a password). */
  location: string;
  /**
   * PostgreSQL only: a new plain connection of its own, outside Prisma (the caller ends it). The bulk
   * importer needs one for COPY FROM STDIN, which no Prisma adapter offers.
   */
  openRawConnection?: () => Promise<pg.Client>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgresql://... or '' for PGlite. */
  databaseUrl: string;
  /** PGlite data directory parent; ignored for PostgreSQL. */
  dataDir: string;
  /** PGlite only: keep everything in memory (tests). */
  memory?: boolean;
  /** Called with every SQL statement Prisma sends (tests count statements per request). */
  onQuery?: (sql: string) => void;
  /** PostgreSQL: the longest wait for a connection, new or from the pool (DB_CONNECT_TIMEOUT_MS). */
  verbindTimeoutMs?: number;
  /**
   * PostgreSQL: the longest one statement may run (DB_QUERY_TIMEOUT_MS), as the server's statement_timeout;
   * the client gives up CLIENT_MARGE_MS later (a silent host). 0: neither.
   */
  queryTimeoutMs?: number;
  /** PostgreSQL: streaming replicas for register reads (DATABASE_REPLICA_URL); the server only, never the CLI. */
  replicaUrls?: string[];
  /** DATABASE_REPLICA_MAX_LAG_MS and DATABASE_REPLICA_CHECK_MS (src/db/replicas.ts). */
  replicaMaxAchterstandMs?: number;
  replicaControleMs?: number;
  /** Where the replicas' changes of state are logged. */
  log?: Logger;
}

/**
 * Default of DB_CONNECT_TIMEOUT_MS. Without a connect and a statement timeout a database host that
 * silently drops packets (no RST, no ICMP) would hang every request for as long as TCP retransmits
 * (minutes); with them the request ends in the outage answer (503 with Retry-After). The connect timeout
 * also bounds the wait for a free pooled connection, so it is generous enough for a burst queueing on a
 * busy pool. The statement timeout is the server's alone (runtime.ts passes DB_QUERY_TIMEOUT_MS).
 */
export const VERBIND_TIMEOUT_MS = 10_000;
/** How much longer than the server's statement_timeout the client waits before it gives up on a connection. */
const CLIENT_MARGE_MS = 5_000;

/**
 * A pg client that gives up on a connection whose statement timed out (pg's query_timeout). pg answers
 * the caller with "Query read timeout" but keeps the connection, with the unanswered statement still in
 * flight, so the next statement on it would wait behind it; ending it makes the pool drop it instead of
 * handing it out again.
 */
class TijdslimietClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this only passes them on.
  override query(...args: any[]): any {
    const opgeven = (err: unknown) => {
      if (err instanceof Error && err.message === 'Query read timeout') this.end().catch(() => {});
    };
    // The callback, if any, is the last function argument (a loop: the web app's type check, which sees
    // this file through the router's types, has no es2023 lib for findLastIndex).
    let i = args.length - 1;
    while (i >= 0 && typeof args[i] !== 'function') i--;
    if (i >= 0) {
      const terug = args[i] as (err: unknown, res: unknown) => void;
      args[i] = (err: unknown, res: unknown) => {
        opgeven(err);
        terug(err, res);
      };
    }
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const uit = (super.query as (...a: any[]) => any)(...args);
    if (i < 0 && uit && typeof uit.then === 'function') {
      return uit.catch((err: unknown) => {
        opgeven(err);
        throw err;
      });
    }
    return uit;
  }
}

/** A PrismaClient on the adapter; with `onQuery`, Prisma's query events feed it. */
function maakClient(adapter: SqlMigrationAwareDriverAdapterFactory, onQuery?: (sql: string) => void): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', (e) => onQuery(e.query));
  return prisma;
}

/**
 * The PostgreSQL adapter the schema engine migrates through. @prisma/adapter-pg 7.10's executeScript
 * splits a migration on every ";", which breaks any function body (`$$ ... ; ... $$`). Here the script
 * goes to the server as one simple-protocol query instead, as `psql -f` would send it: PostgreSQL
 * parses the statements itself, dollar quoting included.
 */
class MigratiePg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const intern = adapter as unknown as { client: pg.Pool; onError(e: unknown): never };
    adapter.executeScript = async (script: string) => {
      try {
        await intern.client.query(script);
      } catch (e) {
        intern.onError(e);
      }
    };
    return adapter;
  }
}

export class DatabaseLockedError extends Error {
  readonly pid: number;
  constructor(pid: number, dataDir: string) {
    super(
      `De ingebouwde database in ${dataDir} is in gebruik door een ander proces (pid ${pid}), meestal de draaiende server. ` +
        `PGlite staat maar één proces tegelijk toe. Stop dat proces eerst (Ctrl+C of kill ${pid}) en probeer het opnieuw, ` +
        `of gebruik PostgreSQL via DATABASE_URL, waarmee server en CLI tegelijk kunnen werken.`,
    );
    this.pid = pid;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take DATA_DIR/insight.lock for this process, or throw DatabaseLockedError. Returns a release function. */
function takeLock(dataDir: string): () => void {
  const lockPath = path.join(dataDir, 'insight.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isFinite(pid) && pid !== process.pid && pidAlive(pid)) throw new DatabaseLockedError(pid, dataDir);
      // Stale lock of a process that died: take it over.
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Kon ${lockPath} niet vergrendelen`);
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const queryTimeout = opts.queryTimeoutMs ?? 0;
    const poolConfig = {
      max: 10,
      Client: TijdslimietClient,
      connectionTimeoutMillis: opts.verbindTimeoutMs ?? VERBIND_TIMEOUT_MS,
      // The server gives up first: its statement_timeout cancels the statement (a charge in it rolls
      // back, so the 503 that follows is really uncharged). The client's own timeout comes later and
      // only ends a wait for a server that did not even report that cancel (a host gone silent).
      statement_timeout: queryTimeout || undefined,
      query_timeout: queryTimeout ? queryTimeout + CLIENT_MARGE_MS : undefined,
      keepAlive: true,
    };
    const pool = new GemetenPool({ ...poolConfig, connectionString: opts.databaseUrl });
    // An idle connection the server ended (restart, DROP DATABASE ... FORCE) leaves the pool by itself;
    // without a listener its 'error' event would crash the process.
    pool.on('error', () => {});
    // (@prisma/adapter-pg brings its own, newer @types/pg: the same runtime class.)
    const adapterFactory = new PrismaPg(pool as unknown as ConstructorParameters<typeof PrismaPg>[0]);
    const prisma = maakClient(adapterFactory, opts.onQuery);
    const replicas = opts.replicaUrls?.length
      ? new Replicas(opts.databaseUrl, {
          urls: opts.replicaUrls,
          poolConfig,
          maxAchterstandMs: opts.replicaMaxAchterstandMs ?? 10_000,
          controleMs: opts.replicaControleMs ?? 1_000,
          log: opts.log,
        })
      : undefined;
    // Not awaited: until the first check has answered, register reads go to the primary.
    void replicas?.start();
    directePools.set(prisma, { pool, onQuery: opts.onQuery, replicas });
    pool.meet = (seconden) => poolWachttijden.meld(prisma, seconden);
    const url = new URL(opts.databaseUrl);
    return {
      prisma,
      kind: 'postgres',
      adapterFactory,
      migratieAdapterFactory: new MigratiePg({ connectionString: opts.databaseUrl, max: 1, idleTimeoutMillis: 1 }),
      location: `postgresql://${url.hostname}:${url.port || 5432}${url.pathname}${replicas ? ` (replica’s: ${replicas.lijst.map((r) => r.naam).join(', ')})` : ''}`,
      openRawConnection: async () => {
        const client = new pg.Client({ connectionString: opts.databaseUrl });
        await client.connect();
        return client;
      },
      close: async () => {
        await replicas?.sluit();
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  let release = () => {};
  let pglite: PGlite;
  let location: string;
  if (opts.memory) {
    pglite = new PGlite();
    location = 'PGlite (geheugen)';
  } else {
    const dataDir = path.resolve(opts.dataDir);
    mkdirSync(dataDir, { recursive: true });
    release = takeLock(dataDir);
    try {
      pglite = new PGlite(path.join(dataDir, 'pgdata'));
      await pglite.waitReady;
    } catch (e) {
      release();
      throw e;
    }
    location = `PGlite (${path.join(dataDir, 'pgdata')})`;
  }
  const adapterFactory = new PrismaPGlite(pglite);
  const prisma = maakClient(adapterFactory, opts.onQuery);
  return {
    prisma,
    kind: 'pglite',
    adapterFactory,
    migratieAdapterFactory: adapterFactory,
    location,
    async close() {
      await prisma.$disconnect();
      await pglite.close();
      release();
    },
  };
}
