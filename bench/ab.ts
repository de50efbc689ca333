/**
 * This checkout against another one, at the same time on one machine (`npm run bench:ab`): an A/B of
 * the request path in which drift of the machine (other load, a neighbour on the host, the CPU's
 * clock) falls on both sides alike, which runs of one tree after the other cannot promise.
 *
 *   npm run bench:ab -- --basis ../andere-checkout [--scenario woz,waarde,whoami,mcp] [--wissels 8] [--duur 3] [--verbindingen 16] [--accounts 1] [--sleutels 8] [--opwarmen 15] [--profiel]
 *
 * `--basis` is another checkout of this repository with its own `npm install` (e.g. `git worktree add
 * ../basis <commit>`). Each side gets a database of its own on the PostgreSQL server of
 * BENCH_POSTGRES_URL (default the dev server on :55440; dropped at the end), migrated and seeded with
 * the demo dataset by its own `insight serve`, and an account and key made by its own CLI. Both
 * servers run throughout; per scenario the load alternates between them in short turns (A B B A ...),
 * so each side's turns are spread over the same minutes. Prints per scenario the median req/s and
 * the median CPU per request (/proc/<pid>/stat) of each side's server and of the PostgreSQL backends
 * serving its database, and main's change against it.
 * `--profiel`: both servers run under `--cpu-prof`; per scenario the self time per request of each
 * package/file during that side's measured turns, side by side, largest differences first — where a
 * difference in CPU per request comes from.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startServerIn, type ServerProces } from '../test/support/server.ts';
import { ADRESSEN, scenarioVerzoek } from './scenarios.ts';
import { hoofdProfiel, monotoonUs, zelfTijd } from './cpu-profiel.ts';

const { values: args } = parseArgs({
  options: {
    basis: { type: 'string' },
    scenario: { type: 'string', default: 'whoami,woz,waarde,mcp' },
    wissels: { type: 'string', default: '8' },
    duur: { type: 'string', default: '3' },
    verbindingen: { type: 'string', default: '16' },
    /** Spread the load over this many accounts with a key each (round robin), as `npm run bench`'s '8 accounts'. */
    accounts: { type: 'string', default: '1' },
    /** Keys per account: MCP answers a (key, arguments) pair it has seen from the stored answer, so a run needs enough pairs (bench/scenarios.ts). */
    sleutels: { type: 'string', default: '8' },
    profiel: { type: 'boolean', default: false },
    /** Unmeasured seconds of each scenario on each side before the first turn: a fresh server measures slow for its first minute. */
    opwarmen: { type: 'string', default: '15' },
    top: { type: 'string', default: '15' },
  },
});
if (!args.basis) throw new Error('Gebruik: npm run bench:ab -- --basis <andere checkout> [--scenario woz,waarde] [--wissels 8] [--duur 3]');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:55440/postgres';
const RUIM = '10000000';
const RUIME_LIMIETEN = { RATE_LIMIT_REST_PER_MIN: RUIM, RATE_LIMIT_MCP_TOOLS_PER_MIN: RUIM, RATE_LIMIT_MCP_PROTOCOL_PER_MIN: RUIM };
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Kant {
  naam: string;
  map: string;
  dbUrl: string;
  server?: ServerProces;
  keys: string[];
  /** Requests sent to this side so far, over all its turns: request n's key and address (bench/scenarios.ts). */
  verzonden: number;
  profielMap?: string;
  /** Per scenario: the measured turns (monotonic µs) and their requests. */
  beurten: Record<string, { van: number; tot: number; verzoeken: number }[]>;
}

function cli(kant: Kant, ...argv: string[]): unknown {
  const uit = execFileSync(path.join(kant.map, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', 'src/cli/main.ts', ...argv, '--json'], {
    cwd: kant.map,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: kant.dbUrl, DEMO_SEED: 'false', DEMO_PLAATS: 'false', LOG_LEVEL: 'error' },
    encoding: 'utf8',
  });
  return JSON.parse(uit);
}

function cpuSeconden(pid: number): number {
  const v = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const velden = v.slice(v.lastIndexOf(')') + 2).split(' ');
  return (Number(velden[11]) + Number(velden[12])) / 100;
}

