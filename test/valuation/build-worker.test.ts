import { describe, expect, it } from 'vitest';
import { buildModel, buildModelInWorker } from '../../src/domain/valuation/index.ts';
import type { Subject } from '../../src/domain/valuation/index.ts';
import { syntheticSales } from './synthetic.ts';

describe('model build in a worker thread', () => {
  it('gives the same model as buildModel, while the calling thread keeps answering with the previous one', async () => {
    const { sales } = syntheticSales({ n: 6000, seed: 51, towns: 2, months: 48 });
    const previous = buildModel(sales.slice(0, 3000));
    const probe = sales[10];
    const subject: Subject = { lat: probe.lat, lon: probe.lon, oppervlakte: probe.oppervlakte!, perceel: probe.perceel, bouwjaar: probe.bouwjaar, woningtype: probe.woningtype, uitsluiten: [probe.id] };
    const peil = '2024-02-01';

    // While the worker builds, valuations with the previous model keep being answered on this
    // thread: count how many get through before the new model arrives.
    let answered = 0;
    let building = true;
    const pending = buildModelInWorker(sales).finally(() => {
      building = false;
    });
    while (building) {
      expect(previous.waardeer(subject, peil).soort).toBe('waarde');
      answered++;
      await new Promise((r) => setTimeout(r, 5));
    }
    const fresh = await pending;
    expect(answered).toBeGreaterThan(5);

    const direct = buildModel(sales);
    expect(fresh.info).toEqual(direct.info);
    for (const s of sales.slice(0, 60)) {
      const subj: Subject = { lat: s.lat, lon: s.lon, oppervlakte: s.oppervlakte!, perceel: s.perceel, bouwjaar: s.bouwjaar, woningtype: s.woningtype, uitsluiten: [s.id] };
      expect(fresh.waardeer(subj, '2024-01-15')).toEqual(direct.waardeer(subj, '2024-01-15'));
    }
    // Three builds (each fits the learner four times to choose its loss): a minute or more on a
    // loaded 2-core machine. This test is about the result and the answering, not the speed.
  }, 180_000);
});
