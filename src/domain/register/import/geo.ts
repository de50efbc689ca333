/** RD New → WGS84 with proj4's 7-parameter Helmert (about a metre; the cm-exact RDNAPTRANS grid is not shipped). */
import proj4 from 'proj4';
import wkx from 'wkx';
import type { MultiPolygon, Polygon, Position } from 'geojson';

export const RD_NEW =
  '+proj=sterea +lat_0=52.15616055555555 +lon_0=5.38763888888889 +k=0.9999079 +x_0=155000 +y_0=463000 +ellps=bessel ' +
  '+towgs84=565.417,50.3319,465.552,-0.398957,0.343988,-1.8774,4.0725 +units=m +no_defs';

proj4.defs('EPSG:28992', RD_NEW);
const rdNaarWgs = proj4('EPSG:28992', 'EPSG:4326');

/** 1e-7 degree is about 1 cm. */
const GRAAD = 1e7;
const rond = (v: number, f: number) => Math.round(v * f) / f;

export function rdNaarLonLat(x: number, y: number): [number, number] {
  const [lon, lat] = rdNaarWgs.forward([x, y]);
  return [rond(lon, GRAAD), rond(lat, GRAAD)];
}

export function lonLatNaarRd(lon: number, lat: number): [number, number] {
  const [x, y] = rdNaarWgs.inverse([lon, lat]);
  return [x, y];
}

/** Territorial waters included. */
export function geldigRd(x: number, y: number): boolean {
  return Number.isFinite(x) && Number.isFinite(y) && x > -7000 && x < 300000 && y > 289000 && y < 629000;
}

export function geldigLonLat(lon: number, lat: number): boolean {
  return Number.isFinite(lon) && Number.isFinite(lat) && lon > 3.0 && lon < 7.5 && lat > 50.6 && lat < 53.8;
}

/** `dim` is srsDimension (2 or 3). */
export function leesPosList(tekst: string, dim: number): Position[] | null {
  const delen = tekst.trim().split(/\s+/);
  if (delen.length < 2 || delen.length % dim !== 0) return null;
  const uit: Position[] = [];
  for (let i = 0; i < delen.length; i += dim) {
    const x = Number(delen[i]);
    const y = Number(delen[i + 1]);
    if (!Number.isFinite(x) || !Number.isFinite(y)) return null;
    uit.push([x, y]);
  }
  return uit;
}

/** Falls back to the vertex mean for a degenerate ring. */
export function ringZwaartepunt(ring: readonly Position[]): { oppervlak: number; x: number; y: number } {
  let a = 0;
  let cx = 0;
  let cy = 0;
  const n = ring.length;
  // Shifted to the first vertex for numerical stability with RD coordinates (1e5 m).
  const [x0, y0] = ring[0];
  for (let i = 0; i < n - 1; i++) {
    const xi = ring[i][0] - x0;
    const yi = ring[i][1] - y0;
    const xj = ring[i + 1][0] - x0;
    const yj = ring[i + 1][1] - y0;
    const f = xi * yj - xj * yi;
    a += f;
    cx += (xi + xj) * f;
    cy += (yi + yj) * f;
  }
  a /= 2;
  if (Math.abs(a) < 1e-9) {
    let sx = 0;
    let sy = 0;
    for (const p of ring) {
      sx += p[0];
      sy += p[1];
    }
    return { oppervlak: 0, x: sx / n, y: sy / n };
  }
  return { oppervlak: a, x: x0 + cx / (6 * a), y: y0 + cy / (6 * a) };
}

export function zwaartepunt(polygonen: readonly (readonly Position[][])[]): { x: number; y: number } | null {
  let som = 0;
  let sx = 0;
  let sy = 0;
  for (const poly of polygonen) {
    poly.forEach((ring, i) => {
      if (ring.length < 3) return;
      const z = ringZwaartepunt(ring);
      const opp = i === 0 ? Math.abs(z.oppervlak) : -Math.abs(z.oppervlak);
      som += opp;
      sx += z.x * opp;
      sy += z.y * opp;
    });
  }
  if (som !== 0) return { x: sx / som, y: sy / som };
  const eerste = polygonen[0]?.[0];
  if (!eerste?.length) return null;
  const z = ringZwaartepunt(eerste);
  return { x: z.x, y: z.y };
}

