/** Operator corrections in either direction, always with a reason, as a ledger row; never below zero. */
import { TX_OPTS, type Db } from '../../db/client.ts';
import { MAX_CREDITS, bovenMaximum } from './tegoed.ts';

export class BoekingGeweigerd extends Error {}

/** Returns the new balance. */
export async function boekCorrectie(db: Db, opts: { accountId: string; credits: number; reden: string }): Promise<number> {
  if (!Number.isSafeInteger(opts.credits) || opts.credits === 0 || Math.abs(opts.credits) > MAX_CREDITS) {
    throw new BoekingGeweigerd(`een correctie is een geheel aantal credits, niet 0 en hoogstens ${MAX_CREDITS.toLocaleString('nl-NL')} erbij of eraf`);
  }
  const reden = opts.reden.trim();
  if (!reden) throw new BoekingGeweigerd('een correctie heeft een reden nodig');
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ credits: number }[]>`
      UPDATE account SET credits = credits + ${opts.credits}
      WHERE id = ${opts.accountId}::uuid AND credits::bigint + ${opts.credits} BETWEEN 0 AND ${MAX_CREDITS} RETURNING credits`;
    if (rows.length === 0) {
      const acc = await tx.account.findUnique({ where: { id: opts.accountId }, select: { credits: true } });
      if (!acc) throw new BoekingGeweigerd(`account ${opts.accountId} bestaat niet`);
      if (opts.credits > 0) throw bovenMaximum(opts.credits, acc.credits);
      throw new BoekingGeweigerd(`de correctie van ${opts.credits} credits zou het saldo (${acc.credits} credits) negatief maken`);
    }
    await tx.ledgerEntry.create({ data: { accountId: opts.accountId, credits: opts.credits, soort: 'correctie', omschrijving: reden } });
    return rows[0].credits;
  }, TX_OPTS);
}

export async function lijstAccounts(db: Db, now = new Date()) {
  const accounts = await db.account.findMany({
    orderBy: { aangemaaktOp: 'asc' },
    select: { id: true, naam: true, credits: true, drempelCredits: true, aangemaaktOp: true, geslotenOp: true, _count: { select: { keys: { where: { ingetrokkenOp: null, verlooptOp: { gt: now } } } } } },
  });
  return accounts.map((a) => ({ id: a.id, naam: a.naam, credits: a.credits, drempelCredits: a.drempelCredits, aangemaaktOp: a.aangemaaktOp, geslotenOp: a.geslotenOp, geldigeSleutels: a._count.keys }));
}
