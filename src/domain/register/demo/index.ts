/**
 * Synthetic demo dataset (fictional municipality Fictiedal). Entry points:
 *  - generateDemoDataset(seed = 1)  arrays per table, rows by column name (deterministic)
 *  - loadDemoDataset(db)            writes them in one transaction (~8 s on PGlite)
 *  - DEMO_ADRESSEN                  curated addresses per demo case (for the README)
 */
import { createHash } from 'node:crypto';
import type { DemoDataset } from './genereer.ts';

export { generateDemoDataset, demoInvloedObjecten, DEMO_BRON_DATUM, VERKOOP_VANAF, VERKOOP_TOT_EN_MET, WOZ_PEILDATA } from './genereer.ts';
export type { AdresRij, DemoDataset, DemoOpties, PandRij, Woningtype, WoningtypeRij } from './genereer.ts';
export { loadDemoDataset, verwijderDemoDataset } from './laden.ts';
export type { LaadOpties, LaadResultaat } from './laden.ts';
export { DEMO_ADRESSEN, DEMO_UITLEG, kiesDemoAdressen } from './adressen.ts';
export type { DemoAdres, DemoGeval } from './adressen.ts';
export { DEMO_BRON, BUURTEN, GEHUCHT, GEMEENTE, CENTRUM_RD, INVLOED_DEFS } from './opzet.ts';
export { DEMO_PRIJSMODEL, INDEX_EXTRAPOLATIE, leesDemoPrijsindex } from './prijsmodel.ts';

export function demoHash(ds: DemoDataset): string {
  const h = createHash('sha256');
  for (const tabel of Object.keys(ds).sort() as (keyof DemoDataset)[]) {
    h.update(`#${tabel}\n`);
    for (const rij of ds[tabel]) h.update(`${JSON.stringify(rij)}\n`);
  }
  return h.digest('hex');
}
