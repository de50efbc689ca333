/**
 * The whole Netherlands, scaled: generates a synthetic country in the official formats
 * (bench/land-data.ts), runs every import and derivation an operator runs, each in its own process,
 * then starts `insight serve` on the result and measures lookups.
 *
 *   npm run bench:land -- --schaal 0.01                 # PostgreSQL at BENCH_DATABASE_URL (own database, dropped after)
 *   npm run bench:land -- --schaal 0.1 --db pglite      # the embedded default
 *
 * Per step: wall seconds, CPU seconds of Node and of PostgreSQL (the cluster's processes, read from
 * /proc: run it on the database host), peak RSS, database size, rows/s. Then serve: seconds until
 * /healthz answers and until /readyz (valuation model built), RSS; p50/p99 of adres, woz and waarde
 * at 16 connections (wrk where installed, else autocannon; `--generator`). Prints a table and writes bench-out/land-<schaal>-<db>.json.
 * The generated files are kept in bench-out/land-<schaal>/ and reused.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { pino } from 'pino';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { maakModelHouder } from '../src/domain/valuation/houder.ts';
import { voerImportUit } from '../src/domain/register/import/runner.ts';
import geheugen from '../bin/import-geheugen.json' with { type: 'json' };
import { benchDatabase } from './bench-database.ts';
import { type LandBestanden, maakLand } from './land-data.ts';
import { kiesGenerator, type LookupMeting, meetLookups } from './lookups-meten.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEBRUIK = `Gebruik: npm run bench:land -- --schaal 0.01|0.1|1 [opties]
  --schaal S        grootte van het synthetische land (1 = heel Nederland)
  --db postgres|pglite   database (standaard postgres: een eigen database op de server van BENCH_DATABASE_URL, tenzij --url)
  --url URL         een bestaande PostgreSQL-database; --datadir MAP: een PGlite-map
  --stappen A,B     alleen deze stappen op --url, daarna stoppen; --serve: daarna serve en lookups meten
  --duur S          seconden per lookup-meting (standaard 10); --generator wrk|autocannon
  --bewaar          de bench-database bewaren; --profiel MAP: een CPU-profiel per stap
  Uitvoer: een tabel per stap en JSON (docs/landelijk.md).`;

function leesArgumenten() {
  try {
    return parseArgs({ options: OPTIES });
  } catch (e) {
    console.error(`${(e as Error).message.replace(/^Unknown option '(.*)'.*$/s, 'Onbekende optie $1.')}\n\n${GEBRUIK}`);
    process.exit(2);
  }
}

const OPTIES = {
    help: { type: 'boolean', short: 'h' },
    schaal: { type: 'string' },
    db: { type: 'string', default: 'postgres' },
    stap: { type: 'string' },
    bestand: { type: 'string' },
    url: { type: 'string', default: '' },
    datadir: { type: 'string', default: '' },
    duur: { type: 'string', default: '10' },
    /** Run only these steps (comma-separated) on the database at --url, then stop (no serve). */
    stappen: { type: 'string' },
    /** With --stappen: start serve and measure lookups after those steps (`--stappen '' --serve`: serve only). */
    serve: { type: 'boolean', default: false },
    /** Keep the bench database afterwards (prints its URL). */
    bewaar: { type: 'boolean', default: false },
    /** The load generator of the lookups: wrk (default where installed) or autocannon. */
    generator: { type: 'string' },
    /** Write a V8 CPU profile per step to this directory (node --cpu-prof). */
    profiel: { type: 'string' },
} as const;
const { values: arg } = leesArgumenten();
if (arg.help) {
  console.log(GEBRUIK);
  process.exit(0);
}

// ------------------------------------------------------------------------------------------ child: one step

