import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { registerImportCommand } from '../../src/cli/commands/import.ts';
import { voerImportUit } from '../../src/domain/register/import/runner.ts';
import { BatchSchrijver, type BatchItem, type BatchUitkomst, upsertBatch } from '../../src/domain/register/import/schrijver.ts';
import { laadSoorten } from '../../src/domain/register/import/soorten.ts';
import { OnbekendeKolomFout, TABELLEN, TABEL_NAMEN, type TabelNaam, normaliseerRij } from '../../src/domain/register/import/tabellen.ts';
import { VerkeerdFormaatFout } from '../../src/domain/register/import/types.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CBS_CSV, CSV_FULL, schrijf, tijdelijkeMap } from '../support/hulp.ts';

const PARSERS = path.resolve(import.meta.dirname, '../../src/domain/register/parsers');

/** Two valid rows per table, and a changed version of the first. */
const VOORBEELD: Record<TabelNaam, { rijen: Record<string, unknown>[]; wijzig: Record<string, unknown> }> = {
  adres: {
    rijen: [
      { id: '0000200000000001', postcode: '1234AB', huisnummer: 1, straat: 'A', woonplaats: 'W', object_type: 'verblijfsobject', gebruiksdoelen: ['woonfunctie'], bron: 't', bron_datum: new Date(Date.UTC(2020, 0, 2)) },
      { id: '0000200000000002', postcode: '1234AB', huisnummer: 2, straat: 'A', woonplaats: 'W', object_type: 'ligplaats', lat: 52.1, lon: 5.1, bron: 't' },
    ],
    wijzig: { huisletter: 'B' },
  },
  pand: {
    rijen: [
      { id: '0000100000000001', bouwjaar: 1900, geometrie: { type: 'Polygon', coordinates: [[[5, 52], [5.1, 52], [5.1, 52.1], [5, 52]]] }, bron: 't' },
      { id: '0000100000000002', status: 'Pand in gebruik', bron: 't' },
    ],
    wijzig: { bouwjaar: 1901 },
  },
  woz_waarde: {
    rijen: [
      { adres_id: '0000200000000001', peildatum: '2024-01-01', waarde: 300000, bron: 't' },
      { adres_id: '0000200000000001', peildatum: new Date(Date.UTC(2025, 0, 1)), waarde: '310000', bron: 't' },
    ],
    wijzig: { waarde: 301000 },
  },
  energielabel: {
    rijen: [
      { adres_id: '0000200000000001', label: 'A', registratiedatum: '2020-01-01', energie_index: 1.1, bron: 't' },
      { adres_id: '0000200000000002', label: null, bron: 't' },
    ],
    wijzig: { label: 'B' },
  },
  woningtype: {
    rijen: [
      { adres_id: '0000200000000001', woningtype: 'vrijstaand', afgeleid_uit: 'x', bron: 't' },
      { adres_id: '0000200000000002', woningtype: 'overig', afgeleid_uit: 'x', bron: 't' },
    ],
    wijzig: { woningtype: 'hoekwoning' },
  },
  invloed_object: {
    rijen: [
      { id: 'n2k-1', type: 'natura2000', naam: 'Veen', geometrie: { type: 'Point', coordinates: [5, 52] }, bron: 't' },
      { id: 'hs-1', type: 'hoogspanning', geometrie: { type: 'LineString', coordinates: [[5, 52], [5.1, 52]] }, bron: 't' },
    ],
    wijzig: { naam: 'Veen 2' },
  },
  adres_invloed: {
    rijen: [
      { adres_id: '0000200000000001', type: 'natura2000', indicator: 'groen', afstand_m: 900, omschrijving: 'ver', bron: 't' },
      { adres_id: '0000200000000001', type: 'hoogspanning', indicator: 'rood', afstand_m: 10, omschrijving: 'dicht', bron: 't' },
    ],
    wijzig: { indicator: 'oranje' },
  },
  verkoop: {
    rijen: [
      { id: 'vk-1', transactiedatum: '2023-05-01', koopsom: 400000, postcode: '1234AB', huisnummer: 1, lat: 52.1, lon: 5.1, bron: 't' },
      { id: 'vk-2', adres_id: null, transactiedatum: '2023-06-01', koopsom: 350000, bron: 't' },
    ],
    wijzig: { koopsom: 401000 },
  },
  prijsindex: {
    rijen: [
      { tabel: '83906NED', regio: 'NL', periode: '2020-01-01', index: 130.5, bron: 't' },
      { tabel: '83906NED', regio: 'NL', periode: '2020-02-01', index: 131, bron: 't' },
    ],
    wijzig: { index: 130.6 },
  },
};

