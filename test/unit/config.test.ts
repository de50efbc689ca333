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
});
