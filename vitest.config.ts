import { defineConfig } from 'vitest/config';

/**
 * One run, one summary: every test on PGlite, and — when TEST_POSTGRES_URL points at a server, as in
 * CI — the database tests again on PostgreSQL (each test file gets its own fresh database there).
 */
const postgresUrl = process.env.TEST_POSTGRES_URL;

/** Pure unit tests that do not touch a database run once. */
const pureTests = ['test/unit/**/*.test.ts', 'test/valuation/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: two workers keep PGlite instances and PostgreSQL databases from starving each other.
    maxWorkers: 2,
    projects: [
      // test/faults: `npm run test:faults` (vitest.faults.config.ts).
      { extends: true, test: { name: 'pglite', include: ['test/**/*.test.ts'], exclude: ['test/faults/**'], env: { TEST_DATABASE_URL: '' } } },
      ...(postgresUrl
        ? [{ extends: true, test: { name: 'postgres', include: ['test/**/*.test.ts'], exclude: [...pureTests, 'test/web/**', 'test/bench/**', 'test/faults/**'], env: { TEST_DATABASE_URL: postgresUrl } } }]
        : []),
    ],
  },
});
