/** Deleting what a BAG refresh ends. A row from a newer source than `peil` (its bron_datum, the pand's bron date) stays. */
import type { Database } from '../../../db/client.ts';

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
