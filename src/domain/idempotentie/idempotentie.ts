/**
 * Idempotency records (decisions section 5). A request claims (key, scope, sleutel) with an INSERT
 * ... ON CONFLICT DO NOTHING, so of many concurrent identical requests exactly one does the work;
 * the others see it in flight (409, Retry-After: 1) or, once it is stored, replay its answer.
 * Only 200/404/422 answers are stored; any other outcome releases the claim so it can be retried.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';

export const IDEMPOTENTIE_VENSTER_MS = 24 * 3_600_000;
/** A claim still "in flight" after this long belongs to a request that died; it may be taken over. */
const VERLATEN_NA_MS = 60_000;
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { soort: 'nieuw'; id: string }
  | { soort: 'bezig' }
  | { soort: 'ander_verzoek' }
  | { soort: 'herhaling'; status: number; antwoord: unknown };

/** Canonical JSON: keys sorted at every level and null fields dropped (null and absent mean the same), so equal requests hash equally. */
export function canoniekeJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canoniekeJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined && (v as Record<string, unknown>)[k] !== null)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canoniekeJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export async function claim(
  db: Db,
  opts: { keyId: string; scope: string; sleutel: string; verzoekHash: string; now: Date },
): Promise<Claim> {
  const verloopt = new Date(opts.now.getTime() + IDEMPOTENTIE_VENSTER_MS);
  for (let poging = 0; poging < 5; poging++) {
    const nieuw = await db.$queryRaw<{ id: string }[]>`
      INSERT INTO idempotentie (id, key_id, scope, sleutel, verzoek_hash, toestand, aangemaakt_op, verloopt_op)
      VALUES (gen_random_uuid(), ${opts.keyId}::uuid, ${opts.scope}, ${opts.sleutel}, ${opts.verzoekHash}, 'bezig', ${opts.now}, ${verloopt})
      ON CONFLICT (key_id, scope, sleutel) DO NOTHING
      RETURNING id`;
    if (nieuw.length) return { soort: 'nieuw', id: nieuw[0].id };
    const r = await db.idempotencyRecord.findUnique({ where: { keyId_scope_sleutel: { keyId: opts.keyId, scope: opts.scope, sleutel: opts.sleutel } } });
    if (!r) continue;
    const verlaten = r.toestand === 'bezig' && r.aangemaaktOp.getTime() + VERLATEN_NA_MS <= opts.now.getTime();
    if (r.verlooptOp.getTime() <= opts.now.getTime() || verlaten) {
      // Expired (or abandoned): the key is new again. Delete only that exact row, then claim anew.
      await db.idempotencyRecord.deleteMany({ where: { id: r.id, aangemaaktOp: r.aangemaaktOp } });
      continue;
    }
    if (r.verzoekHash !== opts.verzoekHash) return { soort: 'ander_verzoek' };
    if (r.toestand === 'bezig') return { soort: 'bezig' };
    return { soort: 'herhaling', status: r.status ?? 200, antwoord: r.antwoord };
  }
  return { soort: 'bezig' };
}

/** Store the final answer inside the caller's transaction (same commit as the charge). */
export async function bewaar(tx: Prisma.TransactionClient, id: string, status: number, antwoord: unknown): Promise<void> {
  await tx.idempotencyRecord.update({ where: { id }, data: { toestand: 'klaar', status, antwoord: antwoord as Prisma.InputJsonValue } });
}

/** Give the claim up (the request ended in a status that is not stored). */
export async function geefVrij(db: Db, id: string): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { id, toestand: 'bezig' } });
}
