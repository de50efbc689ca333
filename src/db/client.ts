/**
 * The one database module: an embedded PGlite (default) or PostgreSQL (DATABASE_URL), both through
 * Prisma driver adapters. PGlite allows one process at a time, so the opener takes DATA_DIR/insight.lock.
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
import { leesGrensMs, Replicas } from './replicas.ts';
import { waarnemers } from './waarnemers.ts';

export type Db = PrismaClient;

/** What a `::uuid` cast accepts: checked first, so a malformed id is an unknown one, not a database error. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Prisma's defaults (wait 2 s, run 5 s) turn a burst of concurrent requests into 500s; these let them queue. */
export const TX_OPTS = { maxWait: 15_000, timeout: 15_000 } as const;

/** PostgreSQL: the pg pool behind a PrismaClient (for sqlRijen and onQuery) and its replicas. */
const directePools = new WeakMap<PrismaClient, { pool: pg.Pool; onQuery?: (sql: string) => void; replicas?: Replicas }>();

/**
 * One parameterised statement on the hot path. On PostgreSQL straight to the pg pool Prisma shares,
 * skipping Prisma's per-query work; int8 columns come back as string or bigint: convert with Number().
 */
export async function sqlRijen<T>(db: Db, tekst: string, waarden: unknown[]): Promise<T[]> {
  const direct = directePools.get(db);
  if (direct) {
    direct.onQuery?.(tekst);
    return (await direct.pool.query({ name: statementNaam(tekst), text: tekst, values: waarden })).rows as T[];
  }
  return db.$queryRawUnsafe<T[]>(tekst, ...waarden);
}

/**
 * Several statements in one transaction, for bulk bytes (the stored valuation model): on PostgreSQL on
 * one connection of the pg pool, whose parameters go out as binary where Prisma would turn every value
 * into text first; on PGlite through Prisma. `alleenLezen`: one consistent snapshot (repeatable read)
 * on PostgreSQL; on PGlite no transaction at all, because its one connection is the process's only
 * writer (the data directory's lock) and a transaction there would hold every request for the read.
 */
export async function inTransactie<T>(
  db: Db,
  fn: (sql: <R>(tekst: string, waarden: unknown[]) => Promise<R[]>) => Promise<T>,
  opties: { alleenLezen?: boolean } = {},
): Promise<T> {
  const direct = directePools.get(db);
  if (!direct) {
    if (opties.alleenLezen) return fn((tekst, waarden) => db.$queryRawUnsafe(tekst, ...waarden));
    return db.$transaction((tx) => fn((tekst, waarden) => tx.$queryRawUnsafe(tekst, ...waarden)), { maxWait: TX_OPTS.maxWait, timeout: 600_000 });
  }
  const c = await direct.pool.connect();
  // Checked out, a connection has no listener of the pool's: a connection lost meanwhile would
  // otherwise emit an unhandled 'error' and end the process, instead of failing the statement.
  const negeer = () => {};
  c.on('error', negeer);
  let kapot = false;
  const sql = async <R>(tekst: string, waarden: unknown[] = []): Promise<R[]> => {
    direct.onQuery?.(tekst);
    return (await c.query(tekst, waarden)).rows as R[];
  };
  try {
    await sql(opties.alleenLezen ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
    const uit = await fn(sql);
    await sql('COMMIT');
    return uit;
  } catch (e) {
    await sql('ROLLBACK').catch(() => {
      kapot = true;
    });
    throw e;
  } finally {
    c.off('error', negeer);
    c.release(kapot);
  }
}

export const registerLezingen = waarnemers<'replica' | 'primair'>();

/**
 * sqlRijen for a register read, from a usable replica when there is one, else (or failing) the primary; never
 * keys, balances, charges, limits or webhooks. A replica within its lag bound can miss a row the primary just
 * committed: where that would become an answer (a 404 an Idempotency-Key keeps), `aanvullen` reads what the
 * replica lacked with `primair` (the same statement on the primary) and merges it.
 */
export async function registerRijen<T>(
  db: Db,
  tekst: string,
  waarden: unknown[],
  opties: { aanvullen?: (rijen: T[], primair: (waarden: unknown[]) => Promise<T[]>) => Promise<T[]> } = {},
): Promise<T[]> {
  const direct = directePools.get(db);
  const replica = direct?.replicas?.kies();
  let rijen: T[] | undefined;
  if (direct?.replicas && replica) {
    try {
      direct.onQuery?.(tekst);
      rijen = (await direct.replicas.lees(replica, () => replica.pool.query({ name: statementNaam(tekst), text: tekst, values: waarden }))).rows as T[];
      registerLezingen.meld(db, 'replica');
    } catch (e) {
      direct.replicas.meldFout(replica, e);
    }
  }
  const primair = (w: unknown[]) => {
    registerLezingen.meld(db, 'primair');
    return sqlRijen<T>(db, tekst, w);
  };
  if (!rijen) return primair(waarden);
  return opties.aanvullen ? opties.aanvullen(rijen, primair) : rijen;
}

export function replicasVan(db: PrismaClient): Replicas | undefined {
  return directePools.get(db)?.replicas;
}

/** Fixed statements get a name, so each is parsed once per connection, not per call. */
const statementNamen = new Map<string, string>();
function statementNaam(tekst: string): string {
  let naam = statementNamen.get(tekst);
  if (!naam) statementNamen.set(tekst, (naam = `heet_pad_${statementNamen.size + 1}`));
  return naam;
}

export const poolWachttijden = waarnemers<number>();

/** Measures each checkout's wait: Prisma and sqlRijen both take connections through connect(). */
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

export function poolVan(db: PrismaClient): { totalCount: number; idleCount: number; waitingCount: number } | undefined {
  return directePools.get(db)?.pool;
}

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgres';
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /**
   * On PostgreSQL a separate one-connection pool that closes when idle: the engine's session-level advisory
   * lock would otherwise outlive the migration on a pooled connection and stall other processes' starts.
   */
  migratieAdapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** Never contains a password. */
  location: string;
  /** PostgreSQL only: a plain connection outside Prisma (the caller ends it), for COPY FROM STDIN. */
  openRawConnection?: () => Promise<pg.Client>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl: string;
  dataDir: string;
  memory?: boolean;
  onQuery?: (sql: string, params?: string) => void;
  verbindTimeoutMs?: number;
  /** PostgreSQL: the server's statement_timeout; the client gives up CLIENT_MARGE_MS later. 0: neither. */
  queryTimeoutMs?: number;
  replicaUrls?: string[];
  replicaMaxAchterstandMs?: number;
  replicaControleMs?: number;
  log?: Logger;
}

