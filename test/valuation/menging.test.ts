import { describe, expect, it } from 'vitest';
import { kiesCorrectieGewicht, kiesMengGewicht, kiesUitFolds } from '../../src/domain/valuation/model.ts';
import type { FoldPrediction } from '../../src/domain/valuation/model.ts';
import { randomSource } from './synthetic.ts';

/**
 * Fold valuations of one segment: the truth y, the comparables c0, the second stage c and the
 * learner alone l, each the truth plus its own independent normal error (log scale).
 */
function folds(seg: number, perFold: number, sd: { c0: number; c: number; l: number }, seed: number): FoldPrediction[] {
  const rnd = randomSource(seed);
  const out: FoldPrediction[] = [];
  for (let fold = 0; fold < 5; fold++) {
    for (let i = 0; i < perFold; i++) {
      const y = 12 + 0.3 * rnd.normal();
      out.push({ seg, fold, y, c0: y + sd.c0 * rnd.normal(), c: y + sd.c * rnd.normal(), l: y + sd.l * rnd.normal() });
    }
  }
  return out;
}

const perFold = (p: readonly FoldPrediction[]) => [0, 1, 2, 3, 4].map((k) => p.filter((x) => x.fold === k));
const mae = (p: readonly FoldPrediction[], v: number) => p.reduce((a, x) => a + Math.abs(x.y - ((1 - v) * x.c + v * x.l)), 0) / p.length;

describe('the learner mix and the per-segment fallback, chosen on rolling time folds', () => {
  it('mixes in a learner as good as the stage with independent errors (about half), and never one that is pure noise', () => {
    const gelijk = folds(0, 400, { c0: 0.1, c: 0.08, l: 0.08 }, 1);
    const v = kiesMengGewicht(gelijk, perFold(gelijk));
    expect(v).toBeGreaterThanOrEqual(0.3);
    expect(v).toBeLessThanOrEqual(0.7);
    const ruis = folds(0, 400, { c0: 0.1, c: 0.08, l: 0.5 }, 2);
    expect(kiesMengGewicht(ruis, perFold(ruis))).toBe(0);
  });

  it('takes a smaller weight than the folds\' best where the rows cannot tell it apart (one standard error), the best where they can', () => {
    // A learner a little worse than the stage: the best weight is well above 0, but on 40 rows a
    // fold the gain over a smaller weight is within the noise.
    const weinig = folds(0, 40, { c0: 0.1, c: 0.08, l: 0.1 }, 3);
    const best = [...Array(21).keys()].map((i) => i / 20).reduce((b, v) => (mae(weinig, v) < mae(weinig, b) ? v : b), 0);
    expect(best).toBeGreaterThan(0.2);
    expect(kiesMengGewicht(weinig, perFold(weinig))).toBeLessThan(best);
    // The same errors on 4,000 rows a fold: the weight lands near the best.
    const veel = folds(0, 4000, { c0: 0.1, c: 0.08, l: 0.1 }, 4);
    const bestVeel = [...Array(21).keys()].map((i) => i / 20).reduce((b, v) => (mae(veel, v) < mae(veel, b) ? v : b), 0);
    expect(Math.abs(kiesMengGewicht(veel, perFold(veel)) - bestVeel)).toBeLessThanOrEqual(0.1 + 1e-9);
  });

  it('falls back to the comparables (+ WOZ) in a segment where the second stage did not beat them, and where it has too few fold valuations', () => {
    const huizen = folds(0, 300, { c0: 0.1, c: 0.07, l: 0.09 }, 5);
    const appartementen = folds(1, 300, { c0: 0.06, c: 0.1, l: 0.12 }, 6);
    const keuze = kiesUitFolds([...huizen, ...appartementen], true);
    expect(keuze.tweede).toEqual([true, false]);
    expect(keuze.v[0]).toBeGreaterThan(0);
    const weinig = kiesUitFolds([...huizen, ...folds(1, 10, { c0: 0.1, c: 0.05, l: 0.05 }, 7)], true);
    expect(weinig.tweede).toEqual([true, false]);
    // Without a learner alone no weight is given, and the stage still answers where it wins.
    expect(kiesUitFolds(huizen, false)).toEqual({ v: [0, 0], tweede: [true, false] });
  });

  it('weighs the second stage\'s correction by what it earned on the folds: about 1 where it predicts the comparables\' error, 0 where it is noise, more than 1 where it is shrunk', () => {
    const rnd = randomSource(8);
    const preds: FoldPrediction[] = [];
    const error: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const y = 12 + 0.3 * rnd.normal();
      const e = 0.1 * rnd.normal();
      preds.push({ seg: 0, fold: i % 5, y, c0: y + e, c: y + e, l: y });
      error.push(e);
    }
    const raak = error.map((e) => -e + 0.02 * rnd.normal());
    expect(Math.abs(kiesCorrectieGewicht(preds, raak) - 1)).toBeLessThanOrEqual(0.1 + 1e-9);
    const ruis = error.map(() => 0.1 * rnd.normal());
    expect(kiesCorrectieGewicht(preds, ruis)).toBe(0);
    const gekrompen = error.map((e) => -0.8 * e + 0.02 * rnd.normal());
    expect(kiesCorrectieGewicht(preds, gekrompen)).toBeGreaterThan(1.1);
  });
});
