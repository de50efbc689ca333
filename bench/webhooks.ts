/**
 * Webhook delivery throughput and latency (`npm run bench:webhooks`).
 *
 *   npm run bench:webhooks -- [--aantal 10000] [--schrijvers 16] [--postgres postgresql://...]
 *
 * A fresh migrated database (in-memory PGlite by default; with --postgres a database of its own,
 * `webhooks_bench_<random>`, created on that server and dropped at the end), one account with one
 * endpoint on a loopback receiver, and the service's own delivery worker (real signing, real HTTP, the
 * default bounds). Two runs:
 *   - idle: 200 events one at a time, 25 ms apart: latency from commit to receipt on a quiet system;
 *   - burst: `--aantal` events written by `--schrijvers` concurrent writers as fast as they commit:
 *     delivery throughput (events/s from the first commit to the last receipt) and commit->receipt p50/p99.
 * Commit time = when the statement that wrote the event returned; receipt = when the receiver had the body.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase, type Database } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakEndpoint } from '../src/domain/webhooks/beheer.ts';
import { schrijfGebeurtenis } from '../src/domain/webhooks/gebeurtenissen.ts';
import { Bezorger } from '../src/domain/webhooks/bezorger.ts';

const { values: args } = parseArgs({
  options: {
    aantal: { type: 'string', default: '10000' },
    schrijvers: { type: 'string', default: '16' },
    postgres: { type: 'string', default: '' },
    // PostgreSQL: print the statements of this run by total time (pg_stat_statements, if the server loads it).
    statements: { type: 'boolean', default: false },
  },
});
const AANTAL = Number(args.aantal);
const SCHRIJVERS = Number(args.schrijvers);

function percentiel(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function open(): Promise<{ db: Database; opruimen: () => Promise<void>; naam: string; url?: string }> {
  if (!args.postgres) {
    const db = await openDatabase({ databaseUrl: '', dataDir: '', memory: true });
    await applyMigrations(db.migratieAdapterFactory);
    return { db, naam: 'PGlite (in-memory)', opruimen: () => db.close() };
  }
  const naam = `webhooks_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: args.postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${naam}`);
  await admin.end();
  const url = new URL(args.postgres);
  url.pathname = `/${naam}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  await applyMigrations(db.migratieAdapterFactory);
  return {
    db,
    naam: 'PostgreSQL',
    url: url.toString(),
    async opruimen() {
      await db.close();
      const a = new pg.Client({ connectionString: args.postgres });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${naam} WITH (FORCE)`);
      await a.end();
    },
  };
}

const ontvangen = new Map<string, number>();
let ontvangstenTotaal = 0;
let wachter: (() => void) | undefined;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    ontvangstenTotaal++;
    if (!ontvangen.has(String(req.headers['webhook-id']))) ontvangen.set(String(req.headers['webhook-id']), performance.now());
    res.writeHead(204).end();
    wachter?.();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

const { db, opruimen, naam, url: pgUrl } = await open();
/** pg_stat_statements of this database only (the server is shared): reset now, report at the end. */
async function statements(reset: boolean): Promise<unknown[]> {
  if (!args.statements || !pgUrl) return [];
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const dbid = '(SELECT oid FROM pg_database WHERE datname = current_database())';
    if (reset) {
      await c.query(`SELECT pg_stat_statements_reset(0, ${dbid}, 0)`);
      return [];
    }
    const { rows } = await c.query(
      `SELECT calls, round(total_exec_time)::int AS totaal_ms, round(mean_exec_time::numeric, 3)::float AS gemiddeld_ms, rows,
         left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
       FROM pg_stat_statements WHERE dbid = ${dbid} ORDER BY total_exec_time DESC LIMIT 10`,
    );
    return rows;
  } catch (err) {
    return [`pg_stat_statements niet beschikbaar: ${(err as Error).message}`];
  } finally {
    await c.end();
  }
}
const log = pino({ level: 'warn' });
const acc = await maakAccount(db.prisma, { naam: 'bench', credits: 0 });
await maakEndpoint(db.prisma, { accountId: acc.id, url: `${base}/hook`, events: ['inzicht.voltooid'], now: new Date(), onveilig: true });
const bezorger = new Bezorger({ db: db.prisma, now: () => new Date(), log, onveilig: true, verloopControleMs: 0, luisterVerbinding: db.openRawConnection, eigenVerbinding: db.openRawConnection });
await bezorger.start();

