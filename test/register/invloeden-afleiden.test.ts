import { describe, expect, it } from 'vitest';
import { leidAdresInvloedenAf } from '../../src/domain/register/import/invloeden-na.ts';
import { INVLOED_DREMPELS } from '../../src/domain/register/invloeden.ts';
import { upsertBatch } from '../../src/domain/register/import/schrijver.ts';
import { dialect, useTestDatabase } from '../support/db.ts';

const adres = (i: number, lon: number, lat: number) => ({
  id: `0000200000${String(i).padStart(6, '0')}`,
  postcode: '1234AB',
  huisnummer: i,
  straat: 'A',
  woonplaats: 'W',
  object_type: 'verblijfsobject',
  lat,
  lon,
  bron: 't',
});

describe(`adres_invloed only for what changed (${dialect})`, () => {
  const db = useTestDatabase();

  it('recomputes a changed type for every address, otherwise only new and moved addresses', async () => {
    await upsertBatch(db.prisma, 'adres', Array.from({ length: 40 }, (_, i) => adres(i + 1, 5 + i * 0.001, 52)));
    await upsertBatch(db.prisma, 'invloed_object', [
      { id: 'hs-1', type: 'hoogspanning', geometrie: { type: 'LineString', coordinates: [[5, 52.001], [5.1, 52.001]] }, bron: 't' },
      { id: 'n2k-1', type: 'natura2000', geometrie: { type: 'Polygon', coordinates: [[[5.0, 51.99], [5.01, 51.99], [5.01, 52.01], [5.0, 52.01], [5.0, 51.99]]] }, bron: 't' },
    ]);
    const eerste = await leidAdresInvloedenAf(db);
    expect(eerste).toMatchObject({ adressen: 40, berekend: 80, ingevoegd: 80, gewijzigdeTypes: ['hoogspanning', 'natura2000'] });

    const tweede = await leidAdresInvloedenAf(db);
    expect(tweede).toMatchObject({ berekend: 0, ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 80, gewijzigdeTypes: [] });

    // One address moved next to the line, one new: two addresses per type; the moved one changes.
    await upsertBatch(db.prisma, 'adres', [adres(1, 5.05, 52.0012), adres(41, 5.2, 52)]);
    const derde = await leidAdresInvloedenAf(db);
    expect(derde).toMatchObject({ adressen: 41, berekend: 4, ingevoegd: 2, gewijzigdeTypes: [] });
    const verplaatst = await db.prisma.adresInvloed.findUniqueOrThrow({ where: { adresId_type: { adresId: '0000200000000001', type: 'hoogspanning' } } });
    expect(verplaatst).toMatchObject({ indicator: 'rood', afstandM: 21, lat: 52.0012, lon: 5.05 });

    // A changed line: that type for every address, the other type not at all.
    await upsertBatch(db.prisma, 'invloed_object', [{ id: 'hs-1', type: 'hoogspanning', geometrie: { type: 'LineString', coordinates: [[5, 52.1], [5.1, 52.1]] }, bron: 't' }]);
    const vierde = await leidAdresInvloedenAf(db);
    expect(vierde).toMatchObject({ berekend: 41, bijgewerkt: 41, gewijzigdeTypes: ['hoogspanning'] });
    expect(vierde.ingevoegd + vierde.bijgewerkt + vierde.ongewijzigd).toBe(82);

    // A deploy that changes a threshold (or a text) in code: that type for every address again.
    const drempel = INVLOED_DREMPELS.natura2000 as { oranjeTotM: number };
    const oud = drempel.oranjeTotM;
    drempel.oranjeTotM = 500;
    try {
      expect(await leidAdresInvloedenAf(db)).toMatchObject({ berekend: 41, gewijzigdeTypes: ['natura2000'] });
    } finally {
      drempel.oranjeTotM = oud;
    }
    expect(await leidAdresInvloedenAf(db)).toMatchObject({ berekend: 41, gewijzigdeTypes: ['natura2000'] });

    // On demand everything is computed again, and nothing changes.
    expect(await leidAdresInvloedenAf(db, { alles: true })).toMatchObject({ berekend: 82, ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 82 });
  });
});
