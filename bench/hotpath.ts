/**
 * The request hot path under load, side by side with its ceiling (`npm run bench`).
 *
 *   npm run bench -- [--duur 6] [--verbindingen 16] [--rondes 2] [--json bench/hotpath.json] [--zonder-pglite]
 *                    [--paren 8] [--beurt 3] [--alleen-paren]
 *
 * Needs a PostgreSQL server (BENCH_POSTGRES_URL, default postgresql://postgres@127.0.0.1:55440/postgres):
 * it creates a database of its own (`hotpath_bench_<random>`) and drops it at the end. It starts real
 * server processes (`insight serve`, rate limits raised by configuration) on that database with the
 * demo dataset, and a bare Fastify route in a process of its own that returns the same JSON as
 * whoami. After a VACUUM (ANALYZE) of the seeded database and a few unmeasured seconds of each scenario,
 * autocannon (in this process) runs, interleaved in `--rondes` rounds: the bare route,
 * whoami, woz and waarde with a different address per request, the MCP tool property_value with
 * different arguments per request (no replays), and an idempotent replay of one waarde call. After
 * that: two server processes on one PostgreSQL against one (one key, and the load spread over 8
 * accounts; one and two processes taking turns 1, 2, 2, 1), the embedded PGlite default, and the
 * rate-limit cost at a limit of 60 versus 100,000 per minute. Then MCP property_value against REST waarde
 * (the same keys and addresses) in `--paren` pairs of `--beurt`-second turns, each pair in the order
 * waarde, MCP or MCP, waarde by turns (ABBA): this machine drifts by tens of percent between runs minutes
 * apart, so a ratio of two runs far apart says little; the median of the pairs' ratios is the figure.
 *
 * Per run: req/s, p50/p99 latency, the ratio to the bare route of the same round, non-2xx answers,
 * and CPU ms per request of the server process(es) and of the PostgreSQL backends serving this
 * database, read from /proc/<pid>/stat (utime + stime) before and after the run, of the load generator
 * (this process, process.cpuUsage), and how busy the whole machine was (/proc/stat: all cores, in % of
 * one core, so 200 % is two full cores): what one more server process could still use.
 * Absolute figures depend on whatever else the machine runs; the ratios are what to compare.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakSleutel } from '../src/domain/keys/sleutels.ts';
import { startServer } from '../test/support/server.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duur: { type: 'string', default: '6' },
    verbindingen: { type: 'string', default: '16' },
    rondes: { type: 'string', default: '2' },
    /** Default bench/hotpath.json; a run with --alleen-paren writes none unless asked. */
    json: { type: 'string' },
    'zonder-pglite': { type: 'boolean', default: false },
    /** MCP against REST waarde in this many pairs of short turns, taking turns (see `paren` in the report). */
    paren: { type: 'string', default: '8' },
    /** Seconds per turn of those pairs. */
    beurt: { type: 'string', default: '3' },
    /** Only the pairs (after the warm-up): a quick, robust MCP-to-REST ratio without the other parts. */
    'alleen-paren': { type: 'boolean', default: false },
  },
});
const DUUR = Number(args.duur);
const VERBINDINGEN = Number(args.verbindingen);
const RONDES = args['alleen-paren'] ? 0 : Number(args.rondes);
const PAREN = Number(args.paren);
const BEURT = Number(args.beurt);
const PG_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:55440/postgres';
const RUIM = '10000000';
const HOOG = { RATE_LIMIT_REST_PER_MIN: RUIM, RATE_LIMIT_MCP_TOOLS_PER_MIN: RUIM, RATE_LIMIT_MCP_PROTOCOL_PER_MIN: RUIM, RATE_LIMIT_INVLOEDEN_PER_MIN: RUIM };
const CLK_TCK = 100;
const log = (s: string) => process.stderr.write(`${s}\n`);

// ------------------------------------------------------------------ CPU from /proc

function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const velden = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(velden[11]) + Number(velden[12]);
  } catch {
    return 0;
  }
}

/** The PostgreSQL backends serving the bench database (not our own measuring session). */
async function pgBackends(admin: pg.Client, db: string): Promise<number[]> {
  const r = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db]);
  return r.rows.map((x) => x.pid);
}

