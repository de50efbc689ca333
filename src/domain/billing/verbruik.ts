/** The usage of an account, newest first, in pages keyed by (time, id) of the last row seen. */
import type { Db } from '../../db/client.ts';

export interface VerbruikCursor {
  t: Date;
  id: string;
}

export interface VerbruikRegel {
  id: string;
  aangemaaktOp: Date;
  kanaal: string;
  voorziening: string;
  status: number;
  credits: number;
  gefactureerdCent: number;
  adres: string | null;
  /** Prefix of the key that made the call. */
  sleutelVoorvoegsel: string | null;
}

/** One page of at most `limiet` rows after `na`, and the cursor of the next page (null at the end). */
export async function verbruikPagina(db: Db, accountId: string, limiet: number, na: VerbruikCursor | null): Promise<{ regels: VerbruikRegel[]; volgende: VerbruikCursor | null }> {
  const rows = await db.usageRecord.findMany({
    where: {
      accountId,
      ...(na ? { OR: [{ aangemaaktOp: { lt: na.t } }, { aangemaaktOp: na.t, id: { lt: na.id } }] } : {}),
    },
    orderBy: [{ aangemaaktOp: 'desc' }, { id: 'desc' }],
    take: limiet + 1,
  });
  const pagina = rows.slice(0, limiet);
  const sleutels = await db.apiKey.findMany({ where: { id: { in: [...new Set(pagina.map((r) => r.keyId))] } }, select: { id: true, voorvoegsel: true } });
  const prefix = new Map(sleutels.map((s) => [s.id, s.voorvoegsel]));
  const laatste = pagina[pagina.length - 1];
  return {
    regels: pagina.map((r) => ({
      id: r.id,
      aangemaaktOp: r.aangemaaktOp,
      kanaal: r.kanaal,
      voorziening: r.voorziening,
      status: r.status,
      credits: r.credits,
      gefactureerdCent: r.gefactureerdCent,
      adres: r.adres,
      sleutelVoorvoegsel: prefix.get(r.keyId) ?? null,
    })),
    volgende: rows.length > limiet && laatste ? { t: laatste.aangemaaktOp, id: laatste.id } : null,
  };
}