/**
 * Without a connect and a statement timeout, a host that silently drops packets would hang every request
 * for minutes of TCP retransmits; with them the request ends in a 503. Generous for a burst on a busy pool.
 */
export const VERBIND_TIMEOUT_MS = 10_000;
const CLIENT_MARGE_MS = 5_000;

type Terug = (err: unknown, res?: unknown) => void;

/**
 * The client's own read timeout. Not pg's query_timeout: its closures, made inside pg's query() (as were
 * those of a wrapper made here), kept each statement's rows alive through young-generation collections
 * (bench/README.md, session 20); made in this function they are not. A timed-out statement is still in
 * flight, so the connection is ended and the pool drops it instead of handing it out again.
 */
function metLeestijd(client: pg.Client, terug: Terug, ms: number): { terug: Terug; stop: () => void } {
  let verlopen = false;
  const timer = setTimeout(() => {
    verlopen = true;
    client.end().catch(() => {});
    terug(new Error('Query read timeout'));
  }, ms);
  return {
    terug: (err, res) => {
      clearTimeout(timer);
      if (!verlopen) terug(err, res);
    },
    stop: () => clearTimeout(timer),
  };
}

/** As pg's own promise: the error's stack leads back to the awaiting code, not to the socket's read. */
function herschrijfStapel(err: unknown): never {
  if (err instanceof Error) Error.captureStackTrace(err);
  throw err;
}

function belofte(): { uit: Promise<unknown>; terug: Terug } {
  const r: { klaar?: (v: unknown) => void; fout?: (e: unknown) => void } = {};
  const uit = new Promise((klaar, fout) => Object.assign(r, { klaar, fout })).catch(herschrijfStapel);
  return { uit, terug: (err, res) => (err ? r.fout?.(err) : r.klaar?.(res)) };
}

export class TijdslimietClient extends pg.Client {
  private readonly leestijdMs: number;

  constructor(config: pg.ClientConfig & { leestijdMs?: number } = {}) {
    super(config);
    this.leestijdMs = config.leestijdMs ?? 0;
  }

