/**
 * Lint the served OpenAPI document with Spectral (`spectral:oas`, .spectral.yaml) and Redocly
 * (`recommended`, redocly.yaml): any error or warning (or hint) fails. Run by .ci/run.
 *   npm run lint:openapi
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config/env.ts';
import { bouwOpenApiDocument } from '../src/gateways/openapi.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const bin = (naam: string) => path.join(root, 'node_modules/.bin', naam);
const bestand = path.join(root, '.tmp/openapi.json');
mkdirSync(path.dirname(bestand), { recursive: true });
writeFileSync(bestand, JSON.stringify(bouwOpenApiDocument(loadConfig({})), null, 2));

const uit = async (cmd: string, args: string[]) => (await run(cmd, args, { cwd: root, maxBuffer: 32 << 20 }).catch((e: { stdout: string }) => e)).stdout;
const spectral = JSON.parse(await uit(bin('spectral'), ['lint', bestand, '-r', '.spectral.yaml', '-f', 'json', '--quiet'])) as { code: string; message: string; path: string[] }[];
const redocly = JSON.parse(await uit(bin('redocly'), ['lint', bestand, '--format', 'json'])) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };

for (const r of spectral) console.log(`spectral ${r.code}: ${r.message} (${r.path.join('.')})`);
for (const p of redocly.problems) console.log(`redocly ${p.ruleId}: ${p.message}`);
console.log(`spectral (oas): ${spectral.length} bevindingen; redocly (recommended): ${redocly.totals.errors} fouten, ${redocly.totals.warnings} waarschuwingen`);
process.exit(spectral.length + redocly.totals.errors + redocly.totals.warnings === 0 ? 0 : 1);
