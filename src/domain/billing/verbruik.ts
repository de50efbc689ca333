import type { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import type { Cursor } from '../../core/cursor.ts';
import { beginVanPagina, DIEPE_PAGINA, grenzen, maandBegin } from './periode.ts';
import { datumAmsterdam } from '../begrippen.ts';
import { TEST_PREFIX } from '../keys/format.ts';

export interface VerbruikRegel {
  id: string;
  aangemaaktOp: Date;
  kanaal: string;
  voorziening: string;
  status: number;
  credits: number;
  gefactureerdCent: number;
  adres: string | null;
  sleutelVoorvoegsel: string | null;
  sleutelNaam: string | null;
}

export interface VerbruikFilter {
  /** Inclusive calendar days in Amsterdam. */
  van: string;
  tot: string;
  voorziening?: string;
  sleutelId?: string;
  uitkomst: 'alle' | 'geslaagd' | 'mislukt';
}

const NIEUWSTE_EERST = [{ aangemaaktOp: 'desc' as const }, { id: 'desc' as const }];

async function regels(db: Db, accountId: string, where: Prisma.UsageRecordWhereInput, skip: number, take: number): Promise<VerbruikRegel[]> {
  const rows = await db.usageRecord.findMany({ where: { ...where, accountId }, orderBy: NIEUWSTE_EERST, skip, take });
  const sleutels = await db.apiKey.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.keyId))] }, accountId }, select: { id: true, voorvoegsel: true, naam: true } });
  const perId = new Map(sleutels.map((s) => [s.id, s]));
  return rows.map((r) => ({
    id: r.id,
    aangemaaktOp: r.aangemaaktOp,
    kanaal: r.kanaal,
    voorziening: r.voorziening,
    status: r.status,
    credits: r.credits,
    gefactureerdCent: r.gefactureerdCent,
    adres: r.adres,
    sleutelVoorvoegsel: perId.get(r.keyId)?.voorvoegsel ?? null,
    sleutelNaam: perId.get(r.keyId)?.naam ?? null,
  }));
}

/** The `lte` bounds the index scan: the OR alone is a filter over every newer row, so each page read all before it. */
function naCursor(na: Cursor): Prisma.UsageRecordWhereInput {
  return { AND: [{ aangemaaktOp: { lte: na.t } }, { OR: [{ aangemaaktOp: { lt: na.t } }, { aangemaaktOp: na.t, id: { lt: na.id } }] }] };
}

/** A page and the cursor of the next (null at the end), from `limiet + 1` rows read. */
async function pagina(db: Db, accountId: string, where: Prisma.UsageRecordWhereInput, skip: number, limiet: number): Promise<{ regels: VerbruikRegel[]; volgende: Cursor | null }> {
  const rows = await regels(db, accountId, where, skip, limiet + 1);
  const deel = rows.slice(0, limiet);
  const laatste = deel[deel.length - 1];
  return { regels: deel, volgende: rows.length > limiet && laatste ? { t: laatste.aangemaaktOp, id: laatste.id } : null };
}

/** `alleenTest`: a test key's view, the calls of the account's test keys only (never the live addresses looked up). */
export async function verbruikPagina(db: Db, accountId: string, limiet: number, na: Cursor | null, alleenTest = false): Promise<{ regels: VerbruikRegel[]; volgende: Cursor | null }> {
  const where: Prisma.UsageRecordWhereInput = na ? naCursor(na) : {};
  if (alleenTest) {
    const test = await db.apiKey.findMany({ where: { accountId, voorvoegsel: { startsWith: TEST_PREFIX } }, select: { id: true } });
    where.keyId = { in: test.map((k) => k.id) };
  }
  return pagina(db, accountId, where, 0, limiet);
}

