/**
 * The King County backtest of the README, end to end through the scripts an operator runs. The file
 * (`kc_house_data.csv`, 2.5 MB, CC0; see test/fixtures/SOURCES.md) is not kept in the repository:
 * set KC_HOUSE_DATA to its path to run this test; without it the test is skipped and says why.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const KC = process.env.KC_HOUSE_DATA ?? '';
const heeftKc = KC !== '' && existsSync(KC);
const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');

describe.skipIf(!heeftKc)('King County backtest (needs KC_HOUSE_DATA=<path to kc_house_data.csv>, not in the repository)', () => {
  it('converts the file and backtests it with an MdAPE under 12 %', async () => {
    const map = mkdtempSync(path.join(tmpdir(), 'kc-'));
    try {
      const csv = path.join(map, 'kc.csv');
      await run(NODE, ['scripts/kc-to-generic.ts', KC, csv]);
      const { stdout } = await run(NODE, ['--disable-warning=ExperimentalWarning', 'src/cli/main.ts', 'backtest', csv, '--json'], { maxBuffer: 64 * 1024 * 1024 });
      const r = JSON.parse(stdout) as { test: number; metrics: { overall: { mdape: number } } };
      expect(r.test).toBeGreaterThan(2000);
      expect(r.metrics.overall.mdape).toBeLessThan(0.12);
    } finally {
      rmSync(map, { recursive: true, force: true });
    }
  }, 600_000);
});
