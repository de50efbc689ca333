/**
 * Settling one lookup in ONE statement (prisma/sql/afrekenen_bundel*.sql): the conditional debit (never below
 * zero, the account row locked), ledger row, usage record, webhook events and stored idempotent answer commit
 * together, and no lock is held across an application round trip. Trade-off: while the statement waits for
 * one account's row, this process's charges of other accounts wait with it.
 */
import { v7 as uuidv7 } from 'uuid';
import { random16 } from '../../core/random-pool.ts';
import { groepeer, perDatabase } from '../../db/bundel.ts';
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
  /** 0 for an uncharged outcome. */
  credits: number;
  adres: unknown;
  /** Stored for idempotent replay: into the claim held (`id`), or as a new record at the settlement (`vastleggen`, MCP). */
  idempotentie?: { id: string; antwoord: unknown } | { vastleggen: Vastlegging; antwoord: unknown };
  idempotencyKey?: string;
  test?: boolean;
  now: Date;
}

/** Decisions section 7: never the key, never the answer's data. */
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
    ...(a.test ? { test: true } : {}),
  };
}

/** The record idempotentie_vastleggen stores, for a call that held no claim. */
export interface Vastlegging {
  scope: string;
  sleutel: string;
  hash: string;
  verloopt: string;
}

/** `maandlimiet`: the key's monthly cap refused the charge; `herhaling`: an identical call settled first, nothing charged. */
export type AfrekenUitkomst =
  | { soort: 'ok'; verzoekId: string; saldo: number | null }
  | { soort: 'onvoldoende' | 'maandlimiet'; saldo: number }
  | { soort: 'herhaling'; saldo: null }
  | { soort: 'gesloten'; saldo: null };

/** The parameters of the SQL function afrekenen, by name. */
interface BundelItem {
  verzoek: string;
  account: string;
  sleutel: string;
  kanaal: string;
  voorziening: string;
  status: number;
  credits: number;
  eenheid_cent: number;
  adres: string | null;
  nu: string;
  tijdstempel: string;
  event_id: string;
  event_type: string;
  event_data: unknown;
  laag_id: string;
  idempotentie?: string;
  vastleggen?: Vastlegging;
  antwoord?: unknown;
}

type BundelUitkomst = { ok: boolean; saldo: number | null; limiet: boolean; herhaald: boolean };

/**
 * Charges that arrive together go in one statement whatever their accounts (they queued on the account
 * rows otherwise). Per account, in arrival order, so credits are spent first come, first served and each
 * item gets the outcome it would have had alone. An item the database refuses makes its account's items
 * settle one by one in subtransactions, so it fails alone.
 */
const bundelaar = perDatabase<BundelItem, BundelUitkomst>((db) => ({
  // PostgreSQL keeps 64 subtransactions per transaction in shared memory before it slows down.
  maxGrootte: 24,
  verwerk: async (_, items) => {
    const lijst = groepeer(items, (item) => item.account);
    const rijen = await sqlRijen<{ r_groep: number; r_nr: number | null; r_ok: boolean | null; r_saldo: number | null; r_fout: string | null; r_webhook: boolean; r_limiet: boolean | null; r_herhaald: boolean | null }>(
      db,
      'SELECT * FROM afrekenen_bundels($1::jsonb, $2::timestamptz)',
      [JSON.stringify(lijst.map((g) => g.items)), new Date().toISOString()],
    );
    const uit: (BundelUitkomst | Error)[] = items.map(() => new Error('afrekenen_bundels gaf geen uitkomst voor deze afrekening'));
    for (const r of rijen) {
      const g = lijst[Number(r.r_groep)];
      const fout = r.r_fout !== null ? new Error(`afrekenen: ${r.r_fout}`) : null;
      const plaatsen = r.r_nr === null ? g.plaatsen : [g.plaatsen[Number(r.r_nr)]];
      for (const j of plaatsen) uit[j] = fout ?? { ok: r.r_ok === true, saldo: r.r_saldo, limiet: r.r_limiet === true, herhaald: r.r_herhaald === true };
    }
    // Wake the delivery worker only when an event can have been written.
    if (rijen.some((r) => r.r_webhook && r.r_ok)) meldNieuweAfleveringen();
    return uit;
  },
}));

