/** Loading what the valuation model needs from the register: the held sales and the price index. */
import type { Db } from '../../db/client.ts';
import { datumKolom } from '../begrippen.ts';
import type { PriceIndexPoint, SaleRecord } from './index.ts';

/** Every held sale with a location, as the model's SaleRecord. Streams in pages to bound peak memory. */
export async function laadVerkopen(db: Db): Promise<SaleRecord[]> {
  const uit: SaleRecord[] = [];
  const pagina = 50_000;
  let na: string | undefined;
  for (;;) {
    const rows = await db.verkoop.findMany({
      where: { lat: { not: null }, lon: { not: null } },
      orderBy: { id: 'asc' },
      take: pagina,
      ...(na ? { cursor: { id: na }, skip: 1 } : {}),
      select: { id: true, adresId: true, transactiedatum: true, koopsom: true, oppervlakte: true, perceel: true, bouwjaar: true, woningtype: true, energielabel: true, lat: true, lon: true },
    });
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
export async function laadPrijsindex(db: Db): Promise<IndexReeks> {
  const tabellen = await db.prijsindex.groupBy({ by: ['tabel'], where: { regio: 'NL' }, _count: true });
  if (tabellen.length === 0) return { punten: [], bron: null };
  const tabel = tabellen.find((t) => t.tabel === '83906NED')?.tabel ?? tabellen.sort((a, b) => b._count - a._count)[0].tabel;
  const rows = await db.prijsindex.findMany({ where: { tabel, regio: 'NL' }, orderBy: { periode: 'asc' } });
  return {
    punten: rows.map((r) => ({ periode: datumKolom(r.periode).slice(0, 7), index: r.index })),
    bron: `CBS ${tabel} (${rows[0].bron})`,
  };
}
