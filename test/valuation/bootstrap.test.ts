import { describe, expect, it } from 'vitest';
import { apePerVerkoop, mdapeInterval, voorsprongInterval } from '../../src/domain/valuation/backtest/bootstrap.ts';
import type { BacktestPrediction } from '../../src/domain/valuation/backtest/index.ts';

const apes = (n: number, f = (i: number) => ((i * 7919) % n) / n / 5) => new Map(Array.from({ length: n }, (_, i) => [`v${i}`, f(i)]));

describe('bootstrap intervals of the backtest', () => {
  it('the MdAPE interval holds the median, narrows with more sales, and is the same on a rerun', () => {
    const klein = mdapeInterval(apes(100));
    const groot = mdapeInterval(apes(2_500));
    expect(klein.laag).toBeLessThanOrEqual(0.1);
    expect(klein.hoog).toBeGreaterThanOrEqual(0.1);
    expect(groot.laag).toBeLessThanOrEqual(0.1);
    expect(groot.hoog).toBeGreaterThanOrEqual(0.1);
    const breedte = (i: { laag: number; hoog: number }) => i.hoog - i.laag;
    expect(breedte(groot)).toBeLessThan(breedte(klein) / 3);
    expect(mdapeInterval(apes(100))).toEqual(klein);
  });

  it('pairs the sales: a model 10 % better on every sale leads by exactly 10 %, however noisy the sales', () => {
    const ref = apes(500, (i) => ((i * 7919) % 500) / 500);
    const model = new Map([...ref].map(([id, a]) => [id, a * 0.9]));
    const v = voorsprongInterval(model, ref);
    expect(v.gepaard).toBe(500);
    expect(v.laag).toBeCloseTo(0.1, 12);
    expect(v.hoog).toBeCloseTo(0.1, 12);
  });

  it('compares only the sales both valued; a refusal has no error', () => {
    const p = (id: string, prijs: number, marktwaarde: number | null): BacktestPrediction =>
      ({ id, datum: '2024-01-01', prijs, woningtype: null, uitkomst: marktwaarde === null ? { soort: 'weigering', reden: 'x' } : { soort: 'waarde', marktwaarde } }) as unknown as BacktestPrediction;
    const model = apePerVerkoop([p('a', 100, 110), p('b', 100, 95), p('c', 100, null)]);
    expect([...model]).toEqual([
      ['a', expect.closeTo(0.1, 12)],
      ['b', expect.closeTo(0.05, 12)],
    ]);
    const ref = apePerVerkoop([p('a', 100, 120), p('b', 100, null), p('c', 100, 90)]);
    expect(voorsprongInterval(model, ref).gepaard).toBe(1);
  });
});