/** Version 7 (time-ordered): usage rows and their ledger rows then go to the right edge of their indexes (see uuid_v7.sql). */
function nieuwVerzoekId(): string {
  return uuidv7({ random: random16() });
}

export async function rekenAf(db: Db, a: Afrekening): Promise<AfrekenUitkomst> {
  const verzoekId = nieuwVerzoekId();
  const adresTekst = typeof a.adres === 'string' ? a.adres : a.adres == null ? null : JSON.stringify(a.adres);
  const r = await bundelaar(db).voer('afrekenen', {
    verzoek: verzoekId,
    account: a.accountId,
    sleutel: a.keyId,
    kanaal: a.kanaal,
    voorziening: a.voorziening,
    status: a.status,
    credits: a.credits,
    eenheid_cent: EENHEID_CENT,
    adres: adresTekst,
    nu: a.now.toISOString(),
    tijdstempel: tijdstempel(a.now),
    event_id: nieuweBerichtId(),
    event_type: a.status === 200 || a.status === 422 ? 'inzicht.voltooid' : 'inzicht.mislukt',
    event_data: eventData(a, verzoekId),
    laag_id: nieuweBerichtId(),
    ...(a.idempotentie && 'id' in a.idempotentie ? { idempotentie: a.idempotentie.id } : {}),
    ...(a.idempotentie && 'vastleggen' in a.idempotentie ? { vastleggen: a.idempotentie.vastleggen } : {}),
    ...(a.idempotentie ? { antwoord: a.idempotentie.antwoord } : {}),
  });
  if (r.herhaald) return { soort: 'herhaling', saldo: null };
  // Refused without a balance: the account was closed while the call was under way.
  if (!r.ok && r.saldo === null) return { soort: 'gesloten', saldo: null };
  if (!r.ok) return { soort: r.limiet ? 'maandlimiet' : 'onvoldoende', saldo: r.saldo ?? 0 };
  return { soort: 'ok', verzoekId, saldo: r.saldo };
}

/** 402 and 500 still tell the account's webhooks (inzicht.mislukt); with no usage record, verzoek_id is fresh. */
export async function meldMislukt(db: Db, a: Omit<Afrekening, 'credits' | 'idempotentie' | 'status'>, status: 402 | 500 = 402): Promise<void> {
  await schrijfGebeurtenis(db, { accountId: a.accountId, type: 'inzicht.mislukt', data: eventData({ ...a, status, credits: 0 }, nieuwVerzoekId()), now: a.now });
}

/**
 * A usage row (402, 0 credits), inzicht.mislukt and, for the month's first refusal, sleutel.limiet_bereikt.
 * A lack of balance records no usage row (decisions), but a cap is the owner's own setting and its
 * refusals are what they want to see.
 */
/** The usage record's id (the answer's Insight-Verzoek-Id). */
export async function meldMaandlimietWeigering(db: Db, a: Omit<Afrekening, 'credits' | 'idempotentie' | 'status'>): Promise<string> {
  const verzoekId = nieuwVerzoekId();
  const adres = typeof a.adres === 'string' ? a.adres : a.adres == null ? null : JSON.stringify(a.adres);
  const [r] = await sqlRijen<{ mislukt: boolean; limiet: boolean }>(
    db,
    `WITH v AS (
       INSERT INTO verbruik (id, account_id, key_id, kanaal, voorziening, status, credits, gefactureerd_cent, adres, aangemaakt_op)
       VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, 402, 0, 0, $6, $7::timestamptz) RETURNING id)
     SELECT webhook_schrijf($2::uuid, $8, 'inzicht.mislukt', $9, $10::jsonb, $7::timestamptz) AS mislukt,
            sleutel_limiet_melden($3::uuid, $11, $9, $7::timestamptz) AS limiet
     FROM v`,
    [verzoekId, a.accountId, a.keyId, a.kanaal, a.voorziening, adres, a.now, nieuweBerichtId(), tijdstempel(a.now), JSON.stringify(eventData({ ...a, status: 402, credits: 0 }, verzoekId)), nieuweBerichtId()],
  );
  if (r?.mislukt || r?.limiet) meldNieuweAfleveringen();
  return verzoekId;
}
