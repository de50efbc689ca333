import { describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS, effectiveCount, kthSmallest, similarityWeight, weightedMad, weightedMedian } from '../../src/domain/valuation/weights.ts';

describe('weighted median', () => {
  it('equals the ordinary median for equal weights (odd and even counts)', () => {
    expect(weightedMedian([5, 1, 3], [1, 1, 1])).toBe(3);
    expect(weightedMedian([4, 1, 3, 2], [1, 1, 1, 1])).toBe(2.5);
  });

  it('follows the weight, not the count', () => {
    expect(weightedMedian([1, 2, 3, 100], [1, 1, 1, 10])).toBe(100);
    expect(weightedMedian([1, 2, 3, 100], [10, 1, 1, 1])).toBe(1);
    expect(weightedMedian([10, 20, 30], [0.2, 0.5, 0.3])).toBe(20);
  });

  it('is robust: one absurd comparable does not move it', () => {
    const base = weightedMedian([12.0, 12.1, 12.2, 12.3, 12.4], [1, 1, 1, 1, 1]);
    expect(weightedMedian([12.0, 12.1, 12.2, 12.3, 40], [1, 1, 1, 1, 1])).toBe(base);
  });

  it('gives what a plain stable sort gives, small sets (insertion sort) and large ones, ties included', () => {
    let zaad = 7;
    const rnd = () => ((zaad = (zaad * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const referentie = (v: number[], w: number[]) => {
      const o = v.map((_, i) => i).sort((i, j) => v[i] - v[j]);
      const half = w.reduce((a, b) => a + b, 0) / 2;
      let cum = 0;
      for (let k = 0; k < o.length; k++) {
        cum += w[o[k]];
        if (cum > half * (1 + 1e-12)) return v[o[k]];
        if (Math.abs(cum - half) <= half * 1e-12) {
          for (let j = k + 1; j < o.length; j++) if (w[o[j]] > 0) return (v[o[k]] + v[o[j]]) / 2;
          return v[o[k]];
        }
      }
      return v[o[o.length - 1]];
    };
    for (const n of [1, 2, 3, 7, 40, 64, 65, 200]) {
      for (let r = 0; r < 50; r++) {
        // Few distinct values and weights: many ties, and many exact half points.
        const v = Array.from({ length: n }, () => Math.floor(rnd() * 6));
        const w = Array.from({ length: n }, () => Math.floor(rnd() * 3));
        if (!w.some((x) => x > 0)) w[0] = 1;
        expect(weightedMedian(v, w)).toBe(referentie(v, w));
        const a = Float64Array.from(v);
        const k = Math.floor(rnd() * n);
        expect(kthSmallest(a, n, k)).toBe([...v].sort((x, y) => x - y)[k]);
      }
    }
  });

  it('uses only the first n values and ignores zero-weight neighbours at the half point', () => {
    expect(weightedMedian([1, 2, 99, 99], [1, 1, 5, 5], 2)).toBe(1.5);
    expect(weightedMedian([1, 2, 3], [1, 0, 1])).toBe(2);
  });

  it('weighted MAD measures spread around the centre', () => {
    const v = [10, 11, 12, 13, 14];
    expect(weightedMad(v, [1, 1, 1, 1, 1], 12, 5, new Float64Array(5))).toBe(1);
  });
});

describe('n_eff', () => {
  it('is n for equal weights and ~1 when one weight dominates', () => {
    expect(effectiveCount([2, 2, 2, 2])).toBeCloseTo(4, 12);
    expect(effectiveCount([1, 1e-6, 1e-6])).toBeCloseTo(1, 4);
    expect(effectiveCount([1, 1, 0, 0])).toBeCloseTo(2, 12);
    expect(effectiveCount([])).toBe(0);
  });

  it('equals (sum w)^2 / sum w^2', () => {
    const w = [0.5, 1, 2];
    expect(effectiveCount(w)).toBeCloseTo(3.5 ** 2 / 5.25, 12);
  });
});

describe('similarity weight', () => {
  const p = DEFAULT_WEIGHTS;
  it('is 1 for a perfect match and falls with each difference', () => {
    const perfect = similarityWeight(p, 0, 200, 0, 0, 0, 0);
    expect(perfect).toBe(1);
    expect(similarityWeight(p, 400, 200, 0, 0, 0, 0)).toBeLessThan(perfect);
    expect(similarityWeight(p, 0, 200, 0.3, 0, 0, 0)).toBeLessThan(perfect);
    expect(similarityWeight(p, 0, 200, 0, 30, 0, 0)).toBeLessThan(perfect);
    expect(similarityWeight(p, 0, 200, 0, 0, 24, 0)).toBeLessThan(perfect);
    expect(similarityWeight(p, 0, 200, 0, 0, 0, 0.3)).toBeLessThan(perfect);
  });

  it('ignores an unknown build-year difference instead of punishing it', () => {
    expect(similarityWeight(p, 100, 200, 0.1, NaN, 6, 0.05)).toBe(similarityWeight(p, 100, 200, 0.1, 0, 6, 0.05));
  });
});
