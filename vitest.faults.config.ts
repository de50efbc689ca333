import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the hot path under contention and overload, with several real server processes
 * on one PostgreSQL (TEST_POSTGRES_URL; skipped without it). Heavy and timed, so not in `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { TEST_DATABASE_URL: process.env.TEST_POSTGRES_URL ?? '' },
  },
});
