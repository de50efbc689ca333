import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { estimate } from '../../src/domain/valuation/comparables.ts';
import { fitKansCurve, kansFor, kansOngekalibreerd } from '../../src/domain/valuation/confidence.ts';
import { DEFAULT_CORE_OPTIONS, fitCore, scratchFor } from '../../src/domain/valuation/core.ts';
import { dayNumber, monthPosition } from '../../src/domain/valuation/dates.ts';
import { buildModel } from '../../src/domain/valuation/index.ts';
import type { SaleRecord, Waardering } from '../../src/domain/valuation/index.ts';
import { parseSalesCsv, runBacktest } from '../../src/domain/valuation/backtest/index.ts';
import { logIndexAt } from '../../src/domain/valuation/price-index.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import { wozBekendOp } from '../../src/domain/valuation/woz.ts';
import { codedRow } from './coded.ts';
import { randomSource, syntheticSales } from './synthetic.ts';

/** A published index rising 1 % a month from 2018 to 2024. */
const RISING = Array.from({ length: 84 }, (_, i) => ({ periode: `${2018 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`, index: 100 * Math.exp(0.01 * i) }));
const monthsSince2018 = (datum: string) => (Number(datum.slice(0, 4)) - 2018) * 12 + Number(datum.slice(5, 7)) - 1;

/**
 * Sales whose WOZ value (peildatum 1 January of the year before the sale) is exactly `ratio` times
 * the sale price brought back to the peildatum by the RISING index.
 */
function withWoz(sales: SaleRecord[], ratio: number): SaleRecord[] {
  return sales.map((s) => {
    const peildatum = `${Number(s.datum.slice(0, 4)) - 1}-01-01`;
    const back = Math.exp(0.01 * (monthsSince2018(peildatum) - monthsSince2018(s.datum)));
    return { ...s, woz: { waarde: Math.round(s.prijs * back * ratio), peildatum } };
  });
}

