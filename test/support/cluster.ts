/**
 * A PostgreSQL cluster of a test's own (initdb in a temp dir, pg_ctl on a free loopback port, as .ci/run
 * does; as root through `su postgres`), for tests that stop servers or make standbys without touching
 * anyone else's. The programs come from the Debian package (/usr/lib/postgresql/<version>/bin).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { vrijePoort } from './server.ts';

const uitvoeren = promisify(execFile);

function pgBin(): string | undefined {
  const basis = '/usr/lib/postgresql';
  if (!existsSync(basis)) return undefined;
  const versies = readdirSync(basis).filter((v) => existsSync(path.join(basis, v, 'bin/pg_ctl')) && existsSync(path.join(basis, v, 'bin/initdb')));
  versies.sort((a, b) => Number(a) - Number(b));
  return versies.length ? path.join(basis, versies[versies.length - 1], 'bin') : undefined;
}

const PGBIN = pgBin();
const ALS_ROOT = process.getuid?.() === 0;

/** Why no cluster of its own can run here ('' when it can). */
export async function clusterOnmogelijk(): Promise<string> {
  if (!PGBIN) return 'geen PostgreSQL-programma’s in /usr/lib/postgresql/*/bin (Debian-pakket postgresql)';
  if (ALS_ROOT) {
    try {
      await uitvoeren('id', ['postgres']);
    } catch {
      return 'als root draait initdb alleen als gebruiker postgres, en die bestaat hier niet';
    }
  }
  return '';
}

/** Run a PostgreSQL program (as the postgres user when we are root: initdb refuses root). */
async function pg(programma: string, args: string[]): Promise<void> {
  const bin = path.join(PGBIN!, programma);
  if (ALS_ROOT) {
    const regel = [bin, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    await uitvoeren('su', ['postgres', '-c', regel]);
  } else await uitvoeren(bin, args);
}

export interface Cluster {
  map: string;
  poort: number;
  /** postgresql:// URL of its `postgres` database. */
  url: string;
  start(): Promise<void>;
  stop(modus?: 'fast' | 'immediate'): Promise<void>;
  /** Stop (immediate, if it still runs) and remove the data directory. */
  verwijder(): Promise<void>;
}

async function legeMap(voorvoegsel: string): Promise<string> {
  const map = mkdtempSync(path.join(tmpdir(), voorvoegsel));
  if (ALS_ROOT) chownSync(map, Number((await uitvoeren('id', ['-u', 'postgres'])).stdout.trim()), Number((await uitvoeren('id', ['-g', 'postgres'])).stdout.trim()));
  return map;
}

/** A cluster on `map` (already filled), not yet started; `instellingen` are extra `-c name=value` settings. */
async function cluster(map: string, instellingen: string[]): Promise<Cluster> {
  const poort = await vrijePoort();
  const opties = [`-h 127.0.0.1 -p ${poort} -k ${map}`, '-c fsync=off -c synchronous_commit=off -c full_page_writes=off', ...instellingen.map((i) => `-c ${i}`)].join(' ');
  const c: Cluster = {
    map,
    poort,
    url: `postgresql://postgres@127.0.0.1:${poort}/postgres`,
    start: () => pg('pg_ctl', ['-D', map, '-l', path.join(map, 'log'), '-w', '-o', opties, 'start']),
    stop: (modus = 'fast') => pg('pg_ctl', ['-D', map, '-m', modus, '-w', 'stop']),
    async verwijder() {
      await c.stop('immediate').catch(() => {});
      rmSync(map, { recursive: true, force: true });
    },
  };
  return c;
}

/** initdb and start a new cluster. */
export async function startCluster(opts: { instellingen?: string[] } = {}): Promise<Cluster> {
  const map = await legeMap('insight-pg-');
  await pg('initdb', ['-D', map, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const c = await cluster(map, opts.instellingen ?? []);
  await c.start();
  return c;
}

/**
 * A streaming replica of `primair` (pg_basebackup -R: a hot standby that follows it over a replication
 * connection on loopback), started. initdb's trust rules already allow replication from 127.0.0.1.
 */
export async function startStandby(primair: Cluster, opts: { instellingen?: string[] } = {}): Promise<Cluster> {
  const map = await legeMap('insight-standby-');
  await pg('pg_basebackup', ['-D', map, '-R', '-X', 'stream', '-c', 'fast', '-h', '127.0.0.1', '-p', String(primair.poort), '-U', 'postgres']);
  const c = await cluster(map, opts.instellingen ?? []);
  await c.start();
  return c;
}
