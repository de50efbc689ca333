/** Every change of balance is a ledger row in the same transaction, so balance = sum(ledger) always. */
import { rijenPerId } from '../../db/bundel.ts';
import { TX_OPTS, UUID_RE, type Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { beginVanPagina, DIEPE_PAGINA, grenzen } from './periode.ts';

export const EENHEID_CENT = 5;
/** The balance column is a PostgreSQL integer. */
export const MAX_CREDITS = 2_147_483_647;
const MAX_TEKST = MAX_CREDITS.toLocaleString('nl-NL');

export class SaldoFout extends RangeError {}

/** Refused when the balance would go above MAX_CREDITS; the balance stays as it was. */
export function bovenMaximum(erbij: number, saldo: number): SaldoFout {
  return new SaldoFout(`${erbij} credits erbij zou het saldo (${saldo} credits) boven het maximum van ${MAX_TEKST} credits brengen`);
}

export interface Saldo {
  credits: number;
  eenheid_cent: number;
  tegoed_cent: number;
}

export function saldoVan(credits: number): Saldo {
  return { credits, eenheid_cent: EENHEID_CENT, tegoed_cent: credits * EENHEID_CENT };
}

export async function maakAccount(db: Db, opts: { naam: string; credits?: number }): Promise<{ id: string; credits: number }> {
  const credits = opts.credits ?? 0;
  if (!Number.isSafeInteger(credits) || credits < 0 || credits > MAX_CREDITS) throw new SaldoFout(`credits moet een geheel getal van 0 tot en met ${MAX_TEKST} zijn`);
  return db.$transaction(async (tx) => {
    const acc = await tx.account.create({ data: { naam: opts.naam, credits }, select: { id: true, credits: true } });
    if (credits > 0) {
      await tx.ledgerEntry.create({ data: { accountId: acc.id, credits, soort: 'opwaardering', omschrijving: 'Beginsaldo' } });
    }
    return acc;
  }, TX_OPTS);
}

export async function waardeerOp(db: Db, opts: { accountId: string; credits: number; omschrijving?: string }): Promise<number> {
  if (!Number.isSafeInteger(opts.credits) || opts.credits <= 0 || opts.credits > MAX_CREDITS) {
    throw new SaldoFout(`credits moet een geheel getal van 1 tot en met ${MAX_TEKST} zijn`);
  }
  if (!UUID_RE.test(opts.accountId)) throw new SaldoFout(`Account ${opts.accountId} bestaat niet`);
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ credits: number }[]>`
      UPDATE account SET credits = credits + ${opts.credits}
      WHERE id = ${opts.accountId}::uuid AND credits::bigint + ${opts.credits} <= ${MAX_CREDITS} AND gesloten_op IS NULL RETURNING credits`;
    if (rows.length === 0) {
      const acc = await tx.account.findUnique({ where: { id: opts.accountId }, select: { credits: true, geslotenOp: true } });
      if (acc?.geslotenOp) throw new SaldoFout(`Account ${opts.accountId} is gesloten: het kan niet meer worden opgewaardeerd (een terugbetaling boekt u met account correct).`);
      throw acc ? bovenMaximum(opts.credits, acc.credits) : new SaldoFout(`Account ${opts.accountId} bestaat niet`);
    }
    await tx.ledgerEntry.create({
      data: { accountId: opts.accountId, credits: opts.credits, soort: 'opwaardering', omschrijving: opts.omschrijving ?? 'Opwaardering' },
    });
    return rows[0].credits;
  }, TX_OPTS);
}

/** Read together per statement: every answer to a key reports the balance, refusals from memory included. */
const saldoRijen = rijenPerId<{ credits: number }>(`SELECT k.id, a.credits FROM jsonb_array_elements_text($1::jsonb) AS k(id)
   CROSS JOIN LATERAL (SELECT credits FROM account WHERE id = k.id::uuid OFFSET 0) a`, 256);

export async function leesSaldo(db: Db, accountId: string): Promise<number> {
  // Not a uuid: it must not fail the statement of the balances read with it.
  if (!UUID_RE.test(accountId)) throw new RangeError(`Account ${accountId} bestaat niet`);
  const [rij] = await saldoRijen(db, accountId.toLowerCase());
  if (!rij) throw new RangeError(`Account ${accountId} bestaat niet`);
  return rij.credits;
}

/** The invariant's check, for tests and the operator. */
export async function grootboekSom(db: Db, accountId: string): Promise<number> {
  const r = await db.ledgerEntry.aggregate({ where: { accountId }, _sum: { credits: true } });
  return r._sum.credits ?? 0;
}

export async function accountGegevens(db: Db, accountId: string): Promise<{ naam: string; credits: number; drempelCredits: number }> {
  return db.account.findUniqueOrThrow({ where: { id: accountId }, select: { naam: true, credits: true, drempelCredits: true } });
}

export interface GrootboekRegel {
  id: string;
  aangemaaktOp: Date;
  soort: string;
  credits: number;
  omschrijving: string | null;
  usageId: string | null;
}

/** The count from the day totals (grootboek_per_dag); a deep page starts from its day (periode.ts). */
export async function grootboekPagina(db: Db, accountId: string, pagina: number, perPagina: number): Promise<{ totaal: number; regels: GrootboekRegel[] }> {
  const skip = (pagina - 1) * perPagina;
  const regels = (where: Prisma.LedgerEntryWhereInput, offset: number) =>
    db.ledgerEntry.findMany({
      where: { ...where, accountId },
      orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: perPagina,
      select: { id: true, aangemaaktOp: true, soort: true, credits: true, omschrijving: true, usageId: true },
    });
  const dagenVan = async () =>
    (await db.ledgerPerDay.findMany({ where: { accountId }, orderBy: { dag: 'asc' }, select: { dag: true, aantal: true } })).map(
      (d) => [d.dag.toISOString().slice(0, 10), d.aantal] as const,
    );
  if (skip < DIEPE_PAGINA) {
    const [dagen, r] = await Promise.all([dagenVan(), regels({}, skip)]);
    return { totaal: dagen.reduce((n, [, a]) => n + a, 0), regels: r };
  }
  const dagen = await dagenVan();
  const totaal = dagen.reduce((n, [, a]) => n + a, 0);
  const begin = beginVanPagina(dagen, skip);
  if (!begin) return { totaal, regels: [] };
  const tot = begin.nieuwer > 0 ? { aangemaaktOp: { lt: (await grenzen(db, begin.dag, begin.dag)).eind } } : {};
  return { totaal, regels: await regels(tot, skip - begin.nieuwer) };
}

/** Above it the event would say nothing a balance check does not. */
export const MAX_DREMPEL_CREDITS = 1_000_000;

/** Once per crossing; 0: never. */
export async function zetDrempel(db: Db, opts: { accountId: string; credits: number }): Promise<number> {
  if (!Number.isSafeInteger(opts.credits) || opts.credits < 0 || opts.credits > MAX_DREMPEL_CREDITS) {
    throw new RangeError(`de drempel is een geheel aantal credits van 0 tot en met ${MAX_DREMPEL_CREDITS.toLocaleString('nl-NL')}`);
  }
  if (!UUID_RE.test(opts.accountId)) throw new RangeError(`Account ${opts.accountId} bestaat niet`);
  const rows = await db.$queryRaw<{ drempel_credits: number }[]>`
    UPDATE account SET drempel_credits = ${opts.credits} WHERE id = ${opts.accountId}::uuid RETURNING drempel_credits`;
  if (rows.length === 0) throw new RangeError(`Account ${opts.accountId} bestaat niet`);
  return rows[0].drempel_credits;
}
