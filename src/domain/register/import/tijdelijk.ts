/** An import's temporary directories hold their owner's pid: the next import removes those of one killed (kill -9, OOM). */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pidAlive } from '../../../db/client.ts';

const SOORTEN = ['insight-bagxml-', 'insight-import-', 'insight-set-'] as const;
const EIGENAAR = 'eigenaar.pid';

export function tijdelijkeMap(soort: (typeof SOORTEN)[number]): string {
  const dir = mkdtempSync(path.join(tmpdir(), soort));
  writeFileSync(path.join(dir, EIGENAAR), String(process.pid));
  return dir;
}

/** A directory without a pid (made by an older version, or being made) is left alone. */
export function ruimVerlatenMappenOp(map = tmpdir()): string[] {
  const weg: string[] = [];
  let namen: string[];
  try {
    namen = readdirSync(map);
  } catch {
    return weg;
  }
  for (const naam of namen) {
    if (!SOORTEN.some((s) => naam.startsWith(s))) continue;
    const dir = path.join(map, naam);
    let pid: number;
    try {
      pid = Number.parseInt(readFileSync(path.join(dir, EIGENAAR), 'utf8'), 10);
    } catch {
      continue;
    }
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
    weg.push(dir);
  }
  return weg;
}