/** One import in this process; prints its summary and this process's CPU and peak RSS as JSON. */
async function kindStap(): Promise<void> {
  const db = await openDatabase({ databaseUrl: arg.url, dataDir: arg.datadir });
  try {
    if (arg.stap === 'migreren') {
      await applyMigrations(db.migratieAdapterFactory);
    } else if (arg.stap === 'klant') {
      // An account and key for the lookups, and a sample of residential addresses to ask for.
      const acc = await maakAccount(db.prisma, { naam: 'bench:land', credits: 100_000_000 });
      const key = (await maakSleutel(db.prisma, { accountId: acc.id, naam: 'bench:land' })).key;
      const adressen = await db.prisma.$queryRawUnsafe<{ postcode: string; huisnummer: number; toevoeging: string | null }[]>(
        `SELECT postcode, huisnummer, toevoeging FROM adres WHERE 'woonfunctie' = ANY(gebruiksdoelen) ORDER BY md5(id) LIMIT 2000`,
      );
      process.stdout.write(`${JSON.stringify({ key, adressen })}\n`);
      return;
    } else if (arg.stap === 'waardemodel') {
      // `insight waardemodel bouwen`: fit the model once and store it, so serve loads it.
      const houder = maakModelHouder(db.prisma, pino({ level: 'silent' }));
      await houder.vernieuw();
      const r = process.resourceUsage();
      process.stdout.write(`${JSON.stringify({ gelezen: houder.staat()!.verkopen, cpuNode: (r.userCPUTime + r.systemCPUTime) / 1e6, piekRssMb: Math.round(r.maxRSS / 1024) })}\n`);
      return;
    } else {
      const s = await voerImportUit(db, arg.stap!, arg.bestand || null, { stil: true });
      const r = process.resourceUsage();
      process.stdout.write(
        `${JSON.stringify({ gelezen: s.gelezen, afgewezen: s.afgewezen, tabellen: s.tabellen, extra: { woningtype: s.woningtype, adresInvloed: s.adresInvloed }, cpuNode: (r.userCPUTime + r.systemCPUTime) / 1e6, piekRssMb: Math.round(r.maxRSS / 1024) })}\n`,
      );
      return;
    }
    const r = process.resourceUsage();
    process.stdout.write(`${JSON.stringify({ cpuNode: (r.userCPUTime + r.systemCPUTime) / 1e6, piekRssMb: Math.round(r.maxRSS / 1024) })}\n`);
  } finally {
    await db.close();
  }
}

// ------------------------------------------------------------------------------------------ PostgreSQL CPU

const TIK = 100; // USER_HZ on Linux

function statVan(pid: number): { ppid: number; cpu: number; kinderen: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const v = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(v[1]), cpu: (Number(v[11]) + Number(v[12])) / TIK, kinderen: (Number(v[13]) + Number(v[14])) / TIK };
  } catch {
    return null;
  }
}

/** CPU seconds of the whole cluster: the postmaster, its live children, and the children it reaped. */
function pgCpu(postmaster: number): number {
  const pm = statVan(postmaster);
  if (!pm) return 0;
  let som = pm.cpu + pm.kinderen;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = statVan(Number(d));
    if (s && s.ppid === postmaster) som += s.cpu;
  }
  return som;
}

// ------------------------------------------------------------------------------------------ main

interface StapMeting {
  stap: string;
  rijen: number;
  wandS: number;
  cpuNodeS: number;
  cpuPostgresS: number | null;
  piekRssMb: number;
  dbMb: number;
  rijenPerS: number;
  extra?: unknown;
}