export function rdPolygonenNaarGeoJson(polygonen: readonly (readonly Position[][])[]): Polygon | MultiPolygon {
  const omgezet = polygonen.map((p) => p.map((ring) => ring.map(([x, y]) => rdNaarLonLat(x, y))));
  return omgezet.length === 1 ? { type: 'Polygon', coordinates: omgezet[0] } : { type: 'MultiPolygon', coordinates: omgezet };
}

export type GpkgGeometrie =
  | { type: 'punt'; x: number; y: number }
  | { type: 'vlak'; polygonen: Position[][][] }
  | { type: 'leeg' };

/** "GP", version, flags (bit 0 byte order, bits 1-3 envelope kind, bit 4 empty), srs_id, envelope, WKB. */
export function leesGpkgGeometrie(blob: Uint8Array | null | undefined): GpkgGeometrie | null {
  if (!blob || blob.length < 8) return null;
  const buf = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (buf[0] !== 0x47 || buf[1] !== 0x50) return null; // "GP"
  const flags = buf[3];
  if (flags & 0b10000) return { type: 'leeg' };
  const env = (flags >> 1) & 0b111;
  const envBytes = [0, 32, 48, 48, 64][env];
  if (envBytes === undefined) return null;
  const wkb = buf.subarray(8 + envBytes);
  let g: wkx.Geometry;
  try {
    g = wkx.Geometry.parse(wkb);
  } catch {
    return null;
  }
  const json = g.toGeoJSON() as { type: string; coordinates: unknown };
  const xy = (p: number[]): Position => [p[0], p[1]];
  switch (json.type) {
    case 'Point': {
      const c = json.coordinates as number[];
      return { type: 'punt', x: c[0], y: c[1] };
    }
    case 'MultiPoint': {
      const c = (json.coordinates as number[][])[0];
      return c ? { type: 'punt', x: c[0], y: c[1] } : { type: 'leeg' };
    }
    case 'Polygon':
      return { type: 'vlak', polygonen: [(json.coordinates as number[][][]).map((r) => r.map(xy))] };
    case 'MultiPolygon':
      return { type: 'vlak', polygonen: (json.coordinates as number[][][][]).map((p) => p.map((r) => r.map(xy))) };
    default:
      return null;
  }
}

function binnenVlak(polygonen: readonly (readonly Position[][])[], [px, py]: Position): boolean {
  let binnen = false;
  for (const poly of polygonen) {
    for (const ring of poly) {
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i];
        const [xj, yj] = ring[j];
        if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) binnen = !binnen;
      }
    }
  }
  return binnen;
}

export interface PandKandidaat {
  id: string;
  binnen: boolean;
  oppervlak: number;
}

/** A footprint (null: none) scored for an object at `punt`, both in one coordinate system. */
export function pandKandidaat(id: string, polygonen: readonly (readonly Position[][])[] | null, punt: Position | null): PandKandidaat {
  if (!polygonen?.length) return { id, binnen: false, oppervlak: -1 };
  const oppervlak = polygonen.reduce((s, p) => p.reduce((t, ring, i) => t + (i === 0 ? 1 : -1) * Math.abs(ringZwaartepunt(ring).oppervlak), s), 0);
  return { id, binnen: punt !== null && binnenVlak(polygonen, punt), oppervlak };
}

/** A verblijfsobject in several panden belongs to the one holding its point, else the largest, else the lowest id. */
export function beterPand(a: PandKandidaat, b: PandKandidaat | undefined): boolean {
  if (!b) return true;
  if (a.binnen !== b.binnen) return a.binnen;
  if (a.oppervlak !== b.oppervlak) return a.oppervlak > b.oppervlak;
  return a.id < b.id;
}

export function geoJsonPolygonen(g: Polygon | MultiPolygon): Position[][][] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}
