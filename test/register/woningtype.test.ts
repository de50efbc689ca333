import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { upsertBatch } from '../../src/domain/register/import/schrijver.ts';
import { AFGELEID_BRON, Footprints, type WoningtypeRij, inBand, leidWoningtypenAf, legeStatistiek, woningtypeRijen } from '../../src/domain/register/woningtype.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, CSV_PLUS } from '../support/hulp.ts';
import { rdNaarLonLat } from '../../src/domain/register/import/geo.ts';

function leesCsv(f: string): Record<string, string>[] {
  const [kop, ...rijen] = readFileSync(f, 'utf8').trimEnd().split('\n');
  const k = kop.split(';');
  return rijen.map((r) => Object.fromEntries(r.split(';').map((v, i) => [k[i], v])));
}

describe('touching footprints (unit)', () => {
  const vierkant = (x0: number, y0: number, x1: number, y1: number) => [
    [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  ];

  it('counts neighbours within the tolerance, including overlap and containment', () => {
    const fp = new Footprints();
    fp.voegToe('a', vierkant(0, 0, 10, 10));
    fp.voegToe('b', vierkant(10.25, 0, 20, 10)); // 0.25 m gap: touching
    fp.voegToe('c', vierkant(20.4, 0, 30, 10)); // 0.4 m gap: not touching
    fp.voegToe('d', vierkant(2, 2, 3, 3)); // inside a
    fp.voegToe('e', vierkant(29, 9, 40, 20)); // overlaps c's corner
    const { aantal, enige } = fp.buren(0.3);
    expect([...aantal]).toEqual([2, 1, 1, 1, 1]);
    expect(fp.ids[enige[1]]).toBe('a');
    expect(fp.ids[enige[2]]).toBe('e');
    expect(fp.ids[enige[3]]).toBe('a');
  });

  it('a house in the courtyard (hole) of another pand touches nothing', () => {
    const fp = new Footprints();
    const gat = [[110, 110], [110, 130], [130, 130], [130, 110], [110, 110]];
    fp.voegToe('51', [[vierkant(100, 100, 140, 140)[0][0], gat]]);
    fp.voegToe('52', vierkant(115, 115, 125, 125)); // 5 m from the hole's edge
    fp.voegToe('53', vierkant(104, 104, 106, 106)); // in the ring itself: overlap
    const { aantal } = fp.buren(0.3);
    expect([...aantal]).toEqual([1, 0, 1]);
  });

  it('a corner alone is no shared wall, also with outlines 0.2 m off; 2 m of wall is', () => {
    const fp = new Footprints();
    fp.voegToe('31', vierkant(300, 0, 310, 10));
    fp.voegToe('32', vierkant(310, 10, 320, 20)); // only the point (310, 10)
    fp.voegToe('33', vierkant(400, 0, 410.2, 10.2));
    fp.voegToe('34', vierkant(410, 10, 420, 20)); // corners overlap by 0.2 × 0.2 m
    fp.voegToe('35', vierkant(500, 0, 510, 10));
    fp.voegToe('36', [[[[510, 5], [515, 10], [520, 5], [515, 0], [510, 5]]]]); // a corner against a wall
    fp.voegToe('37', vierkant(600, 0, 610, 10));
    fp.voegToe('38', vierkant(610, 8, 620, 18)); // staggered: 2 m of wall
    expect([...fp.buren(0.3).aantal]).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
  });

  it('the part of a segment within the tolerance of another', () => {
    expect([...inBand(0, 0, 10, 0, 4, 0.2, 6, 0.2, 0.3)!].map((t) => t * 10)).toEqual([expect.closeTo(4 - Math.sqrt(0.05), 9), expect.closeTo(6 + Math.sqrt(0.05), 9)]);
    expect([...inBand(0, 0, 10, 0, 5, -1, 5, 1, 0.3)!]).toEqual([expect.closeTo(0.47, 9), expect.closeTo(0.53, 9)]);
    expect(inBand(0, 0, 10, 0, 12, 0, 20, 0, 0.3)).toBeNull(); // collinear, 2 m apart
    expect([...inBand(0, 0, 10, 0, 10.1, 0.1, 20, 0.1, 0.3)!]).toEqual([expect.closeTo(1.01 - Math.sqrt(0.08) / 10, 9), 1]); // a corner's disc
  });
});

describe(`woningtype: derivation vs NLExtract (${dialect})`, () => {
  const db = useTestDatabase();
  beforeAll(async () => {
    await voerImportUit(db, 'bag-csv', CSV_FULL);
  });

  it('agrees with NLExtract bagadresplus wherever the sample allows a comparison', async () => {
    const s = await voerImportUit(db, 'woningtype-afleiden', null);
    expect(s.afgewezen).toBe(0);
    const ons = new Map((await db.prisma.woningtype.findMany()).map((w) => [w.adresId, w.woningtype]));
    const full = new Map(leesCsv(CSV_FULL).map((r) => [r.nummeraanduiding, r]));
    // Verblijfsobjecten per pand in the sample (NLExtract's aantal_vbo_relaties_dit_pnd counts all of the Netherlands).
    const vbosInSample = new Map<string, Set<string>>();
    for (const r of full.values()) {
      if (r.object_type !== 'VBO' || !r.pandid) continue;
      if (!vbosInSample.has(r.pandid)) vbosInSample.set(r.pandid, new Set());
      vbosInSample.get(r.pandid)!.add(r.object_id);
    }
    let vergeleken = 0;
    for (const p of leesCsv(CSV_PLUS)) {
      const id = p.nummeraanduiding_id;
      const f = full.get(id)!;
      const nl = p.woningtype;
      const heelPand = !!f.pandid && vbosInSample.get(f.pandid)!.size === Number(p.aantal_vbo_relaties_dit_pnd);
      // 1. Every appartement we derive is an Appartement for NLExtract.
      if (ons.get(id) === 'appartement') expect(nl, id).toBe('Appartement');
      // 2. Where the sample holds every verblijfsobject of the pand, NLExtract's Appartement is ours too.
      if (nl === 'Appartement' && heelPand) {
        expect(ons.get(id), id).toBe('appartement');
        vergeleken++;
      }
      // 3. NLExtract types only residential addresses; the rest is 'overig' for us.
      if (nl === '') expect(['overig', 'appartement', undefined]).toContain(ons.get(id));
      if (ons.get(id) === 'overig') expect(nl, id).toBe('');
      // 4. Without footprints (the CSV has none) a single house is not typed: no guess.
      if (nl === 'Vrijstaande woning' || nl === 'Tussen of geschakelde woning') expect(ons.get(id), id).toBeUndefined();
    }
    expect(vergeleken).toBe(39);
    const wt = s.woningtype as { typen: Record<string, number>; onbepaald: number };
    expect(wt.typen).toEqual({ appartement: 46, overig: 49 });
    expect(wt.onbepaald).toBe(4);
  });

  it('leaves imported house types alone and removes derived rows it can no longer justify', async () => {
    await upsertBatch(db.prisma, 'woningtype', [{ adres_id: '0363200000081087', woningtype: 'tussenwoning', afgeleid_uit: 'EP-Online gebouwtype', bron: 'EP-Online' }]);
    const r = await leidWoningtypenAf(db);
    expect(r.geimporteerdBehouden).toBe(1);
    expect(await db.prisma.woningtype.findUniqueOrThrow({ where: { adresId: '0363200000081087' } })).toMatchObject({ woningtype: 'tussenwoning', bron: 'EP-Online' });
    // A flat whose building loses its other flats (re-import without them) stops being derivable as such.
    await db.prisma.adres.updateMany({ where: { pandId: '0363100012170453', id: { not: '0363200000242880' } }, data: { gebruiksdoelen: ['kantoorfunctie'] } });
    const r2 = await leidWoningtypenAf(db);
    expect(r2.verwijderd).toBe(1);
    expect(await db.prisma.woningtype.findUnique({ where: { adresId: '0363200000242880' } })).toBeNull();
    expect(await db.prisma.woningtype.count({ where: { bron: AFGELEID_BRON, woningtype: 'appartement' } })).toBe(43);
  });
});

describe(`house types from a sweep over strips of panden (${dialect})`, () => {
  const db = useTestDatabase();

  it('gives the same types whether the sweep takes 3 panden or all at a time', async () => {
    // Rows of 1 to 5 touching houses side by side along RD x, 30 m apart, and a flat with 3 homes.
    const panden: Record<string, unknown>[] = [];
    const adressen: Record<string, unknown>[] = [];
    let x = 150_000;
    let nr = 0;
    const huis = (b: number, woningen = 1) => {
      const id = `0000100000${String(panden.length + 1).padStart(6, '0')}`;
      const ring = [[x, 450_000], [x + b, 450_000], [x + b, 450_010], [x, 450_010], [x, 450_000]].map(([rx, ry]) => rdNaarLonLat(rx, ry));
      panden.push({ id, geometrie: { type: 'Polygon', coordinates: [ring] }, bron: 't' });
      for (let w = 0; w < woningen; w++) {
        const [lon, lat] = rdNaarLonLat(x + b / 2, 450_005);
        adressen.push({ id: `0000200000${String(++nr).padStart(6, '0')}`, postcode: '1234AB', huisnummer: nr, straat: 'A', woonplaats: 'W', object_type: 'verblijfsobject', object_id: `vbo-${nr}`, pand_id: id, gebruiksdoelen: ['woonfunctie'], lat, lon, bron: 't' });
      }
      x += b;
    };
    for (const rij of [1, 2, 3, 4, 5, 2, 1]) {
      for (let i = 0; i < rij; i++) huis(6);
      x += 30;
    }
    huis(20, 3);
    await upsertBatch(db.prisma, 'pand', panden);
    await upsertBatch(db.prisma, 'adres', adressen);
    const typen = async () => Object.fromEntries((await db.prisma.woningtype.findMany({ orderBy: { adresId: 'asc' } })).map((w) => [w.adresId, w.woningtype]));
    const heel = await leidWoningtypenAf(db);
    expect(heel.typen).toEqual({ vrijstaand: 2, 'twee-onder-een-kap': 4, hoekwoning: 6, tussenwoning: 6, appartement: 3 });
    const verwacht = await typen();
    await db.prisma.woningtype.deleteMany();
    const klein = await leidWoningtypenAf(db, { strookPagina: 3 });
    expect(klein.typen).toEqual(heel.typen);
    expect(await typen()).toEqual(verwacht);
    expect(await db.prisma.woonpand.count()).toBe(0);

    // Two derivations at once (an import's after-step and `woningtype-afleiden`) share the work table
    // woonpand: the second waits, so neither wipes the other's counts and both type every house.
    // Here the second starts while the first is between two pages of addresses.
    await db.prisma.woningtype.deleteMany();
    const stat = legeStatistiek();
    const eerste = woningtypeRijen(db, stat, { strookPagina: 3, adresPagina: 4 });
    const rijen = [(await eerste.next()).value as WoningtypeRij];
    const tweede = leidWoningtypenAf(db, { strookPagina: 3 });
    await Promise.race([tweede, new Promise((r) => setTimeout(r, 2000))]);
    for await (const rij of eerste) rijen.push(rij);
    await upsertBatch(db.prisma, 'woningtype', rijen as unknown as Record<string, unknown>[]);
    expect(stat.typen).toEqual(heel.typen);
    expect((await tweede).typen).toEqual(heel.typen);
    expect(await typen()).toEqual(verwacht);
    expect(await db.prisma.woonpand.count()).toBe(0);
  });
});

describe(`house types: a courtyard and a corner are no neighbours (${dialect})`, () => {
  const db = useTestDatabase();

  it('types each of them vrijstaand, through the derivation', async () => {
    const ring = (xy: number[][]) => xy.map(([x, y]) => rdNaarLonLat(150_000 + x, 450_000 + y));
    const vak = (x0: number, y0: number, x1: number, y1: number) => ring([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]);
    const panden: Record<string, unknown>[] = [
      { id: '0000100000000051', geometrie: { type: 'Polygon', coordinates: [vak(0, 0, 40, 40), ring([[10, 10], [10, 30], [30, 30], [30, 10], [10, 10]])] }, bron: 't' },
      { id: '0000100000000052', geometrie: { type: 'Polygon', coordinates: [vak(15, 15, 25, 25)] }, bron: 't' },
      { id: '0000100000000031', geometrie: { type: 'Polygon', coordinates: [vak(300, 0, 310, 10)] }, bron: 't' },
      { id: '0000100000000032', geometrie: { type: 'Polygon', coordinates: [vak(310, 10, 320, 20)] }, bron: 't' },
    ];
    const adressen = panden.map((p, i) => {
      const [lon, lat] = (p.geometrie as { coordinates: number[][][] }).coordinates[0][0];
      return { id: `0000200000${String(i + 1).padStart(6, '0')}`, postcode: '1234AB', huisnummer: i + 1, straat: 'A', woonplaats: 'W', object_type: 'verblijfsobject', object_id: `vbo-${i}`, pand_id: p.id, gebruiksdoelen: ['woonfunctie'], lat, lon, bron: 't' };
    });
    await upsertBatch(db.prisma, 'pand', panden);
    await upsertBatch(db.prisma, 'adres', adressen);
    expect((await leidWoningtypenAf(db)).typen).toEqual({ vrijstaand: 4 });
    expect(await db.prisma.woningtype.findFirst({ where: { adresId: '0000200000000002' } })).toMatchObject({ afgeleidUit: 'BAG: pand 0000100000000052 raakt geen ander woonpand' });
  });
});
