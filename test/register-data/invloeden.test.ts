import pointToLineDistance from '@turf/point-to-line-distance';
import pointToPolygonDistance from '@turf/point-to-polygon-distance';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { Geometry, LineString, Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import {
  AARDSTRAAL_M,
  INVLOED_DREMPELS,
  InvloedIndex,
  type InvloedFeature,
  KERN_INVLOED_TYPES,
  afstandTotFeature,
  bepaalIndicator,
  computeInvloeden,
} from '../../src/domain/register/invloeden.ts';
import { Rng } from '../../src/domain/register/demo/rng.ts';

/** Point `m` metres north of (lon, lat) on turf's sphere. */
const noord = (lon: number, lat: number, m: number): [number, number] => [lon, lat + ((m / AARDSTRAAL_M) * 180) / Math.PI];

const lijn: InvloedFeature = { id: 'l1', type: 'hoogspanning', naam: 'Proeflijn', geometrie: { type: 'LineString', coordinates: [[5.0, 52.0], [5.2, 52.0]] } };
/** A line along a meridian ending at (5.1, 52.0): a point due north of the end is exactly m metres away. */
const meridiaan: InvloedFeature = { id: 'l0', type: 'hoogspanning', naam: 'Proeflijn', geometrie: { type: 'LineString', coordinates: [[5.1, 51.9], [5.1, 52.0]] } };
/** A triangle pointing north with its apex at (5.05, 52.2). */
const punt: InvloedFeature = {
  id: 'n0',
  type: 'natura2000',
  naam: 'Proefveen',
  geometrie: { type: 'Polygon', coordinates: [[[5.0, 52.1], [5.1, 52.1], [5.05, 52.2], [5.0, 52.1]]] },
};
const gebied: InvloedFeature = {
  id: 'n1',
  type: 'natura2000',
  naam: 'Proefveen',
  geometrie: {
    type: 'Polygon',
    coordinates: [
      [[5.0, 52.1], [5.1, 52.1], [5.1, 52.2], [5.0, 52.2], [5.0, 52.1]],
      [[5.04, 52.14], [5.04, 52.16], [5.06, 52.16], [5.06, 52.14], [5.04, 52.14]],
    ],
  },
};

/** turf's distance in metres, 0 inside. */
function turfAfstand(g: Geometry, p: Position): number {
  if (g.type === 'LineString') return pointToLineDistance(p, g, { units: 'meters' });
  if (g.type === 'Polygon' || g.type === 'MultiPolygon') return booleanPointInPolygon(p, g) ? 0 : Math.abs(pointToPolygonDistance(p, g, { units: 'meters' }));
  throw new Error(g.type);
}

describe('influence thresholds', () => {
  it('has one documented table with the core types', () => {
    expect(KERN_INVLOED_TYPES).toEqual(['natura2000', 'hoogspanning']);
    expect(INVLOED_DREMPELS.natura2000).toMatchObject({ binnen: 'rood', roodTotM: 0, oranjeTotM: 250 });
    expect(INVLOED_DREMPELS.hoogspanning).toMatchObject({ binnen: null, roodTotM: 50, oranjeTotM: 250 });
    expect(INVLOED_DREMPELS.hoogspanning.basis).toMatch(/RIVM/);
  });

  it('hoogspanning: < 50 m rood, < 250 m oranje, else groen (whole metres)', () => {
    const idx = new InvloedIndex([meridiaan]);
    const at = (m: number) => idx.beoordeel('hoogspanning', ...noord(5.1, 52.0, m))!;
    expect(at(0)).toMatchObject({ indicator: 'rood', afstandM: 0 });
    expect(at(49.2)).toMatchObject({ indicator: 'rood', afstandM: 49 });
    expect(at(50.2)).toMatchObject({ indicator: 'oranje', afstandM: 50 });
    expect(at(249.3)).toMatchObject({ indicator: 'oranje', afstandM: 249 });
    expect(at(250.2)).toMatchObject({ indicator: 'groen', afstandM: 250 });
    expect(at(35).omschrijving).toBe('Bovengrondse hoogspanningslijn ‘Proeflijn’ op 35 m: binnen 50 m, onze benadering van de specifieke magneetveldzone uit het RIVM-advies.');
    expect(at(1234.4).omschrijving).toBe('De dichtstbijzijnde bovengrondse hoogspanningslijn ‘Proeflijn’ ligt op 1.234 m, verder dan 250 m.');
  });

  it('natura2000: inside = 0 m rood, in a hole it is outside, < 250 m oranje, else groen', () => {
    const idx = new InvloedIndex([gebied]);
    expect(idx.beoordeel('natura2000', 5.02, 52.12)).toMatchObject({ indicator: 'rood', afstandM: 0, binnen: true, omschrijving: 'Het adres ligt binnen Natura 2000-gebied ‘Proefveen’.' });
    const gat = idx.beoordeel('natura2000', 5.05, 52.15)!;
    expect(gat.binnen).toBe(false);
    expect(gat.afstandM).toBeGreaterThan(600);
    expect(gat.indicator).toBe('groen');
    const top = new InvloedIndex([punt]);
    expect(top.beoordeel('natura2000', ...noord(5.05, 52.2, 120))).toMatchObject({ indicator: 'oranje', afstandM: 120 });
    expect(top.beoordeel('natura2000', ...noord(5.05, 52.2, 120))!.omschrijving).toBe('Het adres ligt op 120 m van Natura 2000-gebied ‘Proefveen’ (binnen 250 m).');
    expect(top.beoordeel('natura2000', ...noord(5.05, 52.2, 249.4))).toMatchObject({ indicator: 'oranje', afstandM: 249 });
    expect(top.beoordeel('natura2000', ...noord(5.05, 52.2, 250.4))).toMatchObject({ indicator: 'groen', afstandM: 250 });
    expect(top.beoordeel('natura2000', ...noord(5.05, 52.2, 0.3))).toMatchObject({ indicator: 'rood', afstandM: 0, binnen: true });
    expect(bepaalIndicator('geluid', 0, true)).toBe('rood');
    expect(bepaalIndicator('onbekend-type', 99, false)).toBe('oranje');
  });

  it('distances agree with turf within a metre (lines, polygons with holes, multipolygons)', () => {
    const rng = new Rng(7);
    const feats: InvloedFeature[] = [lijn, gebied];
    // A detailed polygon (> 32 segments, so it gets its own segment index) and a long line.
    const ring: Position[] = [];
    for (let i = 0; i < 90; i++) {
      const a = (i / 90) * 2 * Math.PI;
      const r = 0.05 * (1 + 0.2 * Math.sin(5 * a));
      ring.push([5.5 + r * Math.cos(a) * 1.6, 52.3 + r * Math.sin(a)]);
    }
    ring.push(ring[0]);
    feats.push({ id: 'n2', type: 'natura2000', geometrie: { type: 'Polygon', coordinates: [ring] } });
    const lang: Position[] = Array.from({ length: 60 }, (_, i) => [5.3 + i * 0.01, 52.4 + 0.02 * Math.sin(i / 4)]);
    feats.push({ id: 'l2', type: 'hoogspanning', geometrie: { type: 'LineString', coordinates: lang } });
    let max = 0;
    for (let k = 0; k < 400; k++) {
      const f = feats[k % feats.length];
      const p: [number, number] = [rng.tussen(4.95, 6.0), rng.tussen(51.95, 52.5)];
      const eigen = afstandTotFeature(f, p[0], p[1]);
      const turf = turfAfstand(f.geometrie, p);
      if (turf < 20_000) max = Math.max(max, Math.abs(eigen - turf));
      expect(Math.abs(eigen - turf)).toBeLessThan(Math.max(1, turf * 1e-6));
    }
    expect(max).toBeLessThan(1);
  });
});

/** Random features: polygons (some with holes and many vertices), multipolygons, lines and points. */
function willekeurigeFeatures(rng: Rng, n: number): InvloedFeature[] {
  const uit: InvloedFeature[] = [];
  for (let i = 0; i < n; i++) {
    const lon = rng.tussen(5.0, 5.6);
    const lat = rng.tussen(52.0, 52.4);
    const soort = rng.geheel(0, 3);
    let geometrie: Geometry;
    const veelhoek = (cx: number, cy: number, r: number, m: number): Position[] => {
      const pts: Position[] = [];
      for (let j = 0; j < m; j++) {
        const a = (j / m) * 2 * Math.PI;
        const rr = r * rng.tussen(0.7, 1.3);
        pts.push([cx + rr * Math.cos(a) * 1.6, cy + rr * Math.sin(a)]);
      }
      pts.push(pts[0]);
      return pts;
    };
    if (soort === 0) {
      const r = rng.tussen(0.002, 0.02);
      const ringen = [veelhoek(lon, lat, r, rng.geheel(4, 80))];
      if (rng.kans(0.3)) ringen.push(veelhoek(lon, lat, r * 0.3, 6).reverse());
      geometrie = { type: 'Polygon', coordinates: ringen };
    } else if (soort === 1) {
      geometrie = { type: 'MultiPolygon', coordinates: [[veelhoek(lon, lat, 0.005, 8)], [veelhoek(lon + 0.03, lat, 0.004, 40)]] };
    } else if (soort === 2) {
      const m = rng.geheel(2, 70);
      const pts: Position[] = [];
      let x = lon;
      let y = lat;
      for (let j = 0; j < m; j++) {
        pts.push([x, y]);
        x += rng.tussen(-0.01, 0.01);
        y += rng.tussen(-0.01, 0.01);
      }
      geometrie = { type: 'LineString', coordinates: pts };
    } else {
      geometrie = { type: 'Point', coordinates: [lon, lat] };
    }
    uit.push({ id: `f${i}`, type: rng.kans(0.5) ? 'natura2000' : 'hoogspanning', geometrie });
  }
  return uit;
}

describe('spatial index', () => {
  it('gives the same nearest distance as brute force over all features', () => {
    const rng = new Rng(42);
    const feats = willekeurigeFeatures(rng, 250);
    const idx = new InvloedIndex(feats);
    for (let k = 0; k < 500; k++) {
      const lon = rng.tussen(4.9, 5.7);
      const lat = rng.tussen(51.95, 52.45);
      for (const type of ['natura2000', 'hoogspanning']) {
        const brute = Math.min(...feats.filter((f) => f.type === type).map((f) => afstandTotFeature(f, lon, lat)));
        const d = idx.dichtstbij(type, lon, lat)!;
        expect(d.afstand).toBeCloseTo(brute < 0.5 && d.binnen ? 0 : brute, 6);
      }
    }
  });

  it('a detailed border (20,000 vertices) gives the brute-force distance, near and far', () => {
    const ring: Position[] = [];
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      const r = 0.1 * (1 + 0.1 * Math.sin(7 * a) + 0.03 * Math.sin(97 * a)) + 0.00005 * Math.sin(i * 1.7);
      ring.push([5.1 + r * Math.cos(a) * 1.6, 52.1 + r * Math.sin(a)]);
    }
    ring.push(ring[0]);
    const f: InvloedFeature = { id: 'g', type: 'natura2000', geometrie: { type: 'Polygon', coordinates: [ring] } };
    const idx = new InvloedIndex([f]);
    const rng = new Rng(11);
    for (let k = 0; k < 300; k++) {
      const lon = rng.tussen(4.0, 6.5);
      const lat = rng.tussen(51.5, 52.8);
      const d = idx.dichtstbij('natura2000', lon, lat)!;
      expect(d.afstand).toBeCloseTo(afstandTotFeature(f, lon, lat), 6);
    }
  });

  it('agrees with turf on random polygons for containment', () => {
    const rng = new Rng(3);
    const feats = willekeurigeFeatures(rng, 60).filter((f) => f.geometrie.type === 'Polygon' || f.geometrie.type === 'MultiPolygon');
    let binnen = 0;
    for (let k = 0; k < 3000; k++) {
      const f = feats[k % feats.length];
      const g = f.geometrie as Polygon;
      const [cx, cy] = g.type === 'Polygon' ? g.coordinates[0][0] : (f.geometrie as unknown as { coordinates: Position[][][] }).coordinates[0][0][0];
      const p: [number, number] = [cx + rng.tussen(-0.03, 0.03), cy + rng.tussen(-0.02, 0.02)];
      const turfBinnen = booleanPointInPolygon(p, g);
      const eigen = afstandTotFeature(f, p[0], p[1]) === 0;
      expect(eigen).toBe(turfBinnen);
      if (turfBinnen) binnen++;
    }
    expect(binnen).toBeGreaterThan(100);
  });

  it('computeInvloeden gives one row per address and type present, skipping addresses without coordinates', () => {
    const rows = computeInvloeden(
      [lijn, gebied],
      [
        { id: 'a', lon: 5.02, lat: 52.12 },
        { id: 'b', lon: 5.1, lat: 52.0003 },
        { id: 'c', lon: null, lat: null },
      ],
    );
    const turfM = (g: Geometry, p: Position) => Math.round(turfAfstand(g, p));
    expect(rows.map((r) => [r.adres_id, r.type, r.indicator, r.afstand_m])).toEqual([
      ['a', 'hoogspanning', 'groen', turfM(lijn.geometrie, [5.02, 52.12])],
      ['a', 'natura2000', 'rood', 0],
      // 33 m north of the parallel 52.0 but 29 m from the line: a great-circle segment bulges poleward.
      ['b', 'hoogspanning', 'rood', 29],
      ['b', 'natura2000', 'groen', turfM(gebied.geometrie, [5.1, 52.0003])],
    ]);
    expect(computeInvloeden([lijn], [{ id: 'a', lon: 5.02, lat: 52.12 }], { types: ['natura2000', 'hoogspanning'] }).map((r) => r.type)).toEqual(['hoogspanning']);
    const l = lijn.geometrie as LineString;
    expect(rows[0].afstand_m).toBe(Math.round(pointToLineDistance([5.02, 52.12], l, { units: 'meters' })));
  });
});
