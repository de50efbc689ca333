/**
 * House type derived from the BAG where none is imported, after NLExtract's "Woningtype vaststellen per PND"
 * (Kadaster's Productbeschrijving Woningtypering): no woonfunctie → overig; a pand with several homes →
 * appartement; else by the residential panden within 0.30 m (BAG outlines are not exact): none →
 * vrijstaand, one that touches only this → twee-onder-een-kap, one that touches more → hoekwoning,
 * two or more → tussenwoning. Homes are distinct verblijfsobjecten, so a nevenadres stays a house.
 * Memory: a sweep in longitude order keeps one narrow strip of footprints, counts go to table `woonpand`.
 */
import Flatbush from 'flatbush';
import type { Woningtype } from '../begrippen.ts';
import type { Database } from '../../db/client.ts';
import { lonLatNaarRd } from './import/geo.ts';
import { type UpsertTelling, upsertBatch } from './import/schrijver.ts';
import { DEMO_BRON } from './demo/opzet.ts';

export const AFGELEID_BRON = 'BAG-afleiding';
export const AANRAAK_TOLERANTIE_M = 0.3;

export type { Woningtype };

export interface WoningtypeRij {
  adres_id: string;
  woningtype: Woningtype;
  afgeleid_uit: string;
  bron: string;
}

export interface WoningtypeStatistiek {
  typen: Partial<Record<Woningtype, number>>;
  onbepaald: number;
  geimporteerdBehouden: number;
  pandenMetFootprint: number;
  verwijderd: number;
}

class Groeiend {
  buf: Float64Array;
  n = 0;
  constructor(n = 1024) {
    this.buf = new Float64Array(n);
  }
  push(v: number) {
    if (this.n === this.buf.length) {
      const b = new Float64Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.n++] = v;
  }
}

/** Pand i has rings ringVan[i] .. ringVan[i+1]-1; ring r has vertices punt[r] .. punt[r+1]-1. */
export class Footprints {
  readonly ids: string[] = [];
  readonly xy = new Groeiend(1 << 16);
  readonly ringStart = new Groeiend(1 << 12); // vertex index of each ring (+ sentinel at the end)
  readonly ringBuiten = new Groeiend(1 << 12); // 1 = exterior ring
  readonly pandRing = new Groeiend(1 << 12); // ring index of each pand (+ sentinel)
  readonly box = new Groeiend(1 << 12); // minX, minY, maxX, maxY per pand

