import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/domain/valuation/backtest/index.ts';
import { DEFAULT_CORE_OPTIONS, fitCore } from '../../src/domain/valuation/core.ts';
import { dayNumber } from '../../src/domain/valuation/dates.ts';
import { fitGbdt, predictGbdt } from '../../src/domain/valuation/gbdt.ts';
import type { GbdtParams, Matrix } from '../../src/domain/valuation/gbdt.ts';
import { buildModel } from '../../src/domain/valuation/index.ts';
import type { SaleRecord, Waardering } from '../../src/domain/valuation/index.ts';
import { fitStage, locationScratch, locationStat } from '../../src/domain/valuation/learner.ts';
import type { StageRow } from '../../src/domain/valuation/learner.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import { codedRow } from './coded.ts';
import { randomSource, syntheticSales } from './synthetic.ts';

/** A known non-linear function of three features (one interaction, one step, one ignored). */
const truth = (a: number, b: number, c: number) => Math.sin(2 * a) + (b > 0.3 ? 0.8 : -0.2) + 0.5 * a * b + 0 * c;

function data(n: number, seed: number, noise: number): { m: Matrix; y: Float64Array; f: Float64Array } {
  const rnd = randomSource(seed);
  const x = new Float64Array(n * 3);
  const y = new Float64Array(n);
  const f = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = rnd.u() * 4 - 2;
    const b = rnd.u() * 2 - 1;
    const c = rnd.u();
    x.set([a, b, c], i * 3);
    f[i] = truth(a, b, c);
    y[i] = f[i] + noise * rnd.normal();
  }
  return { m: { rows: n, features: 3, x }, y, f };
}

/** The share of the noise-free target's variance the model leaves unexplained on `test`. */
function onverklaard(model: ReturnType<typeof fitGbdt>, test: { m: Matrix; f: Float64Array }): number {
  let se = 0;
  let sv = 0;
  const mean = test.f.reduce((s, v) => s + v, 0) / test.f.length;
  for (let i = 0; i < test.m.rows; i++) {
    se += (predictGbdt(model, test.m.x, i * test.m.features) - test.f[i]) ** 2;
    sv += (test.f[i] - mean) ** 2;
  }
  return se / sv;
}

