/**
 * Webhook events as an outbox: written in the same statement as the usage record and the debit (the SQL
 * function webhook_schrijf, migration 20261122195927_snelheid_stand), one delivery row per subscribed
 * active endpoint. A separate worker sends them; nothing is lost when the process dies between commit and send.
 */
import { randomFillSync } from 'node:crypto';
import { sqlRijen, type Db } from '../../db/client.ts';
import { waarnemers } from '../../db/waarnemers.ts';
import { buitenVerzoek } from '../../logging.ts';

export type GebeurtenisType = 'inzicht.voltooid' | 'inzicht.mislukt' | 'saldo.laag' | 'sleutel.verloopt' | 'sleutel.limiet_bereikt';
export const GEBEURTENIS_TYPES: GebeurtenisType[] = ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag', 'sleutel.verloopt', 'sleutel.limiet_bereikt'];

/** Random bytes drawn 4 KB at a time (one system call per 256 ids instead of one per id; two ids per charge). */
const voorraad = Buffer.alloc(4096);
let positie = voorraad.length;

export function nieuweBerichtId(): string {
  if (positie + 16 > voorraad.length) {
    randomFillSync(voorraad);
    positie = 0;
  }
  positie += 16;
  return `msg_${voorraad.toString('base64url', positie - 16, positie)}`;
}

/** The payload's `timestamp`: ISO 8601 with an explicit +00:00 offset. */
export function tijdstempel(now: Date): string {
  return now.toISOString().replace(/Z$/, '+00:00');
}

/** Write the event for every active endpoint of the account that subscribes to its type; no endpoint, no row. */
export async function schrijfGebeurtenis(
  db: Db,
  opts: { accountId: string; type: GebeurtenisType; data: Record<string, unknown>; now: Date },
): Promise<string | null> {
  const id = nieuweBerichtId();
  const [r] = await sqlRijen<{ geschreven: boolean }>(db, 'SELECT webhook_schrijf($1::uuid, $2, $3, $4, $5::jsonb, $6::timestamptz) AS geschreven', [
    opts.accountId, id, opts.type, tijdstempel(opts.now), JSON.stringify(opts.data), opts.now,
  ]);
  if (r.geschreven) meldNieuweAfleveringen();
  return r.geschreven ? id : null;
}

/**
 * In-process wake-up of the delivery worker, called after a statement that wrote deliveries has
 * committed (PGlite has one process, so this is all it needs; on PostgreSQL a NOTIFY from the
 * migration 20261122210917_webhook_bezorging wakes the other processes too).
 */
const wekkers = new Set<() => void>();
export function meldNieuweAfleveringen(): void {
  // The worker's round is not part of the request that woke it (its log lines carry no reqId).
  buitenVerzoek(() => {
    for (const w of wekkers) w();
  });
}
export function luisterNaarAfleveringen(w: () => void): () => void {
  wekkers.add(w);
  return () => wekkers.delete(w);
}

/** What became of one delivery attempt (for /metrics): delivered, to be retried, given up after the last attempt, or the endpoint gone (410). */
export type AfleverUitkomst = 'afgeleverd' | 'opnieuw' | 'opgegeven' | 'weg';
/** The outcomes of the delivery worker(s) on a database client. */
export const afleverUitkomsten = waarnemers<AfleverUitkomst>();
