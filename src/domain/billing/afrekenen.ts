/**
 * Settling one lookup: in ONE transaction the conditional debit (never below zero, also under
 * concurrency across processes: the UPDATE only matches while enough credits remain), the ledger
 * row, the usage record, the webhook event(s) and the stored idempotent answer. Either all of it
 * commits or none of it.
 */
import { randomUUID } from 'node:crypto';
import { TX_OPTS, type Db } from '../../db/client.ts';
import { bewaar } from '../idempotentie/idempotentie.ts';
import { schrijfGebeurtenis } from '../webhooks/gebeurtenissen.ts';
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
  return db.$transaction(async (tx) => {
    let saldo: number | null = null;
    let drempel = 0;
    if (a.credits > 0) {
      const rows = await tx.$queryRaw<{ credits: number; drempel_credits: number }[]>`
        UPDATE account SET credits = credits - ${a.credits}
        WHERE id = ${a.accountId}::uuid AND credits >= ${a.credits}
        RETURNING credits, drempel_credits`;
      if (rows.length === 0) {
        const acc = await tx.account.findUnique({ where: { id: a.accountId }, select: { credits: true } });
        return { soort: 'onvoldoende', saldo: acc?.credits ?? 0 } as const;
      }
      saldo = rows[0].credits;
      drempel = rows[0].drempel_credits;
    }
    const adresTekst = typeof a.adres === 'string' ? a.adres : a.adres == null ? null : JSON.stringify(a.adres);
    await tx.usageRecord.create({
      data: {
        id: verzoekId,
        accountId: a.accountId,
        keyId: a.keyId,
        kanaal: a.kanaal,
        voorziening: a.voorziening,
        status: a.status,
        credits: a.credits,
        gefactureerdCent: a.credits * EENHEID_CENT,
        adres: adresTekst,
        aangemaaktOp: a.now,
      },
    });
    if (a.credits > 0) {
      await tx.ledgerEntry.create({
        data: { accountId: a.accountId, credits: -a.credits, soort: 'afschrijving', usageId: verzoekId, omschrijving: a.voorziening, aangemaaktOp: a.now },
      });
    }
    await schrijfGebeurtenis(tx, {
      accountId: a.accountId,
      type: a.status === 200 || a.status === 422 ? 'inzicht.voltooid' : 'inzicht.mislukt',
      data: {
        verzoek_id: verzoekId,
        kanaal: a.kanaal,
        voorziening: a.voorziening,
        status: a.status,
        adres: a.adres ?? null,
        gefactureerd_cent: a.credits * EENHEID_CENT,
        sleutel_voorvoegsel: a.voorvoegsel,
      },
      now: a.now,
    });
    if (saldo !== null && saldo < drempel && saldo + a.credits >= drempel) {
      // Crossing the threshold fires once, not on every later call.
      await schrijfGebeurtenis(tx, {
        accountId: a.accountId,
        type: 'saldo.laag',
        data: { credits: saldo, tegoed_cent: saldo * EENHEID_CENT, drempel_credits: drempel },
        now: a.now,
      });
    }
    if (a.idempotentie) await bewaar(tx, a.idempotentie.id, a.status, a.idempotentie.antwoord);
    return { soort: 'ok', verzoekId, saldo } as const;
  }, TX_OPTS);
}

/** A lookup refused for lack of credits still tells the account's webhooks (inzicht.mislukt). */
export async function meldOnvoldoendeTegoed(db: Db, a: Omit<Afrekening, 'credits' | 'idempotentie' | 'status'>): Promise<void> {
  await db.$transaction(async (tx) => {
    await schrijfGebeurtenis(tx, {
      accountId: a.accountId,
      type: 'inzicht.mislukt',
      data: { verzoek_id: randomUUID(), kanaal: a.kanaal, voorziening: a.voorziening, status: 402, adres: a.adres ?? null, gefactureerd_cent: 0, sleutel_voorvoegsel: a.voorvoegsel },
      now: a.now,
    });
  }, TX_OPTS);
}
