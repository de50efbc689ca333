import { describe, expect, it } from 'vitest';
import { attributeAdjustment, DEFAULT_CAPS, defaultEffects, yearEffect } from '../../src/domain/valuation/adjustments.ts';
import { subjectAttributes } from '../../src/domain/valuation/comparables.ts';
import { fitHedonic } from '../../src/domain/valuation/hedonic.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import type { SaleRecord } from '../../src/domain/valuation/types.ts';
import { randomSource, syntheticSales } from './synthetic.ts';

describe('size adjustment', () => {
  const e = { ...defaultEffects(7, 9), opp: 0.6 };

  it('is (subject area / comparable area)^beta', () => {
    const s = subjectAttributes(e, Math.log(120), NaN, NaN, 0, 0);
    const adj = attributeAdjustment(e, DEFAULT_CAPS, s, Math.log(100), NaN, NaN, 0, 0);
    expect(Math.exp(adj)).toBeCloseTo((120 / 100) ** 0.6, 12);
    // A 300k comparable of 100 m2 says ~357k for a 120 m2 subject.
    expect(300_000 * Math.exp(adj)).toBeCloseTo(300_000 * 1.2 ** 0.6, 6);
  });

  it('leaves attributes unknown on either side out, and caps single corrections', () => {
    const withYear = { ...e, year: new Float64Array(e.year.length).fill(0) };
    withYear.year[0] = 1; // +1 log per decade: absurd on purpose
    const s = subjectAttributes(withYear, Math.log(100), NaN, 2000, 0, 0);
    expect(attributeAdjustment(withYear, DEFAULT_CAPS, s, Math.log(100), NaN, NaN, 0, 0)).toBe(0);
    expect(attributeAdjustment(withYear, DEFAULT_CAPS, s, Math.log(100), NaN, 1950, 0, 0)).toBeCloseTo(DEFAULT_CAPS.bouwjaar, 12);
    expect(yearEffect(withYear, 2000) - yearEffect(withYear, 1950)).toBeCloseTo(5, 12);
  });
});

describe('attribute effects estimated from the sales', () => {
  it('recovers the size elasticity of the generating process', () => {
    const { sales } = syntheticSales({ n: 15_000, seed: 5, beta: 0.65 });
    const t = buildSalesTable(sales);
    const fit = fitHedonic(t, Int32Array.from({ length: t.n }, (_, i) => i), { cellSize: 1000, estimateMonths: true, minSegmentSales: 100, maxIterations: 300 });
    expect(fit.effects[0].opp).toBeGreaterThan(0.6);
    expect(fit.effects[0].opp).toBeLessThan(0.7);
    expect(fit.effects[1].opp).toBeGreaterThan(0.58);
    expect(fit.effects[1].opp).toBeLessThan(0.72);
  });

  it('neighbourhood effects keep location out of beta (big houses in cheap areas)', () => {
    // Two neighbourhoods 5 km apart: the cheap one has the big houses. Within each, beta = 0.5.
    const { u, normal } = randomSource(9);
    const sales: SaleRecord[] = [];
    for (let i = 0; i < 4000; i++) {
      const cheap = i % 2 === 0;
      const opp = Math.exp((cheap ? Math.log(160) : Math.log(80)) + 0.2 * normal());
      const logP = (cheap ? Math.log(2000) : Math.log(6000)) + 0.5 * Math.log(opp) + 0.5 * Math.log(100) + 0.05 * normal();
      sales.push({ id: `x${i}`, datum: `2021-0${1 + (i % 9)}-15`, prijs: Math.exp(logP), oppervlakte: opp, perceel: null, bouwjaar: null, woningtype: 'tussenwoning', energielabel: null, lat: 52 + 0.002 * u(), lon: (cheap ? 5 : 5.07) + 0.002 * u() });
    }
    const t = buildSalesTable(sales);
    const fit = fitHedonic(t, Int32Array.from({ length: t.n }, (_, i) => i), { cellSize: 1000, estimateMonths: true, minSegmentSales: 100, maxIterations: 300 });
    expect(fit.effects[0].opp).toBeCloseTo(0.5, 1);
  });
});
