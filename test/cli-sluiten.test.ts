import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { authenticate } from '../src/domain/keys/sleutels.ts';
import { controleerLogin, startSessie } from '../src/domain/gebruikers/gebruikers.ts';
import { createTestDatabase, dialect, type TestDatabase } from './support/db.ts';

const main = path.resolve('src/cli/main.ts');
const WACHTWOORD = 'een-lang-genoeg-wachtwoord\n';

/** `insight user list/remove` and `insight account close` as an operator runs them: a real process, on PGlite or PostgreSQL. */
describe(`operator CLI: removing users, closing accounts (${dialect})`, { timeout: 240_000 }, () => {
  let dataDir: string;
  let pg: TestDatabase | null = null;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'insight-sluiten-cli-'));
    if (dialect === 'postgres') pg = await createTestDatabase();
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg?.url ?? '', LOG_LEVEL: 'silent' };
  });
  afterAll(async () => {
    await pg?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function insight(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const c = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', main, ...args], { env });
      let stdout = '';
      let stderr = '';
      c.stdout.on('data', (d) => (stdout += d));
      c.stderr.on('data', (d) => (stderr += d));
      c.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      c.stdin.end(stdin);
    });
  }
  const json = async (...args: string[]) => {
    const r = await insight([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const fout = async (...args: string[]) => {
    const r = await insight([...args, '--json']);
    expect(r.code, args.join(' ')).toBe(1);
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

  it('user list shows e-mail, created and last login, never a hash; user remove ends the sessions and frees the e-mail', async () => {
    const acc = await json('account', 'create', '--name', 'Vertrek BV');
    for (const email of ['jan@vertrek.nl', 'piet@vertrek.nl']) expect((await insight(['user', 'create', acc.account_id, '--email', email, '--password-stdin'], WACHTWOORD)).code).toBe(0);
    const login = new Date('2026-11-20T09:00:00Z');
    await metDb(async (db) => startSessie(db.prisma, (await controleerLogin(db.prisma, 'jan@vertrek.nl', WACHTWOORD.trim()))!.id, login));

    const lijst = await json('user', 'list', acc.account_id);
    expect(lijst).toEqual([
      { user_id: expect.any(String), email: 'jan@vertrek.nl', aangemaakt_op: expect.stringMatching(/\+00:00$/), laatst_ingelogd_op: '2026-11-20T09:00:00.000+00:00', actieve_sessies: expect.any(Number) },
      { user_id: expect.any(String), email: 'piet@vertrek.nl', aangemaakt_op: expect.stringMatching(/\+00:00$/), laatst_ingelogd_op: null, actieve_sessies: 0 },
    ]);
    const tekst = await insight(['user', 'list', acc.account_id]);
    expect(tekst.stdout).toMatch(/^jan@vertrek\.nl {2}aangemaakt .+ {2}laatst ingelogd 2026-11-20T09:00:00\.000\+00:00\npiet@vertrek\.nl .+laatst ingelogd nooit\n$/);
    expect(`${tekst.stdout}${JSON.stringify(lijst)}`).not.toMatch(/scrypt|wachtwoord/);
    const nul = '00000000-0000-0000-0000-000000000000';
    expect(await fout('user', 'list', nul)).toBe(`Account ${nul} bestaat niet.`);

    expect(await json('user', 'remove', '--email', ' JAN@vertrek.nl')).toEqual({ email: 'jan@vertrek.nl', account_id: acc.account_id, verwijderd: true, sessies_beeindigd: 1 });
    await metDb(async (db) => {
      expect(await db.prisma.user.count({ where: { email: 'jan@vertrek.nl' } })).toBe(0);
      expect(await db.prisma.session.count()).toBe(0);
    });
    expect(await fout('user', 'remove', '--email', 'jan@vertrek.nl')).toBe('Er is geen gebruiker met e-mailadres jan@vertrek.nl.');
    expect((await insight(['user', 'remove', '--email', 'niemand@vertrek.nl'])).stderr).toBe('Fout: Er is geen gebruiker met e-mailadres niemand@vertrek.nl.\n');
    expect(await fout('user', 'remove')).toMatch(/verplichte optie '--email <e>' ontbreekt/);
    expect((await json('user', 'list', acc.account_id)).map((u: { email: string }) => u.email)).toEqual(['piet@vertrek.nl']);

    const ander = await json('account', 'create', '--name', 'Nieuwe werkgever BV');
    expect((await insight(['user', 'create', ander.account_id, '--email', 'jan@vertrek.nl', '--password-stdin', '--json'], WACHTWOORD)).code).toBe(0);
  });

  it('account close asks for --ja, revokes every key, removes users, keeps the balance visible; a closed account takes no topup, key or user', async () => {
    const acc = await json('account', 'create', '--name', 'Sluit BV', '--credits', '120');
    const k = await json('key', 'create', acc.account_id, '--name', 'productie');
    await json('key', 'create', acc.account_id, '--name', 'beheer', '--family', 'beheer');
    expect((await insight(['user', 'create', acc.account_id, '--email', 'eigenaar@sluit.nl', '--password-stdin'], WACHTWOORD)).code).toBe(0);

    expect(await fout('account', 'close', acc.account_id)).toBe(`Sluiten kan niet ongedaan worden gemaakt. Herhaal met --ja om account ${acc.account_id} te sluiten.`);
    expect((await json('key', 'list', acc.account_id)).every((x: { ingetrokken_op: string | null }) => x.ingetrokken_op === null)).toBe(true);

    const dicht = await json('account', 'close', acc.account_id, '--ja');
    expect(dicht).toEqual({
      account_id: acc.account_id, gesloten_op: expect.stringMatching(/\+00:00$/), al_gesloten: false, credits: 120,
      sleutels_ingetrokken: 2, gebruikers_verwijderd: 1, webhooks_verwijderd: 0, adressen_gewist: 0,
    });
    await metDb(async (db) => expect(await authenticate(db.prisma, `Bearer ${k.key}`)).toBeNull());
    expect((await json('key', 'list', acc.account_id)).every((x: { ingetrokken_op: string | null }) => x.ingetrokken_op !== null)).toBe(true);
    expect(await json('user', 'list', acc.account_id)).toEqual([]);
    expect((await json('account', 'list')).find((a: { account_id: string }) => a.account_id === acc.account_id)).toMatchObject({ credits: 120, geldige_sleutels: 0, gesloten_op: dicht.gesloten_op });

    expect(await fout('account', 'topup', acc.account_id, '--credits', '10')).toBe(
      `Account ${acc.account_id} is gesloten: het kan niet meer worden opgewaardeerd (een terugbetaling boekt u met account correct).`,
    );
    expect(await fout('key', 'create', acc.account_id, '--name', 'weer')).toBe(`Account ${acc.account_id} is gesloten: er kunnen geen sleutels meer bij.`);
    const gebruiker = await insight(['user', 'create', acc.account_id, '--email', 'weer@sluit.nl', '--password-stdin', '--json'], WACHTWOORD);
    expect(gebruiker.code).toBe(1);
    expect(JSON.parse(gebruiker.stderr).fout).toBe(`Account ${acc.account_id} is gesloten: er kunnen geen gebruikers meer bij.`);
    // Paying back the rest of the balance is a correction with a reason, in the ledger.
    expect(await json('account', 'correct', acc.account_id, '--credits', '-120', '--reason', 'restant terugbetaald na sluiting')).toMatchObject({ credits: 0 });
    expect(await json('account', 'close', acc.account_id, '--ja')).toMatchObject({ al_gesloten: true, gesloten_op: dicht.gesloten_op, credits: 0, sleutels_ingetrokken: 0 });
    const nul = '00000000-0000-0000-0000-000000000000';
    expect(await fout('account', 'close', nul, '--ja')).toBe(`Account ${nul} bestaat niet.`);
  });
});
