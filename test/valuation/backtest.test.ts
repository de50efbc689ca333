import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatAblation, formatSummary } from '../../src/cli/commands/backtest.ts';
import { parseVerkopen } from '../../src/domain/register/parsers/verkopen.ts';
import { accuracy, computeMetrics, defaultFrom, formatPredictionsCsv, formatSalesCsv, parseSalesCsv, renderReport, runBacktest } from '../../src/domain/valuation/backtest/index.ts';
import type { BacktestPrediction } from '../../src/domain/valuation/backtest/index.ts';
import type { Betrouwbaarheid } from '../../src/domain/valuation/index.ts';
import { syntheticSales } from './synthetic.ts';

function p(prijs: number, marktwaarde: number, band = 0.2, label: Betrouwbaarheid = 'normaal'): BacktestPrediction {
  return {
    id: `p${prijs}-${marktwaarde}`,
    datum: '2024-01-01',
    prijs,
    woningtype: 'tussenwoning',
    uitkomst: { soort: 'waarde', marktwaarde, min: Math.round(marktwaarde * (1 - band)), max: Math.round(marktwaarde * (1 + band)), betrouwbaarheid: label, nComps: 10, nEff: 8, spreiding: 0.1, kansBinnen10: 0.5, wozGebruikt: false },
  };
}

describe('metrics', () => {
  const rows = [p(100, 95), p(100, 108), p(100, 130), p(200, 200), p(100, 80, 0.1, 'laag')];
  const refused: BacktestPrediction = { id: 'r', datum: '2024-01-01', prijs: 100, woningtype: null, uitkomst: { soort: 'te_weinig', reden: 'x', nComps: 2, nEff: 1.5 } };

  it('computes MdAPE, mean APE, PE5/10/20 and band coverage', () => {
    const m = accuracy(rows); // APE: .05 .08 .30 0 .20
    expect(m.n).toBe(5);
    expect(m.mdape).toBeCloseTo(0.08, 12);
    expect(m.meanApe).toBeCloseTo(0.63 / 5, 12);
    expect(m.pe5).toBeCloseTo(2 / 5, 12);
    expect(m.pe10).toBeCloseTo(3 / 5, 12);
    expect(m.pe20).toBeCloseTo(4 / 5, 12);
    expect(m.dekking).toBeCloseTo(3 / 5, 12); // 130 (band 104..156) and 80 (72..88) miss
  });

  it('computes median ratio, COD and PRD as defined by the IAAO', () => {
    const m = accuracy(rows); // ratios .95 1.08 1.3 1 .8
    expect(m.medianRatio).toBeCloseTo(1, 12);
    expect(m.cod).toBeCloseTo((100 * (0.05 + 0.08 + 0.3 + 0 + 0.2)) / 5, 10);
    expect(m.prd).toBeCloseTo(5.13 / 5 / (613 / 600), 10);
  });

  it('counts refusals in the hit rate and splits per label, segment and price decile', () => {
    const m = computeMetrics([...rows, refused]);
    expect(m.hitRate).toBeCloseTo(5 / 6, 12);
    expect(m.geweigerd).toBe(1);
    expect(m.perLabel.laag.n).toBe(1);
    expect(m.perLabel.normaal.aandeel).toBeCloseTo(4 / 5, 12);
    expect(m.perLabel.hoog.n).toBe(0);
    expect(m.perSegment.onbekend.hitRate).toBe(0);
    expect(m.perSegment.tussenwoning.totaal).toBe(5);
    expect(m.perDeciel.reduce((s, d) => s + d.totaal, 0)).toBe(6);
  });
});