function kind(args: string[], env: Record<string, string> = {}): Promise<{ uit: string; code: number | null }> {
  return new Promise((resolve) => {
    const prof = arg.profiel ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(arg.profiel)}`] : [];
    // The V8 flags `insight import` uses for this kind (bin/insight.js).
    const vlaggen = args[0] === '--stap' && geheugen.soorten.includes(args[1]) ? geheugen.vlaggen : [];
    const c = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...prof, ...vlaggen, fileURLToPath(import.meta.url), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let uit = '';
    c.stdout.on('data', (b: Buffer) => (uit += b.toString()));
    c.on('exit', (code) => resolve({ uit, code }));
  });
}

function duSync(map: string): number {
  const r = spawnSync('du', ['-sb', map], { encoding: 'utf8' });
  return Number(r.stdout.split('\t')[0]) || 0;
}

async function wacht(url: string, tot: number): Promise<boolean> {
  while (Date.now() < tot) {
    try {
      if ((await fetch(url)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** The resident set of a process now (VmRSS), or its peak so far (VmHWM), in MB. */
function rssVan(pid: number, veld: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  try {
    const m = new RegExp(`${veld}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  if (arg.stap) return kindStap();
  const schaal = Number(arg.schaal);
  if (!(schaal > 0 && schaal <= 1)) throw new Error('Gebruik: npm run bench:land -- --schaal 0.01|0.1|1 [--db postgres|pglite]');
  const dbSoort = arg.db === 'pglite' ? 'pglite' : 'postgres';
  const uitMap = path.join(ROOT, 'bench-out', `land-${schaal}`);
  const manifest = path.join(uitMap, 'land.json');
  let land: LandBestanden;
  let genereerS = 0;
  if (existsSync(manifest)) land = JSON.parse(readFileSync(manifest, 'utf8'));
  else {
    rmSync(uitMap, { recursive: true, force: true });
    mkdirSync(uitMap, { recursive: true });
    const t = performance.now();
    land = await maakLand(uitMap, schaal);
    genereerS = (performance.now() - t) / 1000;
    writeFileSync(manifest, JSON.stringify(land));
  }
  const mb = (f: string) => Math.round(statSync(f).size / 1024 / 1024);
  console.error(
    `land ${schaal}: ${land.adressen.toLocaleString('nl-NL')} adressen, ${land.panden.toLocaleString('nl-NL')} panden, BAG-zip ${mb(land.bag)} MB, EP-Online ${mb(land.energielabels)} MB` +
      (genereerS ? ` (gemaakt in ${genereerS.toFixed(0)} s)` : ' (hergebruikt)'),
  );

  let postmaster = 0;
  const admin = process.env.BENCH_DATABASE_URL || process.env.TEST_POSTGRES_URL || '';
  if (dbSoort === 'postgres') {
    if (!admin) throw new Error('PostgreSQL: zet BENCH_DATABASE_URL (een server op deze machine; de bench maakt en verwijdert zijn eigen database).');
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    const dir = (await c.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory;
    postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    await c.end();
  }
  // --stappen with --url/--datadir: only those steps, on an existing bench database (kept).
  const bestaand = Boolean(arg.stappen !== undefined && (arg.url || arg.datadir));
  const bench = bestaand ? { url: arg.url, dataDir: arg.datadir, weg: async () => {} } : await benchDatabase(dbSoort, admin, 'insight-land');
  const { url, dataDir } = bench;
  const dbGrootte = async (): Promise<number> => {
    if (dbSoort === 'pglite') return Math.round(duSync(dataDir) / 1024 / 1024);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const r = await c.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    await c.end();
    return Math.round(Number(r.rows[0].n) / 1024 / 1024);
  };

  const stappen: [string, string | null][] = [
    ['migreren', null],
    ['bag-xml', land.bag],
    ['invloeden', land.invloeden],
    ['energielabels', land.energielabels],
    ['woz', land.woz],
    ['verkopen', land.verkopen],
    ['prijsindex', path.join(ROOT, 'test/fixtures/cbs-83906NED/83906NED_UntypedDataSet_05022022_160508.csv')],
    ['woningtype-afleiden', null],
    // A BAG refresh: the same extract again (nothing changes, influences only for new/moved addresses).
    ['bag-xml', land.bag],
    // After the imports (README): fit the valuation model once and store it for every server.
    ['waardemodel', null],
  ];
  const gekozen = arg.stappen?.split(',').filter(Boolean);
  if (gekozen) {
    const bekend = new Map(stappen);
    const onbekend = gekozen.filter((g) => !bekend.has(g));
    if (onbekend.length) throw new Error(`Onbekende stap(pen): ${onbekend.join(', ')}`);
    stappen.splice(0, stappen.length, ...gekozen.map((g): [string, string | null] => [g, bekend.get(g)!]));
  }
  const metingen: StapMeting[] = [];
  let serve: Record<string, unknown> = {};
  const lastBij: number[] = [];
  try {
    for (const [stap, bestand] of stappen) {
      const naam = metingen.some((m) => m.stap === stap) ? `${stap} (opnieuw)` : stap;
      console.error(`… ${naam}`);
      const pg0 = postmaster ? pgCpu(postmaster) : 0;
      const t0 = performance.now();
      const r = await kind(['--stap', stap, '--bestand', bestand ?? '', '--url', url, '--datadir', dataDir]);
      const wand = (performance.now() - t0) / 1000;
      if (r.code !== 0) throw new Error(`stap ${naam} mislukt (exit ${r.code})`);
      lastBij.push(loadavg()[0]);
      const u = JSON.parse(r.uit.trim().split('\n').pop()!);
      const rijen = u.gelezen ?? 0;
      metingen.push({
        stap: naam,
        rijen,
        wandS: Math.round(wand * 10) / 10,
        cpuNodeS: Math.round(u.cpuNode * 10) / 10,
        cpuPostgresS: postmaster ? Math.round((pgCpu(postmaster) - pg0) * 10) / 10 : null,
        piekRssMb: u.piekRssMb,
        dbMb: await dbGrootte(),
        rijenPerS: rijen ? Math.round(rijen / wand) : 0,
        extra: u.extra,
      });
    }

    if (gekozen && !arg.serve) {
      for (const m of metingen) console.log(JSON.stringify(m));
      return;
    }
    // Serve: an account, a key and addresses to ask for first (PGlite: before the server holds the data directory).
    const k = await kind(['--stap', 'klant', '--url', url, '--datadir', dataDir]);
    const { key, adressen } = JSON.parse(k.uit.trim().split('\n').pop()!) as { key: string; adressen: { postcode: string; huisnummer: number; toevoeging: string | null }[] };
    const bodies = adressen.map((a) => JSON.stringify({ adres: { postcode: a.postcode, huisnummer: String(a.huisnummer), ...(a.toevoeging ? { toevoeging: a.toevoeging } : {}) } }));
    const poort = 20000 + Math.floor(Math.random() * 20000);
    const basis = `http://127.0.0.1:${poort}`;
    const t0 = performance.now();
    const server: ChildProcess = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: url, DATA_DIR: dataDir, PORT: String(poort), HOST: '127.0.0.1', DEMO_SEED: 'false', DEMO_PLAATS: 'false', LOG_LEVEL: 'info', RATE_LIMIT_REST_PER_MIN: '10000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    // Once the start is read from it, only a tail: an access line per lookup would grow it by ~20 MB a run.
    let staart = false;
    const lees = (b: Buffer) => {
      log += b.toString();
      if (staart && log.length > 131_072) log = log.slice(-65_536);
    };
    server.stdout!.on('data', lees);
    server.stderr!.on('data', lees);
    try {
      if (!(await wacht(`${basis}/healthz`, Date.now() + 120_000))) throw new Error(`/healthz antwoordde niet binnen 120 s:\n${log}`);
      const levend = (performance.now() - t0) / 1000;
      if (!(await wacht(`${basis}/readyz`, Date.now() + 600_000))) throw new Error(`/readyz werd niet 200 binnen 600 s:\n${log}`);
      const gereed = (performance.now() - t0) / 1000;
      const bouw = /"ms":(\d+)[^\n]*waardemodel (gebouwd|geladen)/.exec(log);
      const verkopen = /"verkopen":(\d+)[^\n]*waardemodel (gebouwd|geladen)/.exec(log);
      staart = true;
      const rssGereed = rssVan(server.pid!);
      const duur = Number(arg.duur);
      const generator = kiesGenerator(arg.generator);
      const lookups: Record<string, LookupMeting> = {};
      for (const v of ['adres', 'woz', 'waarde']) {
        await meetLookups(generator, `${basis}/api/v1/inzicht/${v}`, key, bodies, 2); // warm-up
        lookups[v] = await meetLookups(generator, `${basis}/api/v1/inzicht/${v}`, key, bodies, duur);
      }
      serve = {
        healthzS: Math.round(levend * 10) / 10,
        readyS: Math.round(gereed * 10) / 10,
        modelBouwS: bouw ? Number(bouw[1]) / 1000 : null,
        modelUitOpslag: bouw ? bouw[2] === 'geladen' : null,
        modelVerkopen: verkopen ? Number(verkopen[1]) : null,
        rssGereedMb: rssGereed,
        rssNaLookupsMb: rssVan(server.pid!),
        piekRssMb: rssVan(server.pid!, 'VmHWM'),
        generator,
        lookups,
      };
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  } finally {
    if (arg.bewaar) console.error(`database bewaard: ${url || dataDir}`);
    else await bench.weg();
  }

  const p = (s: string | number, n: number) => String(s).padStart(n);
  console.log(`\nbench:land --schaal ${schaal} op ${dbSoort}: ${land.adressen.toLocaleString('nl-NL')} adressen (load ${lastBij.map((l) => l.toFixed(1)).join('/')})\n`);
  console.log('stap                      wand s   CPU Node s   CPU PostgreSQL s   piek-RSS MB   DB MB      rijen    rijen/s');
  for (const m of metingen) {
    console.log(
      `${m.stap.padEnd(24)} ${p(m.wandS, 7)}   ${p(m.cpuNodeS, 10)}   ${p(m.cpuPostgresS ?? '-', 16)}   ${p(m.piekRssMb, 11)}   ${p(m.dbMb, 5)}  ${p(m.rijen, 9)}  ${p(m.rijenPerS, 9)}`,
    );
  }
  const totaal = metingen.reduce((a, m) => a + m.wandS, 0);
  console.log(`${'totaal'.padEnd(24)} ${p(Math.round(totaal), 7)}`);
  const s = serve as { healthzS: number; readyS: number; modelBouwS: number; modelVerkopen: number; rssGereedMb: number; rssNaLookupsMb: number; piekRssMb: number; generator: string; lookups: Record<string, LookupMeting> };
  console.log(`\nserve: /healthz na ${s.healthzS} s, gereed (/readyz) na ${s.readyS} s, waardemodel ${s.modelBouwS} s over ${s.modelVerkopen} verkopen, RSS ${s.rssGereedMb} MB (na de opvragingen ${s.rssNaLookupsMb} MB, piek ${s.piekRssMb} MB)`);
  for (const [v, l] of Object.entries(s.lookups)) {
    console.log(`  ${v.padEnd(7)} p50 ${l.p50} ms  p99 ${l.p99} ms  ${l.perS}/s  (${s.generator} ${l.generatorCpuMs.toFixed(3)} ms CPU per verzoek; statussen ${JSON.stringify(l.statussen)}, fouten ${l.fouten})`);
  }
  const uit = path.join(ROOT, 'bench-out', `land-${schaal}-${dbSoort}.json`);
  writeFileSync(uit, `${JSON.stringify({ schaal, db: dbSoort, adressen: land.adressen, panden: land.panden, load: lastBij, stappen: metingen, serve, datum: new Date().toISOString() }, null, 2)}\n`);
  console.log(`\nJSON: ${path.relative(ROOT, uit)}`);
}

await main();
