import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { createTestDatabase, dialect, type TestDatabase } from './support/db.ts';

const run = promisify(execFile);
const main = path.resolve('src/cli/main.ts');
const bin = path.resolve('bin/insight.js');

/** util-linux `script` gives the CLI a real terminal (a pty), as an operator's shell does. */
const scriptAanwezig = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// Line 1 the header; line 6 is malformed, the others name addresses the empty register does not hold.
const WOZ = [
  'postcode;huisnummer;toevoeging;peildatum;waarde',
  '9999ZZ;1;;2025-01-01;300000',
  '9999ZZ;2;;2025-01-01;300000',
  '9999ZZ;3;;2025-01-01;300000',
  '9999ZZ;4;;2025-01-01;300000',
  'XXXX;5;;2025-01-01;300000',
  '9999ZZ;6;;2025-01-01;300000',
].join('\n');

/** What a new operator sees from `insight import` and the CLI around it: line numbers, JSON, the bar, no noise. */
describe(`operator CLI: import and its output (${dialect})`, { timeout: 240_000 }, () => {
  let dir: string;
  let pg: TestDatabase | null = null;
  let env: NodeJS.ProcessEnv;
  let woz: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'insight-cli-import-'));
    woz = path.join(dir, 'woz.csv');
    writeFileSync(woz, `${WOZ}\n`);
    if (dialect === 'postgres') pg = await createTestDatabase();
    env = { ...process.env, DATA_DIR: path.join(dir, 'data'), DATABASE_URL: pg?.url ?? '', LOG_LEVEL: 'silent' };
    await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'migrate', '--json'], { env, cwd: dir });
  });
  afterAll(async () => {
    await pg?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a refused row is reported by its line in the file, also when its address is unknown; --json is snake_case', async () => {
    const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'import', 'woz', woz, '--json'], { env, cwd: dir });
    const s = JSON.parse(r.stdout.trim());
    expect(Object.keys(s)).toEqual(expect.arrayContaining(['import_run_id', 'redenen_weggelaten', 'duur_seconden', 'rijen_per_seconde']));
    expect(JSON.stringify(s)).not.toMatch(/"[a-z]+[A-Z]\w*":/);
    const perRegel = Object.fromEntries((s.redenen as { regel: number; reden: string }[]).map((x) => [x.regel, x.reden]));
    expect(perRegel).toEqual({
      2: 'adres 9999ZZ 1 niet gevonden in de adrestabel (importeer eerst de BAG)',
      3: 'adres 9999ZZ 2 niet gevonden in de adrestabel (importeer eerst de BAG)',
      4: 'adres 9999ZZ 3 niet gevonden in de adrestabel (importeer eerst de BAG)',
      5: 'adres 9999ZZ 4 niet gevonden in de adrestabel (importeer eerst de BAG)',
      6: 'ongeldige postcode "XXXX"',
      7: 'adres 9999ZZ 6 niet gevonden in de adrestabel (importeer eerst de BAG)',
    });
  });

  it.skipIf(!scriptAanwezig)('on a terminal the progress bar ends at 100 % with the rows read (skipped without util-linux script)', async () => {
    const cmd = [process.execPath, '--disable-warning=ExperimentalWarning', main, 'import', 'woz', woz].map((a) => `'${a}'`).join(' ');
    const r = await run('script', ['-qfec', cmd, '/dev/null'], { env, cwd: dir });
    // The bar redraws in place: its frames are separated by "cursor to column 1".
    const frames = r.stdout.split('\u001b[1G').filter((f) => f.startsWith('import woz'));
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.at(-1)).toMatch(/import woz klaar .*\] 100% \| 6 rijen \|/);
  });

  it('no ".env not found" on a command run without a .env; a .env beside it is still read, the environment winning', async () => {
    const zonder = await run(process.execPath, [bin, 'account', 'list', '--json'], { env, cwd: dir });
    expect(zonder.stderr).toBe('');
    const elders = path.join(dir, 'uit-env');
    mkdirSync(elders);
    writeFileSync(path.join(elders, '.env'), `DATA_DIR=${path.join(elders, 'data')}\nLOG_LEVEL=silent\n`);
    const { DATA_DIR: _weg, ...zonderDataDir } = env;
    const met = await run(process.execPath, [bin, 'account', 'list', '--json'], { env: zonderDataDir, cwd: elders });
    expect(met.stderr).toBe('');
    expect(JSON.parse(met.stdout)).toEqual([]);
    expect(existsSync(path.join(elders, 'data'))).toBe(pg === null); // PGlite only: PostgreSQL keeps no data dir
  });

  it('Ctrl-C stops an import at the next batch with an honest run record; the process ends with the reason', async () => {
    const groot = path.join(dir, 'woz-groot.csv');
    writeFileSync(groot, `postcode;huisnummer;toevoeging;peildatum;waarde\n${Array.from({ length: 300_000 }, (_, i) => `9999ZZ;${(i % 9999) + 1};;2025-01-01;300000`).join('\n')}\n`);
    const kind = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'import', 'woz', groot, '--batch', '100', '--json'], { env, cwd: dir });
    let fout = '';
    kind.stderr.on('data', (c: Buffer) => (fout += String(c)));
    const einde = new Promise<number | null>((klaar) => kind.on('exit', (code) => klaar(code)));
    // Once it holds the database (PGlite's lock file; on PostgreSQL its run record), its handler is there.
    const runs = async () => (pg ? pg.prisma.importRun.count({ where: { soort: 'woz' } }) : 0);
    const voor = await runs();
    const bezig = async () => (pg ? (await runs()) > voor : existsSync(path.join(dir, 'data', 'insight.lock')));
    for (let i = 0; i < 300 && !(await bezig()); i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    kind.kill('SIGINT');
    expect(await einde).not.toBe(0);
    expect(fout).toMatch(/Afgebroken \(SIGINT\): \d+ rijen zijn al geschreven/);
    const db = await openDatabase({ databaseUrl: pg?.url ?? '', dataDir: path.join(dir, 'data') });
    try {
      const [laatste] = await db.prisma.importRun.findMany({ where: { soort: 'woz' }, orderBy: { gestartOp: 'desc' }, take: 1 });
      expect(laatste.klaarOp).toBeNull();
      expect((laatste.samenvatting as { fout?: string }).fout).toMatch(/^Afgebroken \(SIGINT\)/);
      expect((laatste.samenvatting as { gelezen: number }).gelezen).toBeLessThan(300_000);
    } finally {
      await db.close();
    }
  });

  it("commander's own errors are Dutch too", async () => {
    const fout = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'account', 'create', '--name', 'x', '--credits', '-5', '--json'], { env, cwd: dir }).catch((e) => e);
    expect(fout.code).not.toBe(0);
    expect(JSON.parse(fout.stderr)).toEqual({ fout: "optie '--credits <n>' met waarde '-5' is ongeldig: verwacht een geheel getal >= 0" });
    const onbekend = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'account', 'create', '--naam', 'x'], { env, cwd: dir }).catch((e) => e);
    expect(onbekend.stderr).toMatch(/^fout: (onbekende optie '--naam'|verplichte optie '--name <naam>' ontbreekt)/);
    expect(onbekend.stderr).not.toMatch(/\berror\b|Usage/i);
    const hulp = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'account', '--help'], { env, cwd: dir });
    expect(hulp.stdout).toMatch(/^Gebruik: insight account/);
    expect(hulp.stdout).toContain('toon deze hulp');
    expect(hulp.stdout).not.toMatch(/Usage:|Options:|Commands:|display help/);
    // commander's placeholders in usage lines and command terms too
    expect(hulp.stdout).toMatch(/^Gebruik: insight account \[opties\] \[commando\]$/m);
    expect(hulp.stdout).toMatch(/^ {2}create \[opties\]/m);
    expect(hulp.stdout).not.toMatch(/\[options\]|\[command\]/);
    const sleutel = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'key', 'create', '--help'], { env, cwd: dir });
    expect(sleutel.stdout).toContain('(standaard: "inzicht")');
    expect(sleutel.stdout).not.toMatch(/\bdefault:/);
  });
});
