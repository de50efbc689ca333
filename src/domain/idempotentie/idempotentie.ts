/**
 * Idempotency (decisions section 5): INSERT ... ON CONFLICT DO NOTHING, so of concurrent identical requests
 * exactly one does the work; the others get 409 or its replay. Only 200/404/422 are stored.
 */
import { createHash } from 'node:crypto';
import { perDatabase } from '../../db/bundel.ts';
import { sqlRijen, type Db } from '../../db/client.ts';

export const IDEMPOTENTIE_VENSTER_MS = 24 * 3_600_000;

/** When a record made at `now` expires (ISO text, as the SQL functions take it). */
export function verlooptOp(now: Date): string {
  return new Date(now.getTime() + IDEMPOTENTIE_VENSTER_MS).toISOString();
}
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export type Claim =
  | { soort: 'nieuw'; id: string; /** The account's balance, read in the same statement. */ saldo?: number; /** The claim's deadline (bezig_tot). */ tot: Date }
  /** A look (`kijk`) found nothing stored: the answer is stored at the settlement (idempotentie_vastleggen). */
  | { soort: 'vrij'; saldo?: number }
  | { soort: 'bezig' }
  | { soort: 'ander_verzoek' }
  | { soort: 'herhaling'; status: number; antwoord: unknown };

/** Null and absent mean the same, so equal requests hash equally. */
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

/** A claim's row as idempotentie_claim_bundel (and snelheid_claim_bundel) return it. */
export interface ClaimRij {
  r_soort: Claim['soort'] | null;
  r_id: string | null;
  r_status: number | null;
  r_antwoord: unknown;
  r_saldo: number | null;
  r_fout: string | null;
}

/** The claims of concurrent requests go together, one statement in flight per process (db/bundel.ts). */
const claimer = perDatabase<Record<string, unknown>, ClaimRij>((db) => ({
  maxGrootte: 64,
  async verwerk(_groep, items) {
    const rijen = await sqlRijen<ClaimRij & { r_nr: number }>(db, 'SELECT * FROM idempotentie_claim_bundel($1::jsonb)', [JSON.stringify(items)]);
    return items.map((_, i) => rijen.find((x) => Number(x.r_nr) === i) ?? new Error(`idempotentie: geen uitkomst voor claim ${i}`));
  },
}));

export interface ClaimOpties {
  keyId: string;
  scope: string;
  sleutel: string;
  verzoekHash: string;
  now: Date;
  accountId: string;
  termijnMs: number;
  /** Only look, claim nothing (MCP, where its settlement met an identical call, or it was refused or failed). */
  kijk?: boolean;
}

/** The claim as idempotentie_claim takes it (also inside snelheid_claim_bundel, with the rate limit). */
export function claimVerzoek(opts: ClaimOpties): Record<string, unknown> {
  return {
    key: opts.keyId,
    scope: opts.scope,
    sleutel: opts.sleutel,
    hash: opts.verzoekHash,
    nu: opts.now.toISOString(),
    verloopt: verlooptOp(opts.now),
    termijn: opts.termijnMs,
    account: opts.accountId,
    ...(opts.kijk ? { kijk: true } : {}),
  };
}

/** A claim's row as the database answered it (a claim that failed alone throws). */
export function claimUit(r: ClaimRij, opts: Pick<ClaimOpties, 'now' | 'termijnMs'>): Claim {
  if (r.r_fout !== null) throw new Error(`idempotentie: ${r.r_fout}`);
  const saldo = r.r_saldo ?? undefined;
  switch (r.r_soort) {
    case 'nieuw':
      return { soort: 'nieuw', id: r.r_id!, saldo, tot: new Date(opts.now.getTime() + opts.termijnMs) };
    case 'vrij':
      return { soort: 'vrij', saldo };
    case 'herhaling':
      return { soort: 'herhaling', status: r.r_status ?? 200, antwoord: r.r_antwoord };
    default:
      return { soort: r.r_soort ?? 'bezig' };
  }
}

/** Also reads the balance (no round trip for the 402 check); after `termijnMs` a retry takes over a dead request's claim. */
export async function claim(db: Db, opts: ClaimOpties): Promise<Claim> {
  return claimUit(await claimer(db).voer('claim', claimVerzoek(opts)), opts);
}

export async function geefVrij(db: Db, id: string): Promise<void> {
  await db.idempotencyRecord.deleteMany({ where: { id, toestand: 'bezig' } });
}

/** Abandoned claims are looked for among the last 15 minutes' records: an index range (bench/README.md); older ones expire. */
export const VERLATEN_ZOEKEN_MS = 15 * 60_000;

export const OPRUIM_SQL = {
  verlopen: 'DELETE FROM idempotentie WHERE verloopt_op <= $1::timestamptz',
  verlaten: "DELETE FROM idempotentie WHERE verloopt_op > $2::timestamptz AND toestand = 'bezig' AND bezig_tot <= $1::timestamptz",
} as const;

/** Expired records, and claims "bezig" past their deadline (their process was killed and no retry came). */
export async function ruimIdempotentieOp(db: Db, now: Date): Promise<number> {
  const venster = new Date(now.getTime() + IDEMPOTENTIE_VENSTER_MS - VERLATEN_ZOEKEN_MS);
  const verlopen = await db.$executeRawUnsafe(OPRUIM_SQL.verlopen, now);
  return verlopen + (await db.$executeRawUnsafe(OPRUIM_SQL.verlaten, now, venster));
}
