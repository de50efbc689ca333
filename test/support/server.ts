/**
 * Real server processes (`insight serve`) on one PostgreSQL database, for the tests that must prove a
 * rule holds across instances (charging, rate limits). Each process gets its own free port; stop()
 * ends exactly that process (by its pid), never anything else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProces {
  url: string;
  pid: number;
  /** stderr/stdout of the process so far, for failure messages. */
  uitvoer(): string;
  stop(): Promise<void>;
}

/** A free loopback port (nothing listens on it once this resolves). */
export async function vrijePoort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function wachtOpExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Start `node src/cli/main.ts serve` on databaseUrl and wait (up to klaarBinnenMs) until /readyz answers 200. */
export function startServer(databaseUrl: string, env: Record<string, string> = {}, klaarBinnenMs = 60_000): Promise<ServerProces> {
  return startServerIn(ROOT, databaseUrl, env, klaarBinnenMs);
}

/** As startServer, from another checkout of this repository (`npm run bench:ab`), with its own Node. */
export async function startServerIn(map: string, databaseUrl: string, env: Record<string, string> = {}, klaarBinnenMs = 60_000): Promise<ServerProces> {
  const port = await vrijePoort();
  const child = spawn(path.join(map, 'node_modules/.bin/node'), ['src/cli/main.ts', 'serve'], {
    cwd: map,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      DEMO_SEED: 'false',
      // Loading the demo town takes seconds per start: only with the demo account, or when asked for.
      DEMO_PLAATS: env.DEMO_SEED === 'true' ? 'true' : 'false',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const url = `http://127.0.0.1:${port}`;
  const proces: ServerProces = {
    url,
    pid: child.pid!,
    uitvoer: () => log,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      if (!(await wachtOpExit(child, 12_000))) {
        child.kill('SIGKILL');
        await wachtOpExit(child, 5_000);
      }
    },
  };
  const tot = Date.now() + klaarBinnenMs;
  while (Date.now() < tot) {
    if (child.exitCode !== null) throw new Error(`server op poort ${port} stopte meteen (code ${child.exitCode}):\n${log}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) return proces;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  await proces.stop();
  throw new Error(`server op poort ${port} werd niet gereed binnen ${klaarBinnenMs / 1000} s:\n${log}`);
}

export interface HttpAntwoord {
  status: number;
  headers: Headers;
  body: any;
}

/** One JSON request against a real server. */
export async function verzoek(basis: string, methode: string, pad: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpAntwoord> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${basis}${pad}`, { method: methode, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const tekst = await r.text();
  let body: unknown = tekst;
  try {
    body = JSON.parse(tekst);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, headers: r.headers, body };
}

/**
 * Start n processes one after another (each ready before the next starts), as a rolling deploy does.
 * Returns the ones that came up and the errors of the ones that did not, so a test can assert on both.
 */
export async function startServers(databaseUrl: string, n: number, env: Record<string, string> = {}): Promise<{ servers: ServerProces[]; fouten: string[] }> {
  const servers: ServerProces[] = [];
  const fouten: string[] = [];
  for (let i = 0; i < n; i++) {
    try {
      servers.push(await startServer(databaseUrl, env));
    } catch (e) {
      fouten.push(String((e as Error).message ?? e));
    }
  }
  return { servers, fouten };
}

/** Start n processes at the same moment (scale-out, several replicas restarted together). */
export async function startServersTegelijk(databaseUrl: string, n: number, env: Record<string, string> = {}): Promise<{ servers: ServerProces[]; fouten: string[] }> {
  const uitkomsten = await Promise.allSettled(Array.from({ length: n }, () => startServer(databaseUrl, env)));
  return {
    servers: uitkomsten.flatMap((u) => (u.status === 'fulfilled' ? [u.value] : [])),
    fouten: uitkomsten.flatMap((u) => (u.status === 'rejected' ? [String((u.reason as Error).message ?? u.reason)] : [])),
  };
}
