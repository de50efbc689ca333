import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { controleerLogin } from '../../src/domain/gebruikers/gebruikers.ts';
import { createTestDatabase, dialect, type TestDatabase } from '../support/db.ts';

const main = path.resolve('src/cli/main.ts');

/** `insight user create/reset-password` as an operator runs them: a real process, the password on stdin. */
describe(`operator CLI: web-app users (${dialect})`, { timeout: 240_000 }, () => {
  let dataDir: string;
  let pg: TestDatabase | null = null;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'insight-user-cli-'));
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
  async function login(email: string, wachtwoord: string) {
    const db = await openDatabase({ databaseUrl: pg?.url ?? '', dataDir });
    try {
      return await controleerLogin(db.prisma, email, wachtwoord);
    } finally {
      await db.close();
    }
  }

  it('user create reads the password from stdin; reset-password replaces it; bad input exits non-zero in Dutch', async () => {
    const acc = JSON.parse((await insight(['account', 'create', '--name', 'Web BV', '--json'])).stdout);
    const r = await insight(['user', 'create', acc.account_id, '--email', 'Beheer@Web.nl', '--password-stdin', '--json'], 'eerste-wachtwoord-123\n');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ user_id: expect.any(String), email: 'beheer@web.nl', account_id: acc.account_id });
    expect(await login('beheer@web.nl', 'eerste-wachtwoord-123')).toMatchObject({ accountId: acc.account_id });

    const dubbel = await insight(['user', 'create', acc.account_id, '--email', 'beheer@web.nl', '--password-stdin'], 'ander-wachtwoord-123\n');
    expect(dubbel.code).toBe(1);
    expect(dubbel.stderr).toMatch(/al een gebruiker/);
    const kort = await insight(['user', 'create', acc.account_id, '--email', 'x@web.nl', '--password-stdin'], 'kort\n');
    expect(kort.stderr).toMatch(/minstens 12 tekens/);
    const leeg = await insight(['user', 'create', acc.account_id, '--email', 'y@web.nl', '--password-stdin'], '');
    expect(leeg.stderr).toMatch(/Geen wachtwoord/);

    const reset = await insight(['user', 'reset-password', '--email', 'beheer@web.nl', '--password-stdin', '--json'], 'tweede-wachtwoord-456\n');
    expect(reset.code, reset.stderr).toBe(0);
    expect(await login('beheer@web.nl', 'eerste-wachtwoord-123')).toBeNull();
    expect(await login('beheer@web.nl', 'tweede-wachtwoord-456')).not.toBeNull();
    const onbekend = await insight(['user', 'reset-password', '--email', 'niemand@web.nl', '--password-stdin'], 'tweede-wachtwoord-456\n');
    expect(onbekend.code).toBe(1);
  });
});
