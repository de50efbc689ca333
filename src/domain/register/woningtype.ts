/**
 * House type derived from the BAG where none is imported, after NLExtract's "Woningtype vaststellen per PND"
 * (Kadaster's Productbeschrijving Woningtypering): no woonfunctie → overig; a pand with several homes →
 * appartement; else by the residential panden it touches: shares a wall with (≥ 1 m of outline within
 * 0.30 m of theirs, alongside: BAG outlines are not exact; a corner is no wall) or overlaps. None →
 * vrijstaand, one that touches only this → twee-onder-een-kap, one that touches more → hoekwoning, two
 * or more → tussenwoning. Homes are distinct verblijfsobjecten, so a nevenadres stays a house.
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
/** Shorter is a corner: two walls meeting at a point share up to 2 × 0.3 m within the tolerance. */
export const MIN_WAND_M = 1;

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

  /** A shared wall: MIN_WAND_M of outline within tol of the other's, running alongside; or an overlap deeper than tol. */
  raakt(i: number, j: number, tol: number): boolean {
    return this.#wand(i, j, tol) >= MIN_WAND_M || this.#wand(j, i, tol) >= MIN_WAND_M || this.#diepIn(i, j, tol) || this.#diepIn(j, i, tol);
  }

  /** Length of i's outline within tol of a segment of j's at most 30° from parallel (a corner meets at most 2 tol). */
  #wand(i: number, j: number, tol: number): number {
    const xy = this.xy.buf;
    const rs = this.ringStart.buf;
    const pr = this.pandRing.buf;
    const bj = this.box.buf;
    const [x0, y0, x1, y1] = [bj[4 * j] - tol, bj[4 * j + 1] - tol, bj[4 * j + 2] + tol, bj[4 * j + 3] + tol];
    const t = this.#stukken;
    let lengte = 0;
    for (let ri = pr[i]; ri < pr[i + 1]; ri++) {
      for (let a = rs[ri]; a < rs[ri + 1] - 1; a++) {
        const ax = xy[2 * a];
        const ay = xy[2 * a + 1];
        const bx = xy[2 * a + 2];
        const by = xy[2 * a + 3];
        if (Math.max(ax, bx) < x0 || Math.min(ax, bx) > x1 || Math.max(ay, by) < y0 || Math.min(ay, by) > y1) continue;
        const l = Math.hypot(bx - ax, by - ay);
        t.length = 0;
        for (let rj = pr[j]; rj < pr[j + 1]; rj++) {
          for (let c = rs[rj]; c < rs[rj + 1] - 1; c++) {
            const cx = xy[2 * c];
            const cy = xy[2 * c + 1];
            const dx = xy[2 * c + 2];
            const dy = xy[2 * c + 3];
            if (Math.max(cx, dx) < Math.min(ax, bx) - tol || Math.min(cx, dx) > Math.max(ax, bx) + tol) continue;
            if (Math.max(cy, dy) < Math.min(ay, by) - tol || Math.min(cy, dy) > Math.max(ay, by) + tol) continue;
            if (Math.abs((bx - ax) * (dy - cy) - (by - ay) * (dx - cx)) > 0.5 * l * Math.hypot(dx - cx, dy - cy)) continue;
            const b = inBand(ax, ay, bx, by, cx, cy, dx, dy, tol);
            if (b) t.push(b[0], b[1]);
          }
        }
        lengte += l * vereniging(t);
        if (lengte >= MIN_WAND_M) return lengte;
      }
    }
    return lengte;
  }

  readonly #stukken: number[] = [];

  /** A vertex of i inside j (even-odd) and farther than tol from j's outline. */
  #diepIn(i: number, j: number, tol: number): boolean {
    const xy = this.xy.buf;
    const rs = this.ringStart.buf;
    const pr = this.pandRing.buf;
    const b = this.box.buf;
    for (let v = rs[pr[i]]; v < rs[pr[i + 1]]; v++) {
      const px = xy[2 * v];
      const py = xy[2 * v + 1];
      if (px <= b[4 * j] || py <= b[4 * j + 1] || px >= b[4 * j + 2] || py >= b[4 * j + 3] || !this.#binnen(v, j)) continue;
      let ver = true;
      for (let r = pr[j]; r < pr[j + 1] && ver; r++) {
        for (let c = rs[r]; c < rs[r + 1] - 1; c++) {
          if (puntSegment2(px, py, xy[2 * c], xy[2 * c + 1], xy[2 * c + 2], xy[2 * c + 3]) <= tol * tol) {
            ver = false;
            break;
          }
        }
      }
      if (ver) return true;
    }
    return false;
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

const band = new Float64Array(2);

/** AB's line through the disc around P: widens band. */
function schijf(ax: number, ay: number, ux: number, uy: number, px: number, py: number, r: number): void {
  const uu = ux * ux + uy * uy;
  const wx = ax - px;
  const wy = ay - py;
  const h = ux * wx + uy * wy;
  const D = h * h - uu * (wx * wx + wy * wy - r * r);
  if (D < 0) return;
  band[0] = Math.min(band[0], (-h - Math.sqrt(D)) / uu);
  band[1] = Math.max(band[1], (-h + Math.sqrt(D)) / uu);
}

/** [t0, t1]: AB's points within r of CD, one interval as the band around CD (two discs and a rectangle) is convex; overwritten by the next call. */
export function inBand(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number, r: number): Float64Array | null {
  const ux = bx - ax;
  const uy = by - ay;
  band[0] = Infinity;
  band[1] = -Infinity;
  if (ux === 0 && uy === 0) return null;
  schijf(ax, ay, ux, uy, cx, cy, r);
  schijf(ax, ay, ux, uy, dx, dy, r);
  const L = Math.hypot(dx - cx, dy - cy);
  if (L > 0) {
    const ex = (dx - cx) / L;
    const ey = (dy - cy) / L;
    const [t0, t1] = strook((ax - cx) * ex + (ay - cy) * ey, ux * ex + uy * ey, 0, L, -Infinity, Infinity);
    const [s0, s1] = strook((ax - cx) * ey - (ay - cy) * ex, ux * ey - uy * ex, -r, r, t0, t1);
    if (s0 <= s1) {
      band[0] = Math.min(band[0], s0);
      band[1] = Math.max(band[1], s1);
    }
  }
  band[0] = Math.max(band[0], 0);
  band[1] = Math.min(band[1], 1);
  return band[0] < band[1] ? band : null;
}

/** [t0, t1] narrowed to where lo <= p + t q <= hi. */
function strook(p: number, q: number, lo: number, hi: number, t0: number, t1: number): [number, number] {
  if (q === 0) return p < lo || p > hi ? [1, 0] : [t0, t1];
  const a = (lo - p) / q;
  const b = (hi - p) / q;
  return [Math.max(t0, Math.min(a, b)), Math.min(t1, Math.max(a, b))];
}

/** Total length of the union of the intervals [t[0], t[1]], [t[2], t[3]], ... (few: sorted in place). */
function vereniging(t: number[]): number {
  for (let k = 2; k < t.length; k += 2) {
    for (let m = k; m > 0 && t[m - 2] > t[m]; m -= 2) {
      [t[m - 2], t[m - 1], t[m], t[m + 1]] = [t[m], t[m + 1], t[m - 2], t[m - 1]];
    }
  }
  let som = 0;
  let eind = -Infinity;
  for (let k = 0; k < t.length; k += 2) {
    som += Math.max(0, t[k + 1] - Math.max(t[k], eind));
    eind = Math.max(eind, t[k + 1]);
  }
  return som;
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
