import { describe, expect, it } from 'vitest';
import { bandFor, conformalQuantile, fitBandGroups, fitCalibration, uncertaintyScore } from '../../src/domain/valuation/calibration.ts';
import type { CalibrationCase } from '../../src/domain/valuation/calibration.ts';
import type { RawEstimate } from '../../src/domain/valuation/comparables.ts';
import { fitLabelThresholds, labelFor, wilsonLower } from '../../src/domain/valuation/confidence.ts';
import { kansDecielen } from '../../src/domain/valuation/backtest/metrics.ts';
import { formatKansDecielen } from '../../src/cli/commands/backtest.ts';
import { randomSource } from './synthetic.ts';

function raw(spreiding: number): RawEstimate {
  return { logWaarde: Math.log(300_000), nComps: 20, nEff: 12, spreiding, afstand: 300, correctie: 0.05, straal: 500 };
}

/** Cases whose error scale is exactly the dispersion: the textbook heteroscedastic setting. */
function cases(n: number, seed: number): CalibrationCase[] {
  const { u, normal } = randomSource(seed);
  return Array.from({ length: n }, () => {
    const s = 0.03 + 0.15 * u();
    return { estimate: raw(s), logFout: s * normal() };
  });
}

describe('conformal quantile', () => {
  it('uses rank ceil((n+1)q) for the upper and floor((n+1)q) for the lower tail', () => {
    const v = Array.from({ length: 99 }, (_, i) => i + 1); // 1..99
    expect(conformalQuantile(v, 0.9)).toBe(90);
    expect(conformalQuantile(v, 0.1)).toBe(10);
    expect(conformalQuantile([1, 2, 3], 0.99)).toBe(3);
  });
});

describe('band calibration', () => {
  const cal = fitCalibration(cases(3000, 1));

  it('covers ~80 % of fresh cases, also within low and high dispersion', () => {
    const fresh = cases(4000, 2);
    const inBand = (c: CalibrationCase) => {
      const [lo, hi] = bandFor(cal, uncertaintyScore(cal, c.estimate));
      return c.logFout >= lo && c.logFout <= hi;
    };
    const share = (list: CalibrationCase[]) => list.filter(inBand).length / list.length;
    expect(share(fresh)).toBeGreaterThan(0.76);
    expect(share(fresh)).toBeLessThan(0.85);
    expect(share(fresh.filter((c) => c.estimate.spreiding < 0.08))).toBeGreaterThan(0.72);
    expect(share(fresh.filter((c) => c.estimate.spreiding > 0.13))).toBeGreaterThan(0.72);
  });

  it('widens with dispersion and always contains the estimate', () => {
    const [lo1, hi1] = bandFor(cal, uncertaintyScore(cal, raw(0.04)));
    const [lo2, hi2] = bandFor(cal, uncertaintyScore(cal, raw(0.17)));
    expect(hi2 - lo2).toBeGreaterThan(2 * (hi1 - lo1));
    for (const b of cal.buckets) {
      expect(b.laag).toBeLessThanOrEqual(0);
      expect(b.hoog).toBeGreaterThanOrEqual(0);
    }
  });

  it('normalised band: symmetric in log, so a centre that moves the other way next period still ~80 %', () => {
    // Calibration errors lean up by a third of their scale; the next period's lean down as much.
    const shifted = (n: number, seed: number, lean: number) => cases(n, seed).map((c) => ({ ...c, logFout: c.logFout + lean * c.estimate.spreiding }));
    const banded = fitBandGroups(cal, shifted(3000, 3, 0.33), () => 'normaal');
    const [lo, hi] = bandFor(banded, 0.1, 'normaal');
    expect(lo).toBeCloseTo(-hi, 12);
    const fresh = shifted(4000, 4, -0.33);
    const share = fresh.filter((c) => {
      const [l, h] = bandFor(banded, uncertaintyScore(banded, c.estimate), 'normaal');
      return c.logFout >= l && c.logFout <= h;
    }).length / fresh.length;
    expect(share).toBeGreaterThan(0.76);
    expect(share).toBeLessThan(0.84);
  });

  it('is not a fixed +-x %: the narrowest band is far narrower than the widest', () => {
    const widths = cal.buckets.map((b) => b.hoog - b.laag);
    expect(Math.max(...widths) / Math.min(...widths)).toBeGreaterThan(2);
  });
});