  voegToe(id: string, polygonen: number[][][][]): void {
    this.pandRing.push(this.ringStart.n);
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const poly of polygonen) {
      poly.forEach((ring, ri) => {
        this.ringStart.push(this.xy.n / 2);
        this.ringBuiten.push(ri === 0 ? 1 : 0);
        for (const [x, y] of ring) {
          this.xy.push(x);
          this.xy.push(y);
          if (x < minX) minX = x;
          if (y < minY) minY = y;
          if (x > maxX) maxX = x;
          if (y > maxY) maxY = y;
        }
      });
    }
    this.box.push(minX);
    this.box.push(minY);
    this.box.push(maxX);
    this.box.push(maxY);
    this.ids.push(id);
  }

  get aantal(): number {
    return this.ids.length;
  }

  #sluit(): void {
    if (this.pandRing.n === this.ids.length) {
      this.pandRing.push(this.ringStart.n);
      this.ringStart.push(this.xy.n / 2);
    }
  }

  buren(tol: number): { aantal: Int32Array; enige: Int32Array } {
    const n = this.ids.length;
    const aantal = new Int32Array(n);
    const enige = new Int32Array(n).fill(-1);
    this.paren(tol, 0, (i, j) => {
      aantal[i]++;
      aantal[j]++;
      enige[i] = aantal[i] === 1 ? j : -1;
      enige[j] = aantal[j] === 1 ? i : -1;
    });
    return { aantal, enige };
  }

  /** At least one of each pair has index >= vanaf. */
  paren(tol: number, vanaf: number, elk: (i: number, j: number) => void): void {
    this.#sluit();
    const n = this.ids.length;
    if (n === 0) return;
    const index = new Flatbush(n);
    const b = this.box.buf;
    for (let i = 0; i < n; i++) index.add(b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]);
    index.finish();
    for (let i = 0; i < n; i++) {
      const kandidaten = index.search(b[4 * i] - tol, b[4 * i + 1] - tol, b[4 * i + 2] + tol, b[4 * i + 3] + tol);
      for (const j of kandidaten) {
        if (j <= i || j < vanaf) continue; // each pair once; pairs of earlier panden were counted before
        if (this.raakt(i, j, tol)) elk(i, j);
      }
    }
  }

  /** Overlap counts as touching. */
  raakt(i: number, j: number, tol: number): boolean {
    const xy = this.xy.buf;
    const rs = this.ringStart.buf;
    const pr = this.pandRing.buf;
    const tol2 = tol * tol;
    for (let ri = pr[i]; ri < pr[i + 1]; ri++) {
      for (let rj = pr[j]; rj < pr[j + 1]; rj++) {
        for (let a = rs[ri]; a < rs[ri + 1] - 1; a++) {
          const ax = xy[2 * a];
          const ay = xy[2 * a + 1];
          const bx = xy[2 * a + 2];
          const by = xy[2 * a + 3];
          for (let c = rs[rj]; c < rs[rj + 1] - 1; c++) {
            if (segmentAfstand2(ax, ay, bx, by, xy[2 * c], xy[2 * c + 1], xy[2 * c + 2], xy[2 * c + 3]) <= tol2) return true;
          }
        }
      }
    }
    return this.#binnen(this.ringStart.buf[pr[i]], j) || this.#binnen(this.ringStart.buf[pr[j]], i);
  }

  /** Even-odd over every ring of each polygon, so a point in a hole (a courtyard) is outside. */
  #binnen(v: number, p: number): boolean {
    const xy = this.xy.buf;
    const rs = this.ringStart.buf;
    const pr = this.pandRing.buf;
    const px = xy[2 * v];
    const py = xy[2 * v + 1];
    let binnen = false;
    for (let r = pr[p]; r < pr[p + 1]; r++) {
      if (this.ringBuiten.buf[r]) {
        if (binnen) return true;
        binnen = false;
      }
      for (let a = rs[r], b = rs[r + 1] - 2; a < rs[r + 1] - 1; b = a++) {
        const xa = xy[2 * a];
        const ya = xy[2 * a + 1];
        const xb = xy[2 * b];
        const yb = xy[2 * b + 1];
        if (ya > py !== yb > py && px < ((xb - xa) * (py - ya)) / (yb - ya) + xa) binnen = !binnen;
      }
    }
    return binnen;
  }
}

function puntSegment2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const l2 = dx * dx + dy * dy;
  let t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const qx = ax + t * dx - px;
  const qy = ay + t * dy - py;
  return qx * qx + qy * qy;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

export function segmentAfstand2(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): number {
  const o1 = orient(ax, ay, bx, by, cx, cy);
  const o2 = orient(ax, ay, bx, by, dx, dy);
  const o3 = orient(cx, cy, dx, dy, ax, ay);
  const o4 = orient(cx, cy, dx, dy, bx, by);
  if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return 0;
  return Math.min(
    puntSegment2(ax, ay, cx, cy, dx, dy),
    puntSegment2(bx, by, cx, cy, dx, dy),
    puntSegment2(cx, cy, ax, ay, bx, by),
    puntSegment2(dx, dy, ax, ay, bx, by),
  );
}

export function footprintRd(geo: unknown): number[][][][] | null {
  const g = geo as { type?: string; coordinates?: unknown } | null;
  if (!g || typeof g !== 'object') return null;
  const polys = g.type === 'Polygon' ? [g.coordinates as number[][][]] : g.type === 'MultiPolygon' ? (g.coordinates as number[][][][]) : null;
  if (!Array.isArray(polys)) return null;
  const uit: number[][][][] = [];
  for (const p of polys) {
    if (!Array.isArray(p) || p.length === 0) continue;
    const ringen: number[][][] = [];
    for (const ring of p) {
      if (!Array.isArray(ring) || ring.length < 4) continue;
      ringen.push(ring.map(([lon, lat]) => lonLatNaarRd(lon, lat)));
    }
    if (ringen.length) uit.push(ringen);
  }
  return uit.length ? uit : null;
}

