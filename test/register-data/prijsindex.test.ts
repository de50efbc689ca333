import path from 'node:path';
import { FIXTURES } from '../support/gedeeld.ts';
import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePrijsindex, tabelUitBestandsnaam } from '../../src/domain/register/parsers/prijsindex.ts';
import { CBS_CSV_PAD } from '../../src/domain/register/demo/prijsmodel.ts';
import { stroomVan, verzamel } from '../support/stroom.ts';

const GEDEELD = path.join(FIXTURES, 'cbs-83906NED/83906NED_UntypedDataSet_05022022_160508.csv');

describe('parsePrijsindex (CBS StatLine CSV)', () => {
  it('reads the real 83906NED sample: 324 monthly rows 1995-01 .. 2021-12', async () => {
    const rows = await verzamel(parsePrijsindex(createReadStream(CBS_CSV_PAD, { highWaterMark: 64 })));
    expect(rows.every((r) => r.ok)).toBe(true);
    const ok = rows.flatMap((r) => (r.ok ? [r.rij] : []));
    expect(ok).toHaveLength(324);
    expect(ok[0]).toEqual({ tabel: '83906NED', regio: 'NL', periode: new Date(Date.UTC(1995, 0, 1)), index: 41.3, bron: 'CBS StatLine 83906NED' });
    expect(ok.at(-1)).toMatchObject({ periode: new Date(Date.UTC(2021, 11, 1)), index: 175.8 });
    // 2015 averages 100 (base year).
    const j2015 = ok.filter((r) => r.periode.getUTCFullYear() === 2015).map((r) => r.index);
    expect(j2015).toHaveLength(12);
    expect(j2015.reduce((a, b) => a + b, 0) / 12).toBeCloseTo(100, 0);
    // Months are consecutive.
    for (let i = 1; i < ok.length; i++) {
      const a = ok[i - 1].periode;
      const b = ok[i].periode;
      expect((b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth()).toBe(1);
    }
  });

  it('the demo copy is byte-identical to the test fixture', () => {
    expect(readFileSync(CBS_CSV_PAD).equals(readFileSync(GEDEELD))).toBe(true);
  });

  it('skips yearly and quarterly rows, maps regions, reports missing values with line numbers', async () => {
    const csv =
      '\ufeff"ID";"RegioS";"Perioden";"PrijsindexVerkoopprijzen_1";"OntwikkelingTOVVoorgaandePeriode_2"\n' +
      '"0";"NL01  ";"2020JJ00";"   100.0";"     ."\n' +
      '"1";"NL01  ";"2020KW01";"    98.1";"     ."\n' +
      '"2";"NL01  ";"2020MM01";"    97.5";"     ."\n' +
      '"3";"PV20  ";"2020MM01";"    99.9";"   0.3"\n' +
      '"4";"PV21  ";"2020MM01";"       .";"     ."\n' +
      '"5";"PV22  ";"2020XX01";"   101.0";"     ."\n' +
      '"6";"PV22  ";"2020MM13";"   101.0";"     ."\n';
    const rows = await verzamel(parsePrijsindex(stroomVan(csv, 5)));
    expect(rows.filter((r) => r.ok).map((r) => r.ok && [r.rij.tabel, r.rij.regio, r.rij.index])).toEqual([
      ['85792NED', 'NL', 97.5],
      ['85792NED', 'PV20', 99.9],
    ]);
    expect(rows.filter((r) => !r.ok)).toEqual([
      { ok: false, regel: 6, reden: 'geen indexwaarde voor 2020MM01' },
      { ok: false, regel: 7, reden: 'onbekende periode "2020XX01" (verwacht jjjjMMmm)' },
      { ok: false, regel: 8, reden: 'ongeldige maand in periode "2020MM13"' },
    ]);
  });

  it('recognises 85773NED and takes the table from a file name', async () => {
    const csv = '"ID";"Perioden";"PrijsindexVerkoopprijzen_1"\n"0";"2024MM03";"   118.2"\n';
    const [r] = await verzamel(parsePrijsindex(stroomVan(csv)));
    expect(r).toMatchObject({ ok: true, rij: { tabel: '85773NED', regio: 'NL', index: 118.2 } });
    expect(tabelUitBestandsnaam('85773NED_UntypedDataSet_01012026.csv')).toBe('85773NED');
    expect(tabelUitBestandsnaam('prijzen.csv')).toBeNull();
  });

  it('refuses a wrong file on its first line with a Dutch message naming the format', async () => {
    await expect(verzamel(parsePrijsindex(stroomVan('postcode;huisnummer;toevoeging;peildatum;waarde\n1234AB;1;;2025-01-01;300000\n')))).rejects.toThrow(
      /geen CBS StatLine-CSV van de prijsindex bestaande koopwoningen.*83906NED/,
    );
    await expect(verzamel(parsePrijsindex(stroomVan(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]))))).rejects.toThrow(/zip-bestand/);
    await expect(verzamel(parsePrijsindex(stroomVan('')))).rejects.toThrow(/leeg/);
  });
});