describe('sales CSV', () => {
  it('round-trips the documented format and accepts ; with decimal commas and the old column names', async () => {
    const { sales } = syntheticSales({ n: 20, seed: 2 });
    expect((await parseSalesCsv(formatSalesCsv(sales))).verkopen).toEqual(sales);
    const nl = '\ufeffid;datum;prijs;lat;lon;oppervlakte\n"a";2024-01-02;350000;52,1;5,1;\n';
    expect((await parseSalesCsv(nl)).verkopen[0]).toMatchObject({ id: 'a', prijs: 350000, lat: 52.1, lon: 5.1, oppervlakte: null, objectId: null });
  });

  it('reads the very file `insight import verkopen` documents, through the same parser', async () => {
    // The example of docs/import-formaten.md: the third line has no coordinates, so the backtest
    // (which needs a position) skips it with a reason, as the import reports its rejects.
    const doc = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom;oppervlakte;perceel;bouwjaar;woningtype;energielabel;lat;lon\n1234AB;12;;2024-03-15;415000;118;160;1978;tussenwoning;C;52.0912;5.1214\n1234AB;14;2;2024-04-01;299000;74;;1999;appartement;B;52.0915;5.1220\n1234AB;16;;2023-11-20;512500;;;;twee-onder-een-kap;;;\n';
    const { verkopen, geweigerd } = await parseSalesCsv(doc);
    expect(verkopen).toHaveLength(2);
    expect(verkopen[1]).toMatchObject({ datum: '2024-04-01', prijs: 299000, oppervlakte: 74, woningtype: 'appartement', objectId: '1234AB|14|2' });
    expect(verkopen[0].id).toMatch(/^vk-[0-9a-f]{24}$/);
    expect(geweigerd).toEqual([{ regel: 4, reden: expect.stringMatching(/lat en lon/) }]);
    const imported = [];
    for await (const r of parseVerkopen(Readable.from([Buffer.from(doc)]))) imported.push(r);
    expect(imported.filter((r) => r.ok)).toHaveLength(3);
    expect(imported[0].ok && imported[0].rij.id).toBe(verkopen[0].id);
  });

  it('names the missing column; skips and reports a bad line', async () => {
    await expect(parseSalesCsv('id,datum,prijs\n1,2024-01-01,5\n')).rejects.toThrow(/lat, lon/);
    const r = await parseSalesCsv('id,datum,prijs,lat,lon\n1,2024-01-01,,52,5\n2,2024-01-02,100,47.5,-122.3\n');
    expect(r.geweigerd).toEqual([{ regel: 2, reden: 'koopsom ontbreekt' }]);
    expect(r.verkopen.map((v) => v.id)).toEqual(['2']);
    // Foreign files: decimal prices and years are rounded, an area of 0 is unknown.
    const f = await parseSalesCsv('id,datum,prijs,lat,lon,oppervlakte,bouwjaar\n3,2024-01-03,350000.4,47.5,-122.3,0,1978.0\n');
    expect(f.verkopen[0]).toMatchObject({ prijs: 350000, oppervlakte: null, bouwjaar: 1978 });
  });

  it("bounds koopsom as the import does (1 to 2^31 − 1): 1e308 made the PRD Infinity", async () => {
    const r = await parseSalesCsv('id,datum,prijs,lat,lon\na,2024-01-01,1e308,52,5\nb,2024-01-01,2147483648,52,5\nc,2024-01-01,0.4,52,5\nd,2024-01-01,2147483647,52,5\ne,2024-01-01,1,52,5\n');
    expect(r.geweigerd.map((g) => g.regel)).toEqual([2, 3, 4]);
    expect(r.geweigerd[0].reden).toBe('ongeldige koopsom "1e308" (getal 1–2147483647)');
    expect(r.verkopen.map((v) => v.prijs)).toEqual([2147483647, 1]);
  });
});

describe('backtest text output', () => {
  it("prints '–', never NaN or Infinity, for figures a tiny file cannot give (two sales)", () => {
    const twee = syntheticSales({ n: 2, seed: 5 }).sales.map((s, i) => ({ ...s, datum: `2024-0${i + 1}-01` }));
    const r = runBacktest(twee);
    const tekst = [formatSummary(r), formatAblation([{ mode: 'gecombineerd', omschrijving: 'x', hitRate: NaN, overall: r.metrics.overall, gewicht: NaN, bomen: 0 }])].join('\n');
    expect(tekst).not.toMatch(/NaN|Infinity/);
    expect(tekst).toMatch(/^Mediaan ratio {3}– {3}COD – {3}PRD –$/m);
  });
});

describe('runBacktest', () => {
  const { sales } = syntheticSales({ n: 8000, seed: 7, towns: 6 });
  const result = runBacktest(sales);

  it('builds the model only from sales before `from` and predicts everything on/after it', () => {
    expect(result.from).toBe(defaultFrom(sales));
    expect(result.model.nieuwsteVerkoop! < result.from).toBe(true);
    expect(result.training).toBe(sales.filter((s) => s.datum < result.from).length);
    expect(result.test).toBe(sales.filter((s) => s.datum >= result.from).length);
    expect(result.test / sales.length).toBeGreaterThan(0.09);
    expect(result.details.kalibratieVerkopen!.tot < result.from).toBe(true);
  });

  it('cuts a published index to what was out at `from`', () => {
    const index = Array.from({ length: 60 }, (_, i) => ({ periode: `${2020 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`, index: 100 + i }));
    const r = runBacktest(sales, { model: { priceIndex: index, indexBron: 'CBS' } });
    const lastPeriod = r.details.index.at(-1)!.periode;
    expect(lastPeriod < r.from.slice(0, 7)).toBe(true);
    expect(r.model.indexBron).toBe('CBS');
  }, 180_000);

  it('is accurate and calibrated on data from a known process', () => {
    const m = result.metrics;
    expect(m.hitRate).toBeGreaterThan(0.9);
    expect(m.overall.mdape).toBeLessThan(0.1);
    expect(m.overall.dekking).toBeGreaterThan(0.72);
    expect(m.overall.dekking).toBeLessThan(0.88);
  });

  it('writes a predictions CSV and an offline HTML report with vega-lite SVG charts', async () => {
    const csv = formatPredictionsCsv(result.predictions).trim().split('\n');
    expect(csv[0]).toBe('id,datum,prijs,woningtype,soort,marktwaarde,min,max,betrouwbaarheid,n_comps,n_eff,spreiding,fout_pct,in_band,reden');
    expect(csv.length).toBe(result.predictions.length + 1);
    const html = await renderReport(result, 'synthetisch');
    expect(html.match(/<svg /g)?.length).toBe(3);
    expect(html).not.toMatch(/<script/);
    expect(html).toContain('MdAPE');
  });

  it("earns 'hoog' where the data allow it, and the label keeps its promise out of sample", () => {
    const quiet = runBacktest(syntheticSales({ n: 8000, seed: 7, towns: 6, noise: 0.04 }).sales);
    const hoog = quiet.metrics.perLabel.hoog;
    expect(hoog.aandeel).toBeGreaterThan(0.3);
    expect(hoog.pe10).toBeGreaterThanOrEqual(0.9);
    // On the default (10 % noise) data no group reaches the bar, so the label is never given.
    expect(result.metrics.perLabel.hoog.n).toBe(0);
  }, 180_000);
});