type Prisma = Database['prisma'];
type WoningtypeDb = Pick<Database, 'prisma' | 'openRawConnection'>;

/** 'woonpand' in ASCII. */
const WOONPAND_SLOT = '8606219933050826340';
const wachtrijen = new WeakMap<object, Promise<void>>();

/**
 * One derivation at a time per database: a second one's DELETE would wipe the shared `woonpand` halfway.
 * PostgreSQL: a session advisory lock (across processes); PGlite: a queue in this process.
 */
async function woonpandSlot(db: WoningtypeDb): Promise<() => Promise<void>> {
  if (db.openRawConnection) {
    const c = await db.openRawConnection();
    try {
      await c.query('SELECT pg_advisory_lock($1::bigint)', [WOONPAND_SLOT]);
    } catch (e) {
      await c.end().catch(() => {});
      throw e;
    }
    return () => c.end().catch(() => {});
  }
  const vorige = wachtrijen.get(db.prisma) ?? Promise.resolve();
  let vrij = () => {};
  const klaar = new Promise<void>((r) => {
    vrij = r;
  });
  wachtrijen.set(db.prisma, vorige.then(() => klaar));
  await vorige;
  return async () => vrij();
}

/** Wider than `tol` metres anywhere in the Netherlands (cos 54° > 0.58). */
const graden = (tol: number) => (tol * 1.5) / (111_320 * 0.58) + 1e-9;

/** The demo town's buildings stay out, so none can touch a real one (demo/opzet.ts, `Deel`). */
async function vulWoonpanden(prisma: Prisma): Promise<void> {
  await prisma.$executeRawUnsafe(`DELETE FROM woonpand`);
  await prisma.$executeRawUnsafe(
    `INSERT INTO woonpand (pand_id, n, minx, maxx)
     SELECT w.pand_id, w.n, b.minx, b.maxx
     FROM (SELECT pand_id, count(DISTINCT COALESCE(object_id, id))::int AS n FROM adres
           WHERE pand_id IS NOT NULL AND object_type = 'verblijfsobject' AND 'woonfunctie' = ANY(gebruiksdoelen) AND bron <> $1
           GROUP BY pand_id) w
     LEFT JOIN pand p ON p.id = w.pand_id
     LEFT JOIN LATERAL (
       SELECT min((v #>> '{}')::float8) FILTER (WHERE jsonb_typeof(v) = 'number') AS minx,
              max((v #>> '{}')::float8) FILTER (WHERE jsonb_typeof(v) = 'number') AS maxx
       FROM jsonb_path_query(p.geometrie::jsonb,
         (CASE WHEN p.geometrie->>'type' = 'MultiPolygon' THEN '$.coordinates[*][*][*][0]' ELSE '$.coordinates[*][*][0]' END)::jsonpath) v
     ) b ON true`,
    DEMO_BRON,
  );
  await prisma.$executeRawUnsafe(`ANALYZE woonpand`);
}

interface Strookpand {
  id: string;
  maxx: number;
  ringen: number[][][][];
  aantal: number;
  enige: string | null;
}

/**
 * A sweep in order of westernmost longitude, 5,000 at a time; a pand leaves memory once no later pand can
 * reach it. The page compares (minx, pand_id) as a row: one index range scan (an OR is quadratic).
 */
