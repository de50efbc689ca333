/**
 * Import benchmark: a deterministic 1,000,000-row NLExtract bagadres-full CSV, imported with
 * `insight import bag-csv` machinery into PostgreSQL (target >= 50,000 rows/s) and into PGlite
 * (target >= 10,000 rows/s), each in its own child process so RSS is per database. RSS is sampled
 * every 100 ms; the report shows the peak and RSS at 10/25/50/75/100 % of the rows to show that
 * memory stays flat. A second (re-)import of the same file measures the idempotent path.
 *
 *   node bench/import.ts                      # both databases; PostgreSQL needs BENCH_DATABASE_URL
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/import.ts
 *   node bench/import.ts --rows 200000        # smaller file
 *   node bench/import.ts --db pglite          # one database only
 *
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) must allow CREATE DATABASE: the bench creates and drops
 * its own database. The CSV is written to bench-out/ (git-ignored) and reused when present.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/client.ts';
import { benchDatabase } from './bench-database.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { rdNaarLonLat } from '../src/domain/register/import/geo.ts';
import { voerImportUit } from '../src/domain/register/import/runner.ts';
import { Rng } from '../src/domain/register/demo/rng.ts';
import type { Voortgang, VoortgangStand } from '../src/domain/register/import/voortgang.ts';

const hier = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(hier, '..');

function arg(naam: string): string | undefined {
  const i = process.argv.indexOf(`--${naam}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

// ------------------------------------------------------------------------------------------ data

/** Deterministic uniform numbers in [0, 1) (the demo generator's seeded pure-rand stream). */
function prng(seed: number) {
  const r = new Rng(seed);
  return () => r.next();
}

const STRATEN = ['Kerkstraat', 'Dorpsstraat', 'Molenweg', 'Schoolstraat', 'Stationsweg', 'Julianastraat', 'Beatrixlaan', 'Wilhelminastraat', 'Eikenlaan', 'Nieuwstraat', 'De Ruijterkade', 'Prinsengracht'];
const PLAATSEN: [string, string, string][] = [
  ['Amsterdam', 'Amsterdam', 'Noord-Holland'],
  ['Utrecht', 'Utrecht', 'Utrecht'],
  ['Doesburg', 'Doesburg', 'Gelderland'],
  ['Zwolle', 'Zwolle', 'Overijssel'],
  ['Rotterdam', 'Rotterdam', 'Zuid-Holland'],
];
const DOELEN = ['woonfunctie', 'woonfunctie', 'woonfunctie', 'woonfunctie', 'woonfunctie', 'woonfunctie', 'kantoorfunctie', 'winkelfunctie', 'woonfunctie,winkelfunctie', 'industriefunctie'];
const KOP =
  'openbareruimte;huisnummer;huisletter;huisnummertoevoeging;postcode;woonplaats;gemeente;provincie;nummeraanduiding;verblijfsobjectgebruiksdoel;oppervlakteadresseerbaarobject;verblijfsobjectstatus;object_id;object_type;nevenadres;pandid;pandstatus;pandbouwjaar;x;y;lon;lat;verkorteopenbareruimte';

async function maakCsv(bestand: string, rijen: number): Promise<void> {
  const r = prng(20261122);
  const out = createWriteStream(bestand);
  const schrijf = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((res) => out.once('drain', () => res())));
  await schrijf(`${KOP}\n`);
  let pand = 0;
  let pandGrootte = 1;
  let inPand = pandGrootte; // start a new pand on the first row
  let bouwjaar = 1900;
  let x = 0;
  let y = 0;
  let buf = '';
  for (let i = 0; i < rijen; i++) {
    if (inPand >= pandGrootte) {
      pand++;
      inPand = 0;
      pandGrootte = r() < 0.7 ? 1 : 2 + Math.floor(r() * 8);
      bouwjaar = 1850 + Math.floor(r() * 175);
      x = 13000 + r() * 260000;
      y = 310000 + r() * 300000;
    }
    inPand++;
    const [wp, gem, prov] = PLAATSEN[pand % PLAATSEN.length];
    const pc = `${1000 + (Math.floor(i / 40) % 9000)}${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + (Math.floor(i / 26) % 26))}`;
    const soort = r() < 0.98 ? 'VBO' : r() < 0.5 ? 'LIG' : 'STA';
    const doel = soort === 'VBO' ? DOELEN[Math.floor(r() * DOELEN.length)] : '';
    const px = soort === 'VBO' ? x + inPand : x + 50;
    const py = soort === 'VBO' ? y + inPand : y + 50;
    const [lon, lat] = rdNaarLonLat(px, py);
    const letter = r() < 0.1 ? 'A' : '';
    const toev = inPand > 1 ? String(inPand) : '';
    buf +=
      `${STRATEN[i % STRATEN.length]};${1 + (i % 300)};${letter};${toev};${pc};${wp};${gem};${prov};` +
      `0363${String(200000000000 + i).padStart(12, '0')};${doel};${20 + Math.floor(r() * 200)};Verblijfsobject in gebruik;` +
      `0363${String(10000000000 + i).padStart(12, '0')};${soort};f;${soort === 'VBO' ? `0363${String(100000000000 + pand).padStart(12, '0')}` : ''};` +
      `${soort === 'VBO' ? 'Pand in gebruik' : ''};${soort === 'VBO' ? bouwjaar : ''};${Math.round(px)};${Math.round(py)};${lon};${lat};\n`;
    if (buf.length > 1 << 20) {
      await schrijf(buf);
      buf = '';
    }
  }
  await schrijf(buf);
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
}

// ------------------------------------------------------------------------------------------ child: one database

