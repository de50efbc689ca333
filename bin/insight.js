#!/usr/bin/env node
// Entry point for `npx insight`. The project runs on Node 24 (it runs TypeScript directly); when an
// older Node started this file, the CLI runs on the Node 24 binary from the `node` npm package.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const node24 = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
const node = major >= 24 ? process.execPath : node24;
if (!existsSync(node)) {
  console.error('Insight heeft Node 24 nodig. Draai eerst `npm install` in de projectmap.');
  process.exit(1);
}
// An import of a CSV kind or of influences runs with a bounded heap growth (import-geheugen.json says why).
const geheugen = JSON.parse(readFileSync(new URL('./import-geheugen.json', import.meta.url), 'utf8'));
const args = process.argv.slice(2);
const vlaggen = args[0] === 'import' && args.slice(1).some((a) => geheugen.soorten.includes(a)) ? geheugen.vlaggen : [];
// src/cli/main.ts loads `.env` from the working directory when present; the environment wins.
const r = spawnSync(node, ['--disable-warning=ExperimentalWarning', ...vlaggen, main, ...args], { stdio: 'inherit' });
process.exit(r.status ?? 1);
