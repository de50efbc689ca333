/** Loading what the valuation model needs from the register: the held sales and the price index. */
import { sqlRijen, type Db } from '../../db/client.ts';
import { datumKolom } from '../begrippen.ts';
import { DEMO_BRON, type Deel } from '../register/demo/opzet.ts';
import type { PriceIndexPoint, SaleRecord } from './index.ts';
import { SalesTableBuilder, type SalesTable } from './sales-table.ts';

/** A page of held sales with a location after id $1, each with its address's WOZ value known at the sale (woz.ts). */
const VERKOPEN = (deel: Deel | undefined, eerste: boolean) => `SELECT v.id, v.adres_id, to_char(v.transactiedatum, 'YYYY-MM-DD') AS datum, v.koopsom, v.oppervlakte, v.perceel,
       v.bouwjaar, v.woningtype, v.energielabel, v.lat, v.lon, z.waarde AS woz, to_char(z.peildatum, 'YYYY-MM-DD') AS woz_peildatum
  FROM verkoop v
  LEFT JOIN LATERAL (SELECT w.waarde, w.peildatum FROM woz_waarde w
                     WHERE w.adres_id = v.adres_id AND w.peildatum <= (v.transactiedatum - interval '1 year')::date
                     ORDER BY w.peildatum DESC LIMIT 1) z ON true
  WHERE v.lat IS NOT NULL AND v.lon IS NOT NULL${deel === undefined ? '' : deel === 'demo' ? ' AND v.bron = $3' : ' AND v.bron <> $3'}${eerste ? ' AND $1::text IS NULL' : ' AND v.id > $1'}
  ORDER BY v.id LIMIT $2`;

interface VerkoopRij {
  id: string;
  adres_id: string | null;
  datum: string;
  koopsom: number;
  oppervlakte: number | null;
  perceel: number | null;
  bouwjaar: number | null;
  woningtype: string | null;
  energielabel: string | null;
  lat: number;
  lon: number;
  woz: number | bigint | null;
  woz_peildatum: string | null;
}

/** Pages of 10,000: the rows of one page are the only sales held as objects at a time. */
const PAGINA = 10_000;

/** Every held sale with a location (of `deel` when given), in id order, as a SaleRecord to `per`. */
async function perVerkoop(db: Db, deel: Deel | undefined, per: (s: SaleRecord) => void): Promise<void> {
  let na: string | null = null;
  for (;;) {
    const rows: VerkoopRij[] = await sqlRijen<VerkoopRij>(db, VERKOPEN(deel, na === null), [na, PAGINA, ...(deel === undefined ? [] : [DEMO_BRON])]);
    for (const r of rows) {
      per({
        id: r.id,
        datum: r.datum,
        prijs: r.koopsom,
        oppervlakte: r.oppervlakte,
        perceel: r.perceel,
        bouwjaar: r.bouwjaar,
        woningtype: r.woningtype,
        energielabel: r.energielabel,
        lat: r.lat,
        lon: r.lon,
        objectId: r.adres_id,
        woz: r.woz === null ? null : { waarde: Number(r.woz), peildatum: r.woz_peildatum! },
      });
    }
    if (rows.length < PAGINA) return;
    na = rows[rows.length - 1].id;
  }
}

export async function laadVerkopen(db: Db, deel?: Deel): Promise<SaleRecord[]> {
  const uit: SaleRecord[] = [];
  await perVerkoop(db, deel, (s) => uit.push(s));
  return uit;
}

/**
 * buildSalesTable(laadVerkopen(...)) built as the pages arrive: a list of SaleRecords grew the idle
 * main thread's heap by ~2 KB a sale for the whole fit.
 */
export async function laadVerkopenTabel(db: Db, deel?: Deel): Promise<SalesTable> {
  const [{ n }] = await sqlRijen<{ n: number | bigint }>(db, `SELECT count(*)::int AS n FROM verkoop WHERE lat IS NOT NULL AND lon IS NOT NULL${deel === undefined ? '' : deel === 'demo' ? ' AND bron = $1' : ' AND bron <> $1'}`, deel === undefined ? [] : [DEMO_BRON]);
  const b = new SalesTableBuilder(Number(n));
  await perVerkoop(db, deel, (s) => b.add(s));
  return b.finish();
}

export interface IndexReeks {
  punten: PriceIndexPoint[];
  bron: string | null;
}

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
