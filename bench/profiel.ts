/**
 * Where one request's time goes (`npm run bench:profiel`): a CPU profile of a real server process and
 * pg_stat_statements of its database, under load of one scenario.
 *
 *   npm run bench:profiel -- [--scenario waarde|whoami|woz|mcp] [--duur 10] [--verbindingen 16] [--top 30] [--accounts 1] [--sleutels 8]
 *
 * Needs PostgreSQL with pg_stat_statements preloaded (BENCH_POSTGRES_URL, default the dev server on
 * :55440; without the extension only the CPU profile is shown). Creates a database of its own
 * (`profiel_bench_<random>`, dropped at the end), starts `insight serve` on it with the demo dataset
 * under `--cpu-prof`, warms it up, then loads it with autocannon for `--duur` seconds. Prints the
 * functions with the most self time (and the packages/files they belong to) and the statements with
 * the most execution time per call; the raw `.cpuprofile` stays in a temp directory for Chrome
 * DevTools or speedscope.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { startServer } from '../test/support/server.ts';
import { ADRESSEN, scenarioVerzoek } from './scenarios.ts';
import { hoofdProfiel, monotoonUs, zelfTijd } from './cpu-profiel.ts';

const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'waarde' },
    duur: { type: 'string', default: '10' },
    verbindingen: { type: 'string', default: '16' },
    top: { type: 'string', default: '30' },
    /** Spread the load over this many accounts with a key each (round robin), as `npm run bench`'s '8 accounts'. */
    accounts: { type: 'string', default: '1' },
    /** Keys per account (bench/scenarios.ts: MCP answers a (key, arguments) pair it has seen from the stored answer). */
    sleutels: { type: 'string', default: '8' },
    /** Before the measured keys, warm the server up on this many other fresh keys (10 per account), as `npm run bench`'s '1 key' after its 1,000-key runs. */
    vooraf: { type: 'string', default: '0' },
  },
});
const PG_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:55440/postgres';
const RUIM = '10000000';
const log = (s: string) => process.stderr.write(`${s}\n`);

