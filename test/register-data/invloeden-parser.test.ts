import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { RD_PROJ4, parseInvloeden } from '../../src/domain/register/parsers/invloeden.ts';
import { stroomVan, verzamel } from '../support/stroom.ts';

const r7 = (x: number) => Math.round(x * 1e7) / 1e7;
const vierkant = (lon: number, lat: number, d = 0.01) => [
  [
    [lon, lat],
    [r7(lon + d), lat],
    [r7(lon + d), r7(lat + d)],
    [lon, r7(lat + d)],
    [lon, lat],
  ],
];

describe('parseInvloeden (GeoJSON FeatureCollection, streamed)', () => {
  it('yields one invloed_object row per feature, across tiny chunks, with stable ids', async () => {
    const fc = {
      type: 'FeatureCollection',
      name: 'test "met" {haakjes} en [blokken]',
      features: [
        { type: 'Feature', id: 'NL3000001', properties: { type: 'natura2000', naam: 'Het Proefveen', bron: 'PDOK' }, geometry: { type: 'Polygon', coordinates: vierkant(5.1, 52.1) } },
        {
          type: 'Feature',
          properties: { type: 'Hoogspanning', name: 'Lijn "Oost" \\ 150 kV', spanning: 150 },
          geometry: { type: 'LineString', coordinates: [[5.0, 52.0, 12.5], [5.123456789, 52.01]] },
        },
        { type: 'Feature', properties: { type: 'geluid' }, geometry: { type: 'MultiPolygon', coordinates: [vierkant(5.2, 52.2), vierkant(5.3, 52.3)] } },
      ],
    };
    const tekst = JSON.stringify(fc, null, 2);
    const rows = await verzamel(parseInvloeden(stroomVan(tekst, 3)));
    expect(rows.every((r) => r.ok)).toBe(true);
    const rij = rows.map((r) => (r.ok ? r.rij : null))!;
    expect(rij[0]).toEqual({ id: 'natura2000-NL3000001', type: 'natura2000', naam: 'Het Proefveen', geometrie: fc.features[0].geometry, bron: 'PDOK' });
    expect(rij[1]).toMatchObject({ type: 'hoogspanning', naam: 'Lijn "Oost" \\ 150 kV', bron: 'GeoJSON-import' });
    expect(rij[1]!.geometrie).toEqual({ type: 'LineString', coordinates: [[5, 52], [5.1234568, 52.01]] });
    expect(rij[1]!.id).toMatch(/^hoogspanning-[0-9a-f]{20}$/);
    expect(rij[2]!.geometrie.type).toBe('MultiPolygon');
    // Same input, same ids (re-import updates instead of duplicating).
    const nogEens = await verzamel(parseInvloeden(stroomVan(JSON.stringify(fc), 4096)));
    expect(nogEens.map((r) => r.ok && r.rij.id)).toEqual(rij.map((r) => r!.id));
  });

  it('reports bad features with line and number, and continues', async () => {
    const regels = [
      '{"type": "FeatureCollection", "features": [',
      '{"type": "Feature", "properties": {"type": "natura2000"}, "geometry": {"type": "LineString", "coordinates": [[5,52],[5.1,52]]}},',
      '{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [5,52]}},',
      '{"type": "Feature", "properties": {"type": "geluid"}, "geometry": {"type": "Polygon", "coordinates": [[[5,52],[5.1,52],[5.1,52.1],[5,52]]]}},',
      '{"type": "Feature", "properties": {"type": "geluid"}, "geometry": {"type": "Polygon", "coordinates": [[[5,52],[5.1,52],[5.1,52.1],[5,52.1]]]}},',
      '{"type": "Feature", "properties": {"type": "hoogspanning"}, "geometry": {"type": "LineString", "coordinates": [[155000,463000],[156000,463000]]}},',
      '{"type": "Feature", "properties": {"type": "hoogspanning"}, "geometry": null},',
      '{"type": "Feature", "properties": {"type": "windturbine"}, "geometry": {"type": "Point", "coordinates": [5,52]}}',
      ']}',
    ];
    const rows = await verzamel(parseInvloeden(stroomVan(regels.join('\n'), 10)));
    expect(rows.map((r) => (r.ok ? `ok ${r.rij.type}` : `${r.regel}: ${r.reden}`))).toEqual([
      '2: feature 1: geometrie "LineString" past niet bij type natura2000 (verwacht Polygon of MultiPolygon)',
      '3: feature 2: properties.type ontbreekt (bijv. natura2000 of hoogspanning)',
      'ok geluid',
      '5: feature 4: ring 0 is niet gesloten (eerste en laatste positie verschillen)',
      '6: feature 5: positie [155000,463000] is geen WGS84 lon/lat (RD-coördinaten? geef dan "crs" EPSG:28992 op)',
      '7: feature 6: geometrie ontbreekt',
      'ok windturbine',
    ]);
  });

  it('reprojects a legacy crs EPSG:28992 (RD New) to WGS84', async () => {
    const fc = {
      type: 'FeatureCollection',
      crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::28992' } },
      features: [{ type: 'Feature', properties: { type: 'hoogspanning' }, geometry: { type: 'LineString', coordinates: [[155000, 463000], [156000, 463500]] } }],
    };
    const [r] = await verzamel(parseInvloeden(stroomVan(JSON.stringify(fc), 16)));
    if (!r.ok || r.rij.geometrie.type !== 'LineString') throw new Error('verwacht een LineString');
    const [lon, lat] = r.rij.geometrie.coordinates[0];
    const [elon, elat] = proj4(RD_PROJ4, 'WGS84', [155000, 463000]);
    expect(lon).toBeCloseTo(elon, 6);
    expect(lat).toBeCloseTo(elat, 6);
    expect(lat).toBeCloseTo(52.155, 2);
  });

  it('refuses wrong files early with a Dutch message', async () => {
    const fout = (t: string | Buffer) => verzamel(parseInvloeden(stroomVan(t)));
    await expect(fout('Pand_postcode;Pand_huisnummer\n1234AB;1\n')).rejects.toThrow(/geen JSON\/GeoJSON.*GeoJSON-FeatureCollection/);
    await expect(fout('[1,2,3]')).rejects.toThrow(/JSON-lijst/);
    await expect(fout('{"type":"Feature","geometry":null,"properties":{}}')).rejects.toThrow(/GeoJSON "Feature", geen FeatureCollection/);
    await expect(fout('{"type":"FeatureCollection"}')).rejects.toThrow(/geen "features"-lijst/);
    await expect(fout('{"type":"FeatureCollection","features":[{"type":"Feature"')).rejects.toThrow(/afgebroken/);
    await expect(fout('')).rejects.toThrow(/leeg/);
    await expect(fout(Buffer.from('PK\x03\x04....', 'latin1'))).rejects.toThrow(/zip-bestand/);
    await expect(
      fout('{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"EPSG:3857"}},"features":[{"type":"Feature","properties":{"type":"x"},"geometry":{"type":"Point","coordinates":[1,2]}}]}'),
    ).rejects.toThrow(/Onbekend coördinatenstelsel/);
  });

  it('keeps memory bounded by the largest feature (a 20 MB file in 64 KB chunks)', async () => {
    const feat = JSON.stringify({ type: 'Feature', properties: { type: 'hoogspanning' }, geometry: { type: 'LineString', coordinates: Array.from({ length: 200 }, (_, i) => [5 + i * 1e-4, 52]) } });
    const n = Math.ceil(20e6 / feat.length);
    async function* bron() {
      yield Buffer.from('{"type":"FeatureCollection","features":[');
      for (let i = 0; i < n; i++) yield Buffer.from((i ? ',' : '') + feat);
      yield Buffer.from(']}');
    }
    const { Readable } = await import('node:stream');
    let aantal = 0;
    for await (const r of parseInvloeden(Readable.from(bron()))) if (r.ok) aantal++;
    expect(aantal).toBe(n);
  });
});
