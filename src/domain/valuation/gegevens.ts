/** Loading what the valuation model needs from the register: the held sales and the price index. */
import { sqlRijen, type Db } from '../../db/client.ts';
import { datumKolom } from '../begrippen.ts';
import { DEMO_BRON, type Deel } from '../register/demo/opzet.ts';
import type { PriceIndexPoint, SaleRecord } from './index.ts';

/**
 * Per sale of a page, the WOZ value of its address known at the sale: the newest with a peildatum at
 * least a year before it (valuation/woz.ts says why), found by the woz_waarde primary key.
 */
const WOZ_BIJ_VERKOOP = `SELECT v.id, z.waarde, to_char(z.peildatum, 'YYYY-MM-DD') AS peildatum
  FROM verkoop v
  JOIN LATERAL (SELECT w.waarde, w.peildatum FROM woz_waarde w
                WHERE w.adres_id = v.adres_id AND w.peildatum <= (v.transactiedatum - interval '1 year')::date
                ORDER BY w.peildatum DESC LIMIT 1) z ON true
  WHERE v.id = ANY($1::text[])`;

/**
 * Every held sale with a location (of one part of the register when `deel` is given), as the model's
 * SaleRecord, with its WOZ value known at the sale. Streams in pages to bound peak memory.
 */
export async function laadVerkopen(db: Db, deel?: Deel): Promise<SaleRecord[]> {
  const vanDeel = deel === undefined ? {} : { bron: deel === 'demo' ? DEMO_BRON : { not: DEMO_BRON } };
  const uit: SaleRecord[] = [];
  const pagina = 50_000;
  let na: string | undefined;
  for (;;) {
    const rows = await db.verkoop.findMany({
      where: { lat: { not: null }, lon: { not: null }, ...vanDeel },
      orderBy: { id: 'asc' },
      take: pagina,
      ...(na ? { cursor: { id: na }, skip: 1 } : {}),
      select: { id: true, adresId: true, transactiedatum: true, koopsom: true, oppervlakte: true, perceel: true, bouwjaar: true, woningtype: true, energielabel: true, lat: true, lon: true },
    });
    const woz = new Map<string, { waarde: number; peildatum: string }>();
    const metAdres = rows.filter((r) => r.adresId).map((r) => r.id);
    if (metAdres.length) for (const w of await sqlRijen<{ id: string; waarde: number; peildatum: string }>(db, WOZ_BIJ_VERKOOP, [metAdres])) woz.set(w.id, { waarde: Number(w.waarde), peildatum: w.peildatum });
    for (const r of rows) {
      uit.push({
        id: r.id,
        datum: datumKolom(r.transactiedatum),
        prijs: r.koopsom,
        oppervlakte: r.oppervlakte,
        perceel: r.perceel,
        bouwjaar: r.bouwjaar,
        woningtype: r.woningtype,
        energielabel: r.energielabel,
        lat: r.lat!,
        lon: r.lon!,
        objectId: r.adresId,
        woz: woz.get(r.id) ?? null,
      });
    }
    if (rows.length < pagina) return uit;
    na = rows[rows.length - 1].id;
  }
}

export interface IndexReeks {
  punten: PriceIndexPoint[];
  bron: string | null;
}

/** The national monthly index of existing homes (CBS 83906NED, else any national table held). */
/**
 * The national price index of one part of the register: the real register's CBS series, or the demo
 * town's own (CBS figures with a documented extrapolation, under its own key so neither overwrites
 * the other; a copy loaded before that key, under 'NL', is found by its source).
 */
export async function laadPrijsindex(db: Db, deel: Deel = 'register'): Promise<IndexReeks> {
  const waar = deel === 'demo' ? { bron: DEMO_BRON } : { regio: 'NL', bron: { not: DEMO_BRON } };
  const tabellen = await db.prijsindex.groupBy({ by: ['tabel'], where: waar, _count: true });
  if (tabellen.length === 0) return { punten: [], bron: null };
  const tabel = tabellen.find((t) => t.tabel === '83906NED')?.tabel ?? tabellen.sort((a, b) => b._count - a._count)[0].tabel;
  const rows = await db.prijsindex.findMany({ where: { ...waar, tabel }, orderBy: { periode: 'asc' } });
  return {
    punten: rows.map((r) => ({ periode: datumKolom(r.periode).slice(0, 7), index: r.index })),
    bron: `CBS ${tabel} (${rows[0].bron})`,
  };
}
