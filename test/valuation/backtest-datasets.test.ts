import { describe, expect, it } from 'vitest';
import { formatDatasets } from '../../src/cli/commands/backtest.ts';
import { defaultFrom, optionalColumns, plainSales, poolPerioden, runDatasets } from '../../src/domain/valuation/backtest/index.ts';
import { demoVerkopen } from '../../src/domain/register/demo/verkopen.ts';
import { formatSalesCsv, parseSalesCsv } from '../../src/domain/valuation/backtest/sales-csv.ts';
import { syntheticSales } from './synthetic.ts';

describe('backtest over several datasets', () => {
  it('runs each dataset with all its columns, without the optional ones, and the reference learner, on one split', () => {
    const a = syntheticSales({ n: 2500, seed: 3, towns: 1, months: 36 }).sales.map((s) => ({ ...s, woz: { waarde: Math.round(s.prijs * 0.9), peildatum: `${Number(s.datum.slice(0, 4)) - 1}-01-01` } }));
    const b = syntheticSales({ n: 2500, seed: 4, towns: 1, months: 36 }).sales;
    expect(optionalColumns(a)).toEqual(['woz']);
    expect(optionalColumns(plainSales(a))).toEqual([]);
    const runs = runDatasets([
      { naam: 'met-woz', verkopen: a },
      { naam: 'kaal', verkopen: b },
    ]);
    expect(runs.map((r) => [r.dataset, r.variant, r.kolommen])).toEqual([
      ['met-woz', 'model', ['woz']],
      ['met-woz', 'kaal', []],
      ['met-woz', 'referentie', []],
      ['kaal', 'model', []],
      ['kaal', 'referentie', []],
    ]);
    for (const r of runs.filter((x) => x.dataset === 'met-woz')) expect(r.result.from).toBe(runs[0].result.from);
    expect(runs.find((r) => r.variant === 'referentie')!.result.details.stap2.mode).toBe('leerder');
    expect(runs[0].result.details.wozGewicht.some((w) => w > 0)).toBe(true);
    expect(runs[1].result.details.wozGewicht).toEqual([0, 0]);
    for (const r of runs) {
      expect(r.result.metrics.perKansDeciel.length).toBe(10);
      const { mdape, voorsprong } = r.onzekerheid;
      expect(mdape.laag).toBeLessThanOrEqual(r.result.metrics.overall.mdape);
      expect(mdape.hoog).toBeGreaterThanOrEqual(r.result.metrics.overall.mdape);
      expect(voorsprong === null).toBe(r.variant === 'referentie');
    }
    const tabel = formatDatasets(runs);
    expect(tabel).toMatch(/^met-woz\s+model, alle kolommen \(woz\)/m);
    expect(tabel).toMatch(/^kaal\s+referentieleerder \(GBDT, kale kolommen\)/m);
    expect(tabel).toMatch(/Kans binnen 10% per deciel/);
    expect(tabel).toMatch(/^kaal\s+model, alle kolommen\s+\d+\s+[\d.]+%\s+[\d.]+%–[\d.]+%\s.*(beter|slechter) \(-?[\d.]+ … -?[\d.]+\)$/m);
  }, 300_000);
});

describe('backtest over several test periods', () => {
  it('period k tests on the newest tenth of the file cut where period k − 1 starts, trained only on the sales before it; pooled over both', () => {
    const sales = syntheticSales({ n: 2200, seed: 7, towns: 1, months: 36 }).sales;
    const runs = runDatasets([{ naam: 's', verkopen: sales }], {}, undefined, 2);
    expect(runs.map((r) => [r.periode, r.variant])).toEqual([
      [0, 'model'],
      [0, 'referentie'],
      [1, 'model'],
      [1, 'referentie'],
    ]);
    const [van0, van1] = [runs[0].result.from, runs[2].result.from];
    expect(van0).toBe(defaultFrom(sales));
    expect(van1).toBe(defaultFrom(sales.filter((s) => s.datum < van0)));
    expect(van1 < van0).toBe(true);
    for (const r of runs) {
      const tot = r.periode === 0 ? '9999-12-31' : van0;
      expect(r.result.training).toBe(sales.filter((s) => s.datum < r.result.from).length);
      expect(r.result.test).toBe(sales.filter((s) => s.datum >= r.result.from && s.datum < tot).length);
      expect(r.result.test).toBeGreaterThan(150);
      for (const p of r.result.predictions) expect(p.datum >= r.result.from && p.datum < tot).toBe(true);
    }
    const gepoold = poolPerioden(runs);
    expect(gepoold.map((g) => [g.variant, g.perioden])).toEqual([
      ['model', 2],
      ['referentie', 2],
    ]);
    const [model, ref] = gepoold;
    expect(model.metrics.totaal).toBe(runs[0].result.metrics.totaal + runs[2].result.metrics.totaal);
    expect(model.metrics.gewaardeerd).toBe(runs[0].result.metrics.gewaardeerd + runs[2].result.metrics.gewaardeerd);
    expect(model.onzekerheid.mdape.laag).toBeLessThanOrEqual(model.metrics.overall.mdape);
    expect(model.onzekerheid.mdape.hoog).toBeGreaterThanOrEqual(model.metrics.overall.mdape);
    expect(model.onzekerheid.voorsprong!.gepaard).toBe(runs[0].onzekerheid.voorsprong!.gepaard + runs[2].onzekerheid.voorsprong!.gepaard);
    expect(ref.onzekerheid.voorsprong).toBeNull();
    const tabel = formatDatasets(runs, gepoold);
    expect(tabel).toMatch(new RegExp(`^Testperiode 1: s vanaf ${van1}$`, 'm'));
    expect(tabel).toMatch(/^Gepoold over 2 testperioden/m);
    expect(tabel).toMatch(/^s\s+model, alle kolommen .* per periode: [\d.]+% \/ [\d.]+%$/m);
  }, 300_000);
});

describe('one SaleRecord mapping for the demo and a sales file', () => {
  it("the demo's sales written as a sales file and read back are the same records", async () => {
    const demo = await demoVerkopen();
    const gelezen = await parseSalesCsv(formatSalesCsv(demo));
    expect(gelezen.geweigerd).toEqual([]);
    expect(gelezen.verkopen).toStrictEqual(demo);
  }, 120_000);
});
