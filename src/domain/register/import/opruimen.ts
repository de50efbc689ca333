/** Deleting what a BAG refresh ends. A row from a newer source than `peil` (its bron_datum, the pand's bron date) stays. */
import type { Database } from '../../../db/client.ts';

import type { SchijfSet } from './schijf-set.ts';

/** Statuses that end a BAG object (lower case). */
export const EINDSTATUS = new Set([
  'naamgeving ingetrokken',
  'niet gerealiseerd pand',
  'pand gesloopt',
  'pand ten onrechte opgevoerd',
  'niet gerealiseerd verblijfsobject',
  'verblijfsobject ingetrokken',
  'verblijfsobject ten onrechte opgevoerd',
  'plaats ingetrokken',
]);

const BRON_DATUM_SQL = `substring(bron from '\\d{4}-\\d{2}-\\d{2}$')`;

/** With their derived rows; WOZ values and labels stay (the valuation reads WOZ per sale). `objecten`: only while still of that object. */
export async function verwijderAdressen(db: Database, ids: string[], peil: string, objecten?: string[]): Promise<number> {
  const waar = objecten
    ? `SELECT a.id FROM adres a JOIN unnest($1::text[], $3::text[]) AS w(id, object_id) ON a.id = w.id AND a.object_id = w.object_id
       WHERE a.bron_datum IS NULL OR a.bron_datum <= $2::date`
    : `SELECT id FROM adres WHERE id = ANY($1::text[]) AND (bron_datum IS NULL OR bron_datum <= $2::date)`;
  const arg = objecten ? [ids, peil, objecten] : [ids, peil];
  const [, , n] = await db.prisma.$transaction([
    db.prisma.$executeRawUnsafe(`DELETE FROM adres_invloed WHERE adres_id IN (${waar})`, ...arg),
    db.prisma.$executeRawUnsafe(`DELETE FROM woningtype WHERE adres_id IN (${waar})`, ...arg),
    db.prisma.$executeRawUnsafe(`DELETE FROM adres WHERE id IN (${waar})`, ...arg),
  ]);
  return Number(n);
}

export async function verwijderPanden(db: Database, ids: string[], peil: string): Promise<number> {
  if (!ids.length) return 0;
  return Number(await db.prisma.$executeRawUnsafe(`DELETE FROM pand WHERE id = ANY($1::text[]) AND (${BRON_DATUM_SQL} IS NULL OR ${BRON_DATUM_SQL} <= $2)`, ids, peil));
}

/** Deletes what `weg` holds: "a:" + address id → its object (only while still of it), "p:" + pand id. */
export async function ruimBeeindigdeOp(db: Database, weg: SchijfSet, peil: string): Promise<Record<string, unknown>> {
  const t = { adressen: 0, panden: 0 };
  let nads: string[] = [];
  let objecten: string[] = [];
  let panden: string[] = [];
  const spoel = async (alles: boolean) => {
    if (nads.length >= 5000 || (alles && nads.length)) {
      t.adressen += await verwijderAdressen(db, nads, peil, objecten);
      nads = [];
      objecten = [];
    }
    if (panden.length >= 5000 || alles) {
      t.panden += await verwijderPanden(db, panden, peil);
      panden = [];
    }
  };
  for (const { k, w } of weg.alle()) {
    if (k.startsWith('a:')) {
      nads.push(k.slice(2));
      objecten.push(w);
    } else panden.push(k.slice(2));
    await spoel(false);
  }
  await spoel(true);
  return { verwijderd: t };
}
