/** Self time per function and per package/file from a V8 `.cpuprofile` (`bench:profiel`, `bench:ab --profiel`). */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfielKnoop {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface Profiel {
  startTime: number;
  endTime: number;
  nodes: ProfielKnoop[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time in ms per function and per package/file, counting only the samples whose time (µs of
 * the monotonic clock, the one `process.hrtime` reads) `meetelt` accepts: the measured load, not
 * the start-up. `(idle)` is left out.
 */
export function zelfTijd(p: Profiel, meetelt: (tijdUs: number) => boolean) {
  const perKnoop = new Map<number, number>();
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (!meetelt(t)) continue;
    perKnoop.set(p.samples[i], (perKnoop.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  }
  const perFunctie = new Map<string, number>();
  const perBron = new Map<string, number>();
  let totaal = 0;
  for (const k of p.nodes) {
    const ms = perKnoop.get(k.id) ?? 0;
    if (!ms) continue;
    const { functionName, url, lineNumber } = k.callFrame;
    if (functionName === '(idle)') continue;
    totaal += ms;
    const kort = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, 'nm:').replace(/^.*?\/src\//, 'src/');
    const functie = `${functionName || '(anoniem)'} ${kort}:${lineNumber + 1}`;
    perFunctie.set(functie, (perFunctie.get(functie) ?? 0) + ms);
    const bron = kort.startsWith('nm:') ? kort.split('/').slice(0, kort.startsWith('nm:@') ? 2 : 1).join('/') : kort || functionName;
    perBron.set(bron, (perBron.get(bron) ?? 0) + ms);
  }
  return { perFunctie, perBron, totaal };
}

/** Now on the clock of a profile's sample times, in µs. */
export const monotoonUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * The main thread's profile of process `pid` in `map`. Under `--cpu-prof` every thread writes its own
 * `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile` (the model's build worker too); the main thread is 0.
 */
export function hoofdProfiel(map: string, pid: number): Profiel {
  const bestanden = readdirSync(map).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`));
  if (bestanden.length !== 1) throw new Error(`${bestanden.length} profielen van de hoofdthread van ${pid} in ${map} (stopte de server niet netjes?)`);
  return JSON.parse(readFileSync(path.join(map, bestanden[0]), 'utf8')) as Profiel;
}