  /** Then a dead client's waiting statement ends within a second, not committing a charge nobody gets (PostgreSQL 14+; refused elsewhere). */
  // biome-ignore lint/suspicious/noExplicitAny: pg's connect() has a callback and a promise form; this serves both.
  override connect(terug?: any): any {
    const klaar = super.connect().then(() => this.query('SET client_connection_check_interval = 1000').then(() => {}, () => {}));
    if (!terug) return klaar;
    klaar.then(() => terug(undefined), (e: Error) => terug(e));
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this only passes them on.
  override query(...args: any[]): any {
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const door = super.query as (...a: any[]) => any;
    if (!this.leestijdMs || args[0] == null || typeof args[0].submit === 'function') return door.apply(this, args);
    // A loop, not findLastIndex: the web app's type check sees this file and has no es2023 lib.
    let i = args.length - 1;
    while (i >= 0 && typeof args[i] !== 'function') i--;
    const inConfig = i < 0 && typeof args[0] === 'object' && typeof args[0].callback === 'function';
    const b = i >= 0 || inConfig ? null : belofte();
    const leestijd = metLeestijd(this, b ? b.terug : inConfig ? args[0].callback : args[i], this.leestijdMs);
    // pg throws at once for a query it cannot make: then no timer may be left to answer later.
    try {
      if (inConfig) {
        args[0] = { ...args[0], callback: leestijd.terug };
        return door.apply(this, args);
      }
      if (!b) {
        args[i] = leestijd.terug;
        return door.apply(this, args);
      }
      door.call(this, args[0], args[1], leestijd.terug);
    } catch (e) {
      leestijd.stop();
      throw e;
    }
    return b.uit;
  }
}

function maakClient(adapter: SqlMigrationAwareDriverAdapterFactory, onQuery?: (sql: string, params?: string) => void): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', (e) => onQuery(e.query, e.params));
  return prisma;
}

/** A migration script sent whole, its failure rejecting (the engine then leaves it pending). */
function scriptInEen<A extends { executeScript(script: string): Promise<void> }>(adapter: A, voer: (script: string) => Promise<unknown>): A {
  const intern = adapter as unknown as { onError(e: unknown): never };
  adapter.executeScript = async (script: string) => {
    try {
      await voer(script);
    } catch (e) {
      intern.onError(e);
    }
  };
  return adapter;
}

/**
 * @prisma/adapter-pg's executeScript splits a migration on every ";", breaking function bodies; this sends
 * the script as one simple-protocol query, as `psql -f` would, so PostgreSQL parses dollar quoting itself.
 */
class MigratiePg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const client = (adapter as unknown as { client: pg.Pool }).client;
    return scriptInEen(adapter, (script) => client.query(script));
  }
}

/** pglite-prisma-adapter 0.7.2's executeScript does not await exec: a failing migration was recorded as applied. */
class MigratiePGlite extends PrismaPGlite {
  override async connect() {
    const adapter = await super.connect();
    const client = (adapter as unknown as { client: PGlite }).client;
    return scriptInEen(adapter, (script) => client.exec(script));
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

/** Running, and running node: a pid /proc shows running another program was reused (a PGlite lock, an import's temporary directory). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // After a crash and a reboot the pid may be another program's: where /proc says so, the lock is stale.
  try {
    return /(^|\/)node[^/\0]*\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
  } catch {
    return true;
  }
}

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
      // The server gives up first, so a charge in a cancelled statement rolls back and the 503 is uncharged;
      // the client's own timeout only ends a wait on a host gone silent.
      statement_timeout: queryTimeout || undefined,
      leestijdMs: queryTimeout ? queryTimeout + CLIENT_MARGE_MS : 0,
      keepAlive: true,
    };
    const pool = new GemetenPool({ ...poolConfig, connectionString: opts.databaseUrl });
    // Without a listener an idle connection the server ended would crash the process via 'error'.
    pool.on('error', () => {});
    const adapterFactory = new PrismaPg(pool as unknown as ConstructorParameters<typeof PrismaPg>[0]);
    const prisma = maakClient(adapterFactory, opts.onQuery);
    const controleMs = opts.replicaControleMs ?? 1_000;
    const replicas = opts.replicaUrls?.length
      ? new Replicas(opts.databaseUrl, {
          urls: opts.replicaUrls,
          // A read the replica does not answer in time ends its connection, as on the primary, only sooner.
          poolConfig: { ...poolConfig, leestijdMs: leesGrensMs(controleMs) },
          maxAchterstandMs: opts.replicaMaxAchterstandMs ?? 10_000,
          controleMs,
          log: opts.log,
        })
      : undefined;
    // Not awaited: until the first check answers, register reads go to the primary.
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
    migratieAdapterFactory: new MigratiePGlite(pglite),
    location,
    async close() {
      await prisma.$disconnect();
      await pglite.close();
      release();
    },
  };
}
