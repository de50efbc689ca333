import { describe, expect, it } from 'vitest';
import type { SaleRecord } from '../../src/domain/valuation/index.ts';
import { buildSalesTable, SalesTableBuilder } from '../../src/domain/valuation/sales-table.ts';
import { syntheticSales } from './synthetic.ts';

describe('SalesTableBuilder', () => {
  it('gives buildSalesTable’s table whatever its capacity, with skipped records, WOZ values and attributes appearing late', () => {
    const sales: SaleRecord[] = syntheticSales({ n: 700, seed: 3, towns: 2, months: 36 }).sales.map((s, i) => ({
      ...s,
      objectId: i % 3 ? `obj-${i % 50}` : null,
      ...(i === 0 ? { prijs: 0 } : {}),
      ...(i === 5 ? { lat: Number.NaN } : {}),
      ...(i > 400 && i % 7 === 0 ? { woz: { waarde: s.prijs, peildatum: `${Number(s.datum.slice(0, 4)) - 2}-01-01` } } : {}),
      ...(i > 600 ? { kenmerken: { kwaliteit: 4, slaapkamers: i % 5 } } : {}),
    }));
    const direct = buildSalesTable(sales);
    expect(direct.n).toBe(698);
    expect(direct.wozLog).not.toBeNull();
    expect(direct.kenmerken).not.toBeNull();
    for (const capacity of [0, 1, 100, 698, 700, 5000]) {
      const b = new SalesTableBuilder(capacity);
      for (const s of sales) b.add(s);
      const t = b.finish();
      expect(t).toEqual(direct);
      for (const k of ['day', 'prijs', 'x', 'wozLog', 'wozDay', 'kenmerken'] as const) expect(t[k]!.buffer.byteLength).toBe(direct[k]!.buffer.byteLength);
    }
  });
});
