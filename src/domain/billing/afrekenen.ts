/**
 * Settling one lookup: in ONE statement (the SQL function afrekenen, migration
 * 20261122195927_snelheid_stand) the conditional debit (never below zero, also under concurrency across
 * processes: the UPDATE only matches while enough credits remain), the ledger row, the usage record,
 * the webhook event(s) and the stored idempotent answer. Either all of it commits or none of it, and no
 * lock is held across an application round trip.
 */
import { randomUUID } from 'node:crypto';
import { sqlRijen, type Db } from '../../db/client.ts';
import { meldNieuweAfleveringen, nieuweBerichtId, schrijfGebeurtenis, tijdstempel } from '../webhooks/gebeurtenissen.ts';
import { EENHEID_CENT } from './tegoed.ts';

export interface Afrekening {
  accountId: string;
  keyId: string;
  voorvoegsel: string;
  kanaal: 'rest' | 'mcp' | 'intern';
  voorziening: string;
  status: number;
  /** Credits to charge; 0 for an uncharged outcome. */
  credits: number;
  adres: unknown;
  /** The answer to store for idempotent replay (body, with meta), when a claim is held. */
  idempotentie?: { id: string; antwoord: unknown };
  /** REST: the Idempotency-Key the caller sent, reported in the webhook payload. */
  idempotencyKey?: string;
  now: Date;
}

/** The webhook payload's data (decisions section 7): never the key, never the answer's data. */
function eventData(a: Omit<Afrekening, 'idempotentie'>, verzoekId: string) {
  return {
    verzoek_id: verzoekId,
    kanaal: a.kanaal,
    voorziening: a.voorziening,
    status: a.status,
    adres: a.adres ?? null,
    gefactureerd_cent: a.credits * EENHEID_CENT,
    sleutel_voorvoegsel: a.voorvoegsel,
    ...(a.idempotencyKey !== undefined ? { idempotency_key: a.idempotencyKey } : {}),
  };
}

export type AfrekenUitkomst = { soort: 'ok'; verzoekId: string; saldo: number | null } | { soort: 'onvoldoende'; saldo: number };

export async function rekenAf(db: Db, a: Afrekening): Promise<AfrekenUitkomst> {
  const verzoekId = randomUUID();
  const adresTekst = typeof a.adres === 'string' ? a.adres : a.adres == null ? null : JSON.stringify(a.adres);
  const data = eventData(a, verzoekId);
  const type = a.status === 200 || a.status === 422 ? 'inzicht.voltooid' : 'inzicht.mislukt';
  const [r] = await sqlRijen<{ r_ok: boolean; r_saldo: number | null }>(
    db,
    `SELECT * FROM afrekenen($1::uuid, $2::uuid, $3::uuid, $4, $5, $6::int, $7::int, $8::int, $9, $10::timestamptz, $11,
       $12, $13, $14::jsonb, $15, $16::uuid, $17::jsonb)`,
    [
      verzoekId, a.accountId, a.keyId, a.kanaal, a.voorziening, a.status, a.credits,
      EENHEID_CENT, adresTekst, a.now, tijdstempel(a.now),
      nieuweBerichtId(), type, JSON.stringify(data), nieuweBerichtId(),
      a.idempotentie?.id ?? null, a.idempotentie ? JSON.stringify(a.idempotentie.antwoord) : null,
    ],
  );
  if (!r.r_ok) return { soort: 'onvoldoende', saldo: r.r_saldo ?? 0 };
  meldNieuweAfleveringen();
  return { soort: 'ok', verzoekId, saldo: r.r_saldo };
}

/**
 * A lookup refused for lack of credits (402) or broken by an unexpected error (500) still tells the
 * account's webhooks (inzicht.mislukt). No usage record exists for it, so verzoek_id is a fresh id.
 */
export async function meldMislukt(db: Db, a: Omit<Afrekening, 'credits' | 'idempotentie' | 'status'>, status: 402 | 500 = 402): Promise<void> {
  await schrijfGebeurtenis(db, { accountId: a.accountId, type: 'inzicht.mislukt', data: eventData({ ...a, status, credits: 0 }, randomUUID()), now: a.now });
}
export const meldOnvoldoendeTegoed = meldMislukt;