describe('gradient-boosted trees', () => {
  it('recover a known function from noisy samples (early-stopped on a later set)', () => {
    const train = data(6000, 1, 0.2);
    const valid = data(1500, 2, 0.2);
    const test = data(2000, 3, 0);
    const model = fitGbdt(train.m, train.y, {}, valid.m, valid.y);
    expect(model.trees.length).toBeGreaterThan(20);
    // The noise-free target is explained to within a few percent of its variance.
    expect(onverklaard(model, test)).toBeLessThan(0.05);
  });

  it('with Huber loss stays close to the function where a few prices are wild', () => {
    // 8 % of the targets are off by +-1.5 (a sale to a relative, a wreck): squared loss chases them.
    const train = data(6000, 11, 0.1);
    const rnd = randomSource(12);
    for (let i = 0; i < train.y.length; i++) if (rnd.u() < 0.08) train.y[i] += rnd.u() < 0.5 ? 1.5 : -1.5;
    const valid = data(1500, 13, 0.1);
    const test = data(2000, 14, 0);
    const mae = (huberQuantile: number) => {
      const model = fitGbdt(train.m, train.y, { huberQuantile }, valid.m, valid.y);
      expect(model.huberQuantile).toBe(huberQuantile);
      let s = 0;
      for (let i = 0; i < test.m.rows; i++) s += Math.abs(predictGbdt(model, test.m.x, i * 3) - test.f[i]);
      return s / test.m.rows;
    };
    expect(mae(0.7)).toBeLessThan(0.8 * mae(1));
  });

  it('is deterministic and sends missing values down a fixed path', () => {
    const train = data(2000, 4, 0.1);
    const a = fitGbdt(train.m, train.y, { maxTrees: 50 });
    const b = fitGbdt(train.m, train.y, { maxTrees: 50 });
    const row = Float64Array.from([0.5, NaN, 0.2]);
    expect(predictGbdt(a, row)).toBe(predictGbdt(b, row));
    expect(Number.isFinite(predictGbdt(a, row))).toBe(true);
  });

  it('unconstrained, fit exactly as before the monotone constraints existed', () => {
    const train = data(2000, 4, 0.1);
    for (let i = 0; i < train.m.rows; i += 9) train.m.x[i * 3] = NaN;
    const sum = (params: Partial<GbdtParams>) => {
      const model = fitGbdt(train.m, train.y, { maxTrees: 60, huberQuantile: 0.9, ...params });
      let s = 0;
      for (let i = 0; i < train.m.rows; i++) s += predictGbdt(model, train.m.x, i * 3);
      return s;
    };
    // The sum the code before the constraints gave, to the bit.
    expect(sum({})).toBe(237.25369494924726);
    expect(sum({ monotone: [0, 0, 0] })).toBe(237.25369494924726);
  });

  it('with monotone constraints is monotone in those features, missing values included', () => {
    // sin(2a) + 0.5ab falls and rises in a and in b: the constraints have to bind.
    const train = data(4000, 21, 0.3);
    for (let i = 0; i < train.m.rows; i += 10) train.m.x[i * 3] = NaN;
    const valid = data(1000, 22, 0.3);
    const free = fitGbdt(train.m, train.y, {}, valid.m, valid.y);
    const model = fitGbdt(train.m, train.y, { monotone: [1, -1] }, valid.m, valid.y);
    expect(model.monotone).toEqual([1, -1]);
    const rnd = randomSource(23);
    let vrij = 0;
    for (let k = 0; k < 50; k++) {
      const row = Float64Array.from([rnd.u() * 4 - 2, rnd.u() * 2 - 1, rnd.u()]);
      for (const [f, dir, from, to] of [[0, 1, -2.5, 2.5], [1, -1, -1.2, 1.2]]) {
        const at = Float64Array.from(row);
        let prev = dir * -Infinity;
        let prevFree = prev;
        for (let v = from; v <= to; v += 0.01) {
          at[f] = v;
          const y = predictGbdt(model, at);
          expect(dir * (y - prev)).toBeGreaterThanOrEqual(0);
          prev = y;
          const yFree = predictGbdt(free, at);
          if (dir * (yFree - prevFree) < 0) vrij++;
          prevFree = yFree;
        }
      }
      row[0] = NaN;
      expect(Number.isFinite(predictGbdt(model, row))).toBe(true);
    }
    expect(vrij).toBeGreaterThan(100);
  });

  it('with a monotone constraint still fits a monotone signal', () => {
    const rising = (n: number, seed: number, noise: number) => {
      const d = data(n, seed, 0);
      const rnd = randomSource(seed + 100);
      for (let i = 0; i < n; i++) {
        const a = d.m.x[i * 3];
        const b = d.m.x[i * 3 + 1];
        d.f[i] = a + 0.3 * a * a * a + (b > 0.3 ? 0.8 : -0.2) + 0.5 * (a + 2) * b;
        d.y[i] = d.f[i] + noise * rnd.normal();
      }
      return d;
    };
    const train = rising(6000, 31, 0.3);
    const valid = rising(1500, 32, 0.3);
    const test = rising(2000, 33, 0);
    const model = fitGbdt(train.m, train.y, { monotone: [1] }, valid.m, valid.y);
    expect(onverklaard(model, test)).toBeLessThan(0.02);
  });
});

describe('combination', () => {
  it('gives the learner the weight the later slice supports', () => {
    // A learner that predicts the comparables' error exactly earns weight 1; one that predicts noise, ~0.
    const rnd = randomSource(9);
    const make = (n: number, informative: boolean): StageRow[] =>
      Array.from({ length: n }, (_, i) => {
        const err = 0.1 * rnd.normal();
        const features = new Float64Array(18).fill(NaN);
        features[0] = informative ? err : rnd.normal();
        return { row: i, day: i, e: { logWaarde: 12, nComps: 10, nEff: 8, spreiding: 0.1, afstand: 300, correctie: 0, straal: 500 }, level: 0, logPrijs: 12 + err, features, loc: Float64Array.of(NaN, 0) };
      });
    const good = fitStage('gecombineerd', make(3000, true), make(800, true));
    expect(good.w).toBeGreaterThan(0.8);
    const bad = fitStage('gecombineerd', make(3000, false), make(800, false));
    expect(bad.w).toBeLessThan(0.2);
  });
});

