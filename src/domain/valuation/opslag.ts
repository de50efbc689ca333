/**
 * The fitted models stored in the database (table waardemodel_blok), so that a server start, a
 * second server process or a restart after a crash loads the model in seconds instead of fitting it
 * again (about 80 CPU-seconds at a million sales). A stored model is used only for the vintage of the
 * held data it was fitted on and for the model code that fitted it; anything else is fitted again
 * and replaces it. `insight waardemodel bouwen` fits and stores it after an import, before servers start.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../db/client.ts';
import type { Deel } from '../register/demo/opzet.ts';
import { MODEL_VERSIE, modelFromState } from './model.ts';
import type { FittedModel, ModelState } from './model.ts';

/** Rows of 8 MB: a read or write never holds more than one block's text form at a time. */
const BLOK = 8 * 1024 * 1024;

let versie: string | null = null;

/**
 * MODEL_VERSIE plus a hash of the model's source files and of V8's serialisation: a state written
 * by other code (a deploy that changed the fit without bumping the version) is never read back.
 */
export function modelCodeVersie(): string {
  if (versie) return versie;
  const map = fileURLToPath(new URL('.', import.meta.url));
  const h = createHash('sha256').update(process.versions.v8);
  for (const f of readdirSync(map).filter((f) => f.endsWith('.ts')).sort()) h.update(f).update(readFileSync(`${map}/${f}`));
  versie = `${MODEL_VERSIE}+${h.digest('hex').slice(0, 16)}`;
  return versie;
}

/** The stored form: the worker's serialised state, and the ids that never went to the worker. */
export function opslagVan(staat: Uint8Array, ids: string[], objectIndex: Map<string, number>): Uint8Array {
  return serialize({ staat, ids, objectIndex });
}

export function modelUitOpslag(bytes: Uint8Array): FittedModel {
  const o = deserialize(bytes) as { staat: Uint8Array; ids: string[]; objectIndex: Map<string, number> };
  const state = deserialize(o.staat) as ModelState;
  state.table.ids = o.ids;
  state.table.objectIndex = o.objectIndex;
  return modelFromState(state);
}

/** Replace the stored model of a part, in one transaction (a reader sees the old one or the new one). */
export async function slaModelOp(db: Db, deel: Deel, vintage: string, bytes: Uint8Array): Promise<void> {
  const v = modelCodeVersie();
  await db.$transaction(
    async (tx) => {
      await tx.waardemodelBlok.deleteMany({ where: { deel } });
      for (let i = 0, nr = 0; i < bytes.length; i += BLOK, nr++) {
        await tx.$executeRawUnsafe('INSERT INTO waardemodel_blok (deel, volgnr, versie, vintage, data) VALUES ($1, $2, $3, $4, $5)', deel, nr, v, vintage, bytes.subarray(i, i + BLOK));
      }
    },
    { maxWait: 15_000, timeout: 600_000 },
  );
}

/** The stored model of a part, if it was fitted on this vintage by this code; null otherwise. */
export async function leesModelOpslag(db: Db, deel: Deel, vintage: string): Promise<Uint8Array | null> {
  const blokken = await db.waardemodelBlok.findMany({ where: { deel }, select: { volgnr: true, versie: true, vintage: true }, orderBy: { volgnr: 'asc' } });
  const v = modelCodeVersie();
  if (!blokken.length || blokken.some((b, i) => b.volgnr !== i || b.versie !== v || b.vintage !== vintage)) return null;
  const delen: Uint8Array[] = [];
  for (const b of blokken) {
    const [r] = await db.$queryRawUnsafe<{ data: Uint8Array }[]>('SELECT data FROM waardemodel_blok WHERE deel = $1 AND volgnr = $2 AND vintage = $3', deel, b.volgnr, vintage);
    // Replaced while reading (another process stored a newer one): fit instead of mixing two.
    if (!r) return null;
    delen.push(r.data);
  }
  return Buffer.concat(delen);
}