/** CPU seconds of the backends serving database `db` now; one that appears later counts from zero. */
async function pgCpu(admin: pg.Client, db: string): Promise<Map<number, number>> {
  const r = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db]);
  const uit = new Map<number, number>();
  for (const { pid } of r.rows) {
    try {
      uit.set(pid, cpuSeconden(pid));
    } catch {
      // Ended meanwhile.
    }
  }
  return uit;
}

const mediaan = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const kanten: Kant[] = [
    { naam: 'basis', map: path.resolve(args.basis!), dbUrl: '', keys: [], verzonden: 0, beurten: {} },
    { naam: 'deze', map: ROOT, dbUrl: '', keys: [], verzonden: 0, beurten: {} },
  ];
  try {
    for (const k of kanten) {
      const db = `ab_${k.naam}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${db}`);
      const u = new URL(PG_URL);
      u.pathname = `/${db}`;
      k.dbUrl = u.toString();
      log(`${k.naam}: ${k.map}, database ${db}`);
      // Each side's own server migrates its database and seeds the demo dataset on its first start.
      if (args.profiel) k.profielMap = mkdtempSync(path.join(tmpdir(), `insight-ab-${k.naam}-`));
      const profiel: Record<string, string> = k.profielMap ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${k.profielMap}` } : {};
      k.server = await startServerIn(k.map, k.dbUrl, { ...RUIME_LIMIETEN, DEMO_SEED: 'true', LOG_LEVEL: 'error', ...profiel }, 180_000);
      for (let a = 0; a < Number(args.accounts); a++) {
        const acc = cli(k, 'account', 'create', '--name', `bench:ab ${a}`, '--credits', '1000000000') as { account_id: string };
        for (let i = 0; i < Number(args.sleutels); i++) k.keys.push((cli(k, 'key', 'create', acc.account_id, '--name', `bench:ab ${i}`) as { key: string }).key);
      }
    }
    const c = new pg.Client({ connectionString: kanten[1].dbUrl });
    await c.connect();
    const adressen = (
      await c.query<{ postcode: string; huisnummer: number }>(`SELECT postcode, huisnummer FROM adres WHERE huisletter IS NULL AND toevoeging IS NULL ORDER BY md5(id) LIMIT ${ADRESSEN}`)
    ).rows.map((r) => ({ postcode: r.postcode, huisnummer: String(r.huisnummer) }));
    await c.end();

    for (const scenario of new Set(args.scenario!.split(','))) for (const k of kanten) await laad(k, scenario, adressen, Number(args.opwarmen));
    const uitslag: Record<string, Record<string, { perS: number[]; cpuMs: number[]; pgMs: number[] }>> = {};
    for (const scenario of args.scenario!.split(',')) {
      uitslag[scenario] = { basis: { perS: [], cpuMs: [], pgMs: [] }, deze: { perS: [], cpuMs: [], pgMs: [] } };
      const volgorde = Array.from({ length: Number(args.wissels) }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? [0, 1] : [1, 0])).flat();
      // One unmeasured turn each first.
      for (const i of [0, 1]) await laad(kanten[i], scenario, adressen, 2);
      for (const i of volgorde) {
        const k = kanten[i];
        const dbNaam = new URL(k.dbUrl).pathname.slice(1);
        const pg0 = await pgCpu(admin, dbNaam);
        const cpu0 = cpuSeconden(k.server!.pid);
        const van = monotoonUs();
        const r = await laad(k, scenario, adressen, Number(args.duur));
        const cpu = cpuSeconden(k.server!.pid) - cpu0;
        let pgS = 0;
        for (const [pid, s] of await pgCpu(admin, dbNaam)) pgS += s - (pg0.get(pid) ?? 0);
        uitslag[scenario][k.naam].pgMs.push((pgS * 1000) / Math.max(1, r.requests.total));
        (k.beurten[scenario] ??= []).push({ van, tot: monotoonUs(), verzoeken: r.requests.total });
        uitslag[scenario][k.naam].perS.push(r.requests.average);
        uitslag[scenario][k.naam].cpuMs.push((cpu * 1000) / Math.max(1, r.requests.total));
        if (r.non2xx) log(`  ${scenario} ${k.naam}: ${r.non2xx} antwoorden niet 2xx`);
      }
      const b = uitslag[scenario].basis;
      const d = uitslag[scenario].deze;
      console.log(
        `${scenario.padEnd(8)} basis ${mediaan(b.perS).toFixed(0).padStart(6)} req/s ${mediaan(b.cpuMs).toFixed(3)} + ${mediaan(b.pgMs).toFixed(3)} ms CPU   deze ${mediaan(d.perS).toFixed(0).padStart(6)} req/s ${mediaan(d.cpuMs).toFixed(3)} + ${mediaan(d.pgMs).toFixed(3)} ms CPU   ` +
          `${(100 * (mediaan(d.perS) / mediaan(b.perS) - 1)).toFixed(0).padStart(4)} % req/s, ${(100 * (mediaan(d.cpuMs) / mediaan(b.cpuMs) - 1)).toFixed(0).padStart(4)} % CPU server, ${(100 * (mediaan(d.pgMs) / mediaan(b.pgMs) - 1)).toFixed(0).padStart(4)} % CPU PostgreSQL  ` +
          `(req/s basis ${Math.min(...b.perS).toFixed(0)}–${Math.max(...b.perS).toFixed(0)}, deze ${Math.min(...d.perS).toFixed(0)}–${Math.max(...d.perS).toFixed(0)})`,
      );
    }
    if (args.profiel) {
      for (const k of kanten) await k.server?.stop();
      toonProfielen(kanten, args.scenario!.split(','));
    }
  } finally {
    for (const k of kanten) await k.server?.stop();
    for (const k of kanten) if (k.dbUrl) await admin.query(`DROP DATABASE IF EXISTS ${new URL(k.dbUrl).pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
  }
}

