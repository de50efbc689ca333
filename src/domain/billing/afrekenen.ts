/**
 * Settling one lookup: in ONE statement (the SQL function afrekenen, migration
 * 20261122195927_snelheid_stand) the conditional debit (never below zero, also under concurrency across
 * processes: the UPDATE only matches while enough credits remain), the ledger row, the usage record,
 * the webhook event(s) and the stored idempotent answer. Either all of it commits or none of it, and no
 * lock is held across an application round trip.
 */
import { randomUUID } from 'node:crypto';
import { sqlRijen, type Db } from '../../db/client.ts';
import { nieuweBerichtId, schrijfGebeurtenis, tijdstempel } from '../webhooks/gebeurtenissen.ts';
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
  now: Date;
}

export type AfrekenUitkomst = { soort: 'ok'; verzoekId: string; saldo: number | null } | { soort: 'onvoldoende'; saldo: number };

export async function rekenAf(db: Db, a: Afrekening): Promise<AfrekenUitkomst> {
  const verzoekId = randomUUID();
  const adresTekst = typeof a.adres === 'string' ? a.adres : a.adres == null ? null : JSON.stringify(a.adres);
  const data = {
    verzoek_id: verzoekId,
    kanaal: a.kanaal,
    voorziening: a.voorziening,
    status: a.status,
    adres: a.adres ?? null,
    gefactureerd_cent: a.credits * EENHEID_CENT,
    sleutel_voorvoegsel: a.voorvoegsel,
  };
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
  return { soort: 'ok', verzoekId, saldo: r.r_saldo };
}

/** A lookup refused for lack of credits still tells the account's webhooks (inzicht.mislukt). */
export async function meldOnvoldoendeTegoed(db: Db, a: Omit<Afrekening, 'credits' | 'idempotentie' | 'status'>): Promise<void> {
  await schrijfGebeurtenis(db, {
    accountId: a.accountId,
    type: 'inzicht.mislukt',
    data: { verzoek_id: randomUUID(), kanaal: a.kanaal, voorziening: a.voorziening, status: 402, adres: a.adres ?? null, gefactureerd_cent: 0, sleutel_voorvoegsel: a.voorvoegsel },
    now: a.now,
  });
}
