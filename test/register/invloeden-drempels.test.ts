/** The colour comes from the distance itself; rounding is for display only (reg27 L3). */
import { describe, expect, it } from 'vitest';
import { AARDSTRAAL_M, InvloedIndex, type InvloedFeature, computeInvloeden } from '../../src/domain/register/invloeden.ts';

/** A point `m` metres north of (lon, lat) on the sphere the distances use. */
const noord = (lon: number, lat: number, m: number): [number, number] => [lon, lat + ((m / AARDSTRAAL_M) * 180) / Math.PI];
/** Along a meridian, ending at (5.1, 52.0): a point due north of its end is exactly m metres away. */
const lijn: InvloedFeature = { id: 'l0', type: 'hoogspanning', naam: 'Proeflijn', geometrie: { type: 'LineString', coordinates: [[5.1, 51.9], [5.1, 52.0]] } };
/** A triangle with its apex at (5.05, 52.2). */
const veen: InvloedFeature = { id: 'n0', type: 'natura2000', naam: 'Proefveen', geometrie: { type: 'Polygon', coordinates: [[[5.0, 52.1], [5.1, 52.1], [5.05, 52.2], [5.0, 52.1]]] } };

describe('influence colours at the thresholds', () => {
  const idx = new InvloedIndex([lijn, veen]);
  const hs = (m: number) => idx.beoordeel('hoogspanning', ...noord(5.1, 52.0, m))!;
  const n2k = (m: number) => idx.beoordeel('natura2000', ...noord(5.05, 52.2, m))!;

  it('hoogspanning: 49.57 m is rood (< 50 m), shown as 50 m, and the sentence does not say 50 m is within 50 m', () => {
    expect(hs(49.57)).toMatchObject({ indicator: 'rood', afstandM: 50 });
    expect(hs(49.57).omschrijving).toBe('Bovengrondse hoogspanningslijn ‘Proeflijn’ op 49,6 m: binnen 50 m, onze benadering van de specifieke magneetveldzone uit het RIVM-advies.');
    expect(hs(49.97).omschrijving).toMatch(/ op 49,9 m: binnen 50 m/);
    expect(hs(50.2)).toMatchObject({ indicator: 'oranje', afstandM: 50 });
    expect(hs(50.2).omschrijving).toMatch(/ op 50 m: binnen 250 m/);
    expect(hs(249.7)).toMatchObject({ indicator: 'oranje', afstandM: 250 });
    expect(hs(249.7).omschrijving).toMatch(/ op 249,7 m: binnen 250 m/);
  });

  it('at or past 250 m groen, never "op 250 m, verder dan 250 m"', () => {
    expect(hs(250.3)).toMatchObject({ indicator: 'groen', afstandM: 250 });
    expect(hs(250.3).omschrijving).toBe('De dichtstbijzijnde bovengrondse hoogspanningslijn ‘Proeflijn’ ligt op 250,3 m, verder dan 250 m.');
    expect(hs(250.7).omschrijving).toMatch(/ ligt op 251 m, verder dan 250 m\.$/);
    expect(n2k(249.6)).toMatchObject({ indicator: 'oranje', afstandM: 250, omschrijving: 'Het adres ligt op 249,6 m van Natura 2000-gebied ‘Proefveen’ (binnen 250 m).' });
    expect(n2k(250.2)).toMatchObject({ indicator: 'groen', afstandM: 250, omschrijving: 'Het dichtstbijzijnde Natura 2000-gebied ‘Proefveen’ ligt op 250,2 m, verder dan 250 m.' });
  });

  it('the stored rows agree', () => {
    const [lon, lat] = noord(5.1, 52.0, 49.57);
    expect(computeInvloeden([lijn], [{ id: 'a', lon, lat }])).toMatchObject([{ indicator: 'rood', afstand_m: 50 }]);
  });
});
