import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ANDERE_REDENEN, MAX_OVERGESLAGEN_REDENEN, voerImportUit } from '../../src/domain/register/import/runner.ts';
import { VerkeerdFormaatFout } from '../../src/domain/register/import/types.ts';
import { dialect, useTestDatabase } from '../support/db.ts';
import { CSV_FULL, CSV_KORT, CSV_PLUS, XML_MAP, maakZip, momentopname, schrijf, tijdelijkeMap } from '../support/hulp.ts';

describe(`bag-csv: NLExtract bagadres-full (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(async () => {
    tmp.weg();
  });

  it('imports the 99 Amsterdam addresses with their panden and records the run', async () => {
    const s = await voerImportUit(db, 'bag-csv', CSV_FULL);
    expect(s.gelezen).toBe(99);
    expect(s.afgewezen).toBe(0);
    expect(s.tabellen.adres).toEqual({ ingevoegd: 99, bijgewerkt: 0, ongewijzigd: 0 });
    const panden = new Set(
      readFileSync(CSV_FULL, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((r) => r.split(';')[15])
        .filter(Boolean),
    );
    expect(s.tabellen.pand!.ingevoegd).toBe(panden.size);
    expect(await db.prisma.adres.count()).toBe(99);
    expect(await db.prisma.pand.count()).toBe(panden.size);

    const a = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0363200000081087' } });
    expect(a).toMatchObject({
      postcode: '1011AB',
      huisnummer: 105,
      huisletter: null,
      toevoeging: '2',
      straat: 'De Ruijterkade',
      woonplaats: 'Amsterdam',
      gemeente: 'Amsterdam',
      objectType: 'verblijfsobject',
      objectId: '0363010000784610',
      pandId: '0363100012181960',
      gebruiksdoelen: ['woonfunctie'],
      oppervlakte: 96,
      bouwjaar: null, // the file says 1005: Amsterdam's "unknown"
      status: 'Verblijfsobject in gebruik',
      rdX: 122177,
      rdY: 487877,
      bron: 'NLExtract bagadres-full',
    });
    expect(a.lat).toBeCloseTo(52.377779679934136, 12);
    expect(a.lon).toBeCloseTo(4.905166809483972, 12);
    const meer = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0363200000081095' } });
    expect(meer.gebruiksdoelen).toEqual(['woonfunctie', 'bijeenkomstfunctie']);
    const lig = await db.prisma.adres.findFirstOrThrow({ where: { objectType: 'ligplaats' } });
    expect(lig.pandId).toBeNull();
    expect(await db.prisma.pand.findUniqueOrThrow({ where: { id: '0363100012181960' } })).toMatchObject({ bouwjaar: null, status: 'Pand in gebruik', geometrie: null });

    const run = await db.prisma.importRun.findUniqueOrThrow({ where: { id: s.importRunId } });
    expect(run).toMatchObject({ soort: 'bag-csv', bestand: CSV_FULL, gelezen: 99, ingevoegd: s.ingevoegd, bijgewerkt: 0, afgewezen: 0 });
    expect(run.sha256).toBe(createHash('sha256').update(readFileSync(CSV_FULL)).digest('hex'));
    expect(run.klaarOp).not.toBeNull();
    expect((run.samenvatting as { gelezen: number }).gelezen).toBe(99);
  });

  it('a second import of the same file changes nothing', async () => {
    const voor = await momentopname(db);
    const s = await voerImportUit(db, 'bag-csv', CSV_FULL);
    expect(s.ingevoegd).toBe(0);
    expect(s.bijgewerkt).toBe(0);
    expect(s.tabellen.adres).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 99 });
    expect(await momentopname(db)).toEqual(voor);
    expect(await db.prisma.importRun.count({ where: { soort: 'bag-csv' } })).toBe(2);
  });

  it('a changed row is updated (and only that row)', async () => {
    const regels = readFileSync(CSV_FULL, 'utf8').split('\n');
    regels[2] = regels[2].replace(';96;', ';97;'); // 0363200000081087: oppervlakte 96 -> 97
    const f = schrijf(path.join(tmp.pad, 'gewijzigd.csv'), regels.join('\n'));
    const voor = await db.prisma.adres.findUniqueOrThrow({ where: { id: '0363200000081086' } });
    const s = await voerImportUit(db, 'bag-csv', f);
    expect(s.tabellen.adres).toEqual({ ingevoegd: 0, bijgewerkt: 1, ongewijzigd: 98 });
    expect((await db.prisma.adres.findUniqueOrThrow({ where: { id: '0363200000081087' } })).oppervlakte).toBe(97);
    expect(await db.prisma.adres.findUniqueOrThrow({ where: { id: '0363200000081086' } })).toEqual(voor);
    // Back to the original: updated once more.
    expect((await voerImportUit(db, 'bag-csv', CSV_FULL)).tabellen.adres!.bijgewerkt).toBe(1);
  });

  it('reports malformed rows with their line and skips them; the rest is written', async () => {
    const regels = readFileSync(CSV_FULL, 'utf8').trimEnd().split('\n');
    const kop = regels[0];
    const r = (i: number) => regels[i].split(';');
    const met = (i: number, kolom: number, waarde: string, id: string) => {
      const v = r(i);
      v[kolom] = waarde;
      v[8] = id;
      return v.join(';');
    };
    const nieuw = [
      kop,
      met(1, 4, '1011XX9', '0363200099000001'), // line 2: bad postcode
      met(1, 1, 'abc', '0363200099000002'), // line 3: bad huisnummer
      met(1, 8, '12345', '12345'), // line 4: bad nummeraanduiding
      r(1).slice(0, 10).join(';'), // line 5: too few fields
      met(1, 20, '40.1', '0363200099000003'), // line 6: lon outside NL
      met(1, 10, '9x', '0363200099000004'), // line 7: bad oppervlakte
      met(1, 13, 'XYZ', '0363200099000005'), // line 8: unknown object type
      met(1, 0, '"Kade met ""quotes""; en puntkomma"', '0363200099000006'), // line 9: valid, quoted
      met(1, 0, 'Goede Straat', '0363200099000007'), // line 10: valid
      met(1, 0, '"Open quote', '0363200099000008'), // line 11: quote never closed
      met(1, 0, 'Na de fout', '0363200099000009'), // line 12: valid again
    ];
    const f = schrijf(path.join(tmp.pad, 'kapot.csv'), `${nieuw.join('\r\n')}\r\n`);
    const s = await voerImportUit(db, 'bag-csv', f);
    expect(s.gelezen).toBe(11);
    expect(s.afgewezen).toBe(8);
    expect(s.redenen.map((x) => x.regel)).toEqual([2, 3, 4, 5, 6, 7, 8, 11]);
    expect(s.redenen[0].reden).toContain('postcode');
    expect(s.redenen[1].reden).toContain('huisnummer');
    expect(s.redenen[2].reden).toContain('nummeraanduiding');
    expect(s.redenen[3].reden).toContain('velden');
    expect(s.redenen[4].reden).toContain('buiten Nederland');
    expect(s.redenen[5].reden).toContain('oppervlakte');
    expect(s.redenen[6].reden).toContain('objecttype');
    expect(s.redenen[7].reden).toContain('aanhalingsteken');
    expect(s.tabellen.adres!.ingevoegd).toBe(3);
    const ids = (await db.prisma.adres.findMany({ where: { id: { startsWith: '03632000990000' } }, select: { id: true, straat: true }, orderBy: { id: 'asc' } })).map(
      (a) => [a.id, a.straat],
    );
    expect(ids).toEqual([
      ['0363200099000006', 'Kade met "quotes"; en puntkomma'],
      ['0363200099000007', 'Goede Straat'],
      ['0363200099000009', 'Na de fout'],
    ]);
    const run = await db.prisma.importRun.findUniqueOrThrow({ where: { id: s.importRunId } });
    expect(run.afgewezen).toBe(8);
  });

  it('keeps only the first N reasons but counts all refusals', async () => {
    const kop = readFileSync(CSV_FULL, 'utf8').split('\n')[0];
    const slecht = Array.from({ length: 150 }, (_, i) => `Straat;${i + 1};;;XXXX;Amsterdam;;;0363200098${String(i).padStart(6, '0')};;;;;VBO;f;;;;;;;;`);
    const f = schrijf(path.join(tmp.pad, 'veel-fout.csv'), [kop, ...slecht].join('\n'));
    const s = await voerImportUit(db, 'bag-csv', f);
    expect(s.afgewezen).toBe(150);
    expect(s.redenen).toHaveLength(100);
    expect(s.redenenWeggelaten).toBe(50);
  });

  it('counts at most 100 distinct skip reasons; the rest under "andere redenen"', async () => {
    const kop = readFileSync(CSV_FULL, 'utf8').split('\n')[0];
    // 150 spellings of an ending status, each quoted in its reason.
    const status = (i: number) => [...'verblijfsobject ingetrokken'].map((c, j) => (j < 8 && (i >> j) & 1 ? c.toUpperCase() : c)).join('');
    const rijen = Array.from({ length: 150 }, (_, i) => `Straat;${i + 1};;;1011AB;Amsterdam;;;0363200097${String(i).padStart(6, '0')};;;${status(i)};;VBO;f;;;;;;;;`);
    const s = await voerImportUit(db, 'bag-csv', schrijf(path.join(tmp.pad, 'veel-status.csv'), [kop, ...rijen].join('\n')));
    expect(Object.keys(s.overgeslagen)).toHaveLength(MAX_OVERGESLAGEN_REDENEN + 1);
    expect(s.overgeslagen[ANDERE_REDENEN]).toBe(50);
    expect(s.overgeslagen[`status "${status(0)}"`]).toBe(1);
  });

  it('reads a zipped CSV', async () => {
    const f = schrijf(path.join(tmp.pad, 'bagadres-full.csv.zip'), maakZip({ 'bagadres-full.csv': readFileSync(CSV_FULL) }));
    const s = await voerImportUit(db, 'bag-csv', f);
    expect(s.gelezen).toBe(99);
    expect(s.tabellen.adres).toEqual({ ingevoegd: 0, bijgewerkt: 0, ongewijzigd: 99 });
  });

  it('refuses a file of another kind early, with a Dutch message naming the expected format', async () => {
    const runs = await db.prisma.importRun.count();
    const energie = schrijf(
      path.join(tmp.pad, 'labels.csv'),
      'Pand_opnamedatum;Pand_opnametype;Pand_postcode;Pand_huisnummer;Pand_registratiedatum;Pand_energieklasse\n20200101;basis;1011AB;1;20200101;A\n',
    );
    await expect(voerImportUit(db, 'bag-csv', energie)).rejects.toThrow(VerkeerdFormaatFout);
    await expect(voerImportUit(db, 'bag-csv', energie)).rejects.toThrow(/geen NLExtract bagadres-full CSV.*energielabels.*Verwacht: een NLExtract-adresbestand bagadres-full\.csv/);
    await expect(voerImportUit(db, 'bag-csv', CSV_KORT)).rejects.toThrow(/bagadres\.csv zonder nummeraanduiding/);
    await expect(voerImportUit(db, 'bag-csv', path.join(XML_MAP, '0221NUM15092020-000001.xml'))).rejects.toThrow(/XML-bestand.*bag-xml/);
    await expect(voerImportUit(db, 'bag-csv', path.join(tmp.pad, 'bestaat-niet.csv'))).rejects.toThrow(/niet gevonden/);
    await expect(voerImportUit(db, 'bag-csv', null)).rejects.toThrow(/heeft een bestand nodig/);
    await expect(voerImportUit(db, 'bag-csvv', CSV_FULL)).rejects.toThrow(/Onbekende importsoort "bag-csvv".*bag-csv/);
    expect(await db.prisma.importRun.count()).toBe(runs);
  });

  it('bagadresplus.csv: imports its NLExtract house types, which the derivation then leaves alone', async () => {
    const s = await voerImportUit(db, 'bag-csv', CSV_PLUS);
    expect(s.csvVariant).toBe('bagadresplus');
    expect(s.afgewezen).toBe(0);
    const typen = await db.prisma.woningtype.groupBy({ by: ['woningtype'], _count: true, orderBy: { woningtype: 'asc' } });
    expect(typen.map((t) => [t.woningtype, t._count])).toEqual([
      ['appartement', 47],
      ['tussenwoning', 2],
      ['vrijstaand', 1],
    ]);
    const d = await voerImportUit(db, 'woningtype-afleiden', null);
    expect((d.woningtype as { geimporteerdBehouden: number }).geimporteerdBehouden).toBe(50);
    expect(await db.prisma.woningtype.findUniqueOrThrow({ where: { adresId: '0363200000414310' } })).toMatchObject({
      woningtype: 'tussenwoning',
      bron: 'NLExtract bagadresplus',
      afgeleidUit: 'NLExtract bagadresplus: Tussen of geschakelde woning',
    });
  });
});

describe(`bag-csv refresh: ended objects and panden (${dialect})`, () => {
  const db = useTestDatabase();
  const tmp = tijdelijkeMap();
  afterAll(() => tmp.weg());

  it('skips a row whose object or pand has an ending status and deletes what an earlier import wrote for it', async () => {
    await voerImportUit(db, 'bag-csv', CSV_FULL);
    const regels = readFileSync(CSV_FULL, 'utf8').split('\n');
    const velden = regels.map((r) => r.split(';'));
    const perPand = new Map<string, number>();
    for (const v of velden.slice(1)) if (v[15]) perPand.set(v[15], (perPand.get(v[15]) ?? 0) + 1);
    const enkel = velden.findIndex((v, i) => i > 0 && v[15] && perPand.get(v[15]) === 1);
    const ander = velden.findIndex((v, i) => i > 0 && i !== enkel && v[13] === 'VBO');
    velden[enkel][16] = 'Pand gesloopt';
    velden[ander][11] = 'Verblijfsobject ingetrokken';
    const s = await voerImportUit(db, 'bag-csv', schrijf(path.join(tmp.pad, 'nieuw.csv'), velden.map((v) => v.join(';')).join('\n')));
    expect(s.overgeslagen).toEqual({ 'status "Verblijfsobject ingetrokken"': 1 });
    expect(s.verwijderd).toEqual({ adressen: 1, panden: 1 });
    expect(await db.prisma.adres.findUnique({ where: { id: velden[ander][8] } })).toBeNull();
    expect(await db.prisma.pand.findUnique({ where: { id: velden[enkel][15] } })).toBeNull();
    expect(await db.prisma.adres.count()).toBe(98);
  });
});
