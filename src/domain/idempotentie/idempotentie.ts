/**
 * Idempotency records (decisions section 5). A request claims (key, scope, sleutel) with an INSERT
 * ... ON CONFLICT DO NOTHING, so of many concurrent identical requests exactly one does the work;
 * the others see it in flight (409, Retry-After: 1) or, once it is stored, replay its answer.
 * Only 200/404/422 answers are stored; any other outcome releases the claim so it can be retried.
 */
import { createHash } from 'node:crypto';
import { sqlRijen, type Db } from '../../db/client.ts';

export const IDEMPOTENTIE_VENSTER_MS = 24 * 3_600_000;
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { soort: 'nieuw'; id: string; /** The account's balance, read in the same statement. */ saldo?: number; /** The claim's deadline (bezig_tot). */ tot: Date }
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

/**
 * Claim (key, scope, sleutel) in one statement (the SQL function idempotentie_claim), which also reads
 * the account's balance so the 402 check after it needs no round trip of its own. The claim holds for
 * `termijnMs` (the request's own time, core/afrekening.ts); a request that dies leaves a claim that a
 * retry takes over once that deadline has passed.
 */
export async function claim(
  db: Db,
  opts: { keyId: string; scope: string; sleutel: string; verzoekHash: string; now: Date; accountId: string; termijnMs: number },
): Promise<Claim> {
  const verloopt = new Date(opts.now.getTime() + IDEMPOTENTIE_VENSTER_MS);
  const [r] = await sqlRijen<{ r_soort: Claim['soort']; r_id: string | null; r_status: number | null; r_antwoord: unknown; r_saldo: number | null }>(
    db,
    'SELECT * FROM idempotentie_claim($1::uuid, $2, $3, $4, $5::timestamptz, $6::timestamptz, $7::int, $8::uuid)',
    [opts.keyId, opts.scope, opts.sleutel, opts.verzoekHash, opts.now, verloopt, opts.termijnMs, opts.accountId],
  );
  const saldo = r.r_saldo ?? undefined;
  switch (r.r_soort) {
    case 'nieuw':
      return { soort: 'nieuw', id: r.r_id!, saldo, tot: new Date(opts.now.getTime() + opts.termijnMs) };
    case 'herhaling':
      return { soort: 'herhaling', status: r.r_status ?? 200, antwoord: r.r_antwoord };
    default:
      return { soort: r.r_soort };
  }
}

/** Give the claim up (the request ended in a status that is not stored). */
export async function geefVrij(db: Db, id: string): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { id, toestand: 'bezig' } });
}

/**
 * Remove what no request can use any more: records past their 24 h window, and claims still "bezig"
 * past their request's deadline (their process was killed mid-request; a retry could take them over,
 * but without one they would stay). Run periodically by the server (server.ts); returns the rows removed.
 */
export async function ruimIdempotentieOp(db: Db, now: Date): Promise<number> {
  const { count } = await db.idempotencyRecord.deleteMany({
    where: {
      OR: [
        { verlooptOp: { lte: now } },
        { toestand: 'bezig', bezigTot: { lte: now } },
        // Claims made before bezig_tot existed: 60 s, as they were then.
        { toestand: 'bezig', bezigTot: null, aangemaaktOp: { lte: new Date(now.getTime() - 60_000) } },
      ],
    },
  });
  return count;
}