describe('confidence labels', () => {
  it('Wilson lower bound is below the observed share and tightens with n', () => {
    expect(wilsonLower(95, 100)).toBeLessThan(0.95);
    expect(wilsonLower(950, 1000)).toBeGreaterThan(wilsonLower(95, 100));
    expect(wilsonLower(0, 0)).toBe(0);
  });

  it("gives 'hoog' only to a score range that measured >= 90 % within 10 %", () => {
    const { u } = randomSource(4);
    // Scores below 1: always within 10 %; above 1: within 10 % half of the time; above 2: never within 20 %.
    const c = Array.from({ length: 2000 }, () => {
      const score = 3 * u();
      const fout = score < 1 ? 0.05 * u() : score < 2 ? (u() < 0.5 ? 0.05 : 0.15) : 0.3;
      return { score, fout };
    });
    const t = fitLabelThresholds(c);
    expect(t.hoog).toBeGreaterThan(0.9);
    expect(t.hoog).toBeLessThan(1.4);
    const hoog = c.filter((x) => labelFor(t, x.score) === 'hoog');
    expect(hoog.filter((x) => x.fout <= 0.1).length / hoog.length).toBeGreaterThanOrEqual(0.9);
    expect(labelFor(t, 2.8)).toBe('laag');
    expect(labelFor(t, 1.5)).toBe('normaal');
  });

  it("never says 'hoog' when no group reaches the bar, and only 'laag' without calibration", () => {
    const c = Array.from({ length: 500 }, (_, i) => ({ score: i, fout: i % 4 === 0 ? 0.15 : 0.05 })); // 75 % within 10 %
    expect(fitLabelThresholds(c).hoog).toBe(-Infinity);
    expect(labelFor(null, 0)).toBe('laag');
  });
});

describe('the direction of "within 10 %"', () => {
  // kans_binnen_10_procent promises the price within 10 % of the estimate: |price / estimate − 1|.
  // A price 10.5 % above the estimate is outside (its |estimate / price − 1| is 9.5 %: inside the other way round);
  // a price 9.5 % below is inside (10.5 % the other way round).
  const boven = Math.log(1.105);
  const onder = Math.log(0.905);

  it('the band groups measure their shares in that direction', () => {
    const at = (logFout: number) => fitCalibration(Array.from({ length: 300 }, () => ({ estimate: raw(0.05), logFout })), { minScaleCases: 1000 }).buckets[0].pe10;
    expect(at(boven)).toBe(0);
    expect(at(onder)).toBe(1);
  });

  it('the backtest reliability table counts in that direction', () => {
    const rij = (prijs: number) => ({ id: String(prijs), datum: '2024-01-01', prijs, woningtype: null, uitkomst: { soort: 'waarde' as const, marktwaarde: 100_000, min: 80_000, max: 120_000, betrouwbaarheid: 'normaal' as const, nComps: 10, nEff: 8, spreiding: 0.1, kansBinnen10: 0.5, wozGebruikt: false } });
    expect(kansDecielen([rij(110_500)])[0].waargenomen).toBe(0);
    expect(kansDecielen([rij(90_500)])[0].waargenomen).toBe(1);
  });
});

describe('the reliability table separates miscalibration from sampling noise', () => {
  const rij = (i: number, prijs: number, kans: number) => ({ id: String(i), datum: '2024-01-01', prijs, woningtype: null, uitkomst: { soort: 'waarde' as const, marktwaarde: 100_000, min: 80_000, max: 120_000, betrouwbaarheid: 'normaal' as const, nComps: 10, nEff: 8, spreiding: 0.1, kansBinnen10: kans, wozGebruikt: false } });

  it("each decile's margin is the 95 % binomial range of its share around the prediction", () => {
    // 1,000 sales: each decile 100, predicted 0.5 → ± 1.96 · √(0.25 / 100) = ± 9.8 points.
    const d = kansDecielen(Array.from({ length: 1000 }, (_, i) => rij(i, i % 2 ? 100_000 : 150_000, 0.5)));
    expect(d.every((x) => x.n === 100 && Math.abs(x.marge - 0.098) < 1e-9)).toBe(true);
  });

  it('counts the deciles whose difference is larger than their margin', () => {
    // Predicted 0.9 everywhere; half the deciles really 0.9 within, half 0.5: those five are outside ± 5.9 points.
    const rijen = Array.from({ length: 1000 }, (_, i) => {
      const d = Math.floor(i / 100);
      const binnen = d % 2 ? i % 10 < 9 : i % 2 === 0;
      return rij(i, binnen ? 100_000 : 150_000, 0.9 + d * 1e-6);
    });
    const tekst = formatKansDecielen(kansDecielen(rijen));
    expect(tekst).toMatch(/steekproefmarge 95% \(±\)\s+(6\s+){9}6/);
    expect(tekst).toMatch(/buiten de marge: 5 van 10 decielen \(bij een juiste kans gemiddeld 0,5\)/);
    // A difference that rounds to nothing is 0, not -0.
    expect(tekst).toMatch(/verschil \(punten\)\s+(-40\s+0\s+){4}-40\s+0$/m);
  });
});