async function telBuren(prisma: Prisma, tol: number, pagina: number): Promise<number> {
  const marge = graden(tol);
  let actief: Strookpand[] = [];
  let naX = -1000; // west of every longitude
  let naId = '';
  let metFootprint = 0;
  const schrijf = async (klaar: Strookpand[]) => {
    if (!klaar.length) return;
    // Knowing the array's length, the planner would hash the whole table per page (quadratic); probes are linear.
    await prisma.$transaction([
      prisma.$executeRawUnsafe(`SET LOCAL enable_hashjoin = off`),
      prisma.$executeRawUnsafe(`SET LOCAL enable_mergejoin = off`),
      prisma.$executeRawUnsafe(
        `UPDATE woonpand w SET aantal = u.aantal, enige = u.enige
         FROM unnest($1::text[], $2::int[], $3::text[]) AS u(id, aantal, enige) WHERE w.pand_id = u.id`,
        klaar.map((p) => p.id),
        klaar.map((p) => p.aantal),
        klaar.map((p) => p.enige),
      ),
    ]);
  };
  for (;;) {
    const rijen = (await prisma.$queryRawUnsafe(
      `SELECT w.pand_id, w.minx, w.maxx, p.geometrie FROM woonpand w JOIN pand p ON p.id = w.pand_id
       WHERE (w.minx, w.pand_id) > ($1::float8, $2::text)
       ORDER BY w.minx, w.pand_id LIMIT ${pagina}`,
      naX,
      naId,
    )) as { pand_id: string; minx: number; maxx: number; geometrie: unknown }[];
    const nieuw: Strookpand[] = [];
    for (const r of rijen) {
      const g = footprintRd(typeof r.geometrie === 'string' ? JSON.parse(r.geometrie) : r.geometrie);
      if (g) nieuw.push({ id: r.pand_id, maxx: r.maxx, ringen: g, aantal: 0, enige: null });
    }
    metFootprint += nieuw.length;
    const alle = [...actief, ...nieuw];
    const fp = new Footprints();
    for (const p of alle) fp.voegToe(p.id, p.ringen);
    fp.paren(tol, actief.length, (i, j) => {
      const a = alle[i];
      const b = alle[j];
      a.aantal++;
      b.aantal++;
      a.enige = a.aantal === 1 ? b.id : null;
      b.enige = b.aantal === 1 ? a.id : null;
    });
    const laatste = rijen.at(-1);
    if (rijen.length < pagina || !laatste) {
      await schrijf(alle);
      return metFootprint;
    }
    naX = laatste.minx;
    naId = laatste.pand_id;
    const klaar = alle.filter((p) => p.maxx + marge < naX);
    actief = alle.filter((p) => p.maxx + marge >= naX);
    await schrijf(klaar);
  }
}

function pandType(id: string, aantal: number, enige: string | null, enigeAantal: number | null): { type: Woningtype; uitleg: string } {
  if (aantal === 0) return { type: 'vrijstaand', uitleg: `BAG: pand ${id} raakt geen ander woonpand` };
  if (aantal >= 2) return { type: 'tussenwoning', uitleg: `BAG: pand ${id} raakt ${aantal} woonpanden` };
  if (enigeAantal === 1) return { type: 'twee-onder-een-kap', uitleg: `BAG: pand ${id} raakt alleen woonpand ${enige}, dat alleen dit pand raakt` };
  return { type: 'hoekwoning', uitleg: `BAG: pand ${id} raakt alleen woonpand ${enige}, dat ${enigeAantal} woonpanden raakt (eind van een rij)` };
}

/** Addresses with an imported type are skipped; derived rows of addresses no longer typed are deleted. */
export interface AfleidOpties {
  tolerantieM?: number;
  strookPagina?: number;
  adresPagina?: number;
}

export async function* woningtypeRijen(db: WoningtypeDb, stat: WoningtypeStatistiek, opts: AfleidOpties = {}): AsyncGenerator<WoningtypeRij> {
  const vrij = await woonpandSlot(db);
  try {
    yield* afleiding(db.prisma, stat, opts.tolerantieM ?? AANRAAK_TOLERANTIE_M, opts.strookPagina ?? 5000, opts.adresPagina ?? 5000);
  } finally {
    await vrij();
  }
}

