/**
 * adres_invloed from invloed_object. A type whose objects or rules (rekenregelsVan) changed is recomputed for
 * every address; otherwise only new and moved addresses. A page is written while the next is computed.
 *
 * The demo town's objects and addresses are left out (demo/opzet.ts, `Deel`): its rows stay as
 * generated, its fictional objects never reach a real address, and loading it recomputes nothing.
 */
import { createHash } from 'node:crypto';
import type { Geometry } from 'geojson';
import type { Database } from '../../../db/client.ts';
import { DEMO_BRON } from '../demo/opzet.ts';
import { InvloedIndex, rekenregelsVan } from '../invloeden.ts';
import { upsertBatch, type UpsertResultaat } from './schrijver.ts';
import type { ImportSoort } from './types.ts';

const PAGINA = 5000;

export interface InvloedTelling {
  ingevoegd: number;
  bijgewerkt: number;
  ongewijzigd: number;
  verwijderd: number;
  adressen: number;
  berekend: number;
  gewijzigdeTypes: string[];
}

export async function leidAdresInvloedenAf(db: Pick<Database, 'prisma'>, opts: { alles?: boolean } = {}): Promise<InvloedTelling> {
  const objecten = await db.prisma.invloedObject.findMany({ where: { bron: { not: DEMO_BRON } }, orderBy: { id: 'asc' } });
  const index = new InvloedIndex(objecten.map((o) => ({ id: o.id, type: o.type, naam: o.naam, geometrie: o.geometrie as unknown as Geometry, bron: o.bron })));
  const types = index.types;
  const vingers = new Map<string, ReturnType<typeof createHash>>();
  for (const o of objecten) {
    let h = vingers.get(o.type);
    if (!h) vingers.set(o.type, (h = createHash('sha256').update(rekenregelsVan(o.type))));
    h.update(JSON.stringify([o.id, o.naam, o.bron, o.geometrie]));
  }
  const vingerafdruk = new Map([...vingers].map(([t, h]) => [t, h.digest('hex')]));
  const telling: InvloedTelling = { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0, verwijderd: 0, adressen: 0, berekend: 0, gewijzigdeTypes: [] };
  telling.verwijderd += (await db.prisma.adresInvloed.deleteMany({ where: { type: { notIn: types }, bron: { not: DEMO_BRON } } })).count;
  await db.prisma.invloedStand.deleteMany({ where: { type: { notIn: types } } });
  if (types.length === 0) return telling;
  const stand = new Map((await db.prisma.invloedStand.findMany()).map((s) => [s.type, s.vingerafdruk]));
  telling.adressen = await db.prisma.adres.count({ where: { lat: { not: null }, lon: { not: null }, bron: { not: DEMO_BRON } } });

  for (const type of types) {
    const alles = opts.alles || stand.get(type) !== vingerafdruk.get(type);
    if (alles) telling.gewijzigdeTypes.push(type);
    const sql = alles
      ? `SELECT id, lat, lon FROM adres WHERE id > $1 AND lat IS NOT NULL AND lon IS NOT NULL AND bron <> $2 ORDER BY id LIMIT ${PAGINA}`
      : `SELECT a.id, a.lat, a.lon FROM adres a LEFT JOIN adres_invloed ai ON ai.adres_id = a.id AND ai.type = $2
         WHERE a.id > $1 AND a.lat IS NOT NULL AND a.lon IS NOT NULL AND a.bron <> $3
           AND (ai.adres_id IS NULL OR ai.lat IS DISTINCT FROM a.lat OR ai.lon IS DISTINCT FROM a.lon)
         ORDER BY a.id LIMIT ${PAGINA}`;
    let na = '';
    let berekend = 0;
    let schrijven: Promise<UpsertResultaat> | null = null;
    const telOp = (r: UpsertResultaat) => {
      telling.ingevoegd += r.ingevoegd;
      telling.bijgewerkt += r.bijgewerkt;
      telling.ongewijzigd += r.ongewijzigd;
    };
    for (;;) {
      const adressen = (await (alles ? db.prisma.$queryRawUnsafe(sql, na, DEMO_BRON) : db.prisma.$queryRawUnsafe(sql, na, type, DEMO_BRON))) as { id: string; lat: number; lon: number }[];
      const rijen: Record<string, unknown>[] = [];
      for (const a of adressen) {
        const b = index.beoordeel(type, a.lon, a.lat);
        if (b) rijen.push({ adres_id: a.id, type, indicator: b.indicator, afstand_m: b.afstandM, omschrijving: b.omschrijving, bron: b.bron, lat: a.lat, lon: a.lon });
      }
      berekend += adressen.length;
      if (schrijven) telOp(await schrijven);
      schrijven = rijen.length ? upsertBatch(db.prisma, 'adres_invloed', rijen) : null;
      // Awaited later; a failure before then must reach that await, not end the process as an unhandled rejection.
      schrijven?.catch(() => {});
      if (adressen.length < PAGINA) break;
      na = adressen[adressen.length - 1].id;
    }
    if (schrijven) telOp(await schrijven);
    telling.berekend += berekend;
    telling.ongewijzigd += telling.adressen - berekend;
    const v = vingerafdruk.get(type)!;
    await db.prisma.invloedStand.upsert({ where: { type }, create: { type, vingerafdruk: v }, update: { vingerafdruk: v, berekendOp: new Date() } });
  }
  return telling;
}

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
    return { adresInvloed: await leidAdresInvloedenAf(db, { alles: true }) };
  },
};