/** Per scenario, the self time per request (µs) of each package/file on both sides, largest differences first. */
function toonProfielen(kanten: Kant[], scenarios: string[]): void {
  const profielen = kanten.map((k) => hoofdProfiel(k.profielMap!, k.server!.pid));
  for (const scenario of scenarios) {
    const zijden = kanten.map((k, i) => {
      const beurten = k.beurten[scenario] ?? [];
      const verzoeken = beurten.reduce((s, b) => s + b.verzoeken, 0);
      const z = zelfTijd(profielen[i], (t) => beurten.some((b) => t >= b.van && t <= b.tot));
      return { verzoeken, z };
    });
    const perVerzoekUs = (i: number, ms: number) => (1000 * ms) / Math.max(1, zijden[i].verzoeken);
    console.log(
      `\n${scenario}: profiel, eigen tijd per verzoek (µs; samples tijdens de gemeten beurten; onder CPU-krapte telt ook wachttijd mee)\n` +
        `  totaal        basis ${perVerzoekUs(0, zijden[0].z.totaal).toFixed(0).padStart(5)}   deze ${perVerzoekUs(1, zijden[1].z.totaal).toFixed(0).padStart(5)}`,
    );
    for (const soort of ['perBron', 'perFunctie'] as const) {
      const namen = new Set([...zijden[0].z[soort].keys(), ...zijden[1].z[soort].keys()]);
      const rijen = [...namen].map((b) => ({ b, a: perVerzoekUs(0, zijden[0].z[soort].get(b) ?? 0), d: perVerzoekUs(1, zijden[1].z[soort].get(b) ?? 0) }));
      console.log(soort === 'perBron' ? '  per bron:' : '  per functie:');
      for (const r of rijen.sort((x, y) => Math.abs(y.d - y.a) - Math.abs(x.d - x.a)).slice(0, Number(args.top)))
        console.log(`  ${(r.d - r.a >= 0 ? '+' : '') + (r.d - r.a).toFixed(1).padStart(6)}   basis ${r.a.toFixed(1).padStart(6)}   deze ${r.d.toFixed(1).padStart(6)}   ${r.b}`);
    }
  }
}

function laad(k: Kant, scenario: string, adressen: { postcode: string; huisnummer: string }[], duur: number): Promise<autocannon.Result> {
  const sc = scenarioVerzoek(scenario, k.keys, adressen);
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: k.server!.url,
        connections: Number(args.verbindingen),
        duration: duur,
        requests: [
          {
            method: sc.method,
            path: sc.path,
            headers: sc.headers,
            setupRequest: (r: autocannon.Request) => {
              const v = sc.verzoek(k.verzonden++);
              return { ...r, headers: { ...sc.headers, authorization: v.authorization }, ...(v.body ? { body: v.body } : {}) };
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
}

await main();
