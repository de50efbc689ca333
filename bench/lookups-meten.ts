/**
 * Lookups at 16 connections against a running server, by `wrk` (C; the Debian package) where it is
 * installed, else by autocannon (Node, in this process). Both keep 16 requests in flight and send the
 * same bodies in turn. The load generator shares the machine's cores with the server and PostgreSQL, so
 * its own CPU per request is measured and reported beside the latencies (docs/landelijk.md).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export type Generator = 'wrk' | 'autocannon';

export interface LookupMeting {
  p50: number;
  p99: number;
  perS: number;
  /** Answers with status ≥ 400 and socket errors. */
  fouten: number;
  /** Per status (autocannon only: wrk counts only the failures). */
  statussen: Record<string, number>;
  /** CPU of the load generator per request, ms. */
  generatorCpuMs: number;
}

export function kiesGenerator(gevraagd: string | undefined): Generator {
  if (gevraagd === 'wrk' || gevraagd === 'autocannon') return gevraagd;
  if (gevraagd) throw new Error(`--generator: wrk of autocannon, niet ${gevraagd}`);
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error ? 'autocannon' : 'wrk';
}

const VERBINDINGEN = 16;

export async function meetLookups(generator: Generator, url: string, key: string, bodies: string[], duurS: number): Promise<LookupMeting> {
  return generator === 'wrk' ? metWrk(url, key, bodies, duurS) : metAutocannon(url, key, bodies, duurS);
}

async function metAutocannon(url: string, key: string, bodies: string[], duurS: number): Promise<LookupMeting> {
  let k = 0;
  const cpu0 = process.cpuUsage();
  const res = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: VERBINDINGEN,
        duration: duurS,
        requests: [{ method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies[k++ % bodies.length] }) }],
      },
      (err, r) => (err ? reject(err) : resolve(r)),
    );
  });
  const cpu = process.cpuUsage(cpu0);
  const statussen = Object.fromEntries(Object.entries(res.statusCodeStats ?? {}).map(([c, st]) => [c, (st as { count: number }).count]));
  return {
    p50: res.latency.p50,
    p99: res.latency.p99,
    perS: Math.round(res.requests.average),
    fouten: res.non2xx + res.errors,
    statussen,
    generatorCpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, res.requests.total),
  };
}

/** The bodies as Lua long strings (no escaping needed); `done` prints one JSON line. */
function wrkScript(key: string, bodies: string[]): string {
  return `local bodies = {\n${bodies.map((b) => `  [==[${b}]==]`).join(',\n')}\n}
local i = math.random(#bodies)
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${key}"
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('{"n":%d,"us":%d,"p50":%.3f,"p99":%.3f,"fouten":%d}\\n', s.requests, s.duration,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, e.status + e.connect + e.read + e.write + e.timeout))
end
`;
}

async function metWrk(url: string, key: string, bodies: string[], duurS: number): Promise<LookupMeting> {
  const map = mkdtempSync(path.join(tmpdir(), 'insight-wrk-'));
  try {
    const script = path.join(map, 'lookups.lua');
    writeFileSync(script, wrkScript(key, bodies));
    // bash's `times` prints the CPU its children used: wrk's own, read after it exits.
    const uit = await new Promise<string>((resolve, reject) => {
      const c = spawn('bash', ['-c', 'wrk -t1 -c"$1" -d"$2"s -s "$3" "$4" && times', '_', String(VERBINDINGEN), String(duurS), script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
      let tekst = '';
      c.stdout.on('data', (b: Buffer) => (tekst += b.toString()));
      c.stderr.on('data', (b: Buffer) => (tekst += b.toString()));
      c.on('error', reject);
      c.on('exit', (code) => (code === 0 ? resolve(tekst) : reject(new Error(`wrk stopte met ${code}:\n${tekst}`))));
    });
    const regel = uit.split('\n').find((r) => r.startsWith('{"n":'));
    if (!regel) throw new Error(`wrk gaf geen uitslag:\n${uit}`);
    const r = JSON.parse(regel) as { n: number; us: number; p50: number; p99: number; fouten: number };
    const tijden = uit.trim().split('\n').pop()!.match(/(\d+)m([\d.]+)s/g) ?? [];
    const cpuS = tijden.map((t) => {
      const [, m, s] = /(\d+)m([\d.]+)s/.exec(t)!;
      return Number(m) * 60 + Number(s);
    });
    return {
      p50: Math.round(r.p50 * 10) / 10,
      p99: Math.round(r.p99 * 10) / 10,
      perS: Math.round(r.n / (r.us / 1e6)),
      fouten: r.fouten,
      statussen: {},
      generatorCpuMs: (cpuS.reduce((a, b) => a + b, 0) * 1000) / Math.max(1, r.n),
    };
  } finally {
    rmSync(map, { recursive: true, force: true });
  }
}
