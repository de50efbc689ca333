import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waarderingsKandidaten } from '../src/domain/valuation/adres-waarde.ts';
import { laadVerkopen } from '../src/domain/valuation/gegevens.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { dialect } from './support/db.ts';
import { maakAdres } from './support/register.ts';

describe(`the live model reads the held WOZ series (${dialect})`, () => {
  let t: TestApp;
  let adres: Awaited<ReturnType<typeof maakAdres>>;
  beforeAll(async () => {
    t = await createTestApp();
    adres = await maakAdres(t.db.prisma, { lat: 52.1, lon: 5.1, oppervlakte: 100 });
    const db = t.db.prisma;
    await db.wozWaarde.createMany({
      data: [2021, 2022, 2023].map((j) => ({ adresId: adres.id, peildatum: new Date(Date.UTC(j, 0, 1)), waarde: j * 100, bron: 'testdata' })),
    });
    const verkoop = (id: string, datum: string, adresId: string | null) => ({ id, adresId, transactiedatum: new Date(datum), koopsom: 300_000, oppervlakte: 100, lat: 52.1, lon: 5.1, bron: 'testdata' });
    await db.verkoop.createMany({ data: [verkoop('woz-a', '2023-06-01', adres.id), verkoop('woz-b', '2023-01-01', adres.id), verkoop('woz-c', '2021-12-31', adres.id), verkoop('woz-d', '2023-06-01', null)] });
  });
  afterAll(async () => t?.close());

  it('gives each sale the WOZ value known at it: the newest with a peildatum at least a year before', async () => {
    const woz = new Map((await laadVerkopen(t.db.prisma)).map((v) => [v.id, v.woz]));
    expect(woz.get('woz-a')).toEqual({ waarde: 202_200, peildatum: '2022-01-01' });
    expect(woz.get('woz-b')).toEqual({ waarde: 202_200, peildatum: '2022-01-01' });
    expect(woz.get('woz-c')).toBeNull();
    expect(woz.get('woz-d')).toBeNull();
  });

  it("reads the subject's whole series with its address", async () => {
    const [a] = await waarderingsKandidaten(t.db.prisma, adres.postcode, adres.huisnummer, null);
    expect([...(a.woz ?? [])].sort()).toEqual([
      ['2021-01-01', 202_100],
      ['2022-01-01', 202_200],
      ['2023-01-01', 202_300],
    ]);
  });
});
