import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUITEN_DE_FIT } from '../../src/domain/valuation/opslag.ts';

const MAP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/domain/valuation');

/** Every file of domain/valuation that `start` imports, directly or through others there. */
function geimporteerd(start: string): Set<string> {
  const gezien = new Set<string>();
  const open = [start];
  while (open.length) {
    const f = open.pop()!;
    if (gezien.has(f)) continue;
    gezien.add(f);
    for (const m of readFileSync(path.join(MAP, f), 'utf8').matchAll(/from '\.\/([\w-]+\.ts)'/g)) open.push(m[1]);
  }
  return gezien;
}

/**
 * The stored model is keyed by a hash of the model's files (opslag.ts modelCodeVersie); the files it
 * leaves out must be no part of what the build worker fits, or a changed fit would load an old model.
 */
describe('the files the model code version leaves out', () => {
  it('exist, and the fit (build-worker-main.ts and all it imports) reads none of them', () => {
    for (const f of BUITEN_DE_FIT) expect(existsSync(path.join(MAP, f)), f).toBe(true);
    const fit = geimporteerd('build-worker-main.ts');
    expect(fit.has('model.ts')).toBe(true);
    expect([...fit].filter((f) => BUITEN_DE_FIT.has(f))).toEqual([]);
  });
});
