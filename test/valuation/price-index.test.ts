import { describe, expect, it } from 'vitest';
import { dayNumber, monthNumber, monthPosition } from '../../src/domain/valuation/dates.ts';
import { fitHedonic } from '../../src/domain/valuation/hedonic.ts';
import { nationalIndexFromFit } from '../../src/domain/valuation/index-estimation.ts';
import { whittaker } from '../../src/domain/valuation/linalg.ts';
import { logIndexAt, logIndexFromPoints, timeAdjustment } from '../../src/domain/valuation/price-index.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import { syntheticSales } from './synthetic.ts';

describe('published index (application)', () => {
  const points = [
    { periode: '2020-01', index: 100 },
    { periode: '2020-03', index: 121 },
    { periode: '2020-04', index: 110 },
  ];

  it('interpolates missing months in log space', () => {
    const idx = logIndexFromPoints(points)!;
    expect(idx.firstMonth).toBe(monthNumber('2020-01'));
    expect(idx.values.length).toBe(4);
    expect(Math.exp(idx.values[1])).toBeCloseTo(110, 6); // geometric midpoint of 100 and 121
  });

  it('drops months on/after the cut-off (what was not yet published)', () => {
    const idx = logIndexFromPoints(points, monthNumber('2020-04'))!;
    expect(idx.values.length).toBe(3);
    expect(logIndexFromPoints(points, monthNumber('2020-02'))).toBeNull();
  });

  it('is exact at month midpoints, linear between them and flat beyond the ends', () => {
    const idx = logIndexFromPoints(points)!;
    const m = monthNumber('2020-03');
    expect(logIndexAt(idx, m)).toBeCloseTo(Math.log(121), 12);
    expect(logIndexAt(idx, m + 0.5)).toBeCloseTo((Math.log(121) + Math.log(110)) / 2, 12);
    expect(logIndexAt(idx, m + 10)).toBeCloseTo(Math.log(110), 12);
    expect(logIndexAt(idx, m - 10)).toBeCloseTo(Math.log(100), 12);
  });

  it('time adjustment brings a sale to the peildatum level', () => {
    const idx = logIndexFromPoints(points)!;
    const sale = dayNumber('2020-01-16');
    const peil = dayNumber('2020-03-16');
    expect(monthPosition(sale)).toBeCloseTo(monthNumber('2020-01'), 1);
    // A sale of 100k in mid-January is worth ~121k in mid-March.
    expect(100_000 * Math.exp(timeAdjustment(idx, sale, peil))).toBeCloseTo(121_000, -3);
    expect(timeAdjustment(idx, peil, sale)).toBeCloseTo(-timeAdjustment(idx, sale, peil), 12);
  });
});

describe('estimated index (hedonic time dummies)', () => {
  it('recovers the generating monthly trend from the sales themselves', () => {
    const { sales, monthLevel } = syntheticSales({ n: 20_000, seed: 11, months: 36, trend: 0.01 });
    const t = buildSalesTable(sales);
    const rows = Int32Array.from({ length: t.n }, (_, i) => i);
    const fit = fitHedonic(t, rows, { cellSize: 1000, estimateMonths: true, minSegmentSales: 100, maxIterations: 300 });
    const idx = nationalIndexFromFit(fit, 0.3);
    const start = monthNumber('2020-01');
    for (const m of [6, 18, 30]) {
      const est = logIndexAt(idx, start + m) - logIndexAt(idx, start);
      const truth = monthLevel(m) - monthLevel(0);
      expect(Math.abs(est - truth)).toBeLessThan(0.015);
    }
  });

  it('smoother interpolates months without sales and follows well-populated ones', () => {
    const d = [0, 0.01, 0, 0.03, 0.04];
    const w = [100, 100, 0, 100, 100];
    const z = whittaker(d, w, 0.01);
    expect(z[0]).toBeCloseTo(0, 2);
    expect(z[4]).toBeCloseTo(0.04, 2);
    expect(z[2]).toBeGreaterThan(0.01);
    expect(z[2]).toBeLessThan(0.03);
  });
});
