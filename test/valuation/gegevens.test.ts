import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laadVerkopen, laadVerkopenTabel } from '../../src/domain/valuation/gegevens.ts';
import { buildSalesTable } from '../../src/domain/valuation/sales-table.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { dialect } from '../support/db.ts';
import { maakAdres } from '../support/register.ts';

describe(`the held sales read straight into the model's columns (${dialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    const db = t.db.prisma;
    const adressen = [await maakAdres(db, { lat: 52.1, lon: 5.1, oppervlakte: 100 }), await maakAdres(db, { lat: 52.2, lon: 5.2, oppervlakte: 80 })];
    await db.wozWaarde.createMany({ data: [2020, 2021].map((j) => ({ adresId: adressen[0].id, peildatum: new Date(Date.UTC(j, 0, 1)), waarde: j * 100, bron: 'testdata' })) });
    await db.verkoop.createMany({
      data: Array.from({ length: 40 }, (_, i) => ({
        id: `tabel-${String(i).padStart(3, '0')}`,
        adresId: i % 4 === 3 ? null : adressen[i % 2].id,
        transactiedatum: new Date(Date.UTC(2021 + (i % 3), i % 12, 1 + i)),
        koopsom: 250_000 + 1000 * i,
        oppervlakte: i % 5 ? 90 + i : null,
        woningtype: i % 2 ? 'tussenwoning' : 'appartement',
        energielabel: i % 3 ? 'B' : null,
        lat: i === 7 ? null : 52 + i / 100,
        lon: 5 + i / 100,
        bron: 'testdata',
      })),
    });
  });
  afterAll(async () => t?.close());

  it('gives the table buildSalesTable makes of the loaded SaleRecords', async () => {
    const verkopen = await laadVerkopen(t.db.prisma);
    expect(verkopen.length).toBe(39);
    expect(verkopen.some((v) => v.woz)).toBe(true);
    const tabel = await laadVerkopenTabel(t.db.prisma);
    expect(tabel).toEqual(buildSalesTable(verkopen));
    expect(await laadVerkopenTabel(t.db.prisma, 'demo')).toEqual(buildSalesTable([]));
  });
});
