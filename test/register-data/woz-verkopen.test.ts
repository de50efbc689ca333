import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CBS_CSV_PAD } from '../../src/domain/register/demo/prijsmodel.ts';
import { parseWoz } from '../../src/domain/register/parsers/woz.ts';
import { parseVerkopen, verkoopId } from '../../src/domain/register/parsers/verkopen.ts';
import { stroomVan, verzamel } from '../support/stroom.ts';

const d = (s: string) => new Date(`${s}T00:00:00Z`);

describe('parseWoz', () => {
  it('reads ; files, combined additions, and reports bad rows with line and reason', async () => {
    const csv = [
      'postcode;huisnummer;toevoeging;peildatum;waarde',
      '1234AB;12;;2025-01-01;345000',
      '1234 ab;12;a-2;2024-01-01;298000',
      '1234AB;12A;;2025-01-01;1',
      '1234AB;13;;01-01-2025;300000',
      '1234AB;14;;2025-01-01;300.000',
      '1234AB;15;;2025-02-30;300000',
      '9999;16;;2025-01-01;300000',
      '1234AB;17;;2025-01-01;',
      '1234AB;18;;2025-01-01;0',
    ].join('\n');
    const rows = await verzamel(parseWoz(stroomVan(csv, 11), { bron: 'Gemeente Testdorp' }));
    expect(rows.slice(0, 2)).toEqual([
      {
        ok: true,
        regel: 2,
        tabel: 'woz_waarde',
        rij: { adres_id: null, peildatum: d('2025-01-01'), waarde: 345000, bron: 'Gemeente Testdorp' },
        adres: { postcode: '1234AB', huisnummer: 12, huisletter: null, toevoeging: null, gecombineerd: true, verblijfsobjectId: null },
      },
      {
        ok: true,
        regel: 3,
        tabel: 'woz_waarde',
        rij: { adres_id: null, peildatum: d('2024-01-01'), waarde: 298000, bron: 'Gemeente Testdorp' },
        adres: { postcode: '1234AB', huisnummer: 12, huisletter: null, toevoeging: 'A-2', gecombineerd: true, verblijfsobjectId: null },
      },
    ]);
    expect(rows.slice(2)).toEqual([
      { ok: false, regel: 4, reden: 'ongeldig huisnummer "12A" (alleen cijfers; letter of toevoeging in kolom toevoeging)' },
      { ok: false, regel: 5, reden: 'ongeldige peildatum "01-01-2025" (verwacht jjjj-mm-dd)' },
      { ok: false, regel: 6, reden: 'ongeldige waarde "300.000" (geheel aantal euro\'s, alleen cijfers)' },
      { ok: false, regel: 7, reden: 'ongeldige peildatum "2025-02-30" (verwacht jjjj-mm-dd)' },
      { ok: false, regel: 8, reden: 'ongeldige postcode "9999"' },
      { ok: false, regel: 9, reden: 'waarde ontbreekt' },
      { ok: false, regel: 10, reden: 'ongeldige waarde "0" (geheel aantal euro\'s, alleen cijfers)' },
    ]);
  });

  it('detects a , delimiter, free column order, a separate huisletter column and quoted fields', async () => {
    const csv = '\ufeffWaarde,Peildatum,Postcode,Huisnummer,Huisletter,Toevoeging\r\n"412000",2023-01-01,1234AB,5,B,"1"\r\n';
    const [r] = await verzamel(parseWoz(stroomVan(csv)));
    expect(r).toMatchObject({ ok: true, rij: { waarde: 412000, peildatum: d('2023-01-01') }, adres: { huisnummer: 5, huisletter: 'B', toevoeging: '1', gecombineerd: false } });
  });

  it('reports an unclosed quote instead of crashing', async () => {
    const rows = await verzamel(parseWoz(stroomVan('postcode;huisnummer;toevoeging;peildatum;waarde\n1234AB;1;;2025-01-01;100000\n1234AB;2;"A;2025-01-01;100000\n')));
    expect(rows[0].ok).toBe(true);
    expect(rows[1]).toMatchObject({ ok: false, reden: expect.stringMatching(/aanhalingsteken/) });
  });

  it('refuses an implausibly low value (a cut-off line) and a last line cut off before its last field', async () => {
    const kop = 'postcode;huisnummer;toevoeging;peildatum;waarde';
    const rows = await verzamel(parseWoz(stroomVan(`${kop}\n7800SD;2;;2025-01-01;1000\n7800SD;3;;2025-01-01;22`)));
    expect(rows.map((r) => (r.ok ? r.rij.waarde : `${r.regel}: ${r.reden}`))).toEqual([
      1000,
      '3: onwaarschijnlijk lage WOZ-waarde "22" (minder dan € 1.000; afgebroken regel of typefout?)',
    ]);
    for (const csv of [`${kop}\n7800SD;3;;2025-01-01`, `${kop}\n"7800SD";3;;2025-01-01`]) {
      expect(await verzamel(parseWoz(stroomVan(csv)))).toEqual([
        { ok: false, regel: 2, reden: 'laatste regel afgebroken: 4 van de 5 velden en geen regeleinde (is het bestand onvolledig?)' },
      ]);
    }
  });

  it('refuses a wrong file at the header, naming the expected columns', async () => {
    await expect(verzamel(parseWoz(stroomVan('"ID";"Perioden";"PrijsindexBestaandeKoopwoningen_1"\n"0";"1995MM01";"41.3"\n')))).rejects.toThrow(
      /geen WOZ-bestand \(CSV met kopregel postcode;huisnummer;toevoeging;peildatum;waarde.*Kolom\(men\) postcode, huisnummer, peildatum, waarde ontbreken/,
    );
    await expect(verzamel(parseWoz(stroomVan(Buffer.from([0x1f, 0x8b, 8, 0]))))).rejects.toThrow(/gzip/);
    // The file is released when the header is refused.
    const bestand = createReadStream(CBS_CSV_PAD, { highWaterMark: 256 });
    await expect(verzamel(parseWoz(bestand))).rejects.toThrow(/geen WOZ-bestand/);
    expect(bestand.destroyed).toBe(true);
    await expect(verzamel(parseWoz(stroomVan(Buffer.from([0x41, 0x00, 0x42]))))).rejects.toThrow(/binair/);
  });
});

describe('parseVerkopen', () => {
  it('reads required and optional columns; the id is deterministic', async () => {
    const csv = [
      'postcode,huisnummer,toevoeging,transactiedatum,koopsom,oppervlakte,perceel,bouwjaar,woningtype,energielabel,lat,lon',
      '1234AB,12,,2024-03-15,415000,118,160,1978,tussenwoning,c,52.1,5.1',
      '1234AB,14,2,2024-04-01,299000,,,,,,,',
      '1234AB,16,,2024-04-01,299000,,,,2-onder-1-kap,,,',
    ].join('\n');
    const rows = await verzamel(parseVerkopen(stroomVan(csv)));
    expect(rows[0]).toEqual({
      ok: true,
      regel: 2,
      tabel: 'verkoop',
      rij: {
        id: verkoopId('1234AB', 12, null, d('2024-03-15'), 415000),
        adres_id: null,
        postcode: '1234AB',
        huisnummer: 12,
        toevoeging: null,
        transactiedatum: d('2024-03-15'),
        koopsom: 415000,
        oppervlakte: 118,
        perceel: 160,
        bouwjaar: 1978,
        woningtype: 'tussenwoning',
        energielabel: 'C',
        lat: 52.1,
        lon: 5.1,
        bron: 'verkopen-import',
      },
      adres: { postcode: '1234AB', huisnummer: 12, huisletter: null, toevoeging: null, gecombineerd: true, verblijfsobjectId: null },
    });
    expect(rows[1]).toMatchObject({ ok: true, rij: { toevoeging: '2', oppervlakte: null, woningtype: null, lat: null } });
    expect(rows[2]).toMatchObject({ ok: true, rij: { woningtype: 'twee-onder-een-kap' } });
    expect(verkoopId('1234AB', 12, null, d('2024-03-15'), 415000)).toMatch(/^vk-[0-9a-f]{24}$/);
    expect(verkoopId('1234AB', 12, null, d('2024-03-15'), 415001)).not.toBe(verkoopId('1234AB', 12, null, d('2024-03-15'), 415000));
    // Without the optional columns in the header at all.
    const [kort] = await verzamel(parseVerkopen(stroomVan('postcode;huisnummer;toevoeging;transactiedatum;koopsom\n1234AB;3;;2022-12-31;250000\n')));
    expect(kort).toMatchObject({ ok: true, rij: { koopsom: 250000, oppervlakte: null, lat: null } });
  });

  it('reports malformed rows with their line number', async () => {
    const csv = [
      'postcode;huisnummer;toevoeging;transactiedatum;koopsom;oppervlakte;perceel;bouwjaar;woningtype;energielabel;lat;lon',
      '1234AB;1;;2024-01-01;250000;0;;;;;;',
      '1234AB;2;;2024-01-01;250000;;;850;;;;',
      '1234AB;3;;2024-01-01;250000;;;;bungalow;;;',
      '1234AB;4;;2024-01-01;250000;;;;;H;;',
      '1234AB;5;;2024-01-01;250000;;;;;;52.1;',
      '1234AB;6;;2024-01-01;250000;;;;;;5.1;52.1',
      '1234AB;7;;2024-01-01;250000;;;;;;52,1;5,1',
      '1234AB;8;;2024/01/01;250000;;;;;;;',
      '1234AB;9;;2024-01-01;250 000;;;;;;;',
    ].join('\n');
    const rows = await verzamel(parseVerkopen(stroomVan(csv)));
    expect(rows.map((r) => (r.ok ? 'ok' : `${r.regel}: ${r.reden}`))).toEqual([
      '2: ongeldige oppervlakte "0" (geheel getal 1–100000)',
      '3: ongeldig bouwjaar "850" (geheel getal 1000–2100)',
      '4: onbekend woningtype "bungalow" (verwacht vrijstaand, twee-onder-een-kap, hoekwoning, tussenwoning, appartement, overig)',
      '5: onbekend energielabel "H" (A+++++ t/m G)',
      '6: lat en lon horen samen: geef beide of geen van beide',
      '7: coördinaten (5.1, 52.1) liggen niet in Nederland — lat en lon verwisseld?',
      'ok',
      '9: ongeldige transactiedatum "2024/01/01" (verwacht jjjj-mm-dd)',
      '10: ongeldige koopsom "250 000" (geheel aantal euro\'s, alleen cijfers)',
    ]);
    // ';' file: a decimal comma is read as such.
    expect(rows[6]).toMatchObject({ ok: true, rij: { lat: 52.1, lon: 5.1 } });
  });

  it('refuses a last line without a line end that has fewer fields than the header (a file cut off)', async () => {
    const kop = 'postcode;huisnummer;toevoeging;transactiedatum;koopsom;oppervlakte;perceel;bouwjaar';
    for (const [regel, eind] of [
      ['1234AB;3;;2024-01-01;250000;11', ''],
      ['"1234AB";3;;2024-01-01;250000;11', ''],
    ]) {
      const rows = await verzamel(parseVerkopen(stroomVan(`${kop}\n1234AB;2;;2024-01-01;250000;118;;1978\n${regel}${eind}`)));
      expect(rows.map((r) => (r.ok ? 'ok' : `${r.regel}: ${r.reden}`))).toEqual(['ok', '3: laatste regel afgebroken: 6 van de 8 velden en geen regeleinde (is het bestand onvolledig?)']);
    }
    // With a line end, a short line still reads its missing optional columns as empty.
    const rows = await verzamel(parseVerkopen(stroomVan(`${kop}\n1234AB;3;;2024-01-01;250000;11\n`)));
    expect(rows).toMatchObject([{ ok: true, rij: { oppervlakte: 11, bouwjaar: null } }]);
  });

  it('refuses a WOZ file and a GeoJSON file', async () => {
    await expect(verzamel(parseVerkopen(stroomVan('postcode;huisnummer;toevoeging;peildatum;waarde\n1234AB;1;;2025-01-01;1\n')))).rejects.toThrow(
      /geen verkopenbestand.*transactiedatum, koopsom ontbreken/,
    );
    await expect(verzamel(parseVerkopen(stroomVan('{"type":"FeatureCollection","features":[]}\n')))).rejects.toThrow(/geen verkopenbestand/);
  });
});
