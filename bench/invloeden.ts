/**
 * Influence indicators: cost per address against the size of the border. One Natura 2000-like
 * polygon (a jagged ring of 400 to 400,000 vertices around Utrecht) and one high-voltage line;
 * 20,000 addresses spread over the Netherlands (most far from the border, some inside). Prints µs per
 * address and type, which should stay about the same from 400 to 400,000 vertices.
 *
 *   npm run bench:invloeden
 */
import type { Position } from 'geojson';
import { Rng } from '../src/domain/register/demo/rng.ts';
import { InvloedIndex, type InvloedFeature } from '../src/domain/register/invloeden.ts';

function gebied(n: number): InvloedFeature {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    // Jagged at every scale, as digitised borders are: wiggles of several frequencies, the finest about
    // as large as the distance between vertices.
    const r = 0.15 * (1 + 0.1 * Math.sin(7 * a) + 0.03 * Math.sin(97 * a)) + ((Math.PI * 0.15) / n) * Math.sin(i * 1.7);
    ring.push([5.12 + r * Math.cos(a) * 1.6, 52.09 + r * Math.sin(a)]);
  }
  ring.push(ring[0]);
  return { id: `n${n}`, type: 'natura2000', naam: 'Proefgebied', geometrie: { type: 'Polygon', coordinates: [ring] } };
}

const lijn: InvloedFeature = { id: 'h1', type: 'hoogspanning', naam: 'Proeflijn', geometrie: { type: 'LineString', coordinates: [[4.2, 51.5], [5.5, 52.3], [6.8, 53.2]] } };

const rng = new Rng(7);
const adressen = Array.from({ length: 20_000 }, () => [rng.tussen(3.4, 7.2), rng.tussen(50.8, 53.5)] as const);

console.log('hoekpunten   bouw ms   µs/adres natura2000   µs/adres hoogspanning   binnen');
for (const n of [400, 4_000, 40_000, 400_000]) {
  const t0 = performance.now();
  const index = new InvloedIndex([gebied(n), lijn]);
  const bouw = performance.now() - t0;
  const meet = (type: string) => {
    let binnen = 0;
    for (const [lon, lat] of adressen.slice(0, 2000)) index.beoordeel(type, lon, lat); // warm up
    const t = performance.now();
    for (const [lon, lat] of adressen) if (index.beoordeel(type, lon, lat)!.binnen) binnen++;
    return { us: ((performance.now() - t) * 1000) / adressen.length, binnen };
  };
  const n2k = meet('natura2000');
  const hs = meet('hoogspanning');
  console.log(`${String(n).padStart(10)}   ${bouw.toFixed(0).padStart(7)}   ${n2k.us.toFixed(1).padStart(19)}   ${hs.us.toFixed(1).padStart(21)}   ${n2k.binnen}`);
}
