import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * The Node the README names (package.json `engines`) satisfies every installed package's `engines`,
 * so `npm install` and `npm run` on it print no EBADENGINE warnings.
 */
describe('engines', () => {
  it('the lowest Node our engines allows satisfies every package in the lockfile', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    const laagste = semver.minVersion(pkg.engines.node)!.version;
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
    const botst = Object.entries(lock.packages)
      .filter(([naam, p]) => naam !== '' && !Array.isArray(p.engines) && p.engines?.node && !semver.satisfies(laagste, p.engines.node))
      .map(([naam, p]) => `${naam} ${(p.engines as { node: string }).node}`);
    expect(botst).toEqual([]);
    expect(readFileSync('README.md', 'utf8')).toContain(`Node ≥ ${laagste.replace(/\.0$/, '')}`);
  });
});