/** Busy and total ticks of all cores since boot (/proc/stat's first line; idle and iowait are not busy). */
function machineTicks(): { bezet: number; totaal: number } {
  const velden = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const totaal = velden.reduce((t, v) => t + v, 0);
  return { bezet: totaal - velden[3] - velden[4], totaal };
}

async function cpuMeting(admin: pg.Client | null, db: string, nodePids: number[]) {
  const backends = admin ? await pgBackends(admin, db) : [];
  return {
    node: nodePids.reduce((s, p) => s + cpuTicks(p), 0),
    pg: new Map(backends.map((p) => [p, cpuTicks(p)])),
    belasting: process.cpuUsage(),
    machine: machineTicks(),
  };
}

async function cpuVerschil(admin: pg.Client | null, db: string, nodePids: number[], voor: Awaited<ReturnType<typeof cpuMeting>>) {
  const na = await cpuMeting(admin, db, nodePids);
  let pgTicks = 0;
  // A backend that appeared during the run counts from zero; one that ended is lost (pools keep theirs open).
  for (const [pid, t] of na.pg) pgTicks += t - (voor.pg.get(pid) ?? 0);
  const belasting = process.cpuUsage(voor.belasting);
  const cores = na.machine.totaal - voor.machine.totaal;
  return {
    nodeMs: ((na.node - voor.node) * 1000) / CLK_TCK,
    pgMs: (pgTicks * 1000) / CLK_TCK,
    belastingMs: (belasting.user + belasting.system) / 1000,
    // Ticks of all cores together: busy / total × number of cores = busy in % of one core.
    machineBezetPct: cores > 0 ? Math.round((100 * (na.machine.bezet - voor.machine.bezet) * cpus().length) / cores) : 0,
  };
}

// ------------------------------------------------------------------ load

interface Scenario {
  naam: string;
  urls: string[];
  methode: 'GET' | 'POST';
  pad: string;
  headers?: Record<string, string>;
  /** A new body per request (varying arguments), or a fixed one. */
  body?: () => string;
  /** Checks one answer before the run, so a broken scenario is not measured as fast. */
  controleer: (status: number, tekst: string) => boolean;
  /** Keys to rotate over, one per request (instead of the Authorization header in `headers`). */
  sleutels?: string[];
  /** The key of the request whose body was just made (instead of `sleutels`): MCP pairs each address with a key of its own. */
  sleutelBijBody?: () => string;
}

interface Uitslag {
  scenario: string;
  ronde: number | null;
  processen: number;
  reqPerS: number;
  p50Ms: number;
  p99Ms: number;
  verzoeken: number;
  niet2xx: number;
  fouten: number;
  nodeCpuMsPerVerzoek: number;
  pgCpuMsPerVerzoek: number;
  /** CPU of autocannon (this process) per request. */
  belastingCpuMsPerVerzoek: number;
  /** The whole machine's busy CPU during the run, in % of one core (200 = both cores full). */
  machineBezetPct: number;
  verhoudingKaal?: number;
  /** The answer of the check before the run, when it was not the expected one. */
  proefFout?: string;
}

/** One request before the run: a broken scenario is reported with its answer, not silently measured as fast. */
async function proef(s: Scenario): Promise<string | undefined> {
  const headers = s.sleutels ? { ...s.headers, authorization: `Bearer ${s.sleutels[s.sleutels.length - 1]}` } : s.headers;
  const r = await fetch(`${s.urls[0]}${s.pad}`, { method: s.methode, headers, body: s.body?.() });
  const tekst = await r.text();
  if (s.controleer(r.status, tekst)) return undefined;
  const fout = `onverwacht antwoord ${r.status} ${tekst.slice(0, 200)}`;
  log(`  LET OP ${s.naam}: ${fout}`);
  return fout;
}