async function* afleiding(prisma: Prisma, stat: WoningtypeStatistiek, tol: number, strookPagina: number, adresPagina: number): AsyncGenerator<WoningtypeRij> {
  await vulWoonpanden(prisma);
  stat.pandenMetFootprint = await telBuren(prisma, tol, strookPagina);

  let na = '';
  for (;;) {
    const rijen = (await prisma.$queryRawUnsafe(
      // Scalar subqueries, not joins, which PostgreSQL may plan as merge joins rescanning per page.
      `SELECT a.id, a.object_type, a.pand_id, a.gebruiksdoelen, (SELECT w.bron FROM woningtype w WHERE w.adres_id = a.id) AS wt_bron,
              k.n, k.aantal, k.enige, (SELECT e.aantal FROM woonpand e WHERE e.pand_id = k.enige) AS enige_aantal
       FROM adres a LEFT JOIN LATERAL (SELECT n, aantal, enige FROM woonpand WHERE pand_id = a.pand_id) k ON true
       WHERE a.id > $1 AND a.bron <> $2 ORDER BY a.id LIMIT ${adresPagina}`,
      na,
      DEMO_BRON,
    )) as {
      id: string;
      object_type: string;
      pand_id: string | null;
      gebruiksdoelen: string[] | null;
      wt_bron: string | null;
      n: number | null;
      aantal: number | null;
      enige: string | null;
      enige_aantal: number | null;
    }[];
    const weg: string[] = [];
    for (const r of rijen) {
      if (r.wt_bron !== null && r.wt_bron !== AFGELEID_BRON) {
        stat.geimporteerdBehouden++;
        continue;
      }
      let rij: WoningtypeRij | null = null;
      const doelen = r.gebruiksdoelen ?? [];
      if (r.object_type !== 'verblijfsobject') {
        rij = { adres_id: r.id, woningtype: 'overig', afgeleid_uit: `BAG: ${r.object_type}, geen woning in een pand`, bron: AFGELEID_BRON };
      } else if (!doelen.includes('woonfunctie')) {
        rij = {
          adres_id: r.id,
          woningtype: 'overig',
          afgeleid_uit: `BAG: geen woonfunctie (${doelen.length ? doelen.join(', ') : 'gebruiksdoel onbekend'})`,
          bron: AFGELEID_BRON,
        };
      } else if (r.pand_id) {
        const n = Number(r.n ?? 0);
        if (n > 1) rij = { adres_id: r.id, woningtype: 'appartement', afgeleid_uit: `BAG: ${n} woonfuncties in pand ${r.pand_id}`, bron: AFGELEID_BRON };
        else if (r.aantal !== null) {
          const t = pandType(r.pand_id, Number(r.aantal), r.enige, r.enige_aantal === null ? null : Number(r.enige_aantal));
          rij = { adres_id: r.id, woningtype: t.type, afgeleid_uit: t.uitleg, bron: AFGELEID_BRON };
        }
      }
      if (rij) {
        stat.typen[rij.woningtype] = (stat.typen[rij.woningtype] ?? 0) + 1;
        yield rij;
      } else {
        stat.onbepaald++;
        if (r.wt_bron === AFGELEID_BRON) weg.push(r.id);
      }
    }
    if (weg.length) {
      stat.verwijderd += Number(await prisma.$executeRawUnsafe(`DELETE FROM woningtype WHERE adres_id = ANY($1::text[]) AND bron = $2`, weg, AFGELEID_BRON));
    }
    if (rijen.length < adresPagina) {
      await prisma.$executeRawUnsafe(`DELETE FROM woonpand`);
      return;
    }
    na = rijen[rijen.length - 1].id;
  }
}

export function legeStatistiek(): WoningtypeStatistiek {
  return { typen: {}, onbepaald: 0, geimporteerdBehouden: 0, pandenMetFootprint: 0, verwijderd: 0 };
}

export async function leidWoningtypenAf(db: WoningtypeDb, opts: AfleidOpties & { batchGrootte?: number } = {}): Promise<WoningtypeStatistiek & UpsertTelling> {
  const stat = legeStatistiek();
  const telling: UpsertTelling = { ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 0 };
  const grootte = opts.batchGrootte ?? 5000;
  let batch: WoningtypeRij[] = [];
  const schrijf = async () => {
    const r = await upsertBatch(db.prisma, 'woningtype', batch as unknown as Record<string, unknown>[]);
    telling.ingevoegd += r.ingevoegd;
    telling.bijgewerkt += r.bijgewerkt;
    telling.ongewijzigd += r.ongewijzigd;
    batch = [];
  };
  for await (const rij of woningtypeRijen(db, stat, opts)) {
    batch.push(rij);
    if (batch.length >= grootte) await schrijf();
  }
  if (batch.length) await schrijf();
  return { ...stat, ...telling };
}