/** By page number (an offset, for pages a person turns) or after a cursor (the export: no page costs more than another). */
export async function verbruikGefilterd(
  db: Db,
  accountId: string,
  filter: VerbruikFilter,
  plek: { pagina: number } | { na: Cursor | null },
  perPagina: number,
): Promise<{ totaal: number; regels: VerbruikRegel[]; volgende: Cursor | null }> {
  const g = await grenzen(db, filter.van, filter.tot);
  const where: Prisma.UsageRecordWhereInput = {
    accountId,
    aangemaaktOp: { gte: g.begin, lt: g.eind },
    ...(filter.voorziening ? { voorziening: filter.voorziening } : {}),
    ...(filter.sleutelId ? { keyId: filter.sleutelId } : {}),
    ...(filter.uitkomst === 'geslaagd' ? { status: { lt: 400 } } : filter.uitkomst === 'mislukt' ? { status: { gte: 400 } } : {}),
    ...('na' in plek && plek.na ? naCursor(plek.na) : {}),
  };
  const skip = 'pagina' in plek ? (plek.pagina - 1) * perPagina : 0;
  if (skip < DIEPE_PAGINA) {
    const [dagen, p] = await Promise.all([verbruikPerDag(db, accountId, filter), pagina(db, accountId, where, skip, perPagina)]);
    return { totaal: tel(dagen), ...p };
  }
  const dagen = await verbruikPerDag(db, accountId, filter);
  const begin = beginVanPagina([...perDag(dagen)], skip);
  if (!begin) return { totaal: tel(dagen), regels: [], volgende: null };
  const tot = begin.nieuwer > 0 ? (await grenzen(db, begin.dag, begin.dag)).eind : g.eind;
  const p = await pagina(db, accountId, { ...where, aangemaaktOp: { gte: g.begin, lt: tot } }, skip - begin.nieuwer, perPagina);
  return { totaal: tel(dagen), ...p };
}

const tel = (dagen: readonly VerbruikDag[]) => dagen.reduce((n, d) => n + d.aantal, 0);

function perDag(dagen: readonly VerbruikDag[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const d of dagen) m.set(d.dag, (m.get(d.dag) ?? 0) + d.aantal);
  return m;
}

export interface VerbruikDag {
  dag: string;
  voorziening: string;
  aantal: number;
  credits: number;
  gefactureerdCent: number;
}

export async function verbruikPerDag(db: Db, accountId: string, filter: VerbruikFilter): Promise<VerbruikDag[]> {
  const v = filter.voorziening ?? null;
  const k = filter.sleutelId ?? null;
  const rijen = await db.$queryRaw<{ dag: string; voorziening: string; aantal: bigint; credits: bigint; gefactureerdCent: bigint }[]>`
    SELECT to_char(dag, 'YYYY-MM-DD') AS dag, voorziening,
           sum(aantal)::bigint AS aantal, sum(credits)::bigint AS credits, sum(gefactureerd_cent)::bigint AS "gefactureerdCent"
    FROM verbruik_per_dag
    WHERE account_id = ${accountId}::uuid AND dag BETWEEN ${filter.van}::date AND ${filter.tot}::date
      AND (${v}::text IS NULL OR voorziening = ${v}::text) AND (${k}::uuid IS NULL OR key_id = ${k}::uuid)
      AND (${filter.uitkomst}::text = 'alle' OR geslaagd = (${filter.uitkomst}::text = 'geslaagd'))
    GROUP BY 1, 2 ORDER BY 1, 2`;
  return rijen.map((r) => ({ dag: r.dag, voorziening: r.voorziening, aantal: Number(r.aantal), credits: Number(r.credits), gefactureerdCent: Number(r.gefactureerdCent) }));
}

export async function verbruikDezeMaand(db: Db, accountId: string, now: Date): Promise<{ van: string; credits: number; opvragingen: number }> {
  const van = maandBegin(now);
  const [r] = await db.$queryRaw<{ credits: bigint; opvragingen: bigint }[]>`
    SELECT coalesce(sum(credits), 0)::bigint AS credits, coalesce(sum(aantal), 0)::bigint AS opvragingen
    FROM verbruik_per_dag WHERE account_id = ${accountId}::uuid AND dag BETWEEN ${van}::date AND ${datumAmsterdam(now)}::date`;
  return { van, credits: Number(r.credits), opvragingen: Number(r.opvragingen) };
}
