#!/usr/bin/env node
// Entry point for `npx insight`. The project runs on Node 24 (it runs TypeScript directly); when an
// older Node started this file, the CLI runs on the Node 24 binary from the `node` npm package.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
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
const kind = spawn(node, ['--disable-warning=ExperimentalWarning', ...vlaggen, main, ...args], { stdio: 'inherit' });
// A supervisor stops this process (SIGTERM from docker, systemd, pm2, kill): the CLI must hear it, or a
// server keeps running orphaned. Ctrl-C reaches the CLI from the terminal already; a second SIGINT would
// cut its graceful shutdown short, so this process only waits for it.
for (const signaal of ['SIGTERM', 'SIGHUP']) process.on(signaal, () => kind.kill(signaal));
process.on('SIGINT', () => {});
kind.on('error', (e) => {
  console.error(`Insight kon niet starten: ${e.message}`);
  process.exit(1);
});
kind.on('exit', (code, signaal) => process.exit(code ?? (signaal ? 128 + constants.signals[signaal] : 1)));
