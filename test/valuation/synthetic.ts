/**
 * Seeded synthetic sales with a known data-generating process (towns with their own price level,
 * a centre premium, a size elasticity, a monthly price trend and log-normal noise), used by the
 * unit tests and by bench/valuation.ts. Not realistic in detail; realistic in shape and density.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { SaleRecord } from '../../src/domain/valuation/types.ts';

export interface SyntheticOptions {
  n: number;
  seed?: number;
  towns?: number;
  /** First sale month 'YYYY-MM' and number of months covered. */
  start?: string;
  months?: number;
  /** Monthly log price growth. */
  trend?: number;
  /** Size elasticity of the generating process. */
  beta?: number;
  /** Log-normal noise sigma of individual prices. */
  noise?: number;
}

export interface SyntheticData {
  sales: SaleRecord[];
  /** True log level of month i relative to the start. */
  monthLevel: (month: number) => number;
}

/** Seeded uniform [0, 1) and standard-normal draws. */
export function randomSource(seed: number): { u: () => number; normal: () => number } {
  const rng = xoroshiro128plus(seed);
  const u = () => uniformFloat64(rng);
  const normal = () => {
    const a = u() || 1e-12;
    return Math.sqrt(-2 * Math.log(a)) * Math.cos(2 * Math.PI * u());
  };
  return { u, normal };
}

const TYPES = ['vrijstaand', 'twee-onder-een-kap', 'hoekwoning', 'tussenwoning'] as const;
const TYPE_EFFECT = [0.15, 0.07, 0, -0.03];
const LABELS = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];

/** Generate `n` sales over the Netherlands' bounding box. */
export function syntheticSales(o: SyntheticOptions): SyntheticData {
  const { u, normal } = randomSource(o.seed ?? 1);
  const towns = o.towns ?? 40;
  const months = o.months ?? 60;
  const [y0, m0] = (o.start ?? '2020-01').split('-').map(Number);
  const trend = o.trend ?? 0.006;
  const beta = o.beta ?? 0.8;
  const noise = o.noise ?? 0.1;
  const monthLevel = (m: number) => trend * m + 0.02 * Math.sin((2 * Math.PI * m) / 12);
  const town = Array.from({ length: towns }, () => ({
    lat: 51.5 + 1.7 * u(),
    lon: 4.2 + 2.6 * u(),
    radiusKm: 1 + 5 * u() ** 2,
    weight: 0.2 + u() ** 3 * 10,
    level: Math.log(3500) + 0.35 * normal(),
  }));
  const totalWeight = town.reduce((s, t) => s + t.weight, 0);
  const sales: SaleRecord[] = new Array(o.n);
  for (let i = 0; i < o.n; i++) {
    let pick = u() * totalWeight;
    let t = town[0];
    for (const c of town) if ((pick -= c.weight) <= 0) {
      t = c;
      break;
    }
    const dxKm = normal() * t.radiusKm;
    const dyKm = normal() * t.radiusKm;
    const rKm = Math.hypot(dxKm, dyKm);
    const apartment = u() < 0.6 * Math.exp(-rKm / t.radiusKm);
    const typeIdx = Math.floor(u() * TYPES.length);
    const oppervlakte = Math.round(Math.exp((apartment ? Math.log(75) : Math.log(125)) + 0.3 * normal()));
    const bouwjaar = Math.round(1900 + 124 * u() ** 0.7);
    const label = bouwjaar > 2012 ? 'A' : LABELS[Math.min(6, Math.floor(u() * 7))];
    const month = Math.floor(u() * months);
    const day = 1 + Math.floor(u() * 28);
    const mm = m0 - 1 + month;
    const datum = `${y0 + Math.floor(mm / 12)}-${String((mm % 12) + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    const logPrice =
      t.level - 0.04 * rKm + beta * Math.log(oppervlakte) + (1 - beta) * Math.log(100) + (apartment ? -0.05 : TYPE_EFFECT[typeIdx]) + monthLevel(month) + noise * normal();
    sales[i] = {
      id: `S${i}`,
      datum,
      prijs: Math.round(Math.exp(logPrice) / 1000) * 1000,
      oppervlakte,
      perceel: apartment ? null : Math.round(oppervlakte * (1 + 3 * u())),
      bouwjaar,
      woningtype: apartment ? 'appartement' : TYPES[typeIdx],
      energielabel: label,
      lat: t.lat + dyKm / 110.574,
      lon: t.lon + dxKm / (111.32 * Math.cos((t.lat * Math.PI) / 180)),
      objectId: `O${i}`,
    };
  }
  return { sales, monthLevel };
}
