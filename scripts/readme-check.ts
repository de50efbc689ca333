/**
 * `npm run check:readme [-- README.md]`: runs every command of the README's ```sh blocks, as written, on
 * the machine's own Node (the one on PATH outside npm, e.g. a system Node 20), against a server started
 * on the embedded default with the demo, as `npm start` on a fresh clone gives it. Each runs in a scratch
 * directory that links the project's files beside a fresh `data/`, so `data/demo-sleutel.txt` is the
 * demo key of that server and nothing of the developer's own data/ is touched. Two adjustments only: the
 * server listens on a free port (3000 may be taken), so `127.0.0.1:3000` in a command and INSIGHT_URL
 * point there. The set-up commands (`npm install && ...`) are what CI runs itself, around this check.
 * A command fails on a non-zero exit or an answer `{"fout": ...}` on stdout.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { vrijePoort } from '../test/support/server.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const readme = path.resolve(process.argv[2] ?? path.join(ROOT, 'README.md'));
const PER_COMMANDO_MS = 240_000;

/** The commands of the ```sh blocks: continuation lines joined, comment-only lines dropped. */
export function commandos(tekst: string): string[] {
  const uit: string[] = [];
  for (const blok of tekst.matchAll(/^\s*```(?:sh|bash|shell)\n([\s\S]*?)^\s*```/gm)) {
    const regels = blok[1].replace(/\\\n\s*/g, ' ').split('\n');
    for (const r of regels) if (r.trim() && !r.trim().startsWith('#')) uit.push(r.trim());
  }
  return uit;
}

// The machine's own tools: PATH without the project's node_modules/.bin that `npm run` puts in front.
const PATH = (process.env.PATH ?? '').split(':').filter((p) => !p.includes(`node_modules${path.sep}.bin`)).join(':');
const systeemNode = (() => {
  try {
    return execFileSync('node', ['--version'], { env: { ...process.env, PATH }, encoding: 'utf8' }).trim();
  } catch {
    return 'geen node op PATH';
  }
})();

const pythonMetHttpx = (() => {
  try {
    execFileSync('python3', ['-c', 'import httpx'], { env: { ...process.env, PATH }, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const werk = mkdtempSync(path.join(tmpdir(), 'insight-readme-'));
for (const naam of readdirSync(ROOT)) if (naam !== 'data' && naam !== '.git') symlinkSync(path.join(ROOT, naam), path.join(werk, naam));

const poort = await vrijePoort();
const url = `http://127.0.0.1:${poort}`;
const server = spawn(path.join(ROOT, 'node_modules/.bin/node'), ['--disable-warning=ExperimentalWarning', 'src/cli/main.ts', 'serve'], {
  cwd: werk,
  env: { PATH, HOME: process.env.HOME ?? '', PORT: String(poort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverLog = '';
server.stdout.on('data', (b: Buffer) => (serverLog += b));
server.stderr.on('data', (b: Buffer) => (serverLog += b));

function opruimen() {
  if (server.exitCode === null) server.kill('SIGTERM');
  rmSync(werk, { recursive: true, force: true });
}

try {
  const tot = Date.now() + 180_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`de server stopte (${server.exitCode}):\n${serverLog}`);
    if (Date.now() > tot) throw new Error(`de server was na 180 s niet klaar:\n${serverLog}`);
    const klaar = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (klaar) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const lijst = commandos(readFileSync(readme, 'utf8'));
  console.log(`README-commando's uit ${path.relative(process.cwd(), readme) || readme}: ${lijst.length}, met ${systeemNode} als node op PATH, server op ${url}`);
  let mislukt = 0;
  for (const c of lijst) {
    if (/\bnpm (install|ci)\b/.test(c)) {
      console.log(`  overgeslagen (CI draait de installatie zelf): ${c}`);
      continue;
    }
    // The README names the one prerequisite of the Python example (httpx); without it that is the reason.
    if (/\bpython3\b/.test(c) && !pythonMetHttpx) {
      console.log(`  overgeslagen (de python3 op PATH heeft geen httpx; .ci/run installeert python3-httpx): ${c}`);
      continue;
    }
    const uitvoer = c.replaceAll('127.0.0.1:3000', `127.0.0.1:${poort}`).replaceAll('localhost:3000', `127.0.0.1:${poort}`);
    const t0 = performance.now();
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn('bash', ['-o', 'pipefail', '-c', uitvoer], { cwd: werk, env: { ...process.env, PATH, INSIGHT_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (b: Buffer) => (stdout += b));
      p.stderr.on('data', (b: Buffer) => (stderr += b));
      const timer = setTimeout(() => p.kill('SIGKILL'), PER_COMMANDO_MS);
      p.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    const fout = r.code !== 0 ? `exit ${r.code}` : /^\s*\{"fout"/m.test(r.stdout) ? 'antwoord {"fout"}' : '';
    if (fout) {
      mislukt++;
      console.log(`  MISLUKT (${fout}, ${s} s): ${c}\n${(r.stdout + r.stderr).trim().split('\n').slice(-15).map((l) => `      ${l}`).join('\n')}`);
    } else console.log(`  ok (${s} s): ${c}`);
  }
  console.log(mislukt ? `${mislukt} README-commando('s) mislukt.` : 'Alle README-commando\'s werken.');
  opruimen();
  process.exit(mislukt ? 1 : 0);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  opruimen();
  process.exit(1);
}
