import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';

describe('DEMO_SEED default (safe on PostgreSQL)', () => {
  it('is on for the embedded database and off with DATABASE_URL unless asked for', () => {
    expect(loadConfig({}).DEMO_SEED).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@127.0.0.1/x' }).DEMO_SEED).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@127.0.0.1/x', DEMO_SEED: 'true' }).DEMO_SEED).toBe(true);
    expect(loadConfig({ DEMO_SEED: 'false' }).DEMO_SEED).toBe(false);
    expect(loadConfig({ DEMO_SEED: '' }).DEMO_SEED).toBe(true);
  });

  it('refuses a value that is not a boolean', () => {
    expect(() => loadConfig({ DEMO_SEED: 'ja' })).toThrow(/DEMO_SEED/);
  });

  it('DEMO_CREDITS fits the balance column (at most 2,147,483,647)', () => {
    expect(loadConfig({ DEMO_CREDITS: '2147483647' }).DEMO_CREDITS).toBe(2_147_483_647);
    expect(() => loadConfig({ DEMO_CREDITS: '9999999999' })).toThrow(/DEMO_CREDITS/);
  });

  it('a time in milliseconds fits the timers and statement_timeout (at most 2,147,483,647): refused at start, not a crash later', () => {
    for (const naam of ['DB_QUERY_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'DATABASE_REPLICA_CHECK_MS', 'DATABASE_REPLICA_MAX_LAG_MS', 'DB_CONNECT_TIMEOUT_MS']) {
      expect(() => loadConfig({ [naam]: '3000000000' }), naam).toThrow(new RegExp(naam));
      expect(loadConfig({ [naam]: '2147483647' })[naam as 'DB_QUERY_TIMEOUT_MS']).toBe(2_147_483_647);
    }
  });
});

describe('DATABASE_REPLICA_URL', () => {
  const primair = 'postgresql://u@127.0.0.1/x';
  it('is a comma-separated list of postgresql:// URLs, empty by default', () => {
    expect(loadConfig({ DATABASE_URL: primair }).DATABASE_REPLICA_URL).toEqual([]);
    expect(loadConfig({ DATABASE_URL: primair, DATABASE_REPLICA_URL: ' postgresql://u@r1/x, postgres://u@r2:5433/x ,' }).DATABASE_REPLICA_URL).toEqual([
      'postgresql://u@r1/x',
      'postgres://u@r2:5433/x',
    ]);
  });

  it('refuses a URL that is not PostgreSQL, and replicas without DATABASE_URL (the embedded database has none)', () => {
    expect(() => loadConfig({ DATABASE_URL: primair, DATABASE_REPLICA_URL: 'postgresql://u@r1/x,mysql://u@r2/x' })).toThrow(/DATABASE_REPLICA_URL/);
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgresql://u@r1/x' })).toThrow(/DATABASE_REPLICA_URL: replica’s vereisen DATABASE_URL/);
  });
});