const dbNaam = `profiel_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbNaam}`);
// Also the statements inside the SQL functions (rate limit, charge), each with its own line.
await admin.query(`ALTER DATABASE ${dbNaam} SET pg_stat_statements.track = 'all'`).catch(() => {});
const dbUrl = Object.assign(new URL(PG_URL), { pathname: `/${dbNaam}` }).toString();
const profielMap = mkdtempSync(path.join(tmpdir(), 'insight-profiel-'));
let laadStart = 0;
let laadEind = 0;
let serverPid = 0;
try {
  const server = await startServer(dbUrl, {
    RATE_LIMIT_REST_PER_MIN: RUIM,
    RATE_LIMIT_MCP_TOOLS_PER_MIN: RUIM,
    RATE_LIMIT_MCP_PROTOCOL_PER_MIN: RUIM,
    DEMO_SEED: 'true',
    LOG_LEVEL: 'error',
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profielMap}`,
  });
  try {
    const db = await openDatabase({ databaseUrl: dbUrl, dataDir: '' });
    const eerder: string[] = [];
    while (eerder.length < Number(args.vooraf)) {
      const acc = await maakAccount(db.prisma, { naam: `profiel vooraf ${eerder.length}`, credits: 1_000_000_000 });
      for (let i = 0; i < 10 && eerder.length < Number(args.vooraf); i++) eerder.push((await maakSleutel(db.prisma, { accountId: acc.id, naam: `vooraf ${i}` })).key);
    }
    const keys: string[] = [];
    for (let a = 0; a < Number(args.accounts); a++) {
      const acc = await maakAccount(db.prisma, { naam: `profiel ${a}`, credits: 1_000_000_000 });
      for (let i = 0; i < Number(args.sleutels); i++) keys.push((await maakSleutel(db.prisma, { accountId: acc.id, naam: `profiel ${i}` })).key);
    }
    const adressen = (
      await db.prisma.$queryRawUnsafe<{ postcode: string; huisnummer: number; huisletter: string | null; toevoeging: string | null }[]>(
        `SELECT postcode, huisnummer, huisletter, toevoeging FROM adres WHERE huisletter IS NULL AND toevoeging IS NULL ORDER BY md5(id) LIMIT ${ADRESSEN}`,
      )
    ).map((r) => ({ postcode: r.postcode, huisnummer: String(r.huisnummer) }));
    await db.close();
    // One count over the warm-up and the measurement: MCP would answer a (key, address) pair it has seen from its stored answer.
    let n = 0;
    let warm = true;
    const s = scenarioVerzoek(args.scenario, keys, adressen);
    const sVooraf = eerder.length ? scenarioVerzoek(args.scenario, eerder, adressen) : s;
    const laden = (duur: number) =>
      new Promise<autocannon.Result>((resolve, reject) =>
        autocannon(
          {
            url: server.url,
            connections: Number(args.verbindingen),
            duration: duur,
            requests: [
              {
                method: s.method,
                path: s.path,
                headers: s.headers,
                setupRequest: (r: autocannon.Request) => {
                  const v = (warm ? sVooraf : s).verzoek(n++);
                  return { ...r, headers: { ...s.headers, authorization: v.authorization }, ...(v.body ? { body: v.body } : {}) };
                },
              },
            ],
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      );
    await laden(3);
    warm = false;
    if (eerder.length) await laden(2);
    const statistiek = await admin.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'`).then(
      async () => {
        const c = new pg.Client({ connectionString: dbUrl });
        await c.connect();
        try {
          await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
          await c.query('SELECT pg_stat_statements_reset()');
          return c;
        } catch (e) {
          log(`pg_stat_statements niet beschikbaar: ${(e as Error).message}`);
          await c.end();
          return null;
        }
      },
    );
    laadStart = monotoonUs();
    const res = await laden(Number(args.duur));
    laadEind = monotoonUs();
    log(`${args.scenario}: ${Math.round(res.requests.average)} req/s, p50 ${res.latency.p50} ms, p99 ${res.latency.p99} ms, niet-2xx ${res.non2xx}, ${res.requests.total} verzoeken`);
    if (statistiek) {
      const r = await statistiek.query(
        `SELECT calls, round(total_exec_time::numeric, 1) AS totaal_ms, round(mean_exec_time::numeric, 3) AS gem_ms, round((calls::numeric / $1), 2) AS per_verzoek, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $2 ORDER BY total_exec_time DESC LIMIT 25`,
        [res.requests.total, dbNaam],
      );
      log('\npg_stat_statements (deze database, tijdens de meting):');
      for (const row of r.rows) log(`  ${String(row.totaal_ms).padStart(9)} ms  ${String(row.gem_ms).padStart(7)} ms/call  ${String(row.per_verzoek).padStart(5)}×/verzoek  ${row.query}`);
      await statistiek.end();
    }
  } finally {
    serverPid = server.pid;
    await server.stop();
  }
  const { perFunctie, perBron, totaal } = zelfTijd(hoofdProfiel(profielMap, serverPid), (t) => t >= laadStart && t <= laadEind);
  const top = Number(args.top);
  log(`\nCPU-profiel (${profielMap}; tijdens de meting: ${Math.round(totaal)} ms niet-idle in ${((laadEind - laadStart) / 1e6).toFixed(1)} s)\nper bron:`);
  for (const [k, v] of [...perBron].sort((a, b) => b[1] - a[1]).slice(0, top)) log(`  ${((100 * v) / totaal).toFixed(1).padStart(5)} %  ${k}`);
  log('per functie (eigen tijd):');
  for (const [k, v] of [...perFunctie].sort((a, b) => b[1] - a[1]).slice(0, top)) log(`  ${((100 * v) / totaal).toFixed(1).padStart(5)} %  ${k}`);
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbNaam} WITH (FORCE)`).catch(() => {});
  await admin.end();
}