async function schrijf(): Promise<{ id: string; commit: number }> {
  const id = await schrijfGebeurtenis(db.prisma, {
    accountId: acc.id,
    type: 'inzicht.voltooid',
    data: { verzoek_id: randomBytes(16).toString('hex'), kanaal: 'rest', voorziening: 'woz', status: 200, adres: '1234AB 1', gefactureerd_cent: 5, sleutel_voorvoegsel: 'pct_bench000' },
    now: new Date(),
  });
  if (!id) throw new Error('geen gebeurtenis geschreven');
  return { id, commit: performance.now() };
}

async function wachtOp(ids: string[]): Promise<void> {
  const tot = Date.now() + 300_000;
  // A moving index, not a scan of every id per receipt: the bench's own CPU would slow the worker it measures.
  let i = 0;
  const nogNiet = () => {
    while (i < ids.length && ontvangen.has(ids[i])) i++;
    return i < ids.length;
  };
  while (nogNiet()) {
    if (Date.now() > tot) throw new Error('niet alles ontvangen binnen 5 minuten');
    await new Promise<void>((r) => {
      wachter = r;
      setTimeout(r, 50);
    });
  }
}

function latenties(c: { id: string; commit: number }[]): number[] {
  return c.map((x) => (ontvangen.get(x.id) ?? Number.NaN) - x.commit);
}

await statements(true);
// Idle: one at a time.
const idle: { id: string; commit: number }[] = [];
for (let i = 0; i < 200; i++) {
  idle.push(await schrijf());
  await new Promise((r) => setTimeout(r, 25));
}
await wachtOp(idle.map((x) => x.id));
const li = latenties(idle);

// Burst.
const burst: { id: string; commit: number }[] = [];
const start = performance.now();
let volgende = 0;
await Promise.all(
  Array.from({ length: SCHRIJVERS }, async () => {
    while (volgende < AANTAL) {
      volgende++;
      burst.push(await schrijf());
    }
  }),
);
const geschreven = performance.now();
await wachtOp(burst.map((x) => x.id));
const laatste = Math.max(...burst.map((x) => ontvangen.get(x.id) ?? 0));
const lb = latenties(burst);
const uitkomst = {
  database: naam,
  idle: { events: idle.length, p50_ms: Math.round(percentiel(li, 50)), p99_ms: Math.round(percentiel(li, 99)) },
  burst: {
    events: burst.length,
    schrijven_per_s: Math.round(burst.length / ((geschreven - start) / 1000)),
    afleveren_per_s: Math.round(burst.length / ((laatste - start) / 1000)),
    p50_ms: Math.round(percentiel(lb, 50)),
    p99_ms: Math.round(percentiel(lb, 99)),
  },
  dubbel_ontvangen: 0,
};
uitkomst.dubbel_ontvangen = ontvangstenTotaal - ontvangen.size;
// Deliveries that needed more than one attempt (a failed send is retried after 5 s): should be none.
const herhaald = await db.prisma.$queryRawUnsafe<{ laatste_fout: string | null; n: number }[]>(
  'SELECT laatste_fout, count(*)::int AS n FROM webhook_aflevering WHERE pogingen > 1 GROUP BY laatste_fout',
);
Object.assign(uitkomst, { herhaald: herhaald.map((h) => `${h.n}× ${h.laatste_fout}`) });
console.log(JSON.stringify(uitkomst, null, 2));
if (args.statements) console.log(JSON.stringify(await statements(false), null, 2));
await bezorger.sluit();
server.close();
await opruimen();
