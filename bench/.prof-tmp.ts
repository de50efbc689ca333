import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '/work/wt-hotpath/src/db/client.ts';
import { createAccount } from '/work/wt-hotpath/src/domain/billing/tegoed.ts';
import { createKey } from '/work/wt-hotpath/src/domain/keys/sleutels.ts';
const DB = 'hotpath_prof';
const admin = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:55440/postgres' });
await admin.connect();
const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname=$1', [DB])).rowCount;
if (!exists) await admin.query(`CREATE DATABASE ${DB}`);
await admin.end();
const url = `postgresql://postgres@127.0.0.1:55440/${DB}`;
const port = 39111;
const child = spawn('/work/wt-hotpath/node_modules/.bin/node', ['--cpu-prof', '--cpu-prof-dir=/tmp/hp-prof', 'src/cli/main.ts', 'serve'], {
  cwd: '/work/wt-hotpath', stdio: ['ignore', 'ignore', 'inherit'],
  env: { PATH: process.env.PATH, DATABASE_URL: url, PORT: String(port), DEMO_SEED: 'true', LOG_LEVEL: 'error', RATE_LIMIT_REST_PER_MIN: '10000000', RATE_LIMIT_MCP_TOOLS_PER_MIN: '10000000', RATE_LIMIT_MCP_PROTOCOL_PER_MIN: '10000000' },
});
for (let i = 0; i < 400; i++) { try { if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break; } catch {} await new Promise((r) => setTimeout(r, 250)); }
const db = await openDatabase({ databaseUrl: url, dataDir: '' });
const acc = await createAccount(db.prisma, { naam: 'prof', credits: 1e9 });
const key = (await createKey(db.prisma, { accountId: acc.id, naam: 'p' })).key;
const rows = (await db.prisma.$queryRawUnsafe<any[]>('SELECT postcode, huisnummer FROM adres WHERE huisletter IS NULL AND toevoeging IS NULL ORDER BY md5(id) LIMIT 300'));
await db.close();
const adressen = rows.map((r) => ({ postcode: r.postcode, huisnummer: String(r.huisnummer) }));
let i = 0;
const scen = process.argv[2] ?? 'waarde';
const opts: any = scen === 'whoami'
  ? { url: `http://127.0.0.1:${port}/api/v1/whoami`, headers: { authorization: `Bearer ${key}` } }
  : scen === 'mcp'
  ? { url: `http://127.0.0.1:${port}/mcp`, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'property_value', arguments: adressen[i++ % adressen.length] } }) }) }] }
  : { url: `http://127.0.0.1:${port}/api/v1/inzicht/${scen}`, method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ adres: adressen[i++ % adressen.length] }) }) }] };
const res: any = await new Promise((res, rej) => autocannon({ ...opts, connections: 16, duration: Number(process.argv[3] ?? 10) }, (e: any, r: any) => (e ? rej(e) : res(r))));
console.log(scen, 'req/s', res.requests.average, 'non2xx', res.non2xx, 'p99', res.latency.p99);
child.kill('SIGINT');
await new Promise((r) => child.once('exit', r));