function cannon(url: string, s: Scenario, verbindingen: number, duur = DUUR): Promise<autocannon.Result> {
  let k = 0;
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url,
        connections: verbindingen,
        duration: duur,
        requests: [
          {
            method: s.methode,
            path: s.pad,
            headers: s.headers,
            ...(s.body || s.sleutels || s.sleutelBijBody
              ? {
                  setupRequest: (req: autocannon.Request) => ({
                    ...req,
                    ...(s.body ? { body: s.body() } : {}),
                    ...(s.sleutels ? { headers: { ...req.headers, authorization: `Bearer ${s.sleutels[k++ % s.sleutels.length]}` } } : {}),
                    ...(s.sleutelBijBody ? { headers: { ...req.headers, authorization: `Bearer ${s.sleutelBijBody()}` } } : {}),
                  }),
                }
              : {}),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    void inst;
  });
}

/** A fresh process runs unoptimised code at first: load it for a few seconds before it is measured. */
async function warmOp(scenarios: Scenario[]): Promise<void> {
  for (const s of scenarios) await Promise.all(s.urls.map((u) => cannon(u, s, 8, 3)));
}

async function meet(s: Scenario, ctx: { admin: pg.Client | null; db: string; pids: number[] }, ronde: number | null, duur = DUUR): Promise<Uitslag> {
  const proefFout = await proef(s);
  const voor = await cpuMeting(ctx.admin, ctx.db, ctx.pids);
  const per = Math.max(1, Math.floor(VERBINDINGEN / s.urls.length));
  const res = await Promise.all(s.urls.map((u) => cannon(u, s, per, duur)));
  const cpu = await cpuVerschil(ctx.admin, ctx.db, ctx.pids, voor);
  const verzoeken = res.reduce((t, r) => t + r.requests.total, 0);
  const u: Uitslag = {
    scenario: s.naam,
    ronde,
    processen: s.urls.length,
    reqPerS: Math.round(res.reduce((t, r) => t + r.requests.average, 0)),
    p50Ms: Math.max(...res.map((r) => r.latency.p50)),
    p99Ms: Math.max(...res.map((r) => r.latency.p99)),
    verzoeken,
    niet2xx: res.reduce((t, r) => t + r.non2xx, 0),
    fouten: res.reduce((t, r) => t + r.errors + r.timeouts, 0),
    nodeCpuMsPerVerzoek: verzoeken ? +(cpu.nodeMs / verzoeken).toFixed(3) : 0,
    pgCpuMsPerVerzoek: verzoeken ? +(cpu.pgMs / verzoeken).toFixed(3) : 0,
    belastingCpuMsPerVerzoek: verzoeken ? +(cpu.belastingMs / verzoeken).toFixed(3) : 0,
    machineBezetPct: cpu.machineBezetPct,
    ...(proefFout ? { proefFout } : {}),
  };
  log(`  ${u.scenario.padEnd(34)} ${String(u.reqPerS).padStart(6)} req/s  p50 ${u.p50Ms} ms  p99 ${u.p99Ms} ms  niet-2xx ${u.niet2xx}  cpu node ${u.nodeCpuMsPerVerzoek} ms  pg ${u.pgCpuMsPerVerzoek} ms  autocannon ${u.belastingCpuMsPerVerzoek} ms  machine ${u.machineBezetPct} %`);
  return u;
}

// ------------------------------------------------------------------ set-up

interface Adres {
  postcode: string;
  huisnummer: string;
  toevoeging?: string;
}

function startKaal(body: string): Promise<{ url: string; proces: ChildProcess }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proces = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['bench/kale-route.ts', String(port), body], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    proces.stdout!.once('data', () => resolve({ url: `http://127.0.0.1:${port}`, proces }));
    proces.once('exit', (c) => reject(new Error(`kale route stopte (${c})`)));
  });
}

/**
 * MCP answers a (key, tool arguments) pair it has seen within 24 hours from the stored answer, without a
 * valuation or a charge (core/afrekening.ts): the MCP scenario pairs request n with address n mod A
 * and key n mod K, K a prime that does not divide A, counted over the whole bench, so A·K calls are
 * all new valuations. (Before 2026-11-26 it used one key and repeated its addresses, and measured
 * stored answers.)
 */
const tellers = { mcp: 0, waarde: 0 };

/** Body and key of request n: address n mod A, key n mod K, n counted per scenario over the whole bench. */
function paren(teller: keyof typeof tellers, sleutels: string[], adressen: Adres[], body: (a: Adres) => string) {
  let sleutel = '';
  return {
    body: () => {
      const n = tellers[teller]++;
      sleutel = sleutels[n % sleutels.length];
      return body(adressen[n % adressen.length]);
    },
    sleutelBijBody: () => sleutel,
  };
}