describe('WOZ sales-ratio estimate', () => {
  it('recovers a known ratio, time-indexed to the peildatum', () => {
    const sales = withWoz(syntheticSales({ n: 4000, seed: 5, towns: 1, trend: 0, months: 48 }).sales, 0.8);
    const table = buildSalesTable(sales);
    const core = fitCore(table, Int32Array.from({ length: table.n }, (_, i) => i), { ...DEFAULT_CORE_OPTIONS, regioCel: 0 }, RISING, 'stijgend');
    const sc = scratchFor(core);
    const peil = '2024-03-01';
    const wozSubject = 300_000;
    const wozPeil = '2023-01-01';
    const row = 17;
    const curve = core.curves[core.curveAt(table.x[row], table.y[row])];
    const subject = codedRow(core, row, { excludeObject: -1, wozDeflated: Math.log(wozSubject) - logIndexAt(curve, monthPosition(dayNumber(wozPeil))) });
    const e = estimate(core, subject, dayNumber(peil), sc);
    // WOZ / 0.8, moved 14 months up the 1 %/month index (mid-month positions: within 0.5 %).
    const expected = (wozSubject / 0.8) * Math.exp(0.01 * (monthsSince2018(peil) - monthsSince2018(wozPeil)));
    expect(Math.abs(Math.exp(e.woz!) / expected - 1)).toBeLessThan(0.01);
    expect(e.wozNEff).toBeGreaterThan(3);
    expect(e.wozSpreiding).toBeLessThan(0.01);
  });

  it('leans on an informative WOZ value, and only on one known at the peildatum (a year before it, as in production)', () => {
    // The WOZ value knows each dwelling's own deviation (a component of its price the comparables cannot see).
    const { normal } = randomSource(3);
    const base = syntheticSales({ n: 5000, seed: 8, towns: 1, trend: 0, months: 48 }).sales;
    const sales = withWoz(base, 0.9).map((s) => ({ ...s, woz: { ...s.woz!, waarde: Math.round(s.woz!.waarde * Math.exp(0.03 * normal())) } }));
    const model = buildModel(sales, { priceIndex: RISING });
    expect(model.details.wozGewicht[0]).toBeGreaterThan(0.3);
    const s = sales[40];
    const subject = { lat: s.lat, lon: s.lon, oppervlakte: s.oppervlakte!, perceel: s.perceel, bouwjaar: s.bouwjaar, woningtype: s.woningtype, uitsluiten: [s.id] };
    const peil = '2023-06-01';
    const zonder = model.waardeer(subject, peil) as Waardering;
    const voor = model.waardeer({ ...subject, woz: [{ waarde: 250_000, peildatum: '2022-06-01' }] }, peil) as Waardering;
    expect(zonder.wozGebruikt).toBe(false);
    expect(voor.wozGebruikt).toBe(true);
    expect(voor.marktwaarde).not.toBe(zonder.marktwaarde);
    // A WOZ value dated less than a year before the peildatum (or after it) is never used, whatever it says.
    for (const peildatum of ['2022-06-02', '2023-05-31', peil, '2024-01-01']) {
      const na = model.waardeer({ ...subject, woz: [{ waarde: 900_000, peildatum }] }, peil) as Waardering;
      expect(na).toEqual(zonder);
    }
    // Of a series, the newest known at the peildatum.
    const reeks = model.waardeer({ ...subject, woz: [{ waarde: 900_000, peildatum: '2023-01-01' }, { waarde: 250_000, peildatum: '2022-06-01' }, { waarde: 100_000, peildatum: '2021-01-01' }] }, peil);
    expect(reeks).toEqual(voor);
  }, 300_000);

  it('a backtest valuation never depends on the price or WOZ value of any sale on or after its date', () => {
    const sales = withWoz(syntheticSales({ n: 4000, seed: 12, towns: 1, trend: 0, months: 48 }).sales, 0.85);
    const a = runBacktest(sales, { fractie: 0.05, model: { priceIndex: RISING } });
    const from = dayNumber(a.from);
    const shocked = sales.map((s) => (dayNumber(s.datum) >= from ? { ...s, prijs: s.prijs * 3, woz: { ...s.woz!, waarde: s.woz!.waarde * 5 } } : s));
    const b = runBacktest(shocked, { fractie: 0.05, from: a.from, model: { priceIndex: RISING } });
    expect(a.details.wozGewicht[0]).toBeGreaterThan(0);
    // The subject's own WOZ (dated before its sale) is part of the question: keep it, shock only the truth.
    const own = new Map(sales.map((s) => [s.id, s.woz]));
    const c = runBacktest(
      shocked.map((s) => (dayNumber(s.datum) >= from ? { ...s, woz: own.get(s.id) } : s)),
      { fractie: 0.05, from: a.from, model: { priceIndex: RISING } },
    );
    expect(c.predictions.map((p) => p.uitkomst)).toEqual(a.predictions.map((p) => p.uitkomst));
    // With the subjects' own WOZ shocked too, the answers move (the anchor is really used).
    expect(b.predictions.map((p) => p.uitkomst)).not.toEqual(a.predictions.map((p) => p.uitkomst));
  }, 300_000);

  it('a sale keeps only a WOZ value known at it (production\'s one-year rule); the file refuses one dated on or after it', async () => {
    const [s] = syntheticSales({ n: 1, seed: 1, towns: 1 }).sales;
    const dag = (d: number) => new Date((dayNumber(s.datum) + d) * 86_400_000).toISOString().slice(0, 10);
    for (const peildatum of [s.datum, dag(-1), dag(-300)]) expect(buildSalesTable([{ ...s, woz: { waarde: 200_000, peildatum } }]).wozLog).toBeNull();
    const jaarEerder = `${Number(s.datum.slice(0, 4)) - 1}${s.datum.slice(4)}`;
    expect(buildSalesTable([{ ...s, woz: { waarde: 200_000, peildatum: jaarEerder } }]).wozLog?.[0]).toBeCloseTo(Math.log(200_000));
    const csv = 'id,transactiedatum,koopsom,oppervlakte,lat,lon,woz,woz_peildatum\na,2024-03-01,300000,100,52.1,5.1,250000,2024-03-01\nb,2024-03-01,300000,100,52.1,5.1,250000,2023-01-01\nc,2024-03-01,300000,100,52.1,5.1,250000,\n';
    const gelezen = await parseSalesCsv(Readable.from([csv]));
    expect(gelezen.verkopen.map((v) => [v.id, v.woz])).toEqual([['b', { waarde: 250_000, peildatum: '2023-01-01' }]]);
    expect(gelezen.geweigerd.map((g) => g.reden)).toEqual(['woz_peildatum 2024-03-01 ligt niet vóór de transactiedatum 2024-03-01', 'woz en woz_peildatum horen samen: geef beide of geen van beide']);
  });

  it('the WOZ value known at a date: the newest with a peildatum at least a year before it', () => {
    const reeks = [2021, 2022, 2023, 2024].map((j) => ({ waarde: j, peildatum: `${j}-01-01` }));
    expect(wozBekendOp(reeks, '2024-06-15')?.peildatum).toBe('2023-01-01');
    expect(wozBekendOp(reeks, '2024-01-01')?.peildatum).toBe('2023-01-01');
    expect(wozBekendOp(reeks, '2023-12-31')?.peildatum).toBe('2022-01-01');
    expect(wozBekendOp(reeks, '2021-06-01')).toBeNull();
  });
});

