/**
 * The demo's sales as the valuation model's SaleRecords (for `insight backtest demo` and
 * scripts/demo-to-generic.ts), each with the WOZ value of its dwelling that was known at the sale
 * (see valuation/woz.ts).
 */
import type { SaleRecord, WozWaarde } from '../../valuation/types.ts';
import { saleRecord } from '../../valuation/sale-record.ts';
import { wozBekendOp } from '../../valuation/woz.ts';
import { generateDemoDataset } from './genereer.ts';

export async function demoVerkopen(seed = 1): Promise<SaleRecord[]> {
  const ds = await generateDemoDataset(seed);
  const wozVan = new Map<string, WozWaarde[]>();
  for (const w of ds.woz_waarde) {
    if (!w.adres_id) continue;
    const list = wozVan.get(w.adres_id) ?? [];
    list.push({ waarde: w.waarde, peildatum: w.peildatum.toISOString().slice(0, 10) });
    wozVan.set(w.adres_id, list);
  }
  return ds.verkoop.map((v) => {
    const r = saleRecord(v, v.adres_id);
    const woz = v.adres_id ? wozBekendOp(wozVan.get(v.adres_id), r.datum) : null;
    return woz ? { ...r, woz } : r;
  });
}