describe(`import framework (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(async () => {
    tmp.weg();
  });

  it('knows every register table exactly as the migrated database has it', async () => {
    const kolommen = (await db.prisma.$queryRawUnsafe(
      `SELECT table_name, column_name, udt_name, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ANY($1::text[]) ORDER BY table_name, ordinal_position`,
      [...TABEL_NAMEN],
    )) as { table_name: string; column_name: string; udt_name: string; is_nullable: string; column_default: string | null }[];
    const soort: Record<string, string> = { text: 'text', int4: 'int', float8: 'float', date: 'date', jsonb: 'json', _text: 'text[]' };
    for (const t of TABEL_NAMEN) {
      const db_ = kolommen.filter((k) => k.table_name === t && k.column_name !== 'bijgewerkt_op');
      expect(db_.map((k) => [k.column_name, soort[k.udt_name], k.is_nullable === 'NO' && k.column_default === null]), t).toEqual(
        TABELLEN[t].kolommen.map((c) => [c.naam, c.type, c.verplicht]),
      );
      expect(kolommen.some((k) => k.table_name === t && k.column_name === 'bijgewerkt_op'), t).toBe(TABELLEN[t].bijgewerktOp);
    }
  });

  it.each(TABEL_NAMEN)('upsertBatch writes %s idempotently and counts inserted / updated / unchanged', async (tabel) => {
    const v = VOORBEELD[tabel];
    expect(await upsertBatch(db.prisma, tabel, v.rijen)).toEqual({ ingevoegd: 2, bijgewerkt: 0, ongewijzigd: 0, afgewezen: [] });
    const naam = TABELLEN[tabel].sleutel[0];
    const voor = await db.prisma.$queryRawUnsafe(`SELECT * FROM ${tabel} ORDER BY 1, 2`);
    expect(await upsertBatch(db.prisma, tabel, v.rijen)).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 2, afgewezen: [] });
    expect(await db.prisma.$queryRawUnsafe(`SELECT * FROM ${tabel} ORDER BY 1, 2`)).toEqual(voor);
    const gewijzigd = { ...v.rijen[0], ...v.wijzig };
    const slecht = { ...v.rijen[1], [naam]: null };
    const r = await upsertBatch(db.prisma, tabel, [gewijzigd, v.rijen[1], slecht]);
    expect(r).toMatchObject({ ingevoegd: 0, bijgewerkt: 1, ongewijzigd: 1 });
    expect(r.afgewezen).toEqual([{ index: 2, reden: `kolom ${naam} ontbreekt` }]);
  });

  it('validates values and refuses unknown columns as a programming error', () => {
    expect(normaliseerRij('adres', { ...VOORBEELD.adres.rijen[0], huisnummer: 'twaalf' })).toMatchObject({ ok: false, reden: 'kolom huisnummer: geheel getal verwacht, kreeg "twaalf"' });
    expect(normaliseerRij('woz_waarde', { ...VOORBEELD.woz_waarde.rijen[0], peildatum: '2024-02-30' })).toMatchObject({ ok: false });
    expect(normaliseerRij('adres', { ...VOORBEELD.adres.rijen[0], lat: Number.NaN })).toMatchObject({ ok: false, reden: 'kolom lat: getal verwacht, kreeg NaN' });
    expect(normaliseerRij('adres', { ...VOORBEELD.adres.rijen[0], straat: 'a\u0000b' })).toMatchObject({ ok: false });
    expect(() => normaliseerRij('adres', { ...VOORBEELD.adres.rijen[0], straatnaam: 'x' })).toThrow(OnbekendeKolomFout);
  });

  it('values round-trip exactly: quotes, backslashes, commas and braces in text arrays, unicode, floats, dates', async () => {
    const doelen = ['a"b', 'c\\d', 'e,f', '{x}', ' spatie ', 'NULL', ''];
    await upsertBatch(db.prisma, 'adres', [
      { id: '0000200000000009', postcode: '1234AB', huisnummer: 9, straat: 'Ĳsselkade "Oost"\\', woonplaats: "'s-Hertogenbosch", object_type: 'verblijfsobject', gebruiksdoelen: doelen, lat: 52.377779679934136, lon: 0.1 + 0.2, bron: 't', bron_datum: '2024-02-29' },
    ]);
    const a = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0000200000000009' } });
    expect(a.gebruiksdoelen).toEqual(doelen);
    expect(a.straat).toBe('Ĳsselkade "Oost"\\');
    expect(a.woonplaats).toBe("'s-Hertogenbosch");
    expect(a.lat).toBe(52.377779679934136);
    expect(a.lon).toBe(0.1 + 0.2);
    expect(a.bronDatum?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(await upsertBatch(db.prisma, 'adres', [{ id: '0000200000000009', postcode: '1234AB', huisnummer: 9, straat: 'Ĳsselkade "Oost"\\', woonplaats: "'s-Hertogenbosch", object_type: 'verblijfsobject', gebruiksdoelen: doelen, lat: 52.377779679934136, lon: 0.1 + 0.2, bron: 't', bron_datum: '2024-02-29' }])).toMatchObject({ ongewijzigd: 1 });
  });

  it('a column a source does not have is left alone (pand footprint kept)', async () => {
    await upsertBatch(db, 'pand', [{ id: '0000100000000001', bouwjaar: 1950, bron: 'csv' }]); // the Database itself works too
    const p = await db.prisma.pand.findUniqueOrThrow({ where: { id: '0000100000000001' } });
    expect(p.bouwjaar).toBe(1950);
    expect((p.geometrie as { type: string }).type).toBe('Polygon');
  });

  it('within one batch a repeated key is written in order (last wins); identical repeats count as unchanged', async () => {
    const r = await upsertBatch(db.prisma, 'prijsindex', [
      { tabel: 'T', regio: 'NL', periode: '2021-01-01', index: 1, bron: 't' },
      { tabel: 'T', regio: 'NL', periode: '2021-01-01', index: 1, bron: 't' },
      { tabel: 'T', regio: 'NL', periode: '2021-01-01', index: 2, bron: 't' },
    ]);
    expect(r).toMatchObject({ ingevoegd: 1, bijgewerkt: 1, ongewijzigd: 1 });
    expect((await db.prisma.prijsindex.findFirstOrThrow({ where: { tabel: 'T' } })).index).toBe(2);
  });

  function items(tabel: TabelNaam, rijen: Record<string, unknown>[]): BatchItem[] {
    return rijen.map((r, i) => {
      const n = normaliseerRij(tabel, { ...r });
      if (!n.ok) throw new Error(n.reden);
      return { tabel, rij: n.rij, masker: n.masker, sleutel: n.sleutel, regel: i + 2 };
    });
  }

  it('a batch the database refuses is retried row by row: the bad row is refused, the others written', async () => {
    const uitkomsten: BatchUitkomst[] = [];
    const w = new BatchSchrijver(db, { batchGrootte: 100, parallel: 1, naBatch: (u) => uitkomsten.push(u) });
    const rijen = [1, 2, 3, 4].map((i) => ({ id: `nul-${i}`, type: 'geluid', geometrie: { type: 'Point', coordinates: [5, 52], x: i === 3 ? 'a\u0000b' : 'ok' }, bron: 't' }));
    for (const it of items('invloed_object', rijen)) await w.voegToe(it);
    await w.sluit();
    expect(uitkomsten).toHaveLength(1);
    expect(uitkomsten[0].perTabel.get('invloed_object')).toEqual({ ingevoegd: 3, bijgewerkt: 0, ongewijzigd: 0 });
    expect(uitkomsten[0].geweigerd).toHaveLength(1);
    expect(uitkomsten[0].geweigerd[0].regel).toBe(4);
    expect(uitkomsten[0].geweigerd[0].reden).toMatch(/^database weigerde de rij \(invloed_object\): .*(\\u0000|unicode|Unicode)/);
    expect((await db.prisma.invloedObject.findMany({ where: { id: { startsWith: 'nul-' } }, orderBy: { id: 'asc' } })).map((o) => o.id)).toEqual(['nul-1', 'nul-2', 'nul-4']);
  });

  it('with two batches in flight a later value of the same key still wins', async () => {
    const w = new BatchSchrijver(db, { batchGrootte: 2, parallel: 2, naBatch: () => {} });
    const rij = (periode: string, index: number) => ({ tabel: 'P', regio: 'NL', periode, index, bron: 't' });
    const reeks = items('prijsindex', [rij('2020-01-01', 1), rij('2020-02-01', 1), rij('2020-01-01', 2), rij('2020-03-01', 1), rij('2020-01-01', 3), rij('2020-04-01', 1)]);
    for (const it of reeks) await w.voegToe(it);
    await w.sluit();
    expect((await db.prisma.prijsindex.findFirstOrThrow({ where: { tabel: 'P', periode: new Date('2020-01-01') } })).index).toBe(3);
    expect(await db.prisma.prijsindex.count({ where: { tabel: 'P' } })).toBe(4);
  });

  it('the batch writer (COPY on PostgreSQL) round-trips tabs, newlines, backslashes, quotes and JSON exactly', async () => {
    const doelen = ['a"b', 'c\\d', 'e,f', '{x}', 'tab\there', 'regel\nnieuw', '\\N', 'NULL', ''];
    const straat = 'Ĳsselkade "Oost"\\ \t tab \r\n nieuwe regel \\n geen regel';
    const geometrie = { type: 'Point', coordinates: [5.123456789012345, 52], naam: 'a\tb\\c\nd "e"' };
    const rij = { id: '0000200000000077', postcode: '1234AB', huisnummer: 77, straat, woonplaats: "'s-Hertogenbosch", object_type: 'verblijfsobject', gebruiksdoelen: doelen, lat: 52.377779679934136, lon: 0.1 + 0.2, bron: '\\N', bron_datum: '2024-02-29' };
    const pand = { id: '0000100000000077', bouwjaar: 1900, geometrie, bron: 't' };
    const uitkomsten: BatchUitkomst[] = [];
    const schrijf = async () => {
      const w = new BatchSchrijver(db, { batchGrootte: 10, parallel: 2, naBatch: (u) => uitkomsten.push(u) });
      for (const it of [...items('adres', [rij]), ...items('pand', [pand])]) await w.voegToe(it);
      await w.sluit();
    };
    await schrijf();
    expect(uitkomsten[0].perTabel.get('adres')).toEqual({ ingevoegd: 1, bijgewerkt: 0, ongewijzigd: 0 });
    const a = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0000200000000077' } });
    expect(a.straat).toBe(straat);
    expect(a.gebruiksdoelen).toEqual(doelen);
    expect(a.bron).toBe('\\N');
    expect(a.lat).toBe(52.377779679934136);
    expect(a.lon).toBe(0.1 + 0.2);
    expect(a.bronDatum?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(a.huisletter).toBeNull();
    expect((await db.prisma.pand.findUniqueOrThrow({ where: { id: '0000100000000077' } })).geometrie).toEqual(geometrie);
    await schrijf();
    expect(uitkomsten[1].perTabel.get('adres')).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 1 });
    expect(uitkomsten[1].perTabel.get('pand')).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 1 });
  });

  it('the batch writer writes a key repeated with other values in one batch in order (last wins), twice in a row', async () => {
    const uitkomsten: BatchUitkomst[] = [];
    const w = new BatchSchrijver(db, { batchGrootte: 4, parallel: 1, naBatch: (u) => uitkomsten.push(u) });
    const rij = (periode: string, index: number) => ({ tabel: 'R', regio: 'NL', periode, index, bron: 't' });
    // Two batches of four; each holds one key three times (several statements on one staging table).
    const reeks = items('prijsindex', [rij('2020-01-01', 1), rij('2020-01-01', 1), rij('2020-01-01', 2), rij('2020-02-01', 5), rij('2020-01-01', 3), rij('2020-03-01', 1), rij('2020-01-01', 4), rij('2020-01-01', 4)]);
    for (const it of reeks) await w.voegToe(it);
    await w.sluit();
    expect(uitkomsten.map((u) => u.perTabel.get('prijsindex'))).toEqual([
      { ingevoegd: 2, bijgewerkt: 1, ongewijzigd: 1 },
      { ingevoegd: 1, bijgewerkt: 2, ongewijzigd: 1 },
    ]);
    expect((await db.prisma.prijsindex.findFirstOrThrow({ where: { tabel: 'R', periode: new Date('2020-01-01') } })).index).toBe(4);
  });

  it('with two batches in flight and keys in ascending order, a later value of a key shared at the batch edge wins', async () => {
    for (let poging = 0; poging < 5; poging++) {
      const w = new BatchSchrijver(db, { batchGrootte: 300, parallel: 2, naBatch: () => {} });
      const rij = (i: number, bouwjaar: number) => ({ id: `0000100000${String(i).padStart(6, '0')}`, bouwjaar, bron: 't' });
      const eerste = Array.from({ length: 300 }, (_, i) => rij(i, 1900 + poging));
      // The second batch starts with the first batch's last key, with another value.
      const tweede = [rij(299, 2000 + poging), ...Array.from({ length: 299 }, (_, i) => rij(300 + i, 1900))];
      for (const it of items('pand', [...eerste, ...tweede])) await w.voegToe(it);
      await w.sluit();
      expect((await db.prisma.pand.findUniqueOrThrow({ where: { id: '0000100000000299' } })).bouwjaar).toBe(2000 + poging);
    }
  });

  it.runIf(dialect === 'postgres')('a key another writer inserts while the batch copies it is written through ON CONFLICT instead', async () => {
    // Another transaction inserts a key the batch also has, and commits only once the batch's COPY
    // waits for it: the COPY then fails as a unique violation and the batch is redone.
    const ander = await db.openRawConnection!();
    try {
      await ander.query('BEGIN');
      await ander.query(`INSERT INTO pand (id, bouwjaar, bron) VALUES ('0000100000900002', 1800, 'ander')`);
      const uitkomsten: BatchUitkomst[] = [];
      const w = new BatchSchrijver(db, { batchGrootte: 10, parallel: 2, naBatch: (u) => uitkomsten.push(u) });
      const rijen = [1, 2, 3].map((i) => ({ id: `000010000090000${i}`, bouwjaar: 1990 + i, bron: 't' }));
      for (const it of items('pand', rijen)) await w.voegToe(it);
      const klaar = w.sluit();
      // Wait until the batch's COPY is blocked on the other transaction's row.
      let geblokkeerd = false;
      for (let i = 0; i < 100 && !geblokkeerd; i++) {
        // (Inside a transaction the statistics views keep their first snapshot unless it is cleared.)
        await ander.query('SELECT pg_stat_clear_snapshot()');
        const r = await ander.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'COPY%'`);
        geblokkeerd = r.rows[0].n > 0;
        if (!geblokkeerd) await new Promise((z) => setTimeout(z, 50));
      }
      expect(geblokkeerd).toBe(true);
      await ander.query('COMMIT');
      await klaar;
      expect(uitkomsten).toHaveLength(1);
      expect(uitkomsten[0].geweigerd).toEqual([]);
      expect(uitkomsten[0].perTabel.get('pand')).toEqual({ ingevoegd: 2, bijgewerkt: 1, ongewijzigd: 0 });
      const panden = await db.prisma.pand.findMany({ where: { id: { startsWith: '00001000009' } }, orderBy: { id: 'asc' } });
      expect(panden.map((p) => [p.id, p.bouwjaar, p.bron])).toEqual([
        ['0000100000900001', 1991, 't'],
        ['0000100000900002', 1992, 't'],
        ['0000100000900003', 1993, 't'],
      ]);
    } finally {
      await ander.end();
    }
  });

  it('registers the parser modules that exist as kinds', async () => {
    const soorten = await laadSoorten();
    for (const k of ['bag-xml', 'bag-csv', 'bag-gpkg', 'woningtype-afleiden', 'invloeden-afleiden']) expect(soorten.has(k)).toBe(true);
    for (const [k, f] of [
      ['energielabels', 'energielabels.ts'],
      ['prijsindex', 'prijsindex.ts'],
      ['woz', 'woz.ts'],
      ['verkopen', 'verkopen.ts'],
      ['invloeden', 'invloeden.ts'],
    ]) {
      expect(soorten.has(k), k).toBe(existsSync(path.join(PARSERS, f)));
    }
  });

  it.skipIf(!existsSync(path.join(PARSERS, 'prijsindex.ts')))('prijsindex through the framework: CBS 83906NED, idempotent', async () => {
    const s = await voerImportUit(db, 'prijsindex', CBS_CSV);
    expect(s).toMatchObject({ gelezen: 324, afgewezen: 0 });
    expect(s.ingevoegd + s.bijgewerkt).toBe(324); // an earlier test wrote two of these months
    const s2 = await voerImportUit(db, 'prijsindex', CBS_CSV);
    expect(s2).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 324 });
  });

  it.skipIf(!existsSync(path.join(PARSERS, 'energielabels.ts')))('energielabels: addresses resolved by the framework, the newest label wins', async () => {
    await voerImportUit(db, 'bag-csv', CSV_FULL);
    const f = schrijf(
      path.join(tmp.pad, 'labels.csv'),
      [
        'Pand_postcode;Pand_huisnummer;Pand_huisletter;Pand_huisnummertoevoeging;Pand_registratiedatum;Pand_energieklasse;Meting_geldig_tot;Pand_opnametype',
        '1011AB;105;;2;20200101;C;20300101;basis',
        '1011AB;105;;2;20220101;A;20320101;basis',
        '1011AB;105;;2;20210101;B;20310101;basis',
        '9999ZZ;1;;;20200101;A;;basis',
      ].join('\n'),
    );
    const s = await voerImportUit(db, 'energielabels', f);
    expect(s).toMatchObject({ gelezen: 4, afgewezen: 1 });
    // Refused after the parser (unknown address), still reported by its line in the file.
    expect(s.redenen[0]).toMatchObject({ regel: 5 });
    expect(s.redenen[0].reden).toBe('adres 9999ZZ 1 niet gevonden in de adrestabel (importeer eerst de BAG)');
    expect(await db.prisma.energielabel.findUniqueOrThrow({ where: { adresId: '0363200000081087' } })).toMatchObject({ label: 'A' });
    const s2 = await voerImportUit(db, 'energielabels', f);
    expect(s2).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 3 });
  });

  it.skipIf(!existsSync(path.join(PARSERS, 'invloeden.ts')))('invloeden: objects imported, adres_invloed derived for every address, idempotent', async () => {
    // Addresses from the CSV (all in 1011/1012 Amsterdam); a nature area over part of them and a line.
    const f = schrijf(
      path.join(tmp.pad, 'invloeden.geojson'),
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            id: 'IJ',
            properties: { type: 'natura2000', naam: 'Testgebied', bron: 'test' },
            geometry: { type: 'Polygon', coordinates: [[[4.89, 52.37], [4.91, 52.37], [4.91, 52.38], [4.89, 52.38], [4.89, 52.37]]] },
          },
          { type: 'Feature', id: 'L1', properties: { type: 'hoogspanning', naam: 'Lijn' }, geometry: { type: 'LineString', coordinates: [[4.8, 52.3], [4.8, 52.4]] } },
        ],
      }),
    );
    const adressen = await db.prisma.adres.count({ where: { lat: { not: null } } });
    const s = await voerImportUit(db, 'invloeden', f);
    expect(s).toMatchObject({ gelezen: 2, afgewezen: 0 });
    // (earlier tests left influence objects, so the bag-csv import above already wrote rows: some are updated now)
    const r = s.adresInvloed as { ingevoegd: number; bijgewerkt: number; ongewijzigd: number; adressen: number };
    const types = (await db.prisma.invloedObject.groupBy({ by: ['type'] })).length; // natura2000, hoogspanning, geluid
    expect(r.adressen).toBe(adressen);
    expect(r.ingevoegd + r.bijgewerkt + r.ongewijzigd).toBe(adressen * types);
    expect(r.bijgewerkt).toBeGreaterThan(0);
    const metCoordinaat = (await db.prisma.adres.findMany({ where: { lat: { not: null } }, select: { id: true } })).map((a) => a.id);
    expect(await db.prisma.adresInvloed.count({ where: { adresId: { in: metCoordinaat } } })).toBe(adressen * types);
    const binnen = await db.prisma.adresInvloed.findUniqueOrThrow({ where: { adresId_type: { adresId: '0363200000081087', type: 'natura2000' } } });
    expect(binnen).toMatchObject({ indicator: 'rood', afstandM: 0 });
    const s2 = await voerImportUit(db, 'invloeden-afleiden', null);
    expect(s2.adresInvloed).toMatchObject({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: adressen * types });
  });

  it.skipIf(!existsSync(path.join(PARSERS, 'energielabels.ts')))('a parser kind given a file of another kind fails before anything is recorded', async () => {
    const runs = await db.prisma.importRun.count();
    await expect(voerImportUit(db, 'energielabels', CSV_FULL)).rejects.toThrow(VerkeerdFormaatFout);
    await expect(voerImportUit(db, 'energielabels', CSV_FULL)).rejects.toThrow(/EP-Online/);
    await expect(voerImportUit(db, 'prijsindex', CSV_FULL)).rejects.toThrow(/prijsindex/);
    expect(await db.prisma.importRun.count()).toBe(runs);
  });

  it('CLI: --json prints only the summary on stdout; progress goes to stderr', async () => {
    const program = new Command('insight').exitOverride();
    registerImportCommand(program, { openDb: async () => ({ ...db, close: async () => {} }) });
    const uit: string[] = [];
    const fout: string[] = [];
    const o = vi.spyOn(process.stdout, 'write').mockImplementation((c) => (uit.push(String(c)), true));
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((c) => (fout.push(String(c)), true));
    try {
      await program.parseAsync(['node', 'insight', 'import', 'bag-csv', CSV_FULL, '--json']);
      await program.parseAsync(['node', 'insight', 'import', 'bag-csv', CSV_FULL]);
    } finally {
      o.mockRestore();
      e.mockRestore();
    }
    const json = JSON.parse(uit[0]);
    expect(json).toMatchObject({ soort: 'bag-csv', gelezen: 99, ingevoegd: 0, bijgewerkt: 0 });
    expect(uit[0].endsWith('\n') && uit[0].indexOf('\n') === uit[0].length - 1).toBe(true);
    expect(fout.join('')).toMatch(/^import bag-csv: klaar 100% .* 99 rijen/m);
    // Without --json: progress and a readable summary on stdout.
    expect(uit.slice(1).join('')).toMatch(/import bag-csv: klaar 100%[\s\S]*gelezen: 99, ingevoegd: 0, bijgewerkt: 0, ongewijzigd: \d+, afgewezen: 0/);
  });
});