describe('kans_binnen_10_procent', () => {
  it('is non-increasing in the band width, calibrated per bin', () => {
    const { u } = randomSource(9);
    // Cases whose chance within 10 % falls with their band width (0.1 .. 0.6 in log).
    const cases = Array.from({ length: 3000 }, () => {
      const breedte = 0.1 + 0.5 * u();
      return { breedte, binnen: u() < 1 - breedte };
    });
    const curve = fitKansCurve(cases)!;
    let vorige = Infinity;
    for (let b = 0; b <= 1; b += 0.005) {
      const p = kansFor(curve, b);
      expect(p).toBeLessThanOrEqual(vorige + 1e-12);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThanOrEqual(1);
      vorige = p;
    }
    expect(Math.abs(kansFor(curve, 0.35) - 0.65)).toBeLessThan(0.06);
    // Uncalibrated: the normal approximation of the band, falling with its width, never above what 'laag' allows.
    expect(kansOngekalibreerd(0.1)).toBeGreaterThanOrEqual(kansOngekalibreerd(0.4));
    expect(kansOngekalibreerd(0.4)).toBeGreaterThan(kansOngekalibreerd(0.8));
    expect(kansOngekalibreerd(0)).toBeCloseTo(0.433, 3);
  });

  it('every valuation of a model: a wider band never has a higher probability; hoog only where >= 0.90 (and in the score group that passed the Wilson bound)', () => {
    const sales = syntheticSales({ n: 6000, seed: 21, towns: 1, trend: 0, months: 48, noise: 0.04 }).sales;
    const model = buildModel(sales);
    const w = sales
      .slice(0, 600)
      .map((s) => model.waardeer({ lat: s.lat, lon: s.lon, oppervlakte: s.oppervlakte!, perceel: s.perceel, bouwjaar: s.bouwjaar, woningtype: s.woningtype, uitsluiten: [s.id] }, '2024-06-01'))
      .filter((x): x is Waardering => x.soort === 'waarde')
      .map((x) => ({ breedte: Math.log(x.max / x.min), kans: x.kansBinnen10, label: x.betrouwbaarheid }))
      .sort((a, b) => a.breedte - b.breedte);
    expect(w.length).toBeGreaterThan(500);
    for (let i = 1; i < w.length; i++) if (w[i].breedte > w[i - 1].breedte + 0.002) expect(w[i].kans).toBeLessThanOrEqual(w[i - 1].kans + 1e-3);
    for (const x of w) if (x.label === 'hoog') expect(x.kans).toBeGreaterThanOrEqual(0.9);
    expect(w.some((x) => x.label === 'hoog')).toBe(true);
  }, 300_000);
});

describe('WOZ on the demo dataset', () => {
  it('a WOZ column of pure noise does not make the model worse; the real one makes it better', async () => {
    const { demoVerkopen } = await import('../../src/domain/register/demo/verkopen.ts');
    const echt = await demoVerkopen(1);
    const zonder = echt.map(({ woz: _w, ...s }) => s);
    // Noise: same peildata, values log-normal around the median price, unrelated to the dwelling.
    const { normal } = randomSource(77);
    const ruis = echt.map((s) => (s.woz ? { ...s, woz: { ...s.woz, waarde: Math.round(300_000 * Math.exp(0.3 * normal())) } } : s));
    const from = runBacktest(zonder).from;
    const [a, b, c] = [zonder, ruis, echt].map((sales) => runBacktest(sales, { from }).metrics);
    expect(b.overall.mdape).toBeLessThanOrEqual(a.overall.mdape + 0.001);
    expect(Math.abs(b.overall.dekking - a.overall.dekking)).toBeLessThan(0.02);
    expect(c.overall.mdape).toBeLessThan(a.overall.mdape - 0.001);
    expect(c.overall.pe10).toBeGreaterThan(a.overall.pe10 + 0.03);
  }, 300_000);
});
