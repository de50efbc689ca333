/**
 * adres_invloed from invloed_object: after an `invloeden` import (the parser writes only the
 * objects), on demand (`insight import invloeden-afleiden`), and after a BAG import when influence
 * objects exist (new addresses need their rows too). Uses the index and thresholds of
 * ../invloeden.ts (InvloedIndex: nearest object per type, INVLOED_DREMPELS); addresses are streamed
 * in pages of 5,000 and written with the generic upsert, so a second run changes nothing.
 * Rows of types that no longer have any object are removed.
 */
import type { Database } from '../../../db/client.ts';
import type { Geometry } from 'geojson';
import { InvloedIndex } from '../invloeden.ts';
import { upsertBatch } from './schrijver.ts';
import type { ImportSoort } from './types.ts';

export async function leidAdresInvloedenAf(db: Pick<Database, 'prisma'>): Promise<Record<string, number>> {
  const objecten = await db.prisma.invloedObject.findMany({ orderBy: { id: 'asc' } });
  const index = new InvloedIndex(objecten.map((o) => ({ id: o.id, type: o.type, naam: o.naam, geometrie: o.geometrie as unknown as Geometry, bron: o.bron })));
  const types = index.types;
  const telling = { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0, verwijderd: 0, adressen: 0 };
  telling.verwijderd += Number(await db.prisma.adresInvloed.deleteMany({ where: { type: { notIn: types } } }).then((r) => r.count));
  if (types.length === 0) return telling;
  let na = '';
  for (;;) {
    const adressen = (await db.prisma.$queryRawUnsafe(
      `SELECT id, lat, lon FROM adres WHERE id > $1 AND lat IS NOT NULL AND lon IS NOT NULL ORDER BY id LIMIT 5000`,
      na,
    )) as { id: string; lat: number; lon: number }[];
    const rijen: Record<string, unknown>[] = [];
    for (const a of adressen) {
      for (const type of types) {
        const b = index.beoordeel(type, a.lon, a.lat);
        if (b) rijen.push({ adres_id: a.id, type, indicator: b.indicator, afstand_m: b.afstandM, omschrijving: b.omschrijving, bron: b.bron });
      }
    }
    if (rijen.length) {
      const r = await upsertBatch(db.prisma, 'adres_invloed', rijen);
      telling.ingevoegd += r.ingevoegd;
      telling.bijgewerkt += r.bijgewerkt;
      telling.ongewijzigd += r.ongewijzigd;
    }
    telling.adressen += adressen.length;
    if (adressen.length < 5000) return telling;
    na = adressen[adressen.length - 1].id;
  }
}

/** After-step for BAG imports: only when influence objects exist. */
export async function invloedenNaBag(db: Database): Promise<Record<string, unknown>> {
  if ((await db.prisma.invloedObject.count()) === 0) return {};
  return { adresInvloed: await leidAdresInvloedenAf(db) };
}

export const invloedenAfleiden: ImportSoort = {
  naam: 'invloeden-afleiden',
  omschrijving: 'adres_invloed (afstand en kleur per adres en type) opnieuw berekenen uit invloed_object',
  verwacht: 'geen bestand',
  tabellen: ['adres_invloed'],
  bestandNodig: false,
  // eslint-disable-next-line require-yield
  async *lees() {},
  async na(db) {
    return { adresInvloed: await leidAdresInvloedenAf(db) };
  },
};