interface Meting {
  db: string;
  rijen: number;
  seconden: number;
  rijenPerSeconde: number;
  piekRssMb: number;
  rssBijVoortgangMb: Record<string, number>;
  tweedeRun: { seconden: number; rijenPerSeconde: number; ingevoegd: number; bijgewerkt: number; piekRssMb: number };
  tabellen: unknown;
}

async function kind(dbSoort: 'postgres' | 'pglite', bestand: string): Promise<void> {
  const admin = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || '';
  const bench = await benchDatabase(dbSoort, admin, 'insight-bench');
  const { url, dataDir } = bench;
  const db = await openDatabase({ databaseUrl: url, dataDir });
  try {
    await applyMigrations(db.adapterFactory);
    const run = async () => {
      let piek = 0;
      const perFractie: Record<string, number> = {};
      let stand: (() => VoortgangStand) | null = null;
      const drempels = [0.1, 0.25, 0.5, 0.75];
      const timer = setInterval(() => {
        const rss = process.memoryUsage.rss();
        piek = Math.max(piek, rss);
        const s = stand?.();
        if (s && s.totaalBytes > 0) {
          const f = s.gelezenBytes / s.totaalBytes;
          for (const d of drempels) if (f >= d && !(`${d * 100}%` in perFractie)) perFractie[`${d * 100}%`] = Math.round(rss / 1024 / 1024);
        }
      }, 100);
      const voortgang: Voortgang = {
        start: (f) => {
          stand = f;
        },
        stop: () => {},
      };
      const t0 = performance.now();
      const s = await voerImportUit(db, 'bag-csv', bestand, { voortgang });
      const sec = (performance.now() - t0) / 1000;
      clearInterval(timer);
      const rss = process.memoryUsage.rss();
      piek = Math.max(piek, rss);
      perFractie['100%'] = Math.round(rss / 1024 / 1024);
      return { s, sec, piek: Math.round(piek / 1024 / 1024), perFractie };
    };
    const eerste = await run();
    const tweede = await run();
    const m: Meting = {
      db: dbSoort,
      rijen: eerste.s.gelezen,
      seconden: Math.round(eerste.sec * 10) / 10,
      rijenPerSeconde: Math.round(eerste.s.gelezen / eerste.sec),
      piekRssMb: eerste.piek,
      rssBijVoortgangMb: eerste.perFractie,
      tweedeRun: {
        seconden: Math.round(tweede.sec * 10) / 10,
        rijenPerSeconde: Math.round(tweede.s.gelezen / tweede.sec),
        ingevoegd: tweede.s.ingevoegd,
        bijgewerkt: tweede.s.bijgewerkt,
        piekRssMb: tweede.piek,
      },
      tabellen: eerste.s.tabellen,
    };
    process.stdout.write(`${JSON.stringify(m)}\n`);
  } finally {
    await db.close();
    await bench.weg();
  }
}

// ------------------------------------------------------------------------------------------ main

async function main(): Promise<void> {
  const kindDb = arg('kind');
  if (kindDb === 'postgres' || kindDb === 'pglite') {
    await kind(kindDb, arg('bestand')!);
    return;
  }
  const rijen = Number(arg('rows') ?? 1_000_000);
  const uitDir = path.join(root, 'bench-out');
  mkdirSync(uitDir, { recursive: true });
  const bestand = path.join(uitDir, `bagadres-full-${rijen}.csv`);
  if (!existsSync(bestand)) {
    const t = performance.now();
    await maakCsv(bestand, rijen);
    console.error(`CSV gemaakt: ${bestand} (${(statSync(bestand).size / 1024 / 1024).toFixed(0)} MB, ${((performance.now() - t) / 1000).toFixed(1)} s)`);
  }
  const gevraagd = arg('db');
  const dbs = (['postgres', 'pglite'] as const).filter((d) => !gevraagd || d === gevraagd);
  const resultaten: Meting[] = [];
  for (const d of dbs) {
    if (d === 'postgres' && !process.env.BENCH_DATABASE_URL && !process.env.TEST_DATABASE_URL) {
      console.error('PostgreSQL overgeslagen: zet BENCH_DATABASE_URL (of TEST_DATABASE_URL).');
      continue;
    }
    console.error(`import in ${d} ...`);
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--kind', d, '--bestand', bestand], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0) {
      console.error(r.stderr);
      throw new Error(`bench ${d} mislukt (exit ${r.status})`);
    }
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as Meting;
    resultaten.push(m);
  }
  console.log(`\nbag-csv import, ${rijen.toLocaleString('nl-NL')} rijen (${(statSync(bestand).size / 1024 / 1024).toFixed(0)} MB)\n`);
  console.log('database   rijen/s   duur    piek-RSS   RSS bij 10/25/50/75/100 %      2e run (idempotent)');
  for (const m of resultaten) {
    const doel = m.db === 'postgres' ? 50_000 : 10_000;
    const rss = ['10%', '25%', '50%', '75%', '100%'].map((k) => m.rssBijVoortgangMb[k] ?? '-').join('/');
    console.log(
      `${m.db.padEnd(10)} ${String(m.rijenPerSeconde).padStart(7)}   ${`${m.seconden}s`.padEnd(7)} ${`${m.piekRssMb} MB`.padEnd(10)} ${`${rss} MB`.padEnd(30)} ` +
        `${m.tweedeRun.rijenPerSeconde} rijen/s, ${m.tweedeRun.ingevoegd} ingevoegd, ${m.tweedeRun.bijgewerkt} bijgewerkt` +
        `   ${m.rijenPerSeconde >= doel ? 'OK' : `ONDER DOEL (${doel})`}`,
    );
  }
  console.log(`\n${JSON.stringify(resultaten)}`);
}

await main();
