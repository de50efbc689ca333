/**
 * Seeded random numbers for the demo dataset (pure-rand xoroshiro128+). Every part of the
 * generator draws from its own stream (`stroom(seed, naam)`), so a change in one part (say, the
 * sales) does not shift the numbers of another (the layout).
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Generator = ReturnType<typeof xoroshiro128plus>;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private readonly g: Generator;
  private reserve: number | null = null;

  constructor(seed: number) {
    this.g = xoroshiro128plus(seed | 0);
  }

  next(): number {
    return uniformFloat64(this.g);
  }

  tussen(a: number, b: number): number {
    return a + (b - a) * this.next();
  }

  /** Whole number in [a, b] (both included). */
  geheel(a: number, b: number): number {
    return a + Math.floor(this.next() * (b - a + 1));
  }

  kans(p: number): boolean {
    return this.next() < p;
  }

  normaal(): number {
    if (this.reserve !== null) {
      const r = this.reserve;
      this.reserve = null;
      return r;
    }
    let u = 0;
    while (u <= 1e-12) u = this.next();
    const v = this.next();
    const m = Math.sqrt(-2 * Math.log(u));
    this.reserve = m * Math.sin(2 * Math.PI * v);
    return m * Math.cos(2 * Math.PI * v);
  }

  kies<T>(lijst: readonly T[]): T {
    return lijst[Math.floor(this.next() * lijst.length)];
  }

  /** Key drawn with probability proportional to its weight. */
  gewogen<K extends string>(gewichten: Readonly<Partial<Record<K, number>>>): K {
    const paren = Object.entries(gewichten) as [K, number][];
    const totaal = paren.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * totaal;
    for (const [k, w] of paren) {
      x -= w;
      if (x < 0) return k;
    }
    return paren[paren.length - 1][0];
  }
}

export function stroom(seed: number, naam: string): Rng {
  return new Rng((Math.imul(seed | 0, 0x9e3779b1) ^ fnv1a(naam)) | 0);
}
