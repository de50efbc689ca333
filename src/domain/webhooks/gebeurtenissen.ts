/**
 * An outbox: events are written in the same statement as the usage record and the debit, so nothing is
 * lost when the process dies between commit and send.
 */
import { random16 } from '../../core/random-pool.ts';
import { sqlRijen, type Db } from '../../db/client.ts';
import { waarnemers } from '../../db/waarnemers.ts';
import { buitenVerzoek } from '../../logging.ts';

export type GebeurtenisType = 'inzicht.voltooid' | 'inzicht.mislukt' | 'saldo.laag' | 'sleutel.verloopt' | 'sleutel.limiet_bereikt';
export const GEBEURTENIS_TYPES: GebeurtenisType[] = ['inzicht.voltooid', 'inzicht.mislukt', 'saldo.laag', 'sleutel.verloopt', 'sleutel.limiet_bereikt'];

export function nieuweBerichtId(): string {
  return `msg_${random16().toString('base64url')}`;
}

export function tijdstempel(now: Date): string {
  return now.toISOString().replace(/Z$/, '+00:00');
}

/** No endpoint, no row. */
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

/** In-process wake-up after commit; on PostgreSQL a NOTIFY wakes the other processes too. */
const wekkers = new Set<() => void>();
export function meldNieuweAfleveringen(): void {
  // Not part of the request that woke it: its log lines carry no reqId.
  buitenVerzoek(() => {
    for (const w of wekkers) w();
  });
}
export function luisterNaarAfleveringen(w: () => void): () => void {
  wekkers.add(w);
  return () => wekkers.delete(w);
}

export type AfleverUitkomst = 'afgeleverd' | 'opnieuw' | 'opgegeven' | 'weg';
export const afleverUitkomsten = waarnemers<AfleverUitkomst>();