function scenarios(urls: string[], key: string, adressen: Adres[], mcpSleutels: string[] = [key]) {
  let i = 0;
  const volgend = () => adressen[i++ % adressen.length];
  const auth = { authorization: `Bearer ${key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const ok = (status: number) => status === 200;
  let rpc = 0;
  return {
    whoami: { naam: 'whoami', urls, methode: 'GET', pad: '/api/v1/whoami', headers: auth, controleer: ok } satisfies Scenario,
    woz: { naam: 'woz (wisselend adres)', urls, methode: 'POST', pad: '/api/v1/inzicht/woz', headers: json, body: () => JSON.stringify({ adres: volgend() }), controleer: ok } satisfies Scenario,
    waarde: { naam: 'waarde (wisselend adres)', urls, methode: 'POST', pad: '/api/v1/inzicht/waarde', headers: json, body: () => JSON.stringify({ adres: volgend() }), controleer: ok } satisfies Scenario,
    mcp: {
      naam: 'MCP property_value (wisselend)',
      urls,
      methode: 'POST',
      pad: '/mcp',
      headers: { ...json, accept: 'application/json, text/event-stream' },
      ...paren('mcp', mcpSleutels, adressen, (a) => JSON.stringify({ jsonrpc: '2.0', id: ++rpc, method: 'tools/call', params: { name: 'property_value', arguments: a } })),
      controleer: (status, tekst) => status === 200 && !tekst.includes('"isError":true'),
    } satisfies Scenario,
    /** MCP's like for like: REST waarde with the same keys and the same address per request n. */
    waardeSleutels: {
      naam: 'waarde (wisselend adres, de sleutels van MCP)',
      urls,
      methode: 'POST',
      pad: '/api/v1/inzicht/waarde',
      headers: json,
      ...paren('waarde', mcpSleutels, adressen, (a) => JSON.stringify({ adres: a })),
      controleer: ok,
    } satisfies Scenario,
    herhaling: {
      naam: 'waarde, idempotente herhaling',
      urls,
      methode: 'POST',
      pad: '/api/v1/inzicht/waarde',
      headers: { ...json, 'idempotency-key': `bench-${randomBytes(4).toString('hex')}` },
      body: (() => {
        const vast = JSON.stringify({ adres: adressen[0] });
        return () => vast;
      })(),
      controleer: ok,
    } satisfies Scenario,
  };
}

async function accountEnSleutel(databaseUrl: string): Promise<string> {
  return (await sleutels(databaseUrl, 1))[0];
}

/** n insight keys (10 per account, the most an account may have), each account with ample credits. */
async function sleutels(databaseUrl: string, n: number): Promise<string[]> {
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const uit: string[] = [];
    while (uit.length < n) {
      const acc = await maakAccount(db.prisma, { naam: `bench ${new Date().toISOString()}`, credits: 1_000_000_000 });
      for (let i = 0; i < 10 && uit.length < n; i++) uit.push((await maakSleutel(db.prisma, { accountId: acc.id, naam: `bench ${i}` })).key);
    }
    return uit;
  } finally {
    await db.close();
  }
}

/** One insight key in each of n accounts (each with ample credits). */
async function sleutelsVanAccounts(databaseUrl: string, n: number): Promise<string[]> {
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const uit: string[] = [];
    for (let i = 0; i < n; i++) {
      const acc = await maakAccount(db.prisma, { naam: `bench account ${i}`, credits: 1_000_000_000 });
      uit.push((await maakSleutel(db.prisma, { accountId: acc.id, naam: 'bench' })).key);
    }
    return uit;
  } finally {
    await db.close();
  }
}

/** Addresses of the demo dataset that resolve to exactly one address and have a valuation. */
async function kiesAdressen(query: (sql: string) => Promise<{ postcode: string; huisnummer: number; huisletter: string | null; toevoeging: string | null }[]>): Promise<Adres[]> {
  const rows = await query(`SELECT postcode, huisnummer, huisletter, toevoeging FROM adres ORDER BY md5(id) LIMIT 3000`);
  return rows.map((r) => {
    const t = r.huisletter && r.toevoeging ? `${r.huisletter}-${r.toevoeging}` : (r.huisletter ?? r.toevoeging);
    return { postcode: r.postcode, huisnummer: String(r.huisnummer), ...(t ? { toevoeging: t } : {}) };
  });
}

/** Drop the addresses whose waarde answer is not 200 (too few comparables, ambiguous), so every run measures charged lookups. */
async function filterAdressen(url: string, key: string, adressen: Adres[], n: number): Promise<Adres[]> {
  const goed: Adres[] = [];
  for (const a of adressen) {
    if (goed.length >= n) break;
    const r = await fetch(`${url}/api/v1/inzicht/waarde`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ adres: a }) });
    await r.text();
    if (r.status === 200) goed.push(a);
  }
  return goed;
}

// ------------------------------------------------------------------ main

const uitslagen: Uitslag[] = [];
/** Two processes against one per load: mean req/s of its 2-process runs over that of the 1-process runs around them. */
const schaal: Record<string, number> = {};
const paarUitslagen: { waarde: number; mcp: number; verhouding: number; niet2xx: number }[] = [];
const gemReqPerS = (us: Uitslag[]) => us.reduce((t, u) => t + u.reqPerS, 0) / us.length;
const mislukt: { deel: string; fout: string }[] = [];
/** One part of the bench: a failure is reported (and kept in the JSON), the other parts still run. */
async function deel(naam: string, f: () => Promise<void>): Promise<void> {
  if (args['alleen-paren']) return;
  log(naam);
  try {
    await f();
  } catch (e) {
    const fout = String((e as Error).message ?? e).slice(0, 500);
    log(`  MISLUKT: ${fout}`);
    mislukt.push({ deel: naam, fout });
  }
}
const stoppen: (() => Promise<unknown>)[] = [];
const dbNaam = `hotpath_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbNaam}`);
const dbUrl = (() => {
  const u = new URL(PG_URL);
  u.pathname = `/${dbNaam}`;
  return u.toString();
})();
const start = new Date();
log(`hotpath-bench: database ${dbNaam}, ${VERBINDINGEN} verbindingen, ${DUUR} s per meting, ${RONDES} rondes; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

try {
  const s1 = await startServer(dbUrl, { ...HOOG, DEMO_SEED: 'true', LOG_LEVEL: 'error' });
  stoppen.push(() => s1.stop());
  const key = await accountEnSleutel(dbUrl);
  const meetAdmin = new pg.Client({ connectionString: dbUrl });
  await meetAdmin.connect();
  stoppen.push(() => meetAdmin.end());
  const adressen = await filterAdressen(s1.url, key, await kiesAdressen(async (sql) => (await meetAdmin.query(sql)).rows), 400);
  log(`  ${adressen.length} adressen met een waarde`);

  const whoamiBody = await (await fetch(`${s1.url}/api/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).text();
  const kaal = await startKaal(whoamiBody);
  stoppen.push(async () => void kaal.proces.kill('SIGTERM'));
  const kaalScenario: Scenario = { naam: 'kale Fastify-route', urls: [kaal.url], methode: 'GET', pad: '/kaal', controleer: (s) => s === 200 };

  const ctx1 = { admin, db: dbNaam, pids: [s1.pid] };
  const mcpSleutels = await sleutels(dbUrl, [127, 131].find((p) => adressen.length % p !== 0)!);
  const sc = scenarios([s1.url], key, adressen, mcpSleutels);
  // A running service has optimised code and analysed tables: the freshly seeded tables are vacuumed and
  // analysed now rather than by autovacuum during round 1, and each scenario runs a few seconds unmeasured.
  await meetAdmin.query('VACUUM (ANALYZE)');
  await warmOp([kaalScenario, sc.whoami, sc.woz, sc.waarde, sc.waardeSleutels, sc.mcp, sc.herhaling]);
  for (let ronde = 1; ronde <= RONDES; ronde++) {
    log(`ronde ${ronde}: PostgreSQL, 1 serverproces`);
    const k = await meet(kaalScenario, { admin: null, db: dbNaam, pids: [kaal.proces.pid!] }, ronde);
    uitslagen.push(k);
    for (const s of [sc.whoami, sc.woz, sc.waarde, sc.waardeSleutels, sc.mcp, sc.herhaling]) {
      const u = await meet(s, ctx1, ronde);
      u.verhoudingKaal = +(u.reqPerS / k.reqPerS).toFixed(4);
      uitslagen.push(u);
    }
  }

  log(`MCP tegen REST waarde: ${PAREN} paren van ${BEURT} s, beurtelings waarde-MCP en MCP-waarde`);
  for (let i = 0; i < PAREN; i++) {
    const volgorde = i % 2 === 0 ? [sc.waardeSleutels, sc.mcp] : [sc.mcp, sc.waardeSleutels];
    const paar: Uitslag[] = [];
    for (const s of volgorde) paar.push(await meet(s, ctx1, null, BEURT));
    const [w, m] = i % 2 === 0 ? paar : [paar[1], paar[0]];
    paarUitslagen.push({ waarde: w.reqPerS, mcp: m.reqPerS, verhouding: +(m.reqPerS / w.reqPerS).toFixed(3), niet2xx: w.niet2xx + m.niet2xx });
  }
  // Request n of the MCP scenario is (address n mod A, key n mod K): past A·K calls MCP would replay stored answers.
  if (tellers.mcp >= adressen.length * mcpSleutels.length) log(`  LET OP: ${tellers.mcp} MCP-verzoeken ≥ ${adressen.length * mcpSleutels.length} paren (sleutel, adres): herhalingen gemeten`);

  await deel('PostgreSQL, 2 serverprocessen', async () => {
    // Besides one key (one customer's batch job: every request meets on that key's rate-limit row and
    // its account's balance row), the same load spread over 8 accounts with a key each, on 1 and on 2
    // processes: what scale-out adds when the requests do not all meet on the same two rows.
    // One and two processes take turns in the order 1, 2, 2, 1 for each load: this machine's speed drifts
    // from minute to minute (the same code's CPU per request up to 1.5× apart in one bench), and in this
    // order the drift weighs on both alike. Each 2-process run is compared with the mean of the two
    // 1-process runs around it.
    const acht = await sleutelsVanAccounts(dbUrl, 8);
    const ACHT = ', 8 accounts';
    const s2 = await startServer(dbUrl, { ...HOOG, LOG_LEVEL: 'error' });
    stoppen.push(() => s2.stop());
    const sc1 = scenarios([s1.url], key, adressen, mcpSleutels);
    const sc2 = scenarios([s1.url, s2.url], key, adressen, mcpSleutels);
    const ctx2 = { admin, db: dbNaam, pids: [s1.pid, s2.pid] };
    await warmOp([{ ...sc2.whoami, urls: [s2.url] }, { ...sc2.waarde, urls: [s2.url] }, { ...sc1.whoami, sleutels: acht }, { ...sc1.waarde, sleutels: acht }]);
    for (const [een, twee] of [
      [sc1.whoami, sc2.whoami],
      [sc1.waarde, sc2.waarde],
    ] as const) {
      for (const verdeeld of [false, true]) {
        const naam = verdeeld ? `${een.naam}${ACHT}` : een.naam;
        const extra = verdeeld ? { sleutels: acht } : {};
        const enkel: Uitslag[] = [];
        const dubbel: Uitslag[] = [];
        for (const processen of [1, 2, 2, 1]) {
          if (processen === 1) enkel.push(await meet({ ...een, ...extra, naam }, ctx1, null));
          else dubbel.push(await meet({ ...twee, ...extra, naam: `${naam}, 2 processen` }, ctx2, null));
        }
        for (const u of dubbel) u.verhoudingKaal = +(u.reqPerS / gemReqPerS(enkel)).toFixed(3);
        schaal[naam] = +(gemReqPerS(dubbel) / gemReqPerS(enkel)).toFixed(3);
        uitslagen.push(enkel[0], ...dubbel, enkel[1]);
      }
    }
    await s2.stop();
  });

  await s1.stop();
  // Accepted requests only: at 60/min and at 100,000/min, each over 1,000 fresh keys of its own (each
  // stays under 60), so only the configured limit differs; and at 100,000/min all on one key, whose
  // window then holds thousands of requests (the case whose cost grew with the limit in the old
  // per-request log). Fresh keys for each: the first run over a set of keys also creates their
  // rate-limit rows, which a second run over the same keys would not pay.
  await deel('snelheidslimiet 60 tegen 100.000 per minuut (whoami, alle verzoeken toegestaan)', async () => {
    // The runs before wrote hundreds of thousands of usage and ledger rows: vacuum and checkpoint now, so
    // neither autovacuum nor a checkpoint falls in one of the runs that are compared; and the two limits
    // take turns in the order 60, 100,000, 100,000, 60 (so that coming first or last weighs on both
    // alike), each on a server process of its own, started together.
    await meetAdmin.query('VACUUM (ANALYZE)');
    await meetAdmin.query('CHECKPOINT').catch(() => {});
    const limieten = ['60', '100000'] as const;
    const servers = await Promise.all(limieten.map((limiet) => startServer(dbUrl, { ...HOOG, RATE_LIMIT_REST_PER_MIN: limiet, LOG_LEVEL: 'error' })));
    for (const s of servers) stoppen.push(() => s.stop());
    for (let ronde = 1; ronde <= 2; ronde++) {
      for (const i of ronde === 1 ? [0, 1] : [1, 0]) {
        const [s, limiet] = [servers[i], limieten[i]];
        // 1,000 fresh keys per run: at up to ~6,000 req/s, 3 s of warm-up and the run stay under 60 requests
        // per key. The same keys as measured (their cache entries and rate-limit rows exist then, as in service).
        const veel = await sleutels(dbUrl, 1000);
        const w = scenarios([s.url], key, adressen).whoami;
        await warmOp([{ ...w, sleutels: veel }]);
        const ctxL = { admin, db: dbNaam, pids: [s.pid] };
        uitslagen.push(await meet({ ...w, sleutels: veel, naam: `whoami, limiet ${limiet}/min, ${veel.length} sleutels`, controleer: (st) => st === 200 }, ctxL, ronde));
      }
    }
    // One key whose window holds thousands: a fresh key (the bench's main key used up far more than 100,000
    // in the last minute). One 6 s run at up to ~16,000 req/s stays under the limit.
    const een = await sleutels(dbUrl, 1);
    const w = scenarios([servers[1].url], key, adressen).whoami;
    uitslagen.push(await meet({ ...w, sleutels: een, naam: 'whoami, limiet 100000/min, 1 sleutel', controleer: (st) => st === 200 }, { admin, db: dbNaam, pids: [servers[1].pid] }, null));
    await Promise.all(servers.map((s) => s.stop()));
  });

  if (!args['zonder-pglite']) await deel('ingebouwde PGlite (standaard), 1 serverproces', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hotpath-pglite-'));
    stoppen.push(async () => rmSync(dir, { recursive: true, force: true }));
    // Loading the demo dataset into PGlite takes a while on a busy machine.
    // Credits for every request of the run (the demo's default 10,000 would run out and measure 402s).
    const sp = await startServer('', { ...HOOG, DEMO_SEED: 'true', DEMO_CREDITS: '100000000', DATA_DIR: dir, LOG_LEVEL: 'error' }, 300_000);
    stoppen.push(() => sp.stop());
    const demoKey = readFileSync(path.join(dir, 'demo-sleutel.txt'), 'utf8').trim();
    // PGlite: one process holds the data directory, so the bench reads addresses over the API's own key.
    const scp = scenarios([sp.url], demoKey, adressen);
    await warmOp([scp.whoami, scp.waarde]);
    for (const s of [scp.whoami, scp.waarde]) uitslagen.push(await meet({ ...s, naam: `${s.naam}, PGlite` }, { admin: null, db: '', pids: [sp.pid] }, null));
    await sp.stop();
  });
} finally {
  for (const f of stoppen.reverse()) await f().catch(() => {});
  await admin.query(`DROP DATABASE IF EXISTS ${dbNaam} WITH (FORCE)`).catch(() => {});
  await admin.end();
}

// ------------------------------------------------------------------ report

const gemiddeld = (naam: string, veld: keyof Uitslag) => {
  const r = uitslagen.filter((u) => u.scenario === naam && u.ronde !== null);
  return r.length ? r.reduce((t, u) => t + (u[veld] as number), 0) / r.length : NaN;
};
const regels = ['| meting | ronde | req/s | p50 ms | p99 ms | × kaal | niet-2xx | CPU node ms/verzoek | CPU PostgreSQL ms/verzoek | CPU autocannon ms/verzoek | machine bezet |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
for (const u of uitslagen) {
  regels.push(
    `| ${u.scenario} | ${u.ronde ?? '–'} | ${u.reqPerS} | ${u.p50Ms} | ${u.p99Ms} | ${u.verhoudingKaal === undefined ? '–' : u.scenario.includes('2 processen') ? `${u.verhoudingKaal}× 1 proces` : `${(u.verhoudingKaal * 100).toFixed(1)} %`} | ${u.niet2xx} | ${u.nodeCpuMsPerVerzoek} | ${u.pgCpuMsPerVerzoek} | ${u.belastingCpuMsPerVerzoek} | ${u.machineBezetPct} % |`,
  );
}
const kaalGem = gemiddeld('kale Fastify-route', 'reqPerS');
const samenvatting = Object.fromEntries(
  ['whoami', 'woz (wisselend adres)', 'waarde (wisselend adres)', 'waarde (wisselend adres, de sleutels van MCP)', 'MCP property_value (wisselend)', 'waarde, idempotente herhaling'].map((n) => [
    n,
    { reqPerS: Math.round(gemiddeld(n, 'reqPerS')), procentVanKaal: +((100 * gemiddeld(n, 'reqPerS')) / kaalGem).toFixed(2), p99Ms: gemiddeld(n, 'p99Ms') },
  ]),
);
process.stdout.write(`\n${regels.join('\n')}\n\nGemiddeld over de rondes (kale route ${Math.round(kaalGem)} req/s):\n`);
for (const [n, v] of Object.entries(samenvatting)) process.stdout.write(`  ${n}: ${v.reqPerS} req/s = ${v.procentVanKaal} % van de kale route, p99 ${v.p99Ms} ms\n`);
if (RONDES > 0) {
  const mcpTegenWaarde = (w: string) => Math.round((100 * samenvatting['MCP property_value (wisselend)'].reqPerS) / samenvatting[w].reqPerS);
  process.stdout.write(`MCP property_value: ${mcpTegenWaarde('waarde (wisselend adres, de sleutels van MCP)')} % van REST waarde met dezelfde sleutels en adressen (${mcpTegenWaarde('waarde (wisselend adres)')} % van waarde met één sleutel)\n`);
}
if (paarUitslagen.length) {
  const v = paarUitslagen.map((p) => p.verhouding).sort((a, b) => a - b);
  const mediaan = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  process.stdout.write(
    `MCP tegen REST waarde in ${v.length} paren van ${BEURT} s (beurtelings): mediaan ${Math.round(100 * mediaan)} %, ` +
      `laagste ${Math.round(100 * v[0])} %, hoogste ${Math.round(100 * v[v.length - 1])} %, ${v.filter((x) => x >= 0.9).length} van ${v.length} paren ≥ 90 % ` +
      `(${paarUitslagen.map((p) => `${p.mcp}/${p.waarde}`).join(', ')} req/s; niet-2xx ${paarUitslagen.reduce((t, p) => t + p.niet2xx, 0)})\n`,
  );
}
process.stdout.write('2 processen tegen 1 (beurtelings 1, 2, 2, 1):\n');
for (const [n, v] of Object.entries(schaal)) process.stdout.write(`  ${n}: ${v}×\n`);
const jsonPad = args.json ?? (args['alleen-paren'] ? undefined : 'bench/hotpath.json');
if (jsonPad) writeFileSync(
  path.resolve(ROOT, jsonPad),
  JSON.stringify({ gestart: start.toISOString(), duurS: DUUR, verbindingen: VERBINDINGEN, rondes: RONDES, loadavgNa: loadavg(), uitslagen, samenvatting, paren: paarUitslagen, schaal, mislukt }, null, 2) + '\n',
);
if (jsonPad) log(`JSON: ${jsonPad}`);
