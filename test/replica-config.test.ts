import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/env.ts';

/** A malformed database URL is refused by the configuration, naming the variable, never repeating the password. */
const GOED = 'postgresql://u:s3cret@127.0.0.1:5432/x';
const FOUT = ['postgresql://u:s3cret@127.0.0.1:99999/x', 'postgresql://u:s3cret@[::1/x'];

function melding(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

describe('DATABASE_URL and DATABASE_REPLICA_URL must parse as URLs', () => {
  it.each(FOUT)('%s: the variable named, the password not shown', (url) => {
    const primair = melding({ DATABASE_URL: url });
    expect(primair).toMatch(/^Ongeldige configuratie:\n {2}DATABASE_URL: is geen geldige URL/);
    const replica = melding({ DATABASE_URL: GOED, DATABASE_REPLICA_URL: `${GOED.replace('/x', '/y')},${url}` });
    expect(replica).toMatch(/^Ongeldige configuratie:\n {2}DATABASE_REPLICA_URL: replica 2 van 2 is geen geldige URL/);
    expect(`${primair}${replica}`).not.toContain('s3cret');
  });

  it('well-formed URLs, IPv6 and a socket directory included, still pass', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@[::1]:5432/d', DATABASE_REPLICA_URL: 'postgresql://r1:5433/d, postgresql:///d?host=/var/run/postgresql' });
    expect(c.DATABASE_REPLICA_URL).toHaveLength(2);
    expect(melding({ DATABASE_URL: 'mysql://h/d' })).toMatch(/DATABASE_URL: moet met postgresql:\/\/ beginnen/);
  });

  it('insight serve says which variable, before it opens anything', async () => {
    const wortel = path.resolve(import.meta.dirname, '..');
    const uit = await promisify(execFile)(path.join(wortel, 'node_modules/.bin/node'), ['src/cli/main.ts', 'serve'], {
      cwd: wortel,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: GOED, DATABASE_REPLICA_URL: FOUT[0] },
    }).then(
      () => ({ stderr: 'gestart' }),
      (e: { stderr: string }) => e,
    );
    expect(uit.stderr).toMatch(/DATABASE_REPLICA_URL: replica 1 van 1 is geen geldige URL/);
    expect(uit.stderr).not.toContain('s3cret');
  });
});
