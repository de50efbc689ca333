#!/usr/bin/env node
// Share of comment lines among the non-blank lines of src/ (src/generated left out), per directory.
// A line counts as comment when it is a `//` line, or lies in a `/* */` or JSDoc block; code with a
// trailing comment counts as code. Usage: node scripts/commentaarregels.mjs [src]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';

const wortel = process.argv[2] ?? 'src';
const perMap = new Map();

function tel(bestand) {
  let inBlok = false;
  let code = 0;
  let commentaar = 0;
  for (const ruw of readFileSync(bestand, 'utf8').split('\n')) {
    const r = ruw.trim();
    if (r === '') continue;
    if (inBlok) {
      commentaar++;
      if (r.includes('*/')) inBlok = false;
    } else if (r.startsWith('//')) commentaar++;
    else if (r.startsWith('/*')) {
      commentaar++;
      inBlok = !r.includes('*/');
    } else code++;
  }
  return { code, commentaar };
}

function loop(map) {
  for (const naam of readdirSync(map)) {
    const pad = join(map, naam);
    if (relative(wortel, pad) === 'generated') continue;
    if (statSync(pad).isDirectory()) loop(pad);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(naam)) {
      const t = tel(pad);
      const m = relative(wortel, dirname(pad)) || '.';
      const s = perMap.get(m) ?? { code: 0, commentaar: 0 };
      s.code += t.code;
      s.commentaar += t.commentaar;
      perMap.set(m, s);
    }
  }
}

loop(wortel);
let code = 0;
let commentaar = 0;
for (const [m, s] of [...perMap].sort()) {
  code += s.code;
  commentaar += s.commentaar;
  console.log(`${m.padEnd(28)} ${String(s.commentaar).padStart(5)} / ${String(s.code + s.commentaar).padStart(6)}  ${((100 * s.commentaar) / (s.code + s.commentaar)).toFixed(1)} %`);
}
console.log(`${'totaal'.padEnd(28)} ${String(commentaar).padStart(5)} / ${String(code + commentaar).padStart(6)}  ${((100 * commentaar) / (code + commentaar)).toFixed(1)} %`);