describe('honesty of the second stage', () => {
  const { sales } = syntheticSales({ n: 5000, seed: 41, towns: 1, trend: 0.002, months: 48 });

  it('location statistic: never a residual of a sale on or after the peildatum, never the own dwelling', () => {
    const table = buildSalesTable(sales);
    const rows = Int32Array.from({ length: table.n }, (_, i) => i);
    const core = fitCore(table, rows, DEFAULT_CORE_OPTIONS);
    const res = new Float64Array(table.n).fill(0.01);
    const row = 11;
    const subject = codedRow(core, row);
    const peil = dayNumber('2022-06-15');
    const out = new Float64Array(2);
    locationStat(core, res, subject, peil, locationScratch(), out, 0);
    const before = out[0];
    expect(before).toBeGreaterThan(0);
    // Absurd residuals on/after the peildatum and on the own dwelling change nothing.
    for (let r = 0; r < table.n; r++) if (table.day[r] >= peil || r === row) res[r] = 5;
    locationStat(core, res, subject, peil, locationScratch(), out, 0);
    expect(out[0]).toBe(before);
  });

  it('a backtest valuation never depends on the price of any sale on or after its date', () => {
    const a = runBacktest(sales, { fractie: 0.05 });
    // Multiply every test-period price by 3: each valuation (built from the past only, own sale
    // excluded) must stay exactly the same.
    const from = dayNumber(a.from);
    const shocked: SaleRecord[] = sales.map((s) => (dayNumber(s.datum) >= from ? { ...s, prijs: s.prijs * 3 } : s));
    const b = runBacktest(shocked, { fractie: 0.05, from: a.from });
    expect(a.details.stap2.bomen).toBeGreaterThan(0);
    expect(b.predictions.map((p) => p.uitkomst)).toEqual(a.predictions.map((p) => p.uitkomst));
  }, 180_000);

  it('a valuation in the past ignores the learner trained on later sales', () => {
    const model = buildModel(sales);
    const comps = buildModel(sales, { stage: 'vergelijking' });
    const s = sales[5];
    const subject = { lat: s.lat, lon: s.lon, oppervlakte: s.oppervlakte!, perceel: s.perceel, bouwjaar: s.bouwjaar, woningtype: s.woningtype, uitsluiten: [s.id] };
    const past = model.waardeer(subject, '2022-01-10') as Waardering;
    expect(past.marktwaarde).toBe((comps.waardeer(subject, '2022-01-10') as Waardering).marktwaarde);
    expect(model.details.stap2.bomen).toBeGreaterThan(0);
  });

  it('excludes a dwelling by its id exactly as by the list of its sale ids', () => {
    // A dwelling sold twice (2021 and 2023) among sales that are each their own dwelling.
    const s = sales.find((x) => x.datum < '2021-06-01' && x.oppervlakte)!;
    const twice: SaleRecord[] = [...sales.map((x) => ({ ...x, objectId: x.id })), { ...s, id: 'herhaalverkoop', datum: '2023-01-10', prijs: s.prijs * 1.1 }];
    twice.find((x) => x.id === s.id)!.objectId = 'woning-1';
    twice[twice.length - 1].objectId = 'woning-1';
    const model = buildModel(twice);
    const own = [s.id, 'herhaalverkoop'];
    const base = { lat: s.lat, lon: s.lon, oppervlakte: s.oppervlakte!, perceel: s.perceel, bouwjaar: s.bouwjaar, woningtype: s.woningtype };
    for (const peil of ['2022-06-01', '2024-03-01']) {
      const byId = model.waardeer({ ...base, uitsluitenWoning: 'woning-1' }, peil);
      expect(byId).toEqual(model.waardeer({ ...base, uitsluiten: own }, peil));
      expect(byId).not.toEqual(model.waardeer(base, peil));
    }
  });
});
