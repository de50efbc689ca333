import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { authenticate } from '../src/domain/keys/sleutels.ts';
import { grootboekSom } from '../src/domain/billing/tegoed.ts';
import { createTestDatabase, dialect, type TestDatabase } from './support/db.ts';

const run = promisify(execFile);
const main = path.resolve('src/cli/main.ts');

function vrijePoort(): Promise<number> {
  return new Promise((klaar) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => klaar(port));
    });
  });
}

/** The operator CLI as an operator runs it: a real process, on PGlite (a data directory) or PostgreSQL. */
describe(`operator CLI (${dialect})`, { timeout: 240_000 }, () => {
  let dataDir: string;
  let pg: TestDatabase | null = null;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'insight-cli-'));
    if (dialect === 'postgres') pg = await createTestDatabase();
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg?.url ?? '', LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await pg?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const insight = async (...args: string[]) => {
    const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args], { env });
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  };
  /** Run with --json; it must fail, and its stderr is {"fout": ...}. */
  const fout = async (...args: string[]) => {
    const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args, '--json'], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code, args.join(' ')).not.toBe(0);
    return JSON.parse(r.stderr.trim().split('\n').pop()!).fout as string;
  };
  async function metDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
    const db = await openDatabase({ databaseUrl: pg?.url ?? '', dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  it('migrate twice: the second run applies nothing', async () => {
    const eerste = await insight('migrate', '--json');
    expect(eerste.toegepast.length).toBeGreaterThanOrEqual(pg ? 0 : 1);
    expect((await insight('migrate', '--json')).toegepast).toEqual([]);
  });

  it('account create, topup and key create print the documented JSON; the key works and only its hash is stored', async () => {
    const acc = await insight('account', 'create', '--name', 'Makelaar BV', '--credits', '250', '--json');
    expect(acc).toEqual({ account_id: expect.stringMatching(/^[0-9a-f-]{36}$/), credits: 250 });
    expect(await insight('account', 'topup', acc.account_id, '--credits', '50', '--json')).toEqual({ account_id: acc.account_id, credits: 300 });
    const k = await insight('key', 'create', acc.account_id, '--name', 'productie', '--expires', '2027-06-30', '--json');
    expect(k).toEqual({ key_id: expect.stringMatching(/^[0-9a-f-]{36}$/), key: expect.stringMatching(/^pct_[0-9A-Za-z]{38}$/), voorvoegsel: k.key.slice(0, 12), verloopt_op: '2027-06-30T21:59:59.000+00:00' });
    // The last second of that day in Amsterdam (CEST here, CET in winter); a date 730 days ahead is allowed.
    expect((await insight('key', 'create', acc.account_id, '--name', 'winter', '--expires', '2027-01-15', '--json')).verloopt_op).toBe('2027-01-15T22:59:59.000+00:00');
    const grens = new Date(Date.now() + 730 * 86_400_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Amsterdam' });
    expect((await insight('key', 'create', acc.account_id, '--name', 'grens', '--expires', grens, '--json')).verloopt_op).toMatch(new RegExp(`^${grens}T2[12]:59:59`));
    const beheer = await insight('key', 'create', acc.account_id, '--name', 'beheer', '--family', 'beheer', '--json');
    const test = await insight('key', 'create', acc.account_id, '--name', 'ci', '--test', '--json');
    expect(test.key).toMatch(/^pct_test_[0-9A-Za-z]{38}$/);
    const lijst = (await insight('key', 'list', acc.account_id, '--json')) as { key_id: string; modus: string }[];
    expect(lijst.find((x) => x.key_id === test.key_id)?.modus).toBe('test');
    expect(lijst.find((x) => x.key_id === k.key_id)?.modus).toBe('live');
    await metDb(async (db) => {
      const p = await authenticate(db.prisma, `Bearer ${k.key}`, new Date('2026-12-01T00:00:00Z'));
      expect(p).toMatchObject({ accountId: acc.account_id, familie: 'inzicht', rechten: ['inzicht:lezen'] });
      expect((await authenticate(db.prisma, `Bearer ${beheer.key}`))?.familie).toBe('beheer');
      expect((await authenticate(db.prisma, `Bearer ${test.key}`))?.modus).toBe('test');
      expect(await grootboekSom(db.prisma, acc.account_id)).toBe(300);
      const rows = await db.prisma.$queryRawUnsafe<{ t: string }[]>('SELECT row_to_json(k)::text AS t FROM api_sleutel k');
      expect(rows.some((r) => r.t.includes(k.key))).toBe(false);
    });
  });

  it('bad arguments: a clear Dutch message and a non-zero exit, nothing written', async () => {
    for (const args of [
      ['account', 'create', '--name', 'x', '--credits', '-5'],
      ['account', 'topup', 'geen-uuid', '--credits', '5'],
      ['account', 'topup', '00000000-0000-4000-8000-000000000000', '--credits', '5'],
      ['key', 'create', '00000000-0000-4000-8000-000000000000', '--name', 'k', '--family', 'x'],
      ['key', 'create', '00000000-0000-4000-8000-000000000000', '--name', 'k', '--expires', '2031-01-01'],
    ]) {
      const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args], { env }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(/verwacht|bestaat niet|hoogstens|Fout/);
    }
  });

  it('account list, key list in snake_case with offsets, a correcting booking with a reason, JSON errors', async () => {
    const acc = await insight('account', 'create', '--name', 'Correctie BV', '--credits', '100', '--json');
    const k = await insight('key', 'create', acc.account_id, '--name', 'p', '--json');
    const lijst = await insight('account', 'list', '--json');
    expect(lijst.find((a: { account_id: string }) => a.account_id === acc.account_id)).toEqual({
      account_id: acc.account_id, naam: 'Correctie BV', credits: 100, drempel_credits: 100, geldige_sleutels: 1, aangemaakt_op: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+\+00:00$/),
      gesloten_op: null,
    });
    const sleutels = await insight('key', 'list', acc.account_id, '--json');
    expect(sleutels).toEqual([expect.objectContaining({ key_id: k.key_id, voorvoegsel: k.voorvoegsel, verloopt_op: k.verloopt_op, ingetrokken_op: null })]);
    expect(Object.keys(sleutels[0]).every((n) => /^[a-z_]+$/.test(n))).toBe(true);

    // The saldo.laag threshold: shown above, set here.
    expect(await insight('account', 'drempel', acc.account_id, '--credits', '250', '--json')).toEqual({ account_id: acc.account_id, drempel_credits: 250 });
    expect((await insight('account', 'list', '--json')).find((a: { account_id: string }) => a.account_id === acc.account_id).drempel_credits).toBe(250);

    expect(await insight('account', 'correct', acc.account_id, '--credits', '-30', '--reason', 'dubbel opgewaardeerd', '--json'))
      .toEqual({ account_id: acc.account_id, correctie: -30, reden: 'dubbel opgewaardeerd', credits: 70 });
    expect(await fout('account', 'correct', acc.account_id, '--credits', '-71', '--reason', 'te veel')).toMatch(/negatief/);
    expect(await fout('account', 'correct', acc.account_id, '--credits', '-5')).toMatch(/--reason/);
    expect(await fout('account', 'topup', 'geen-uuid', '--credits', '5')).toMatch(/uuid/);
    await metDb(async (db) => {
      expect(await grootboekSom(db.prisma, acc.account_id)).toBe(70);
      const c = await db.prisma.ledgerEntry.findMany({ where: { accountId: acc.account_id, soort: 'correctie' } });
      expect(c).toMatchObject([{ credits: -30, omschrijving: 'dubbel opgewaardeerd' }]);
    });
  });

  it('credits stay within the integer column, an unknown account and a date that does not exist are refused in Dutch', async () => {
    const acc = await insight('account', 'create', '--name', 'Vol BV', '--credits', '2147483000', '--json');
    const boven = /^1000 credits erbij zou het saldo \(2147483000 credits\) boven het maximum van 2\.147\.483\.647 credits brengen$/;
    expect(await fout('account', 'topup', acc.account_id, '--credits', '1000')).toMatch(boven);
    expect(await fout('account', 'correct', acc.account_id, '--credits', '1000', '--reason', 'x')).toMatch(boven);
    expect(await insight('account', 'topup', acc.account_id, '--credits', '647', '--json')).toEqual({ account_id: acc.account_id, credits: 2_147_483_647 });
    expect(await fout('account', 'create', '--name', 'x', '--credits', '9999999999')).toBe("optie '--credits <n>' met waarde '9999999999' is ongeldig: hoogstens 2.147.483.647");
    expect(await fout('account', 'topup', acc.account_id, '--credits', '2147483648')).toMatch(/hoogstens 2\.147\.483\.647$/);
    const nul = '00000000-0000-0000-0000-000000000000';
    expect(await fout('key', 'create', nul, '--name', 'a')).toBe(`Account ${nul} bestaat niet.`);
    const tekst = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'key', 'create', nul, '--name', 'a'], { env }).catch((e: { stderr: string }) => e);
    expect(tekst.stderr).toBe(`Fout: Account ${nul} bestaat niet.\n`);
    expect(await fout('key', 'create', acc.account_id, '--name', 'a', '--expires', '2027-02-30')).toBe(
      "optie '--expires <datum>' met waarde '2027-02-30' is ongeldig: verwacht een bestaande datum als JJJJ-MM-DD",
    );
    await metDb(async (db) => {
      expect(await grootboekSom(db.prisma, acc.account_id)).toBe(2_147_483_647);
      expect(await db.prisma.apiKey.count({ where: { accountId: acc.account_id } })).toBe(0);
    });
  });

  it.skipIf(dialect === 'postgres')('bin/insight.js reads .env in the working directory when present', async () => {
    const map = mkdtempSync(path.join(tmpdir(), 'insight-env-'));
    try {
      writeFileSync(path.join(map, '.env'), `DATA_DIR=${path.join(map, 'uit-env')}\nLOG_LEVEL=silent\nDEMO_CREDITS=7\n`);
      const { DATA_DIR: _weg, ...zonder } = env;
      const r = await run(process.execPath, [path.resolve('bin/insight.js'), 'account', 'list', '--json'], { cwd: map, env: { ...zonder, DEMO_CREDITS: '9' } });
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(existsSync(path.join(map, 'uit-env', 'pgdata'))).toBe(true);
    } finally {
      rmSync(map, { recursive: true, force: true });
    }
  });

  it.skipIf(dialect === 'postgres')('bin/insight.js passes a supervisor\'s SIGTERM on: the server shuts down instead of running on orphaned', async () => {
    const map = mkdtempSync(path.join(tmpdir(), 'insight-sigterm-'));
    const poort = await vrijePoort();
    const kind = spawn(process.execPath, [path.resolve('bin/insight.js'), 'serve'], {
      env: { ...env, DATA_DIR: map, PORT: String(poort), HOST: '127.0.0.1', DEMO_SEED: 'false', DEMO_PLAATS: 'false' },
      stdio: 'ignore',
      detached: true, // its own process group: the cleanup below reaches a server left running
    });
    const einde = new Promise<number | null>((klaar) => kind.on('exit', (code) => klaar(code)));
    try {
      const gezond = async () => fetch(`http://127.0.0.1:${poort}/healthz`).then((r) => r.ok, () => false);
      for (let i = 0; i < 300 && !(await gezond()); i++) await new Promise((r) => setTimeout(r, 200));
      expect(await gezond()).toBe(true);
      kind.kill('SIGTERM');
      expect(await einde).toBe(0);
      expect(await gezond(), 'nothing answers on the port any more').toBe(false);
    } finally {
      try {
        process.kill(-(kind.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(map, { recursive: true, force: true });
    }
  });

  it.skipIf(dialect === 'postgres')('refuses, without touching the data, while another process holds the embedded database', async () => {
    const db = await openDatabase({ databaseUrl: '', dataDir });
    try {
      const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, 'account', 'create', '--name', 'x', '--json'], { env }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`in gebruik door een ander proces \\(pid ${process.pid}\\)`));
    } finally {
      await db.close();
    }
    // Released: the CLI works again.
    expect((await insight('account', 'create', '--name', 'na', '--json')).credits).toBe(0);
  });

  it.skipIf(dialect === 'postgres' || process.platform !== 'linux')('a lock left by a crash whose pid now belongs to another program is taken over', async () => {
    const ander = spawn('sleep', ['30']);
    try {
      writeFileSync(path.join(dataDir, 'insight.lock'), String(ander.pid));
      expect((await insight('account', 'create', '--name', 'na-crash', '--json')).credits).toBe(0);
    } finally {
      ander.kill();
    }
  });

  it('a name is trimmed and not empty; key list of an account that does not exist says so, as key create does', async () => {
    const leeg = (w: string) => `optie '--name <naam>' met waarde '${w}' is ongeldig: vul een naam in (ten minste één teken)`;
    const acc = await insight('account', 'create', '--name', '  Spatie BV ', '--json');
    const voor = await metDb((db) => db.prisma.account.count());
    expect(await fout('account', 'create', '--name', '')).toBe(leeg(''));
    expect(await fout('account', 'create', '--name', '   ')).toBe(leeg('   '));
    expect(await fout('key', 'create', acc.account_id, '--name', ' ')).toBe(leeg(' '));
    const nul = '00000000-0000-0000-0000-000000000000';
    expect(await fout('key', 'list', nul)).toBe(`Account ${nul} bestaat niet.`);
    await metDb(async (db) => {
      expect(await db.prisma.account.count()).toBe(voor);
      expect((await db.prisma.account.findUniqueOrThrow({ where: { id: acc.account_id } })).naam).toBe('Spatie BV');
      expect(await db.prisma.apiKey.count({ where: { accountId: acc.account_id } })).toBe(0);
    });
    expect(await insight('key', 'list', acc.account_id, '--json')).toEqual([]);
  });

  it('a PostgreSQL connection that fails is one Dutch line naming host and database, never the password (also --json and migrate)', async () => {
    const uitvoer = async (url: string, ...args: string[]) => {
      const r = await run(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args], { env: { ...env, DATABASE_URL: url } }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).not.toContain('geheim');
      expect(r.stderr).not.toMatch(/prisma|invocation|Can't reach/i);
      // Beside pg's own warning about sslmode, on stderr too.
      return r.stderr.split('\n').filter((l) => l.startsWith('Fout:') || l.startsWith('{'));
    };
    const weg = 'postgresql://postgres:geheim@127.0.0.1:1/x';
    const nergens = 'Geen verbinding met de PostgreSQL-server 127.0.0.1:1 (database x): draait de server, en kloppen host en poort in DATABASE_URL?';
    expect(await uitvoer(weg, 'account', 'list')).toEqual([`Fout: ${nergens}`]);
    expect((await uitvoer(weg, 'account', 'list', '--json')).map((l) => JSON.parse(l))).toEqual([{ fout: nergens }]);
    expect(await uitvoer(weg, 'migrate')).toEqual([`Fout: ${nergens}`]);
    if (!pg) return;
    const u = new URL(pg.url);
    const met = (wijzig: (x: URL) => void) => {
      const x = new URL(u);
      wijzig(x);
      return x.toString();
    };
    const host = u.host;
    const db = u.pathname.slice(1);
    expect(await uitvoer(met((x) => (x.pathname = '/bestaat_niet_cli27')), 'migrate')).toEqual([
      `Fout: Database bestaat_niet_cli27 bestaat niet op de PostgreSQL-server ${host}: maak haar aan (createdb bestaat_niet_cli27) of corrigeer DATABASE_URL.`,
    ]);
    expect(await uitvoer(met((x) => (x.pathname = '/bestaat_niet_cli27')), 'account', 'list')).toHaveLength(1);
    expect(await uitvoer(met((x) => ((x.username = 'geen_rol_cli27'), (x.password = 'geheim'))), 'account', 'list')).toEqual([
      `Fout: De PostgreSQL-server ${host} weigert gebruiker geen_rol_cli27 voor database ${db} (onbekende rol of verkeerd wachtwoord): controleer DATABASE_URL.`,
    ]);
    expect(await uitvoer(met((x) => x.searchParams.set('sslmode', 'require')), 'account', 'list')).toEqual([
      `Fout: Geen TLS-verbinding met de PostgreSQL-server ${host} (database ${db}): zet TLS aan op de server, of pas sslmode in DATABASE_URL aan.`,
    ]);
  });
});
