/** An `invloeden` file is the whole set of each bron + type it holds (review finding M2). */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { schrijf, tijdelijkeMap } from '../support/hulp.ts';
import { maakAdres } from '../support/register.ts';

const vlak = (x: number) => ({ type: 'Polygon', coordinates: [[[x, 52.1], [x + 0.01, 52.1], [x + 0.01, 52.11], [x, 52.1]]] });
const lijn = (y: number) => ({ type: 'LineString', coordinates: [[5.0, y], [5.2, y]] });
const feature = (properties: Record<string, unknown>, geometry: object, id?: string) => ({ type: 'Feature', ...(id ? { id } : {}), properties, geometry });

describe(`invloeden: a file replaces its bron + type (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());
  let n = 0;
  const importeer = (...features: object[]) =>
    voerImportUit(db, 'invloeden', schrijf(path.join(tmp.pad, `f${n++}.geojson`), JSON.stringify({ type: 'FeatureCollection', features })));
  const objecten = async () => (await db.prisma.invloedObject.findMany()).map((o) => `${o.bron}: ${o.id}`).sort();

  it('deletes what the new file lacks, also an id-less line whose geometry moved, and recomputes the indicators', async () => {
    const a = await maakAdres(db.prisma, { lat: 52.0005, lon: 5.1 });
    const n2k = { type: 'natura2000', bron: 'PDOK N2K' };
    const hs = { type: 'hoogspanning', bron: 'TenneT' };
    await importeer(feature(n2k, vlak(5.0), 'NL1'), feature(n2k, vlak(5.3), 'NL2'), feature(hs, lijn(52.0)));
    const afstand = async () => (await db.prisma.adresInvloed.findUniqueOrThrow({ where: { adresId_type: { adresId: a.id, type: 'hoogspanning' } } })).afstandM!;
    expect(await afstand()).toBeLessThan(60);

    const s = await importeer(feature(n2k, vlak(5.3), 'NL2'), feature(n2k, vlak(5.6), 'NL3'), feature(hs, lijn(52.01)));
    expect(s.verwijderd).toEqual({ invloedObjecten: 2 });
    const over = await objecten();
    expect(over.filter((o) => o.startsWith('PDOK'))).toEqual(['PDOK N2K: natura2000-NL2', 'PDOK N2K: natura2000-NL3']);
    expect(over.filter((o) => o.startsWith('TenneT'))).toHaveLength(1);
    expect(await afstand()).toBeGreaterThan(1000);
  });

  it('leaves other bronnen and types alone, and deletes nothing when a feature was refused', async () => {
    const voor = await objecten();
    await importeer(feature({ type: 'natura2000', bron: 'Provincie' }, vlak(5.8), 'P1'));
    expect(await objecten()).toEqual([...voor, 'Provincie: natura2000-P1'].sort());
    const s = await importeer(feature({ type: 'natura2000', bron: 'PDOK N2K' }, vlak(5.3), 'NL2'), feature({ type: 'natura2000', bron: 'PDOK N2K' }, { type: 'Polygon', coordinates: [[[5, 52], [5.1, 52]]] }, 'NL3'));
    expect(s.afgewezen).toBe(1);
    expect(s.verwijderd).toEqual({ invloedObjecten: 0 });
    expect(s.nietOpgeruimd).toMatch(/1 feature\(s\) afgewezen/);
    expect(await objecten()).toContain('PDOK N2K: natura2000-NL3');
  });
});
