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
import { inTransactie, type Db } from '../../db/client.ts';
import type { Deel } from '../register/demo/opzet.ts';
import { MODEL_VERSIE, modelFromState } from './model.ts';
import type { FittedModel, ModelState } from './model.ts';

/** The stored bytes are damaged (they do not match their checksum): fitted again, not retried. */
export class OpslagBeschadigd extends Error {
  override name = 'OpslagBeschadigd';
}

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

/** Rows of 8 MB: a write or read holds at most one block's statement or text form at a time. */
const BLOK = 8 * 1024 * 1024;

let versie: string | null = null;

/** When and where a model is built and how an answer reads it: no part of the fitted state. */
export const BUITEN_DE_FIT = new Set(['adres-waarde.ts', 'houder.ts']);

/**
 * MODEL_VERSIE plus a hash of the model's source files and of V8's serialisation: a state written
 * by other code (a deploy that changed the fit without bumping the version) is never read back; a
 * change to BUITEN_DE_FIT alone does not cost a national refit (about a minute).
 */
export function modelCodeVersie(): string {
  if (versie) return versie;
  const map = fileURLToPath(new URL('.', import.meta.url));
  const h = createHash('sha256').update(process.versions.v8);
  for (const f of readdirSync(map).filter((f) => f.endsWith('.ts') && !BUITEN_DE_FIT.has(f)).sort()) h.update(f).update(readFileSync(`${map}/${f}`));
  versie = `${MODEL_VERSIE}+${h.digest('hex').slice(0, 16)}`;
  return versie;
}

/**
 * The stored form, as parts written one after the other: an 8-byte header (the length of the
 * worker's serialised state), that state, and the ids that never went to the worker. Kept as parts
 * so the state, the largest part, is never copied into a second buffer to be written.
 */
export function opslagVan(staat: Uint8Array, ids: string[], objectIndex: Map<string, number>): Uint8Array[] {
  const kop = Buffer.alloc(8);
  kop.writeBigUInt64LE(BigInt(staat.byteLength));
  return [kop, staat, serialize({ ids, objectIndex })];
}

export function modelUitOpslag(bytes: Uint8Array): FittedModel {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengte = Number(b.readBigUInt64LE(0));
  if (8 + lengte > b.length) throw new Error('opgeslagen waardemodel is afgekapt');
  const state = deserialize(b.subarray(8, 8 + lengte)) as ModelState;
  const o = deserialize(b.subarray(8 + lengte)) as { ids: string[]; objectIndex: Map<string, number> };
  state.table.ids = o.ids;
  state.table.objectIndex = o.objectIndex;
  return modelFromState(state);
}

/** The parts cut in blocks of at most `grootte` bytes; only a block that straddles two parts is copied. */
export function* blokken(delen: Uint8Array[], grootte: number): Generator<Uint8Array> {
  let rest: Uint8Array[] = [];
  let restLengte = 0;
  for (const deel of delen) {
    let i = 0;
    if (restLengte) {
      i = Math.min(deel.byteLength, grootte - restLengte);
      rest.push(deel.subarray(0, i));
      restLengte += i;
      if (restLengte < grootte) continue;
      yield Buffer.concat(rest);
      rest = [];
      restLengte = 0;
    }
    for (; i + grootte <= deel.byteLength; i += grootte) yield deel.subarray(i, i + grootte);
    if (i < deel.byteLength) {
      rest = [deel.subarray(i)];
      restLengte = deel.byteLength - i;
    }
  }
  if (restLengte) yield Buffer.concat(rest);
}

/** Replace the stored model of a part, in one transaction (a reader sees the old one or the new one). */
export async function slaModelOp(db: Db, deel: Deel, vintage: string, delen: Uint8Array[]): Promise<void> {
  const v = modelCodeVersie();
  await inTransactie(db, async (sql) => {
    await sql('DELETE FROM waardemodel_blok WHERE deel = $1', [deel]);
    let nr = 0;
    for (const blok of blokken(delen, BLOK)) {
      await sql('INSERT INTO waardemodel_blok (deel, volgnr, versie, vintage, data, controle) VALUES ($1, $2, $3, $4, $5, $6)', [deel, nr++, v, vintage, blok, sha256(blok)]);
    }
  });
}

/**
 * The stored model of a part, if it was fitted on this vintage by this code; null otherwise. One
 * snapshot: a model another process stores meanwhile is never mixed in. The blocks are copied into
 * one buffer of the stored length as they arrive, so only one block is held beside it. A block whose
 * bytes, as they arrive here, no longer match the SHA-256 taken as they were written (PostgreSQL
 * does not checksum its pages by default, and a changed byte in a typed array would deserialise into
 * a wrong model without any error) throws `OpslagBeschadigd`.
 */
export async function leesModelOpslag(db: Db, deel: Deel, vintage: string): Promise<Uint8Array | null> {
  const v = modelCodeVersie();
  return inTransactie(
    db,
    async (sql) => {
      const lijst = await sql<{ volgnr: number; versie: string; vintage: string; lengte: number }>(
        'SELECT volgnr, versie, vintage, octet_length(data) AS lengte FROM waardemodel_blok WHERE deel = $1 ORDER BY volgnr',
        [deel],
      );
      if (!lijst.length || lijst.some((b, i) => b.volgnr !== i || b.versie !== v || b.vintage !== vintage)) return null;
      const uit = Buffer.allocUnsafe(lijst.reduce((n, b) => n + Number(b.lengte), 0));
      let plek = 0;
      for (const b of lijst) {
        const [r] = await sql<{ data: Uint8Array; controle: Uint8Array | null }>('SELECT data, controle FROM waardemodel_blok WHERE deel = $1 AND volgnr = $2', [deel, b.volgnr]);
        if (!r || r.data.byteLength !== Number(b.lengte)) return null;
        if (!r.controle || !sha256(r.data).equals(r.controle)) throw new OpslagBeschadigd(`blok ${b.volgnr} van het opgeslagen waardemodel (${deel}) klopt niet met zijn controlesom`);
        uit.set(r.data, plek);
        plek += r.data.byteLength;
      }
      return uit;
    },
    { alleenLezen: true },
  );
}
