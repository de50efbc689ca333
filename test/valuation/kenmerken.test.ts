/**
 * The optional attribute columns of the sales format (kwaliteit, staat, ...): read by the backtest
 * through the one parser, ignored by the import, and used by the model where the sales carry them.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseVerkopen } from '../../src/domain/register/parsers/verkopen.ts';
import { accuracy, formatSalesCsv, parseSalesCsv, runBacktest } from '../../src/domain/valuation/backtest/index.ts';
import type { SaleRecord } from '../../src/domain/valuation/index.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import { KENMERKEN } from '../../src/domain/valuation/types.ts';
import { randomSource, syntheticSales } from './synthetic.ts';

describe('attribute columns of the sales format', () => {
  it('round-trip through the documented format, and a file without them costs no column', async () => {
    const { sales } = syntheticSales({ n: 30, seed: 3 });
    const met: SaleRecord[] = sales.map((s, i) => (i % 3 ? { ...s, kenmerken: { kwaliteit: 5 + (i % 7), staat: 3, aan_water: i % 2, badkamers: 1.5 } } : s));
    const csv = formatSalesCsv(met);
    expect(csv.split('\n')[0]).toContain(KENMERKEN.join(','));
    expect((await parseSalesCsv(csv)).verkopen).toEqual(met);
    expect(formatSalesCsv(sales).split('\n')[0]).not.toContain('kwaliteit');
    expect(buildSalesTable(sales).kenmerken).toBeNull();
    const table = buildSalesTable(met);
    expect(table.kenmerken?.length).toBe(table.n * KENMERKEN.length);
    expect(table.kenmerken?.[KENMERKEN.length]).toBe(6);
    expect(Number.isNaN(table.kenmerken?.[0])).toBe(true);
  });

  it('refuses an invalid value with line and reason; renovatiejaar 0 and aan_water ja/nee are read', async () => {
    const head = 'id,transactiedatum,koopsom,oppervlakte,lat,lon,kwaliteit,renovatiejaar,aan_water\n';
    const r = await parseSalesCsv(head + 'a,2024-01-02,350000,100,52.1,5.1,7,0,ja\nb,2024-01-02,350000,100,52.1,5.1,-1,,\nc,2024-01-02,350000,100,52.1,5.1,,1850,x\nd,2024-01-02,350000,100,52.1,5.1,,,\n');
    expect(r.verkopen.map((v) => [v.id, v.kenmerken])).toEqual([['a', { kwaliteit: 7, aan_water: 1 }], ['d', undefined]]);
    expect(r.geweigerd).toEqual([
      { regel: 3, reden: expect.stringContaining('ongeldige kwaliteit "-1"') },
      { regel: 4, reden: expect.stringContaining('ongeldige aan_water "x"') },
    ]);
  });

  it('are ignored by the import (the register has no place for them), which reads the same file', async () => {
    const csv = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom;kwaliteit\n1234AB;12;;2024-03-15;415000;x\n';
    const out = [];
    for await (const r of parseVerkopen(Readable.from([Buffer.from(csv)]))) out.push(r);
    expect(out).toHaveLength(1);
    expect(out[0].ok).toBe(true);
    expect(out[0].ok && 'kenmerken' in out[0].rij).toBe(false);
  });
});

describe('the model with attribute columns', () => {
  it('recovers a quality effect it could not see without the column', () => {
    // A known effect: each quality step is worth 12 % (log 0.113), independent of place.
    const { sales } = syntheticSales({ n: 6000, seed: 21, noise: 0.06 });
    const rnd = randomSource(5);
    const met: SaleRecord[] = sales.map((s) => {
      const kwaliteit = 1 + Math.floor(rnd.u() * 5);
      return { ...s, prijs: Math.round(s.prijs * Math.exp(0.113 * (kwaliteit - 3))), kenmerken: { kwaliteit } };
    });
    const zonder = met.map(({ kenmerken: _k, ...s }) => s);
    const a = runBacktest(met, { fractie: 0.1 });
    const b = runBacktest(zonder, { fractie: 0.1, from: a.from });
    const mA = accuracy(a.predictions);
    const mB = accuracy(b.predictions);
    // Without the column a quality step is noise (sd ~0.16 in log); with it the error falls back
    // towards the generating noise.
    expect(mA.mdape).toBeLessThan(0.7 * mB.mdape);
    expect(mA.mdape).toBeLessThan(0.07);
    expect(a.details.hedonisch).toBeDefined();
  }, 180_000);
});
